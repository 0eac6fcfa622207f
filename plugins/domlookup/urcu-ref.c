/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domlookup/urcu-ref: the industrial peer.  The same lookup as rcu-ref,
 * but the read side and the deferred free come from liburcu's memb
 * flavour (urcu_memb_read_lock: a per-thread nesting count plus a
 * compiler/membarrier-based ordering, grace periods detected by liburcu,
 * frees run by its call_rcu worker thread).  Comparing it with rcu-ref
 * measures what the model's own RCU costs against a library used in
 * production.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <urcu/urcu-memb.h>

#include <hv/domlookup.h>
#include <hv/hv.h>

struct urcu_dom {
    struct rcu_head head;
    struct hv_domain *d;
};

/*
 * liburcu registration is per thread; a thread may be several model CPUs
 * (of several machines) at once, so count: register on 0 -> 1, unregister
 * on 1 -> 0.
 */
static __thread unsigned int urcu_cpus;

static int urcu_ref_domain_init(struct hv *hv, void *priv, struct hv_domain *d)
{
    struct urcu_dom *u = malloc(sizeof(*u));

    if ( u == NULL )
        return -ENOMEM;
    u->d = d;
    d->lookup_priv = u;
    return 0;
}

static void urcu_ref_domain_fini(struct hv *hv, void *priv, struct hv_domain *d)
{
    free(d->lookup_priv);
    d->lookup_priv = NULL;
}

static int urcu_ref_cpu_online(struct hv_cpu *cpu, void *priv)
{
    if ( urcu_cpus++ == 0 )
        urcu_memb_register_thread();
    return 0;
}

static void urcu_ref_cpu_offline(struct hv_cpu *cpu, void *priv)
{
    if ( urcu_cpus > 0 && --urcu_cpus == 0 )
        urcu_memb_unregister_thread();
}

static struct hv_domain *urcu_ref_lock(struct hv_cpu *cpu, void *priv,
                                       domid_t id)
{
    struct hv_domain *d;

    urcu_memb_read_lock();
    d = hv_domid_to_domain(priv, id);
    if ( d != NULL &&
         unlikely(!hv_get_domain(d, &cpu->perfc[HV_PERFC_dom_cas_retry])) )
        d = NULL;
    urcu_memb_read_unlock();
    return d;
}

static void urcu_ref_unlock(struct hv_cpu *cpu, void *priv, struct hv_domain *d)
{
    hv_put_domain(d);
}

/*
 * An ordered walk: frees wait for liburcu's grace periods, not the
 * model's, so the walk holds a liburcu read section (the thread is
 * registered: the walk runs on a model CPU).
 */
static void urcu_ref_walk_begin(struct hv_cpu *cpu, void *priv)
{
    urcu_memb_read_lock();
}

static void urcu_ref_walk_end(struct hv_cpu *cpu, void *priv)
{
    urcu_memb_read_unlock();
}

static void urcu_ref_free(struct rcu_head *head)
{
    hv_domain_free(caa_container_of(head, struct urcu_dom, head)->d);
}

/* liburcu wants call_rcu() from a registered thread. */
static void urcu_ref_retire(struct hv *hv, void *priv, struct hv_domain *d)
{
    struct urcu_dom *u = d->lookup_priv;
    bool temp = urcu_cpus == 0;

    if ( temp )
        urcu_memb_register_thread();
    urcu_memb_call_rcu(&u->head, urcu_ref_free);
    if ( temp )
        urcu_memb_unregister_thread();
}

static void urcu_ref_fini(struct hv *hv, void *priv)
{
    urcu_memb_barrier();
}

static const struct hv_domlookup_ops urcu_ref_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("domlookup", "urcu-ref", struct hv_domlookup_ops),
            .flags = HV_PF_LONG_REF | HV_PF_TSAN_BLIND,
            .summary = "liburcu (memb) read section + CAS refcount: the "
                       "industrial peer of rcu-ref",
        },
    .init = hv_domlookup_init_domtab,
    .fini = urcu_ref_fini,
    .domain_init = urcu_ref_domain_init,
    .domain_fini = urcu_ref_domain_fini,
    .cpu_online = urcu_ref_cpu_online,
    .cpu_offline = urcu_ref_cpu_offline,
    .lock = urcu_ref_lock,
    .unlock = urcu_ref_unlock,
    .retire = urcu_ref_retire,
    .walk_begin = urcu_ref_walk_begin,
    .walk_end = urcu_ref_walk_end,
};

HV_REGISTER_PLUGIN(urcu_ref_ops);
