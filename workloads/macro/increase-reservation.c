/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * increase-reservation: seed 001's second table.  A domain's memory is
 * populated at once, as at domain build: one increase_reservation of
 * size_mb (x scale_pct / 100) in extents of 2^order pages, continued when
 * preempted.  The seed's table is the axis
 *   --param size_mb=128,512,1024,2048,3072
 * One iteration = one population; the memory is given back after the
 * clock stops.  Each thread populates its own domain (vCPU on node).
 */
#include <errno.h>
#include <stdlib.h>

#include "../lib/wl_mem.h"

/* The params (incres_param_table[] below names each field). */
struct incres_params {
    uint64_t size_mb;
    uint64_t scale_pct;
    uint64_t order;
    uint64_t node;
    uint64_t dom0_mb;
    struct wl_mem_params mem;
};

struct incres {
    unsigned long extents;
    unsigned int order;
    struct hv_domain *d[HV_MAX_CPUS];
};

static uint64_t size_bytes(const struct hvb_cell *c)
{
    const struct incres_params *p = c->params;

    return (p->size_mb << 20) * p->scale_pct / 100;
}

/* What the cell allocates: every thread's domain, and dom0's. */
static uint64_t all_bytes(const struct hvb_cell *c)
{
    const struct incres_params *p = c->params;

    return size_bytes(c) * c->threads + (p->dom0_mb << 20);
}

static int incres_check(struct hvb_cell *c)
{
    const struct incres_params *p = c->params;

    if ( size_bytes(c) < (HV_PAGE_SIZE << p->order) )
    {
        hvb_cell_error(c, "size_mb x scale_pct is below one extent");
        return -EINVAL;
    }
    return wl_mem_check(c, &p->mem, p->node, all_bytes(c));
}

static void incres_configure(const struct hvb_cell *c, struct hv_config *cfg)
{
    const struct incres_params *p = c->params;

    wl_mem_configure(&p->mem, cfg, all_bytes(c));
}

static uint64_t incres_mem_need(const struct hvb_cell *c)
{
    const struct incres_params *p = c->params;
    uint64_t all = all_bytes(c);

    return wl_mem_need(&p->mem, all, wl_mem_scrubbed(&p->mem) ? all : 0);
}

/* dom0 populates dom0_mb on the domain's node before the clock starts. */
static int hold_dom0(struct hvb_cell *c, const struct incres_params *p)
{
    struct hv_cpu *cpu = wl_mem_prepare_cpu(c);
    struct hv_domain *d0;
    int rc;

    if ( cpu == NULL )
        return -ENOMEM;
    rc = wl_mem_domain(c, 0, p->node, &d0);
    if ( rc == 0 )
        rc = wl_mem_op(cpu, d0, true, p->dom0_mb << (20 - HV_PAGE_SHIFT), 0,
                       512, 0);
    hv_cpu_leave(cpu);
    if ( rc == -ENOMEM )
        hvb_cell_error(c, "the topology has too little memory for dom0_mb=%llu",
                       (unsigned long long)p->dom0_mb);
    return rc;
}

static int incres_prepare(struct hvb_cell *c)
{
    const struct incres_params *p = c->params;
    struct incres *s = calloc(1, sizeof(*s));
    unsigned int i;
    int rc = 0;

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    s->order = p->order;
    s->extents = size_bytes(c) >> (HV_PAGE_SHIFT + s->order);
    for ( i = 0; rc == 0 && i < c->threads && i < HV_MAX_CPUS; i++ )
        rc = wl_mem_domain(c, (domid_t)(1 + i), p->node, &s->d[i]);
    if ( rc == 0 && p->dom0_mb )
        rc = hold_dom0(c, p);
    return rc;
}

static void incres_thread(struct hvb_thread *t)
{
    const struct incres *s = t->cell->priv;
    struct hv_domain *d = s->d[t->index];
    uint64_t pages[HV_MAX_NUMNODES];
    struct wl_mem_snap snap;
    int rc = 0;

    wl_mem_snap(t->cpu, &snap);
    while ( hvb_keep_running_batch(t, 1) )
        rc = wl_mem_op(t->cpu, d, true, s->extents, s->order, s->extents, 0);
    if ( rc )
        hvb_counter_add(t, "enomem", 1, 0);
    wl_mem_counters(t, &snap);
    wl_mem_locality(t, d, wl_mem_vcpu_node(d), pages);
    hv_domain_relinquish_memory(t->cpu, d);
}

static const struct hv_opt incres_param_table[] = {
    HVB_PARAM_UINT_ROW(struct incres_params, size_mb, "512", 1, 1u << 22,
                       "memory to populate (MiB); seed: 128,512,1024,2048,"
                       "3072"),
    HVB_PARAM_UINT_ROW(struct incres_params, scale_pct, "100", 1, 10000,
                       "scale every size by this percentage (small hosts)"),
    HVB_PARAM_UINT_ROW(struct incres_params, order, "0", 0, HV_MAX_ORDER,
                       "extent order (domU max 9)"),
    HVB_PARAM_UINT_ROW(struct incres_params, node, "0", 0, HV_MAX_NUMNODES - 1,
                       "node of the domain's vCPU"),
    HVB_PARAM_UINT_ROW(struct incres_params, dom0_mb, "0", 0, 1u << 22,
                       "memory dom0 already holds on that node, populated "
                       "before the domain (MiB); seed 001: 914 of 2048"),
    WL_MEM_PARAMS(struct incres_params, mem),
    HVB_PARAM_TABLE_END,
};

static const char *const incres_slots[] = {"pgalloc", NULL};

HVB_REGISTER_WORKLOAD(incres_workload) = {
    .name = "increase-reservation",
    .kind = HVB_MACRO,
    .summary = "populate a domain's memory in one increase_reservation "
               "(seed 001 table)",
    .slots = incres_slots,
    .params = incres_param_table,
    .params_size = sizeof(struct incres_params),
    .flags = HVB_WF_ONE_SHOT,
    .check = incres_check,
    .configure = incres_configure,
    .mem_need = incres_mem_need,
    .prepare = incres_prepare,
    .thread = incres_thread,
    .cleanup = wl_free_priv,
    .smoke = "topology=2x64M+0 size_mb=4",
};
