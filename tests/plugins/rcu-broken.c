/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domlookup/rcu-broken: the negative control of the domlookup slot (the
 * "lock_busted" of locktorture).  It is rcu-noref with one bug: retire
 * frees the domain at once instead of after a grace period, so a reader
 * that found the domain inside its RCU read section can be left holding a
 * freed object.
 *
 *   CPU0  rcu_read_lock; d = d5; ... uses d5 ...
 *   CPU1  destroy d5: unlink; retire -> hv_domain_free(d5) NOW
 *   CPU0  ... still uses d5: magic == HV_DOMAIN_MAGIC_FREE, pipe_age 1
 *
 * With cfg.quarantine_gps > 0 the model poisons the freed domain and keeps
 * the memory for further grace periods, so the reader sees the poison
 * instead of crashing: the torture and conformance checks must report it.
 * If they do not, those checks prove nothing.
 *
 * Test-only (HV_PF_TEST_ONLY): linked into test binaries only, never into
 * hvbench, and hidden from hv_plugin_resolve() unless test-only plugins
 * are allowed.
 */
#include <hv/domlookup.h>
#include <hv/hv.h>

static struct hv_domain *rcu_broken_lock(struct hv_cpu *cpu, void *priv,
                                         domid_t id)
{
    struct hv_domain *d;

    hv_rcu_read_lock(cpu);
    d = hv_domid_to_domain(hv_domtab(cpu->hv), id);
    if ( d == NULL )
        hv_rcu_read_unlock(cpu);
    return d;
}

static void rcu_broken_unlock(struct hv_cpu *cpu, void *priv,
                              struct hv_domain *d)
{
    hv_rcu_read_unlock(cpu);
}

/* THE BUG: no grace period between unlink and free. */
static void rcu_broken_retire(struct hv *hv, void *priv, struct hv_domain *d)
{
    hv_domain_free(d);
}

/* clang-format off */
static const struct hv_domlookup_ops rcu_broken_ops = {
    .hdr = {
        HV_PLUGIN_HDR("domlookup", "rcu-broken", struct hv_domlookup_ops),
        .flags = HV_PF_TEST_ONLY,
        .summary = "NEGATIVE CONTROL: rcu-noref that frees before the grace "
                   "period (tests only)",
    },
    .lock = rcu_broken_lock,
    .unlock = rcu_broken_unlock,
    .retire = rcu_broken_retire,
};
/* clang-format on */

HV_REGISTER_PLUGIN(rcu_broken_ops);
