/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domlookup/knownalive: the baseline.  A bare hash-bucket walk with no
 * protection at all, as Xen's knownalive_domain_from_domid() does for
 * callers that know the domain cannot die.  It measures the floor of the
 * harness, the dispatch and the walk, so the other strategies' costs are
 * measured rather than guessed.  Unsafe when domains die concurrently: a
 * workload with churn refuses it (HV_PF_NO_CHURN).
 */
#include <hv/domlookup.h>
#include <hv/hv.h>

static struct hv_domain *knownalive_lock(struct hv_cpu *cpu, void *priv,
                                         domid_t id)
{
    return hv_domid_to_domain(priv, id);
}

static void knownalive_unlock(struct hv_cpu *cpu, void *priv,
                              struct hv_domain *d)
{
}

/* Still defer the free, for teardown with CPUs that ran batches. */
static void knownalive_retire(struct hv *hv, void *priv, struct hv_domain *d)
{
    hv_domain_free_rcu(d);
}

static const struct hv_domlookup_ops knownalive_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("domlookup", "knownalive", struct hv_domlookup_ops),
            .flags = HV_PF_NO_CHURN,
            .summary = "baseline: bare hash walk, no protection "
                       "(knownalive_domain_from_domid); no churn",
        },
    .init = hv_domlookup_init_domtab,
    .lock = knownalive_lock,
    .unlock = knownalive_unlock,
    .retire = knownalive_retire,
};

HV_REGISTER_PLUGIN(knownalive_ops);
