/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domlookup/rcu-ref: Xen's get_domain_by_id() since 2007 (c6c62d99d8).
 *
 *   rcu_read_lock(&domlist_read_lock);  hash walk;  get_domain(d);
 *   rcu_read_unlock(&domlist_read_lock);  ... op ...  put_domain(d);
 *
 * The read side costs nothing (a per-CPU nesting count; the guarantee is
 * that this CPU reports no quiescent state until its batch ends), so the
 * two rwlock atomics are gone.  The refcount CAS and the decrement on the
 * domain's shared refcnt line remain: the last third of the 2006 cost.
 * A destroyed domain is unlinked and freed after a grace period.
 */
#include <hv/domlookup.h>
#include <hv/hv.h>

static struct hv_domain *rcu_ref_lock(struct hv_cpu *cpu, void *priv,
                                      domid_t id)
{
    struct hv_domain *d;

    hv_rcu_read_lock(cpu);
    d = hv_domid_to_domain(priv, id);
    if ( d != NULL &&
         unlikely(!hv_get_domain(d, &cpu->perfc[HV_PERFC_dom_cas_retry])) )
        d = NULL;
    hv_rcu_read_unlock(cpu);
    return d;
}

static void rcu_ref_unlock(struct hv_cpu *cpu, void *priv, struct hv_domain *d)
{
    hv_put_domain(d);
}

static void rcu_ref_retire(struct hv *hv, void *priv, struct hv_domain *d)
{
    hv_domain_free_rcu(d);
}

static const struct hv_domlookup_ops rcu_ref_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("domlookup", "rcu-ref", struct hv_domlookup_ops),
            .flags = HV_PF_LONG_REF,
            .summary = "RCU read section + CAS refcount "
                       "(Xen 2007 get_domain_by_id)",
        },
    .init = hv_domlookup_init_domtab,
    .lock = rcu_ref_lock,
    .unlock = rcu_ref_unlock,
    .retire = rcu_ref_retire,
};

HV_REGISTER_PLUGIN(rcu_ref_ops);
