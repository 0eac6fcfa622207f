/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domlookup/skeleton: a template for writing your own domlookup strategy
 * as an external plugin.  Copy this file, rename the plugin, change the
 * lookup; build it as a shared object and load it with
 *
 *   hvbench run lookup --plugin domlookup=./skeleton.so[:ref=false]
 *
 * Build (what tests/CMakeLists.txt does):
 *
 *   cc -shared -fPIC -fvisibility=hidden -DHV_PLUGIN_SHARED \
 *      -I hv/include -o skeleton.so skeleton.c
 *
 *  - HV_PLUGIN_SHARED turns HV_REGISTER_PLUGIN() into the one exported
 *    function, hv_plugin_entry(); -fvisibility=hidden keeps everything
 *    else private to the .so.
 *  - Do not link the model (libhv) into the .so: the model functions you
 *    call (hv_rcu_read_lock, hv_domain_free_rcu, ...) are resolved against
 *    the hvbench executable, which exports them, when the plugin loads.
 *  - The loader checks, in this order: magic, ABI version, slot, ops size,
 *    name and summary, the slot's mandatory hooks (lock, unlock, retire),
 *    the option table, and that no plugin of this slot has the same name.
 *    Any failure is a hard error naming the problem; nothing falls back.
 *
 * The strategy itself: an RCU read section around the hash walk (readers
 * write no shared cache line), then, by default, a reference on the
 * domain so the operation may outlive the read section (Xen's
 * get_domain_by_id()).  With ref=false the read section is held across
 * the whole operation instead (Xen's rcu_lock_domain_by_id()).  Either
 * way a destroyed domain is freed only after a grace period, because a
 * reader may still be inside a read section that found it.
 *
 * The contract (hv/include/hv/domlookup.h), which the conformance suite
 * (tests/conformance/) checks for every plugin, this one included:
 *   - lock() returns the live domain with that id, or NULL, and the
 *     domain stays valid until the matching unlock() on the same CPU;
 *   - a miss leaves nothing held (no open read section);
 *   - retire() arranges hv_domain_free() once no reader can hold the
 *     domain: never earlier (a use-after-free), never never (a leak).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include <hv/domlookup.h>
#include <hv/hv.h>

/* 1. Options: a plain struct, described by a table (parsed for you). */
struct skeleton_opts {
    bool ref; /* take a reference (default true) */
};

/* clang-format off */
static const struct hv_opt skeleton_opt_table[] = {
    { .name = "ref", .type = HV_OPT_BOOL,
      .off = offsetof(struct skeleton_opts, ref), .def = "true",
      .help = "take a domain reference, so the RCU read section ends with "
              "the lookup (false: hold the read section across the op)" },
    HV_OPT_TABLE_END
};
/* clang-format on */

/* 2. Slot-wide state: whatever your strategy needs, built by init(). */
struct skeleton {
    bool ref;
    struct hv_domtab *tab;
};

static int skeleton_init(struct hv *hv, const void *opts, void **priv)
{
    const struct skeleton_opts *o = opts; /* parsed, defaults applied */
    struct skeleton *s = malloc(sizeof(*s));

    if ( s == NULL )
        return -ENOMEM;
    s->ref = o->ref;
    s->tab = hv_domtab(hv);
    *priv = s;
    return 0;
}

static void skeleton_fini(struct hv *hv, void *priv)
{
    free(priv);
}

/*
 * 3. The lookup.  Called once per operation on the CPU doing it.  The
 * table is the model's: walk it with hv_domid_to_domain() inside
 * whatever read-side protection your strategy provides.
 */
static struct hv_domain *skeleton_lock(struct hv_cpu *cpu, void *priv,
                                       domid_t id)
{
    struct skeleton *s = priv;
    struct hv_domain *d;

    hv_rcu_read_lock(cpu);
    d = hv_domid_to_domain(s->tab, id);
    if ( d == NULL )
    {
        hv_rcu_read_unlock(cpu); /* a miss holds nothing */
        return NULL;
    }
    if ( !s->ref )
        return d; /* read section held until unlock */
    /* A destroyed domain (DESTROYED bit) refuses new references. */
    if ( !hv_get_domain(d, &cpu->perfc[HV_PERFC_dom_cas_retry]) )
        d = NULL;
    hv_rcu_read_unlock(cpu);
    return d;
}

static void skeleton_unlock(struct hv_cpu *cpu, void *priv, struct hv_domain *d)
{
    struct skeleton *s = priv;

    if ( s->ref )
        hv_put_domain(d); /* the last put destroys it */
    else
        hv_rcu_read_unlock(cpu);
}

/*
 * 4. Retire: @d is unlinked and nobody can take a new reference.  Free it
 * once no reader can still hold it: here, after an RCU grace period.
 * (Freeing it at once is the bug tests/plugins/rcu-broken.c plants.)
 */
static void skeleton_retire(struct hv *hv, void *priv, struct hv_domain *d)
{
    hv_domain_free_rcu(d);
}

/*
 * 5. The ops: a static const struct whose first member is the header.
 * Hooks you do not need stay NULL: domain_init/domain_fini (per-domain
 * state in d->lookup_priv), cpu_online/cpu_offline (per-CPU set-up),
 * write_begin/write_end (a writer-side lock around table changes).
 */
/* clang-format off */
static const struct hv_domlookup_ops skeleton_ops = {
    .hdr = {
        HV_PLUGIN_HDR("domlookup", "skeleton", struct hv_domlookup_ops),
        .summary = "external plugin template: RCU walk + optional refcount",
        .opts = skeleton_opt_table,
        .opts_size = sizeof(struct skeleton_opts),
    },
    .init = skeleton_init,
    .fini = skeleton_fini,
    .lock = skeleton_lock,
    .unlock = skeleton_unlock,
    .retire = skeleton_retire,
};
/* clang-format on */

/* 6. Registration: exports hv_plugin_entry() under HV_PLUGIN_SHARED. */
HV_REGISTER_PLUGIN(skeleton_ops);
