/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The domain table (Xen's xen/common/domain.c): a 256-bucket chained hash
 * for lookups by domid and a list sorted by domid for ordered walks, both
 * changed only under update_lock (domlist_update_lock) plus whatever the
 * domlookup strategy's writer side takes, and published with release
 * stores so RCU readers may walk them concurrently.
 *
 * Destruction is two-phase, as in Xen since 2007:
 *   1. the last reference goes: refcnt 0 -> HV_DOMAIN_DESTROYED by cmpxchg,
 *      so no get_domain() can succeed any more;
 *   2. the domain is unlinked and handed to the strategy's retire(), which
 *      calls hv_domain_free() when no reader can still hold it.
 * hv_domain_destroy() also releases the domain's xenstore state
 * (hv_xs_domain_release) before dropping the creation reference.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

static HV_LOCK_CLASS(domlist_update_class, "domlist_update_lock");

int hv_domlookup_init_domtab(struct hv *hv, const void *opts, void **priv)
{
    *priv = &hv->domtab;
    return 0;
}

void hv_domtab_init(struct hv *hv)
{
    struct hv_domtab *t = &hv->domtab;
    unsigned int i;

    for ( i = 0; i < HV_DOMAIN_HASH_SIZE; i++ )
        atomic_init(&t->hash[i], NULL);
    atomic_init(&t->list, NULL);
    hv_spin_init(&t->update_lock, &domlist_update_class);
    t->nr_domains = 0;
}

static void write_begin(struct hv *hv)
{
    hv_spin_lock(&hv->domtab.update_lock);
    if ( hv->domlookup->write_begin )
        hv->domlookup->write_begin(hv, hv->domlookup_priv);
}

static void write_end(struct hv *hv)
{
    if ( hv->domlookup->write_end )
        hv->domlookup->write_end(hv, hv->domlookup_priv);
    hv_spin_unlock(&hv->domtab.update_lock);
}

/* update_lock held. */
static struct hv_domain *find_locked(struct hv_domtab *t, domid_t id)
{
    struct hv_domain *d = atomic_load_explicit(&t->hash[HV_DOMAIN_HASH(id)],
                                               memory_order_relaxed);

    while ( d != NULL && d->domain_id != id )
        d = atomic_load_explicit(&d->next_in_hashbucket, memory_order_relaxed);
    return d;
}

/* update_lock held: link @d into the sorted list and its bucket. */
static void link_locked(struct hv_domtab *t, struct hv_domain *d)
{
    _Atomic(struct hv_domain *) *pd = &t->list;
    struct hv_domain *cur;

    while ( (cur = atomic_load_explicit(pd, memory_order_relaxed)) != NULL &&
            cur->domain_id < d->domain_id )
        pd = &cur->next_in_list;
    atomic_store_explicit(&d->next_in_list, cur, memory_order_relaxed);
    hv_rcu_assign_pointer(*pd, d);

    pd = &t->hash[HV_DOMAIN_HASH(d->domain_id)];
    atomic_store_explicit(&d->next_in_hashbucket,
                          atomic_load_explicit(pd, memory_order_relaxed),
                          memory_order_relaxed);
    hv_rcu_assign_pointer(*pd, d);
    t->nr_domains++;
}

/* update_lock held. */
static void unlink_locked(struct hv_domtab *t, struct hv_domain *d)
{
    _Atomic(struct hv_domain *) *pd = &t->list;
    struct hv_domain *cur;

    while ( (cur = atomic_load_explicit(pd, memory_order_relaxed)) != d )
    {
        HV_BUG_ON(cur == NULL);
        pd = &cur->next_in_list;
    }
    hv_rcu_assign_pointer(
        *pd, atomic_load_explicit(&d->next_in_list, memory_order_relaxed));

    pd = &t->hash[HV_DOMAIN_HASH(d->domain_id)];
    while ( (cur = atomic_load_explicit(pd, memory_order_relaxed)) != d )
    {
        HV_BUG_ON(cur == NULL);
        pd = &cur->next_in_hashbucket;
    }
    hv_rcu_assign_pointer(*pd, atomic_load_explicit(&d->next_in_hashbucket,
                                                    memory_order_relaxed));
    t->nr_domains--;
}

int hv_domain_create(struct hv *hv, domid_t id, unsigned int nr_grants,
                     struct hv_domain **out)
{
    struct hv_domain *d;
    int rc;

    if ( id >= DOMID_FIRST_RESERVED || nr_grants > (1u << 20) )
        return -EINVAL;
    d = aligned_alloc(HV_CACHELINE,
                      (sizeof(*d) + HV_CACHELINE - 1) & ~(HV_CACHELINE - 1));
    if ( d == NULL )
        return -ENOMEM;
    memset(d, 0, sizeof(*d));
    d->domain_id = id;
    d->hv = hv;
    atomic_init(&d->refcnt, 1);
    atomic_init(&d->is_dying, false);
    atomic_init(&d->magic, HV_DOMAIN_MAGIC);
    atomic_init(&d->pipe_age, 0);
    d->extent_head = HV_MFN_NONE;
    d->grant_table = hv_gnttab_alloc(nr_grants);
    if ( d->grant_table == NULL )
    {
        free(d);
        return -ENOMEM;
    }
    if ( hv->domlookup->domain_init &&
         (rc = hv->domlookup->domain_init(hv, hv->domlookup_priv, d)) != 0 )
    {
        hv_gnttab_free(d->grant_table);
        free(d);
        return rc;
    }

    write_begin(hv);
    if ( find_locked(&hv->domtab, id) != NULL )
    {
        write_end(hv);
        if ( hv->domlookup->domain_fini )
            hv->domlookup->domain_fini(hv, hv->domlookup_priv, d);
        hv_gnttab_free(d->grant_table);
        free(d);
        return -EEXIST;
    }
    atomic_init(&d->serial,
                atomic_fetch_add(&hv->stats.domains_created, 1) + 1);
    link_locked(&hv->domtab, d);
    write_end(hv);
    if ( out )
        *out = d;
    return 0;
}

/* The last reference went: phase 1 and 2 of destruction. */
static void domain_destroy(struct hv_domain *d)
{
    struct hv *hv = d->hv;
    uint32_t zero = 0;

    if ( !atomic_compare_exchange_strong(&d->refcnt, &zero,
                                         HV_DOMAIN_DESTROYED) )
        return;
    write_begin(hv);
    unlink_locked(&hv->domtab, d);
    write_end(hv);
    d->retire_ns = hv_now_ns();
    hv->domlookup->retire(hv, hv->domlookup_priv, d);
}

void hv_put_domain(struct hv_domain *d)
{
    if ( atomic_fetch_sub_explicit(&d->refcnt, 1, memory_order_acq_rel) == 1 )
        domain_destroy(d);
}

int hv_domain_destroy(struct hv *hv, domid_t id)
{
    struct hv_domain *d;
    bool was = false;

    if ( id >= DOMID_FIRST_RESERVED )
        return -EINVAL;
    hv_spin_lock(&hv->domtab.update_lock);
    d = find_locked(&hv->domtab, id);
    if ( d == NULL ||
         !atomic_compare_exchange_strong(&d->is_dying, &was, true) )
    {
        hv_spin_unlock(&hv->domtab.update_lock);
        return -ESRCH;
    }
    hv_spin_unlock(&hv->domtab.update_lock);
    /*
     * xenstored's part of the death (@releaseDomain): the domain's
     * transactions, nodes, quota and ACL entries go (XSA-419), before the
     * domain is unlinked, so its id cannot be reused while the store
     * still knows it (XSA-322).  Only -ENOMEM can fail it, which leaves
     * the store as it was: the domain dies all the same.  hv->xs is NULL
     * during hv_destroy(), which drops the whole store first.
     */
    if ( id != 0 && hv->xs )
        (void)hv_xs_domain_release(hv->xs, id);
    /* is_dying was set by us alone: the creation reference is ours. */
    hv_put_domain(d);
    return 0;
}

struct hv_domain *hv_domain_lock_by_id(struct hv_cpu *cpu, domid_t id)
{
    struct hv *hv = cpu->hv;
    struct hv_domain *d;

    d = hv->domlookup->lock(cpu, hv->domlookup_priv, id);
    hv_perfc_incr(cpu, dom_lookup);
    if ( unlikely(d == NULL) )
        hv_perfc_incr(cpu, dom_lookup_miss);
    return d;
}

void hv_domain_unlock(struct hv_cpu *cpu, struct hv_domain *d)
{
    struct hv *hv = cpu->hv;

    hv->domlookup->unlock(cpu, hv->domlookup_priv, d);
}

void hv_domain_walk_begin(struct hv_cpu *cpu)
{
    struct hv *hv = cpu->hv;
    /*
     * ABI-2 hooks, read only if the plugin's struct has both (HV_OPS_HAS
     * of the later one): a begin without its end would never unlock.
     */
    void (*fn)(struct hv_cpu *, void *) =
        HV_OPS_HAS(hv->domlookup, walk_end) ? hv->domlookup->walk_begin : NULL;

    hv_rcu_read_lock(cpu);
    if ( fn )
        fn(cpu, hv->domlookup_priv);
}

void hv_domain_walk_end(struct hv_cpu *cpu)
{
    struct hv *hv = cpu->hv;
    void (*fn)(struct hv_cpu *, void *) =
        HV_OPS_HAS(hv->domlookup, walk_end) ? hv->domlookup->walk_end : NULL;

    if ( fn )
        fn(cpu, hv->domlookup_priv);
    hv_rcu_read_unlock(cpu);
}

static void domain_quarantine_cb(struct hv_rcu_head *head)
{
    struct hv_domain *d = container_of(head, struct hv_domain, rcu);
    struct hv *hv = d->hv;
    uint32_t age = atomic_fetch_add(&d->pipe_age, 1) + 1;

    if ( age <= hv->cfg.quarantine_gps )
    {
        hv_call_rcu(hv, &d->rcu, domain_quarantine_cb);
        return;
    }
    free(d);
}

void hv_domain_free(struct hv_domain *d)
{
    struct hv *hv = d->hv;
    uint64_t dt = hv_now_ns() - d->retire_ns, max;

    HV_BUG_ON(!(atomic_load(&d->refcnt) & HV_DOMAIN_DESTROYED));
    HV_BUG_ON(atomic_load(&d->magic) != HV_DOMAIN_MAGIC);
    if ( hv->domlookup->domain_fini )
        hv->domlookup->domain_fini(hv, hv->domlookup_priv, d);
    hv_domain_relinquish_memory(NULL, d);
    hv_gnttab_free(d->grant_table);
    d->grant_table = NULL;

    atomic_fetch_add(&hv->stats.retire_ns_total, dt);
    max = atomic_load(&hv->stats.retire_ns_max);
    while ( dt > max &&
            !atomic_compare_exchange_weak(&hv->stats.retire_ns_max, &max, dt) )
        ;
    atomic_fetch_add(&hv->stats.domains_freed, 1);

    /*
     * Poison it: a reader that still holds it will notice, also once it
     * is freed (as long as its memory is not reused: then its serial
     * changes).  With a quarantine, age it first.
     */
    atomic_store_explicit(&d->magic, HV_DOMAIN_MAGIC_FREE,
                          memory_order_relaxed);
    if ( hv->cfg.quarantine_gps == 0 )
    {
        free(d);
        return;
    }
    atomic_store_explicit(&d->pipe_age, 1, memory_order_relaxed);
    hv_call_rcu(hv, &d->rcu, domain_quarantine_cb);
}

static void domain_free_cb(struct hv_rcu_head *head)
{
    hv_domain_free(container_of(head, struct hv_domain, rcu));
}

void hv_domain_free_rcu(struct hv_domain *d)
{
    hv_call_rcu(d->hv, &d->rcu, domain_free_cb);
}

unsigned int hv_domain_count(struct hv *hv)
{
    unsigned int n;

    hv_spin_lock(&hv->domtab.update_lock);
    n = hv->domtab.nr_domains;
    hv_spin_unlock(&hv->domtab.update_lock);
    return n;
}

unsigned int hv_domain_list_ids(struct hv *hv, domid_t first, domid_t *ids,
                                unsigned int max)
{
    struct hv_domain *d;
    unsigned int n = 0;

    hv_spin_lock(&hv->domtab.update_lock);
    for ( d = atomic_load_explicit(&hv->domtab.list, memory_order_relaxed);
          d != NULL && n < max;
          d = atomic_load_explicit(&d->next_in_list, memory_order_relaxed) )
        if ( d->domain_id >= first )
            ids[n++] = d->domain_id;
    hv_spin_unlock(&hv->domtab.update_lock);
    return n;
}

int hv_domtab_check(struct hv *hv)
{
    struct hv_domtab *t = &hv->domtab;
    struct hv_domain *d;
    unsigned int n = 0, h = 0, i;
    int prev = -1, rc = 0;

    hv_spin_lock(&t->update_lock);
    for ( d = atomic_load_explicit(&t->list, memory_order_relaxed); d;
          d = atomic_load_explicit(&d->next_in_list, memory_order_relaxed) )
    {
        if ( (int)d->domain_id <= prev || find_locked(t, d->domain_id) != d )
            rc = -EUCLEAN;
        prev = d->domain_id;
        n++;
    }
    for ( i = 0; i < HV_DOMAIN_HASH_SIZE; i++ )
        for ( d = atomic_load_explicit(&t->hash[i], memory_order_relaxed); d;
              d = atomic_load_explicit(&d->next_in_hashbucket,
                                       memory_order_relaxed) )
        {
            if ( HV_DOMAIN_HASH(d->domain_id) != i )
                rc = -EUCLEAN;
            h++;
        }
    if ( n != h || n != t->nr_domains )
        rc = -EUCLEAN;
    hv_spin_unlock(&t->update_lock);
    return rc;
}

/* hv_destroy: take every domain down and let the strategy retire it. */
void hv_domtab_destroy_all(struct hv *hv)
{
    domid_t ids[64];
    unsigned int n, i;
    domid_t first = 0;

    while ( (n = hv_domain_list_ids(hv, first, ids, HV_ARRAY_SIZE(ids))) )
    {
        for ( i = 0; i < n; i++ )
            if ( hv_domain_destroy(hv, ids[i]) )
                continue; /* already dying: its holder frees it */
        if ( ids[n - 1] == DOMID_FIRST_RESERVED - 1 )
            break;
        first = ids[n - 1] + 1;
    }
}
