/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Domains: the 256-bucket chained hash plus the domid-sorted list of Xen's
 * xen/common/domain.c, a reference count whose bit 31 marks a destroyed
 * domain, and two-phase destruction (unlink, then free once no reader can
 * hold the domain).
 *
 * Lifetime of a domain:
 *   hv_domain_create()   refcnt = 1 (the creation reference), published
 *   hv_domain_destroy()  is_dying = 1, releases its xenstore state
 *                        (hv_xs_domain_release), drops the creation
 *                        reference
 *   last reference gone  refcnt: 0 -> HV_DOMAIN_DESTROYED (cmpxchg), the
 *                        domain is unlinked under the writer side and the
 *                        domlookup strategy retires it
 *   retire               the strategy calls hv_domain_free() when no reader
 *                        can still see it (at once under an rwlock, after
 *                        a grace period under RCU, ...)
 */
#ifndef HV_DOMAIN_H
#define HV_DOMAIN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <hv/compiler.h>
#include <hv/lock.h>
#include <hv/rcu.h>
#include <hv/types.h>

#define HV_DOMAIN_HASH_SIZE  256
#define HV_DOMAIN_HASH(id)   ((unsigned int)(id) & (HV_DOMAIN_HASH_SIZE - 1))
#define HV_DOMAIN_DESTROYED  (1u << 31)

#define HV_DOMAIN_MAGIC      0x444f4d41u /* "DOMA": live or retiring */
#define HV_DOMAIN_MAGIC_FREE 0xdeadd0d0u /* poisoned, in quarantine */

struct hv;
struct hv_grant_table;

/*
 * Layout follows Xen's struct domain where it matters to the story: the
 * fields a hash walk reads (domain_id, next_in_hashbucket) are read-mostly
 * and live far from refcnt, which every get_domain/put_domain writes.  In
 * Xen they are hundreds of bytes apart; here refcnt starts its own line.
 */
struct hv_domain {
    domid_t domain_id;
    _Atomic(struct hv_domain *) next_in_hashbucket;
    _Atomic(struct hv_domain *) next_in_list;
    struct hv *hv;
    struct hv_grant_table *grant_table;
    void *lookup_priv; /* the domlookup strategy's state */

    /* Lifetime checks: readers assert these (torture, conformance). */
    _Atomic uint32_t magic;
    _Atomic uint32_t pipe_age; /* grace periods since freeing */
    /*
     * Which creation this is (1, 2, ...; set before the domain is
     * linked, never changed): a reader that sees it change under its
     * hold is reading freed memory that a new domain has taken.
     */
    _Atomic uint64_t serial;

    _Atomic uint32_t refcnt __hv_cacheline_aligned; /* | DESTROYED */
    _Atomic bool is_dying;
    uint64_t retire_ns; /* when it was unlinked */
    struct hv_rcu_head rcu;

    /* Memory (hv/page_alloc.c, hv/topology.c): under the heap lock. */
    uint64_t node_affinity;       /* nodemask of the vCPUs; 0: all */
    unsigned int last_alloc_node; /* round-robin cursor of the allocator */
    unsigned int nr_vcpus;
    uint16_t vcpu_processor[8]; /* HV_MAX_VCPUS model CPUs */
    unsigned long tot_pages;
    uint32_t extent_head; /* MFN of the newest extent; HV_MFN_NONE ends */
};

/* The table.  Readers: the strategy's read side.  Writers: update_lock. */
struct hv_domtab {
    _Atomic(struct hv_domain *) hash[HV_DOMAIN_HASH_SIZE];
    _Atomic(struct hv_domain *) list; /* sorted by domid */
    hv_spinlock_t update_lock;
    unsigned int nr_domains; /* under update_lock */
};

/*
 * hv_domid_to_domain - walk the hash for @id.
 * The strategy's read side (RCU or the table rwlock) must be held.
 */
static inline struct hv_domain *hv_domid_to_domain(struct hv_domtab *t,
                                                   domid_t id)
{
    struct hv_domain *d = hv_rcu_dereference(t->hash[HV_DOMAIN_HASH(id)]);

    while ( d != NULL && d->domain_id != id )
        d = hv_rcu_dereference(d->next_in_hashbucket);
    return d;
}

/*
 * hv_get_domain - take a reference unless the domain is destroyed.
 * A CAS loop on the shared refcnt word, as Xen's get_domain(), except
 * that a count of 0 is refused too: it means the last reference has just
 * been dropped and its dropper is between hv_put_domain()'s decrement and
 * domain_destroy()'s 0 -> DESTROYED cmpxchg, still using d.  Taking a
 * reference there would let us destroy and free d under it (Xen is safe
 * because every dropper is an RCU participant; here writers need not be
 * CPUs, and rwlock-ref frees without a grace period).
 * @retries (may be NULL) counts failed CAS attempts.
 */
static inline bool hv_get_domain(struct hv_domain *d, uint64_t *retries)
{
    uint32_t old = atomic_load_explicit(&d->refcnt, memory_order_relaxed);

    do
    {
        if ( unlikely((old & HV_DOMAIN_DESTROYED) || old == 0) )
            return false;
    } while ( unlikely(!atomic_compare_exchange_weak_explicit(
                  &d->refcnt, &old, old + 1, memory_order_acquire,
                  memory_order_relaxed)) &&
              (retries == NULL || ++*retries) );
    return true;
}

/*
 * hv_put_domain - drop a reference; the last one destroys the domain
 * (unlink and retire).  Never call with the strategy's read side held
 * when the strategy's writer side excludes readers (rwlock-ref).
 */
void hv_put_domain(struct hv_domain *d);

/*
 * hv_domain_create - create domain @id with @nr_grants grant entries.
 * Return 0, -EINVAL (id reserved), -EEXIST (id live) or -ENOMEM.
 * @out (may be NULL) receives the domain, without a reference.
 */
int HV_MUST_CHECK hv_domain_create(struct hv *hv, domid_t id,
                                   unsigned int nr_grants,
                                   struct hv_domain **out);

/*
 * hv_domain_destroy - mark @id dying, release its xenstore state (nodes,
 * quota, transactions, ACL entries: hv_xs_domain_release) and drop its
 * creation reference.
 * Return 0, -ESRCH (no such domain or already dying) or -EINVAL.
 */
int HV_MUST_CHECK hv_domain_destroy(struct hv *hv, domid_t id);

/*
 * hv_domain_lock_by_id - the one lookup API: find @id and pin it for the
 * current operation on @cpu.  What it costs is the domlookup strategy's
 * business.  NULL if there is no such domain.
 */
struct hv_domain *hv_domain_lock_by_id(struct hv_cpu *cpu, domid_t id);
void hv_domain_unlock(struct hv_cpu *cpu, struct hv_domain *d);

/*
 * hv_domain_walk_begin - enter the read side of an ordered walk of the
 * domain list on @cpu (the model's RCU read section plus the strategy's
 * walk_begin, hv/domlookup.h): until hv_domain_walk_end() no domain the
 * walk reaches through the list or the hash is freed.  No reference is
 * taken; do not block or call hv_put_domain() inside.
 */
void hv_domain_walk_begin(struct hv_cpu *cpu);
void hv_domain_walk_end(struct hv_cpu *cpu);

/* Called by strategies' retire paths: the domain is unreachable. */
void hv_domain_free(struct hv_domain *d);

/* hv_domain_free(@d) after a grace period of the model's RCU. */
void hv_domain_free_rcu(struct hv_domain *d);

/* Number of live (linked) domains. */
unsigned int hv_domain_count(struct hv *hv);

/*
 * hv_domain_list_ids - copy up to @max domids in domid order, starting at
 * @first, into @ids (holds update_lock).  Returns how many were copied.
 */
unsigned int hv_domain_list_ids(struct hv *hv, domid_t first, domid_t *ids,
                                unsigned int max);

/* Check the table: hash and sorted list agree. 0 or -EUCLEAN. */
int HV_MUST_CHECK hv_domtab_check(struct hv *hv);

#endif /* HV_DOMAIN_H */
