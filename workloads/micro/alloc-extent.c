/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * alloc-extent: the cost of one extent through the allocator.  Each
 * thread's domain (vCPU on node) allocates a batch of extents of 2^order
 * pages in one increase_reservation, then frees them in one
 * decrease_reservation; one op = one extent allocated and freed.
 * prefill_pct > 0 first hands that share of the vCPU's node to a filler
 * domain, so allocations must search further: the case where a strategy
 * without an avail[] pre-check probes the exhausted node's lists.
 */
#include <errno.h>
#include <stdlib.h>

#include "../lib/wl_mem.h"

/* The params (allocx_param_table[] below names each field). */
struct allocx_params {
    uint64_t order;
    uint64_t batch;
    uint64_t node;
    uint64_t prefill_pct;
    struct wl_mem_params mem;
};

#define FILLER_DOMID 1000

struct allocx {
    unsigned int order, batch;
    struct hv_domain *d[HV_MAX_CPUS];
};

/* One batch per thread, and room for the filler. */
static uint64_t need_bytes(const struct hvb_cell *c)
{
    const struct allocx_params *p = c->params;
    uint64_t per = p->batch << (HV_PAGE_SHIFT + p->order);

    return per * c->threads + (64ull << 20);
}

static int allocx_check(struct hvb_cell *c)
{
    const struct allocx_params *p = c->params;

    return wl_mem_check(c, &p->mem, p->node, 0); /* the filler takes all */
}

static void allocx_configure(const struct hvb_cell *c, struct hv_config *cfg)
{
    const struct allocx_params *p = c->params;

    wl_mem_configure(&p->mem, cfg, need_bytes(c));
}

static uint64_t allocx_mem_need(const struct hvb_cell *c)
{
    const struct allocx_params *p = c->params;

    return wl_mem_need(&p->mem, need_bytes(c),
                       wl_mem_scrubbed(&p->mem) ? need_bytes(c) : 0);
}

static int allocx_prepare(struct hvb_cell *c)
{
    const struct allocx_params *p = c->params;
    struct allocx *s = calloc(1, sizeof(*s));
    unsigned int i, node = p->node;
    uint64_t pct = p->prefill_pct;
    struct hv_domain *filler;
    struct hv_cpu *cpu;
    int rc = 0;

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    s->order = p->order;
    s->batch = p->batch;
    for ( i = 0; rc == 0 && i < c->threads && i < HV_MAX_CPUS; i++ )
        rc = wl_mem_domain(c, (domid_t)(1 + i), node, &s->d[i]);
    if ( rc || pct == 0 )
        return rc;
    /* The filler takes pct% of the node the first domain runs on. */
    node = wl_mem_vcpu_node(s->d[0]);
    cpu = wl_mem_prepare_cpu(c);
    if ( cpu == NULL )
        return -EBUSY;
    rc = wl_mem_domain(c, FILLER_DOMID, node, &filler);
    if ( rc == 0 )
    {
        rc = wl_mem_op(cpu, filler, true,
                       hv_topology(c->hv)->node_pages[node] * pct / 100, 0, 512,
                       HV_MEMF_node(node) | HV_MEMF_exact_node);
        if ( rc == -ENOMEM )
            rc = 0; /* 100%: the node is now exhausted */
    }
    /* The domains' batches must still fit somewhere. */
    for ( i = 0; rc == 0 && i < c->threads && i < HV_MAX_CPUS; i++ )
    {
        rc = wl_mem_op(cpu, s->d[i], true, s->batch, s->order, s->batch, 0);
        if ( rc == -ENOMEM )
            hvb_cell_error(c,
                           "prefill_pct=%u leaves no room for the "
                           "domains' batches: use a topology with "
                           "another node",
                           (unsigned int)pct);
    }
    for ( i = 0; i < c->threads && i < HV_MAX_CPUS; i++ )
        hv_domain_relinquish_memory(cpu, s->d[i]);
    hv_cpu_leave(cpu);
    return rc;
}

static void allocx_thread(struct hvb_thread *t)
{
    const struct allocx *s = t->cell->priv;
    struct hv_domain *d = s->d[t->index];
    struct wl_mem_snap snap;

    wl_mem_snap(t->cpu, &snap);
    while ( hvb_keep_running_batch(t, s->batch) )
    {
        HV_BUG_ON(wl_mem_op(t->cpu, d, true, s->batch, s->order, s->batch, 0) !=
                  0);
        HV_BUG_ON(
            wl_mem_op(t->cpu, d, false, s->batch, s->order, s->batch, 0) != 0);
    }
    wl_mem_counters(t, &snap);
}

static const struct hv_opt allocx_param_table[] = {
    HVB_PARAM_UINT_ROW(struct allocx_params, order, "0", 0, HV_MAX_ORDER,
                       "extent order (0: 4 KiB, 9: 2 MiB)"),
    HVB_PARAM_UINT_ROW(struct allocx_params, batch, "64", 1, 4096,
                       "extents per hypercall (allocated, then freed)"),
    HVB_PARAM_UINT_ROW(struct allocx_params, node, "0", 0, HV_MAX_NUMNODES - 1,
                       "node of the domains' vCPU"),
    HVB_PARAM_UINT_ROW(struct allocx_params, prefill_pct, "0", 0, 100,
                       "share of that node a filler domain takes first"),
    WL_MEM_PARAMS(struct allocx_params, mem),
    HVB_PARAM_TABLE_END,
};

static const char *const allocx_slots[] = {"pgalloc", NULL};

HVB_REGISTER_WORKLOAD(allocx_workload) = {
    .name = "alloc-extent",
    .kind = HVB_MICRO,
    .summary = "allocate and free one extent (ns per extent, by order)",
    .slots = allocx_slots,
    .params = allocx_param_table,
    .params_size = sizeof(struct allocx_params),
    .check = allocx_check,
    .mem_need = allocx_mem_need,
    .configure = allocx_configure,
    .prepare = allocx_prepare,
    .thread = allocx_thread,
    .cleanup = wl_free_priv,
    .smoke = "topology=2x64M+0 batch=8 order=0,9",
};
