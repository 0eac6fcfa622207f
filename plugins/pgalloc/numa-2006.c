/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pgalloc/numa-2006: the first NUMA allocator as posted (R. Harper, 2006;
 * seed 001 "with NUMA", before the four optimisations).  Memory comes from
 * the node of the CPU of the vCPU the extent is spread to (extent i goes to
 * vCPU i mod nr_vcpus), then from the other nodes nearest first.  The costs
 * the seed measured are all here, and all real work:
 *
 *  1. num_online_nodes() (a software hweight of the MAX_NUMNODES online
 *     map, as 2006's bitmap_weight) is recomputed in every loop condition;
 *  2. the whole fallback order is sorted by SLIT distance on every call,
 *     even when the first node will serve it;
 *  3. pages are spread across vCPUs, extent by extent;
 *  4. no avail[] pre-check: a node that cannot serve the request (empty,
 *     memory-less or exhausted) still has every free list of order..
 *     MAX_ORDER probed.  Ballooning past the local node therefore probes
 *     the exhausted node's lists before every single page (perfc
 *     pgalloc_probe per extent shows it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/pgalloc.h>

struct numa2006 {
    uint64_t node_online_map; /* MAX_NUMNODES = 64 bits */
    uint8_t cpu_to_node[HV_MAX_CPUS];
};

static int numa2006_init(struct hv *hv, const void *opts, void **priv)
{
    const struct hv_topology *t = hv_topology(hv);
    struct numa2006 *s = calloc(1, sizeof(*s));
    unsigned int c, n;

    if ( s == NULL )
        return -ENOMEM;
    for ( n = 0; n < t->nr_nodes; n++ )
        s->node_online_map |= 1ull << n;
    for ( c = 0; c < t->nr_cpus; c++ )
        s->cpu_to_node[c] = t->cpu_to_node[c];
    *priv = s;
    return 0;
}

static void numa2006_fini(struct hv *hv, void *priv)
{
    free(priv);
}

/* 2006's generic hweight64 (no popcnt instruction assumed). */
static unsigned int num_online_nodes(const struct numa2006 *s)
{
    uint64_t w = *(volatile const uint64_t *)&s->node_online_map;

    w -= (w >> 1) & 0x5555555555555555ull;
    w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned int)((w * 0x0101010101010101ull) >> 56);
}

static struct hv_page_info *
numa2006_get_free_buddy(struct hv_heap *h, void *priv,
                        const struct hv_alloc_req *req)
{
    const struct numa2006 *s = priv;
    unsigned int req_node = HV_MEMF_get_node(req->memflags);
    unsigned int order[HV_MAX_NUMNODES], cpu, node, i, j, zone;
    const struct hv_domain *d = req->d;
    struct hv_page_info *pg;

    /* The node of the vCPU this extent is spread to. */
    if ( d != NULL && d->nr_vcpus )
        cpu = d->vcpu_processor[req->extent % d->nr_vcpus];
    else
        cpu = req->cpu->id;
    node = req_node < h->nr_nodes ? req_node : s->cpu_to_node[cpu];

    /* Fallback order, nearest first: computed on every call. */
    for ( i = 0; i < num_online_nodes(s); i++ )
        order[i] = i;
    for ( i = 0; i < num_online_nodes(s); i++ )
    {
        unsigned int best = i;

        for ( j = i + 1; j < num_online_nodes(s); j++ )
        {
            unsigned int dj = h->topo->distance[node][order[j]];
            unsigned int db = h->topo->distance[node][order[best]];

            if ( dj < db || (dj == db && order[j] == node) )
                best = j;
        }
        j = order[i];
        order[i] = order[best];
        order[best] = j;
    }

    for ( i = 0; i < num_online_nodes(s); i++ )
    {
        unsigned int n = order[i], zlo = h->node_zone_lo[n];

        if ( (req->memflags & HV_MEMF_exact_node) && req_node < h->nr_nodes &&
             n != req_node )
            continue;
        hv_perfc_incr(req->cpu, pgalloc_node_scan);
        /* No avail[] check: probe every list of the node. */
        for ( zone = h->node_zone_hi[n]; zone >= zlo; zone-- )
            for ( j = req->order; j <= HV_MAX_ORDER; j++ )
                if ( (pg = hv_heap_take(h, req->cpu, n, zone, j)) != NULL )
                    return pg;
    }
    return NULL;
}

static const struct hv_pgalloc_ops numa2006_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("pgalloc", "numa-2006", struct hv_pgalloc_ops),
            .summary = "2006 NUMA allocator: vCPU-local node then nearest, "
                       "node order recomputed and every list probed per call",
        },
    .init = numa2006_init,
    .fini = numa2006_fini,
    .get_free_buddy = numa2006_get_free_buddy,
};

HV_REGISTER_PLUGIN(numa2006_ops);
