/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pgalloc/numa: today's get_free_buddy() (xen@HEAD:xen/common/page_alloc.c,
 * 91c6005e01, 1ae0db5e48).  The node is the requested one (MEMF_node), else
 * cycle_node(d->last_alloc_node, d->node_affinity & online), else the
 * local CPU's node.  Per node an O(1) avail[node][zone] pre-check comes
 * before any free list is touched; the next node is computed only when
 * the current one fails; after the affinity nodes, the other online
 * nodes are tried once; MEMF_exact_node stops at the requested node.
 *
 *   d0 on node 1, affinity {1}, node 1 exhausted:
 *     node 1: avail[1][z] < 1 for every zone -> no list probed
 *     affinity exhausted -> nodemask = online & ~tried = {0, 2, 3}
 *     node 2: memory-less (!avail[2]) -> skipped in O(1)
 *     node 3: avail ok -> probe lists order..MAX_ORDER until one is non-empty
 */
#include <hv/pgalloc.h>

static struct hv_page_info *numa_get_free_buddy(struct hv_heap *h, void *priv,
                                                const struct hv_alloc_req *req)
{
    unsigned int req_node = HV_MEMF_get_node(req->memflags), node;
    uint64_t nodemask = h->online_mask, tried = 0;
    bool use_tail = false;
    struct hv_page_info *pg;

    if ( req_node >= h->nr_nodes )
        req_node = HV_NUMA_NO_NODE;
    if ( req->d != NULL && req->d->node_affinity )
        nodemask &= req->d->node_affinity;
    if ( nodemask == 0 )
        nodemask = h->online_mask;
    if ( req_node != HV_NUMA_NO_NODE )
        node = req_node;
    else if ( req->d != NULL )
        node = hv_cycle_node(req->d->last_alloc_node, nodemask);
    else
        node = hv_heap_cpu_to_node(h, req->cpu->id);
    if ( node >= h->nr_nodes )
        node = (unsigned int)__builtin_ctzll(nodemask);

    for ( ;; )
    {
        if ( (pg = hv_heap_take_from_node(h, req->cpu, node, req->order)) )
            return pg;
        if ( (req->memflags & HV_MEMF_exact_node) &&
             req_node != HV_NUMA_NO_NODE )
            return NULL;
        /* Pick the next node, only now that this one failed. */
        tried |= 1ull << node;
        nodemask &= ~tried;
        if ( nodemask == 0 )
        {
            if ( use_tail )
                return NULL;
            /* Then the online nodes outside the affinity, once. */
            use_tail = true;
            nodemask = h->online_mask & ~tried;
            if ( nodemask == 0 )
                return NULL;
        }
        node = hv_cycle_node(node, nodemask);
    }
}

static const struct hv_pgalloc_ops numa_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("pgalloc", "numa", struct hv_pgalloc_ops),
            .summary = "node affinity + last_alloc_node round robin, O(1) "
                       "avail pre-check, next node only on failure (Xen today)",
        },
    .get_free_buddy = numa_get_free_buddy,
};

HV_REGISTER_PLUGIN(numa_ops);
