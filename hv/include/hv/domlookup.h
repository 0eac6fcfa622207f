/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Slot "domlookup": how a hypercall finds a struct hv_domain by domid and
 * keeps it alive while it works on it (Xen's find_domain_by_id, then
 * rcu_lock_domain_by_id; seed 004).  The table itself (256-bucket hash and
 * domid-sorted list) belongs to the model (hv/domain.c); a strategy decides
 * what readers pay to walk it, what writers take to change it, and how an
 * unlinked domain is retired.
 *
 * Dispatch happens once per lookup and once per release, never per
 * primitive.
 */
#ifndef HV_DOMLOOKUP_H
#define HV_DOMLOOKUP_H

#include <hv/plugin.h>
#include <hv/types.h>

struct hv;
struct hv_cpu;
struct hv_domain;

struct hv_domlookup_ops {
    struct hv_plugin_hdr hdr;

    /* Slot-wide state.  @opts is the parsed option struct (may be NULL). */
    int (*init)(struct hv *hv, const void *opts, void **priv);
    void (*fini)(struct hv *hv, void *priv);

    /* Per-domain state, before the domain is published / after retire. */
    int (*domain_init)(struct hv *hv, void *priv, struct hv_domain *d);
    void (*domain_fini)(struct hv *hv, void *priv, struct hv_domain *d);

    /* A thread becomes / stops being model CPU @cpu (optional). */
    int (*cpu_online)(struct hv_cpu *cpu, void *priv);
    void (*cpu_offline)(struct hv_cpu *cpu, void *priv);

    /*
     * lock - find domain @id and pin it for the caller's operation.
     * Returns NULL if there is no such live domain.  Must be paired with
     * unlock() on the same CPU before the CPU's next quiescent state.
     */
    struct hv_domain *(*lock)(struct hv_cpu *cpu, void *priv, domid_t id);
    void (*unlock)(struct hv_cpu *cpu, void *priv, struct hv_domain *d);

    /* Writer side around changes of the table (optional). */
    void (*write_begin)(struct hv *hv, void *priv);
    void (*write_end)(struct hv *hv, void *priv);

    /*
     * retire - @d has been unlinked (refcnt holds HV_DOMAIN_DESTROYED);
     * arrange for hv_domain_free(d) once no reader can hold it.
     */
    void (*retire)(struct hv *hv, void *priv, struct hv_domain *d);

    /*
     * ABI 2, optional: the read side of an ordered walk of the whole table
     * (getdomaininfolist follows next_in_list without taking references).
     * hv_domain_walk_begin() always holds the model's RCU read section,
     * which is enough for a strategy whose retire() frees through the
     * model's grace periods (hv_domain_free_rcu, hv_call_rcu).  A strategy
     * that frees otherwise (at once under its own writer lock, or after
     * another RCU's grace period) must hold off those frees here.
     * Worked example, rwlock-ref: walk_begin read-locks domlist_lock, so
     * a destroyer's unlink (write lock) waits until the walk is over, and
     * its at-once free can no longer hit a domain the walk stands on.
     */
    void (*walk_begin)(struct hv_cpu *cpu, void *priv);
    void (*walk_end)(struct hv_cpu *cpu, void *priv);
};

/* ABI v1 ends at .retire: hooks appended later are read with HV_OPS_HAS(). */
#define HV_DOMLOOKUP_OPS_V1_SIZE \
    HV_OPS_SIZE_UPTO(struct hv_domlookup_ops, retire)

/*
 * hv_domlookup_init_domtab - an .init for strategies with no state of
 * their own: the private data is the domain table, so the lookup path
 * reads it from @priv instead of calling hv_domtab() (out of line) on
 * every lookup, as rwlock-ref has always cached it.
 */
int hv_domlookup_init_domtab(struct hv *hv, const void *opts, void **priv);

#endif /* HV_DOMLOOKUP_H */
