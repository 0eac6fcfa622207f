/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domlookup/rcu-noref: Xen's rcu_lock_domain_by_id() (87956dc5a1).
 *
 *   rcu_read_lock(&domlist_read_lock);  hash walk;
 *   ... op ...  rcu_read_unlock(&domlist_read_lock);
 *
 * No reference is taken: the read section is held across the operation,
 * so the domain cannot be freed under it.  No shared cache line is
 * written on the lookup path at all.
 *
 * Lifetime, worked example (CPU0 maps a grant of d5 while CPU1 destroys
 * d5):
 *   CPU0  rcu_read_lock; d = d5; spin_lock(d5->gt) ...
 *   CPU1  put_domain(d5): refcnt 1 -> 0 -> DESTROYED; unlink d5;
 *         call_rcu(d5, free) queued with target gp 8
 *   CPU0  ... spin_unlock; rcu_read_unlock; end of batch: qs[0] = 8
 *   any   poll: every online CPU has qs >= 8, so d5 is freed now, after
 *         CPU0 stopped using it.
 * The rule that comes with it (as in Xen): never hold a domain locked
 * this way across a quiescent state (a blocking call, a batch end).
 */
#include <hv/domlookup.h>
#include <hv/hv.h>

static struct hv_domain *rcu_noref_lock(struct hv_cpu *cpu, void *priv,
                                        domid_t id)
{
    struct hv_domain *d;

    hv_rcu_read_lock(cpu);
    d = hv_domid_to_domain(priv, id);
    if ( d == NULL )
        hv_rcu_read_unlock(cpu);
    return d;
}

static void rcu_noref_unlock(struct hv_cpu *cpu, void *priv,
                             struct hv_domain *d)
{
    hv_rcu_read_unlock(cpu);
}

static void rcu_noref_retire(struct hv *hv, void *priv, struct hv_domain *d)
{
    hv_domain_free_rcu(d);
}

static const struct hv_domlookup_ops rcu_noref_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("domlookup", "rcu-noref", struct hv_domlookup_ops),
            .summary = "RCU read section held across the op, no refcount "
                       "(Xen rcu_lock_domain_by_id)",
        },
    .init = hv_domlookup_init_domtab,
    .lock = rcu_noref_lock,
    .unlock = rcu_noref_unlock,
    .retire = rcu_noref_retire,
};

HV_REGISTER_PLUGIN(rcu_noref_ops);
