/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * balloon: seed 001's allocator-overhead test.  A domain starts ballooned
 * down to start_mb and balloons back up to size_mb the way the Linux
 * balloon driver does it: batches of 512 order-0 extents (one page of
 * frame numbers), one increase_reservation hypercall per batch, so one
 * heap-lock acquisition and one strategy call per page.  With domains=N
 * the domains balloon at once, thread i driving domains i, i+T, ... with
 * their batches interleaved; domain k's vCPU sits on node (node + k) of
 * the nodes with CPUs.  One iteration = every domain from start to full;
 * ballooning back down happens after the clock stops.
 *
 * Reports probes, nodes searched and off-affinity extents per extent (the
 * reason a strategy is slower) and local_frac, the share of the domains'
 * pages on their vCPU's node.
 */
#include <errno.h>
#include <stdlib.h>

#include "../lib/wl_mem.h"

/* The params (balloon_param_table[] below names each field). */
struct balloon_params {
    uint64_t size_mb;
    uint64_t start_mb;
    uint64_t batch;
    uint64_t domains;
    uint64_t node;
    struct wl_mem_params mem;
};

#define FIRST_DOMID 1

struct balloon {
    unsigned long start_pages, full_pages, batch;
    unsigned int domains;
    struct hv_domain **d;
};

/* Every domain full, together. */
static uint64_t need_bytes(const struct hvb_cell *c)
{
    const struct balloon_params *p = c->params;

    return p->size_mb * p->domains << 20;
}

static int balloon_check(struct hvb_cell *c)
{
    const struct balloon_params *p = c->params;

    if ( p->start_mb >= p->size_mb )
    {
        hvb_cell_error(c, "start_mb must be below size_mb");
        return -EINVAL;
    }
    return wl_mem_check(c, &p->mem, p->node, need_bytes(c));
}

static void balloon_configure(const struct hvb_cell *c, struct hv_config *cfg)
{
    const struct balloon_params *p = c->params;

    wl_mem_configure(&p->mem, cfg, need_bytes(c));
}

/* Only scrubbing writes the pages; the frame table grows regardless. */
static uint64_t balloon_mem_need(const struct hvb_cell *c)
{
    const struct balloon_params *p = c->params;

    return wl_mem_need(&p->mem, need_bytes(c),
                       wl_mem_scrubbed(&p->mem) ? need_bytes(c) : 0);
}

static int balloon_prepare(struct hvb_cell *c)
{
    const struct balloon_params *p = c->params;
    struct balloon *s = calloc(1, sizeof(*s));
    struct hv_cpu *cpu;
    unsigned int k;
    int rc = 0;

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    s->start_pages = p->start_mb << (20 - HV_PAGE_SHIFT);
    s->full_pages = p->size_mb << (20 - HV_PAGE_SHIFT);
    s->batch = p->batch;
    s->domains = p->domains;
    s->d = calloc(s->domains, sizeof(*s->d));
    cpu = wl_mem_prepare_cpu(c);
    if ( s->d == NULL || cpu == NULL )
        return -ENOMEM;
    for ( k = 0; rc == 0 && k < s->domains; k++ )
    {
        rc = wl_mem_domain(c, FIRST_DOMID + k, p->node + k, &s->d[k]);
        if ( rc == 0 )
            rc = wl_mem_op(cpu, s->d[k], true, s->start_pages, 0, s->batch, 0);
    }
    hv_cpu_leave(cpu);
    if ( rc == -ENOMEM )
        hvb_cell_error(c,
                       "the topology has too little memory for %u x %lu "
                       "MiB",
                       s->domains, s->full_pages >> (20 - HV_PAGE_SHIFT));
    return rc;
}

static void balloon_thread(struct hvb_thread *t)
{
    const struct balloon *s = t->cell->priv;
    uint64_t pages[HV_MAX_NUMNODES];
    struct wl_mem_snap snap;
    unsigned int k;
    double local = 0;
    unsigned int mine = 0;

    wl_mem_snap(t->cpu, &snap);
    while ( hvb_keep_running_batch(t, 1) )
    {
        bool more = true;

        /* Round robin: one hypercall per domain per round. */
        while ( more )
        {
            more = false;
            for ( k = t->index; k < s->domains; k += t->nthreads )
            {
                struct hv_domain *d = s->d[k];
                unsigned long left = s->full_pages - d->tot_pages;

                if ( left == 0 )
                    continue;
                HV_BUG_ON(wl_mem_op(t->cpu, d, true,
                                    left < s->batch ? left : s->batch, 0,
                                    s->batch, 0) != 0);
                more = true;
            }
        }
    }
    wl_mem_counters(t, &snap);
    for ( k = t->index; k < s->domains; k += t->nthreads, mine++ )
    {
        struct hv_domain *d = s->d[k];
        uint64_t total = hv_domain_node_pages(d, pages);

        local += total ? (double)pages[wl_mem_vcpu_node(d)] / total : 0;
        /* Balloon down again for the next repetition, unmeasured. */
        HV_BUG_ON(wl_mem_op(t->cpu, d, false, d->tot_pages - s->start_pages, 0,
                            s->batch, 0) != 0);
    }
    if ( mine )
        hvb_counter_add(t, "local_frac", local / mine / t->nthreads, 0);
}

static void balloon_cleanup(struct hvb_cell *c)
{
    struct balloon *s = c->priv;

    if ( s )
        free(s->d);
    free(s);
    c->priv = NULL;
}

static const struct hv_opt balloon_param_table[] = {
    HVB_PARAM_UINT_ROW(struct balloon_params, size_mb, "4096", 2, 1u << 22,
                       "full size of each domain (MiB; seed: 4 GiB)"),
    HVB_PARAM_UINT_ROW(struct balloon_params, start_mb, "256", 1, 1u << 22,
                       "size each domain is ballooned down to (MiB)"),
    HVB_PARAM_UINT_ROW(struct balloon_params, batch, "512", 1, 1u << 20,
                       "order-0 extents per hypercall (Linux: 512)"),
    HVB_PARAM_UINT_ROW(struct balloon_params, domains, "1", 1, 64,
                       "domains ballooning at once (spread over threads)"),
    HVB_PARAM_UINT_ROW(struct balloon_params, node, "0", 0, HV_MAX_NUMNODES - 1,
                       "node of domain 0's vCPU; domain k: node + k"),
    WL_MEM_PARAMS(struct balloon_params, mem),
    HVB_PARAM_TABLE_END,
};

static const char *const balloon_slots[] = {"pgalloc", NULL};

HVB_REGISTER_WORKLOAD(balloon_workload) = {
    .name = "balloon",
    .kind = HVB_MACRO,
    .summary = "balloon domains from start_mb to size_mb in 512-page "
               "hypercalls (seed 001)",
    .slots = balloon_slots,
    .params = balloon_param_table,
    .params_size = sizeof(struct balloon_params),
    .flags = HVB_WF_ONE_SHOT,
    .check = balloon_check,
    .configure = balloon_configure,
    .mem_need = balloon_mem_need,
    .prepare = balloon_prepare,
    .thread = balloon_thread,
    .cleanup = balloon_cleanup,
    .smoke = "topology=2x64M+0 size_mb=8 start_mb=2",
};
