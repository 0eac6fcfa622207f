/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pgalloc/first-node: no NUMA awareness, the baseline of seed 001 ("without
 * NUMA").  The nodes are searched in address order, so memory comes from
 * the lowest node that has some, whatever CPU the domain runs on.  The
 * O(1) avail[node][zone] check keeps exhausted and memory-less nodes as
 * cheap as a single-heap allocator finds them.  MEMF_node only moves the
 * start; MEMF_exact_node is honoured, as the memory-op ABI demands.
 */
#include <hv/pgalloc.h>

static struct hv_page_info *
first_node_get_free_buddy(struct hv_heap *h, void *priv,
                          const struct hv_alloc_req *req)
{
    unsigned int req_node = HV_MEMF_get_node(req->memflags), node;
    struct hv_page_info *pg;

    if ( req_node < h->nr_nodes )
    {
        pg = hv_heap_take_from_node(h, req->cpu, req_node, req->order);
        if ( pg != NULL || (req->memflags & HV_MEMF_exact_node) )
            return pg;
    }
    for ( node = 0; node < h->nr_nodes; node++ )
    {
        if ( node == req_node )
            continue;
        pg = hv_heap_take_from_node(h, req->cpu, node, req->order);
        if ( pg != NULL )
            return pg;
    }
    return NULL;
}

static const struct hv_pgalloc_ops first_node_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("pgalloc", "first-node", struct hv_pgalloc_ops),
            .summary = "no NUMA awareness: the lowest node with memory first "
                       "(seed 001 'without NUMA')",
        },
    .get_free_buddy = first_node_get_free_buddy,
};

HV_REGISTER_PLUGIN(first_node_ops);
