/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domlookup/percpu-ref: the per-CPU reference count discussed in 2006 and
 * not merged for struct domain (it came back in 2016 as per-cpu rwlocks
 * for grant tables).  Every domain carries one cache-line-padded counter
 * per CPU; a lookup increments its own CPU's counter inside an RCU read
 * section and a release decrements it, so no line is shared between CPUs
 * on the hot path, at the price of one locked increment and decrement on
 * a local line and ncpus cache lines of memory per domain.
 *
 * Destroy waits for the sum to reach zero, without blocking the caller:
 *   unlink d; call_rcu(check):  after one grace period no lookup can still
 *   be between its hash walk and its increment, so the counters can only
 *   go down; check() sums them and frees d at zero, else re-queues itself
 *   for the next grace period.
 * A snapshot sum of counters that only decrease can read high but never
 * falsely zero, so the non-atomic sum is safe.
 */
#include <errno.h>
#include <stdlib.h>

#include <hv/domlookup.h>
#include <hv/hv.h>

struct percpu_ref_opts {
    unsigned int ncpus; /* 0: one counter per model CPU */
};

struct percpu_counter {
    _Atomic long count;
} __hv_cacheline_aligned;

struct percpu_ref_dom {
    struct hv_rcu_head rcu;
    struct hv_domain *d;
    unsigned int n;
    struct percpu_counter *c;
};

struct percpu_ref {
    unsigned int ncpus;
    struct hv_domtab *tab; /* cached, as rwlock-ref caches it */
};

static int percpu_ref_init(struct hv *hv, const void *opts, void **priv)
{
    const struct percpu_ref_opts *o = opts;
    struct percpu_ref *p = malloc(sizeof(*p));

    if ( p == NULL )
        return -ENOMEM;
    p->ncpus = o->ncpus ? o->ncpus : hv_nr_cpus(hv);
    p->tab = hv_domtab(hv);
    *priv = p;
    return 0;
}

static void percpu_ref_fini(struct hv *hv, void *priv)
{
    free(priv);
}

static int percpu_ref_domain_init(struct hv *hv, void *priv,
                                  struct hv_domain *d)
{
    struct percpu_ref *p = priv;
    struct percpu_ref_dom *pd = malloc(sizeof(*pd));
    unsigned int i;

    if ( pd == NULL )
        return -ENOMEM;
    pd->c = aligned_alloc(HV_CACHELINE, sizeof(*pd->c) * p->ncpus);
    if ( pd->c == NULL )
    {
        free(pd);
        return -ENOMEM;
    }
    for ( i = 0; i < p->ncpus; i++ )
        atomic_init(&pd->c[i].count, 0);
    pd->n = p->ncpus;
    pd->d = d;
    d->lookup_priv = pd;
    return 0;
}

static void percpu_ref_domain_fini(struct hv *hv, void *priv,
                                   struct hv_domain *d)
{
    struct percpu_ref_dom *pd = d->lookup_priv;

    free(pd->c);
    free(pd);
    d->lookup_priv = NULL;
}

static struct hv_domain *percpu_ref_lock(struct hv_cpu *cpu, void *priv,
                                         domid_t id)
{
    struct percpu_ref *p = priv;
    struct hv_domain *d;

    hv_rcu_read_lock(cpu);
    d = hv_domid_to_domain(p->tab, id);
    if ( d != NULL )
    {
        struct percpu_ref_dom *pd = d->lookup_priv;

        atomic_fetch_add_explicit(&pd->c[cpu->id % p->ncpus].count, 1,
                                  memory_order_relaxed);
    }
    hv_rcu_read_unlock(cpu);
    return d;
}

static void percpu_ref_unlock(struct hv_cpu *cpu, void *priv,
                              struct hv_domain *d)
{
    struct percpu_ref *p = priv;
    struct percpu_ref_dom *pd = d->lookup_priv;

    atomic_fetch_sub_explicit(&pd->c[cpu->id % p->ncpus].count, 1,
                              memory_order_release);
}

static void percpu_ref_check(struct hv_rcu_head *head)
{
    struct percpu_ref_dom *pd = container_of(head, struct percpu_ref_dom, rcu);
    long sum = 0;
    unsigned int i;

    for ( i = 0; i < pd->n; i++ )
        sum += atomic_load_explicit(&pd->c[i].count, memory_order_acquire);
    if ( sum != 0 )
    {
        hv_call_rcu(pd->d->hv, &pd->rcu, percpu_ref_check);
        return;
    }
    hv_domain_free(pd->d);
}

static void percpu_ref_retire(struct hv *hv, void *priv, struct hv_domain *d)
{
    struct percpu_ref_dom *pd = d->lookup_priv;

    hv_call_rcu(hv, &pd->rcu, percpu_ref_check);
}

static const struct hv_opt percpu_ref_opts[] = {
    HV_OPT_UINT_ROW(struct percpu_ref_opts, ncpus, "ncpus", "0", 0, HV_MAX_CPUS,
                    "counters per domain; 0 = one per model CPU (CPU i "
                    "uses counter i mod ncpus)"),
    HV_OPT_TABLE_END,
};

static const struct hv_domlookup_ops percpu_ref_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("domlookup", "percpu-ref", struct hv_domlookup_ops),
            .flags = HV_PF_LONG_REF,
            .summary = "RCU hash walk + padded per-CPU counters; destroy waits "
                       "for their sum to reach zero",
            .opts = percpu_ref_opts,
            .opts_size = sizeof(struct percpu_ref_opts),
        },
    .init = percpu_ref_init,
    .fini = percpu_ref_fini,
    .domain_init = percpu_ref_domain_init,
    .domain_fini = percpu_ref_domain_fini,
    .lock = percpu_ref_lock,
    .unlock = percpu_ref_unlock,
    .retire = percpu_ref_retire,
};

HV_REGISTER_PLUGIN(percpu_ref_ops);
