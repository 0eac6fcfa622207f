/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * memwrite: seed 001's locality test.  A domain with one vCPU on node
 * `node` is given size_mb of memory by the pgalloc strategy (not timed),
 * then writes '0' over all of it (timed), as the seed's memset of a 512M
 * buffer.  Reports local_frac, the share of its pages on its vCPU's node,
 * and the write throughput:
 *
 *  - real topology (host with several nodes): the thread is pinned to the
 *    vCPU's host CPU and the memory is bound to its nodes: mib_per_s is
 *    measured;
 *  - emulated topology: every page is local in truth, so the local write
 *    speed is measured (mib_per_s_local_measured) and the remote penalty
 *    is MODELLED from the SLIT table: a page on node n costs
 *    distance[vnode][n] / distance[vnode][vnode] times a local one
 *    (mib_per_s_modelled).  Seed 001 measured 670 vs 438 MiB/s, a ratio
 *    of 1.53: distance=10:15 models about that.
 *
 * The memory is faulted in before the clock starts, so the figure is write
 * bandwidth, not page-fault cost.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/wl_mem.h"

/* The params (memwrite_param_table[] below names each field). */
struct memwrite_params {
    uint64_t size_mb;
    uint64_t node;
    struct wl_mem_params mem;
};

struct memwrite {
    unsigned long pages;
    struct hv_domain *d[HV_MAX_CPUS];
};

struct fill {
    struct hv *hv;
    int byte;
};

static void fill_extent(void *arg, uint32_t mfn, unsigned int order)
{
    const struct fill *f = arg;

    memset(hv_mfn_to_virt(f->hv, mfn), f->byte, HV_PAGE_SIZE << order);
}

/* The memory every domain gets, together. */
static uint64_t need_bytes(const struct hvb_cell *c)
{
    const struct memwrite_params *p = c->params;

    return (p->size_mb << 20) * c->threads;
}

static int memwrite_check(struct hvb_cell *c)
{
    const struct memwrite_params *p = c->params;

    return wl_mem_check(c, &p->mem, p->node, need_bytes(c));
}

static void memwrite_configure(const struct hvb_cell *c, struct hv_config *cfg)
{
    const struct memwrite_params *p = c->params;

    wl_mem_configure(&p->mem, cfg, need_bytes(c));
}

/* All of it is written. */
static uint64_t memwrite_mem_need(const struct hvb_cell *c)
{
    const struct memwrite_params *p = c->params;

    return wl_mem_need(&p->mem, need_bytes(c), need_bytes(c));
}

static int memwrite_prepare(struct hvb_cell *c)
{
    const struct memwrite_params *p = c->params;
    struct memwrite *s = calloc(1, sizeof(*s));
    unsigned int i;
    int rc = 0;

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    s->pages = p->size_mb << (20 - HV_PAGE_SHIFT);
    for ( i = 0; rc == 0 && i < c->threads && i < HV_MAX_CPUS; i++ )
        rc = wl_mem_domain(c, (domid_t)(1 + i), p->node, &s->d[i]);
    if ( rc == 0 && !hv_topology(c->hv)->real )
        fprintf(stderr,
                "hvbench: memwrite: emulated topology: the remote-memory "
                "penalty is modelled from the distance table "
                "(mib_per_s_modelled)\n");
    return rc;
}

static void memwrite_thread(struct hvb_thread *t)
{
    const struct memwrite *s = t->cell->priv;
    struct hv_domain *d = s->d[t->index];
    const struct hv_topology *topo = hv_topology(d->hv);
    unsigned int vnode = wl_mem_vcpu_node(d), n;
    uint64_t pages[HV_MAX_NUMNODES], t0 = 0, dt = 0;
    struct fill f = {.hv = d->hv, .byte = 1};
    double frac, mib, weighted = 0;

    if ( topo->real )
        (void)hv_topology_pin_cpu(d->hv, d->vcpu_processor[0]);
    HV_BUG_ON(wl_mem_op(t->cpu, d, true, s->pages, 0, 512, 0) != 0);
    hv_domain_for_each_extent(d, fill_extent, &f); /* fault it in */
    f.byte = 0;
    while ( hvb_keep_running_batch(t, 1) )
    {
        t0 = hv_now_ns();
        hv_domain_for_each_extent(d, fill_extent, &f);
        dt = hv_now_ns() - t0;
    }
    frac = wl_mem_locality(t, d, vnode, pages);
    mib = (double)(s->pages >> (20 - HV_PAGE_SHIFT));
    if ( dt )
    {
        if ( topo->real )
            hvb_counter_add(t, "mib_per_s", mib * 1e9 / (double)dt, 0);
        else
        {
            for ( n = 0; n < topo->nr_nodes; n++ )
                weighted += (double)pages[n] * topo->distance[vnode][n] /
                            topo->distance[vnode][vnode];
            hvb_counter_add(t, "mib_per_s_local_measured",
                            mib * 1e9 / (double)dt, 0);
            hvb_counter_add(
                t, "mib_per_s_modelled",
                mib * 1e9 / ((double)dt * weighted / (double)s->pages), 0);
        }
    }
    (void)frac;
    hv_domain_relinquish_memory(t->cpu, d);
}

static const struct hv_opt memwrite_param_table[] = {
    HVB_PARAM_UINT_ROW(struct memwrite_params, size_mb, "512", 1, 1u << 20,
                       "memory the domain gets and writes (MiB; seed: 512)"),
    HVB_PARAM_UINT_ROW(struct memwrite_params, node, "0", 0,
                       HV_MAX_NUMNODES - 1,
                       "node of the domain's vCPU (1 on 2 nodes: first-node "
                       "puts the memory on node 0)"),
    WL_MEM_PARAMS(struct memwrite_params, mem),
    HVB_PARAM_TABLE_END,
};

static const char *const memwrite_slots[] = {"pgalloc", NULL};

HVB_REGISTER_WORKLOAD(memwrite_workload) = {
    .name = "memwrite",
    .kind = HVB_MACRO,
    .summary = "write all of a domain's memory: locality and MiB/s "
               "(remote penalty modelled on emulated nodes; seed 001)",
    .slots = memwrite_slots,
    .params = memwrite_param_table,
    .params_size = sizeof(struct memwrite_params),
    .flags = HVB_WF_ONE_SHOT,
    .check = memwrite_check,
    .configure = memwrite_configure,
    .mem_need = memwrite_mem_need,
    .prepare = memwrite_prepare,
    .thread = memwrite_thread,
    .cleanup = wl_free_priv,
    .smoke = "topology=2x64M+0 size_mb=4",
};
