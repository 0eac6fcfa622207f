/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pgalloc/pgalloc-inexact: the negative control of the pgalloc slot.  It
 * is first-node with one bug: MEMF_exact_node is ignored, so a request for
 * "node 1 only" quietly takes node 0's memory once node 1 is exhausted.
 * The conformance suite's exact-node test must fail on it; if it does not,
 * that test proves nothing.  Test-only (HV_PF_TEST_ONLY).
 */
#include <hv/pgalloc.h>

static struct hv_page_info *
inexact_get_free_buddy(struct hv_heap *h, void *priv,
                       const struct hv_alloc_req *req)
{
    unsigned int node;
    struct hv_page_info *pg;

    for ( node = 0; node < h->nr_nodes; node++ )
        if ( (pg = hv_heap_take_from_node(h, req->cpu, node, req->order)) )
            return pg;
    return NULL;
}

static const struct hv_pgalloc_ops inexact_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("pgalloc", "pgalloc-inexact", struct hv_pgalloc_ops),
            .summary = "negative control: ignores MEMF_exact_node",
            .flags = HV_PF_TEST_ONLY,
        },
    .get_free_buddy = inexact_get_free_buddy,
};

HV_REGISTER_PLUGIN(inexact_ops);
