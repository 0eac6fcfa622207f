/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domlookup/rwlock-ref: Xen's find_domain_by_id() before 2007.
 *
 *   read_lock(&domlist_lock);  hash walk;  get_domain(d);
 *   read_unlock(&domlist_lock);  ... op ...  put_domain(d);
 *
 * Four atomic read-modify-writes per lookup on two shared cache lines:
 * the global rwlock word (read_lock, read_unlock) and the domain's refcnt
 * (the get_domain CAS loop, the put_domain decrement).  Writers take the
 * lock for writing, so once a destroyed domain is unlinked no reader can
 * hold it and it is freed at once, with no grace period.  A walk of the
 * whole list (getdomaininfolist) holds the read lock from head to tail.
 */
#include <errno.h>
#include <stdlib.h>

#include <hv/domlookup.h>
#include <hv/hv.h>

static HV_LOCK_CLASS(domlist_lock_class, "domlist_lock");

struct rwlock_ref {
    hv_rwlock_t domlist_lock; /* one shared word, as in Xen */
    struct hv_domtab *tab;
};

static int rwlock_ref_init(struct hv *hv, const void *opts, void **priv)
{
    struct rwlock_ref *p = aligned_alloc(HV_CACHELINE, HV_CACHELINE);

    if ( p == NULL )
        return -ENOMEM;
    hv_rwlock_init(&p->domlist_lock, &domlist_lock_class);
    p->tab = hv_domtab(hv);
    *priv = p;
    return 0;
}

static void rwlock_ref_fini(struct hv *hv, void *priv)
{
    free(priv);
}

static struct hv_domain *rwlock_ref_lock(struct hv_cpu *cpu, void *priv,
                                         domid_t id)
{
    struct rwlock_ref *p = priv;
    struct hv_domain *d;

    hv_read_lock(&p->domlist_lock);
    d = hv_domid_to_domain(p->tab, id);
    if ( d != NULL &&
         unlikely(!hv_get_domain(d, &cpu->perfc[HV_PERFC_dom_cas_retry])) )
        d = NULL;
    hv_read_unlock(&p->domlist_lock);
    return d;
}

static void rwlock_ref_unlock(struct hv_cpu *cpu, void *priv,
                              struct hv_domain *d)
{
    hv_put_domain(d);
}

static void rwlock_ref_write_begin(struct hv *hv, void *priv)
{
    hv_write_lock(&((struct rwlock_ref *)priv)->domlist_lock);
}

static void rwlock_ref_write_end(struct hv *hv, void *priv)
{
    hv_write_unlock(&((struct rwlock_ref *)priv)->domlist_lock);
}

/*
 * An ordered walk (getdomaininfolist) takes no references: it holds the
 * read lock throughout, so no domain is unlinked, hence freed, under it.
 */
static void rwlock_ref_walk_begin(struct hv_cpu *cpu, void *priv)
{
    hv_read_lock(&((struct rwlock_ref *)priv)->domlist_lock);
}

static void rwlock_ref_walk_end(struct hv_cpu *cpu, void *priv)
{
    hv_read_unlock(&((struct rwlock_ref *)priv)->domlist_lock);
}

/* Unlinked under the write lock with refcnt DESTROYED: nobody holds it. */
static void rwlock_ref_retire(struct hv *hv, void *priv, struct hv_domain *d)
{
    hv_domain_free(d);
}

static const struct hv_domlookup_ops rwlock_ref_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("domlookup", "rwlock-ref", struct hv_domlookup_ops),
            .flags = HV_PF_LONG_REF,
            .summary = "spinning rwlock on one shared word + CAS refcount "
                       "(Xen 2006 find_domain_by_id)",
        },
    .init = rwlock_ref_init,
    .fini = rwlock_ref_fini,
    .lock = rwlock_ref_lock,
    .unlock = rwlock_ref_unlock,
    .write_begin = rwlock_ref_write_begin,
    .write_end = rwlock_ref_write_end,
    .retire = rwlock_ref_retire,
    .walk_begin = rwlock_ref_walk_begin,
    .walk_end = rwlock_ref_walk_end,
};

HV_REGISTER_PLUGIN(rwlock_ref_ops);
