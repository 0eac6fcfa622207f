/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libvirt domain-object list (hv/virt_domobj.h): a chained UUID hash
 * under the list lock, per-object mutex and reference count, the name
 * index delegated to the namesearch slot, lifetime checks.
 *
 * Worked example of the lifetime rule (undefine racing a lookup):
 *   T1 find_by_uuid(U): list lock, ref(obj) = 3, list unlock, lock obj
 *   T2 holds obj (ref 2 = list + T2): remove: removed = true, unlock,
 *      list lock, unlink, list unlock, unref (list's) -> 2, unref -> 1
 *   T1 gets the object lock, sees removed: unlock, unref -> 0: freed.
 * T1 never returns a removed object, and nobody frees it under T1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/namesearch.h>
#include <hv/virt_domobj.h>

#define UUID_BUCKETS 1024 /* a power of two */

static HV_LOCK_CLASS(list_class, "virDomainObjList");
static HV_LOCK_CLASS(obj_class, "virDomainObj");
static HV_LOCK_CLASS(sec_class, "virSecurityDomain");

struct hv_vobjlist {
    hv_mutex_t lock;
    struct hv_vobj *buckets[UUID_BUCKETS];
    unsigned int count;
    _Atomic int next_id; /* qemuDriverAllocateID: no lock */
    const struct hv_namesearch_ops *ns;
    void *ns_priv;
    struct hv_plugin_inst ns_inst;
    /* Quarantine of freed objects (a ring), under its own mutex. */
    pthread_mutex_t qlock;
    struct hv_vobj **quar;
    unsigned int quarantine, qnext;
    _Atomic uint64_t live;
};

static unsigned int uuid_hash(const unsigned char *uuid)
{
    uint32_t h = 2166136261u;
    unsigned int i;

    for ( i = 0; i < HV_VIRT_UUID_LEN; i++ )
        h = (h ^ uuid[i]) * 16777619u;
    return h & (UUID_BUCKETS - 1);
}

int hv_vobjlist_create(const struct hv_plugin_inst *ns, unsigned int quarantine,
                       struct hv_vobjlist **out, char *err, size_t len)
{
    struct hv_vobjlist *l = calloc(1, sizeof(*l));
    int rc;

    *out = NULL;
    if ( l == NULL )
        return -ENOMEM;
    if ( ns != NULL && ns->hdr != NULL )
        rc = hv_plugin_inst_copy(&l->ns_inst, ns);
    else
        rc = hv_plugin_resolve("namesearch",
                               hv_slot_find("namesearch")->default_plugin,
                               false, &l->ns_inst, err, len);
    if ( rc == 0 && strcmp(l->ns_inst.hdr->slot, "namesearch") != 0 )
    {
        snprintf(err, len, "plugin %s/%s given for slot namesearch",
                 l->ns_inst.hdr->slot, l->ns_inst.hdr->name);
        rc = -EINVAL;
    }
    if ( rc == 0 && quarantine &&
         (l->quar = calloc(quarantine, sizeof(*l->quar))) == NULL )
        rc = -ENOMEM;
    if ( rc == 0 )
    {
        l->ns = (const struct hv_namesearch_ops *)l->ns_inst.hdr;
        if ( l->ns->init && (rc = l->ns->init(l->ns_inst.opts, &l->ns_priv)) )
            snprintf(err, len, "namesearch %s: init failed", l->ns->hdr.name);
    }
    if ( rc )
    {
        hv_plugin_inst_free(&l->ns_inst);
        free(l->quar);
        free(l);
        return rc;
    }
    l->quarantine = quarantine;
    hv_mutex_init(&l->lock, &list_class);
    pthread_mutex_init(&l->qlock, NULL);
    *out = l;
    return 0;
}

static void obj_free_now(struct hv_vobj *obj)
{
    hv_mutex_destroy(&obj->lock);
    hv_mutex_destroy(&obj->sec_lock);
    pthread_cond_destroy(&obj->job_cond);
    free(obj);
}

/* The last reference went: poison, then free now or via the quarantine. */
static void obj_free(struct hv_vobj *obj)
{
    struct hv_vobjlist *l = obj->list;
    struct hv_vobj *old = NULL;

    atomic_store(&obj->magic, HV_VOBJ_MAGIC_FREE);
    memset(obj->name, 0x6b, sizeof(obj->name));
    atomic_fetch_sub(&l->live, 1);
    if ( l->quarantine == 0 )
    {
        obj_free_now(obj);
        return;
    }
    pthread_mutex_lock(&l->qlock);
    old = l->quar[l->qnext];
    l->quar[l->qnext] = obj;
    l->qnext = (l->qnext + 1) % l->quarantine;
    pthread_mutex_unlock(&l->qlock);
    if ( old != NULL )
        obj_free_now(old);
}

static void hv_vobj_unref(struct hv_vobj *obj)
{
    int old = atomic_fetch_sub_explicit(&obj->refs, 1, memory_order_acq_rel);

    HV_BUG_ON(old <= 0);
    if ( old == 1 )
        obj_free(obj);
}

void hv_vobj_end(struct hv_vobj *obj)
{
    hv_mutex_unlock(&obj->lock);
    hv_vobj_unref(obj);
}

void hv_vobjlist_destroy(struct hv_vobjlist *l)
{
    unsigned int i;

    if ( l == NULL )
        return;
    for ( i = 0; i < UUID_BUCKETS; i++ )
        while ( l->buckets[i] != NULL )
        {
            struct hv_vobj *obj = l->buckets[i];

            l->buckets[i] = obj->uuid_next;
            if ( l->ns->remove )
                l->ns->remove(l->ns_priv, obj);
            hv_vobj_unref(obj);
        }
    for ( i = 0; i < l->quarantine; i++ )
        if ( l->quar[i] != NULL )
            obj_free_now(l->quar[i]);
    if ( l->ns->fini )
        l->ns->fini(l->ns_priv);
    hv_plugin_inst_free(&l->ns_inst);
    hv_mutex_destroy(&l->lock);
    pthread_mutex_destroy(&l->qlock);
    free(l->quar);
    free(l);
}

static struct hv_vobj *uuid_lookup(struct hv_vobjlist *l,
                                   const unsigned char *uuid)
{
    struct hv_vobj *obj;

    for ( obj = l->buckets[uuid_hash(uuid)]; obj != NULL; obj = obj->uuid_next )
        if ( memcmp(obj->uuid, uuid, HV_VIRT_UUID_LEN) == 0 )
            return obj;
    return NULL;
}

/* What a namesearch strategy found, checked before anything touches it. */
static struct hv_vobj *ns_find(struct hv_vobjlist *l, const char *name)
{
    struct hv_vobj *obj = l->ns->find(l->ns_priv, l, name);

    if ( obj != NULL &&
         atomic_load_explicit(&obj->magic, memory_order_relaxed) !=
             HV_VOBJ_MAGIC )
    {
        fprintf(stderr, "hv: namesearch %s returned a freed domain object\n",
                l->ns->hdr.name);
        HV_BUG_ON(obj->magic != HV_VOBJ_MAGIC);
    }
    return obj;
}

int hv_vobjlist_add(struct hv_vobjlist *l, const char *name,
                    const unsigned char *uuid, struct hv_vobj **out)
{
    size_t n = name ? strlen(name) : 0;
    struct hv_vobj *obj;
    int rc = 0;

    *out = NULL;
    if ( n == 0 || n >= HV_VIRT_NAME_MAX )
        return -EINVAL;
    obj = calloc(1, sizeof(*obj));
    if ( obj == NULL )
        return -ENOMEM;
    atomic_init(&obj->magic, HV_VOBJ_MAGIC);
    atomic_init(&obj->refs, 2); /* the list's and the caller's */
    atomic_init(&obj->label, -1);
    hv_mutex_init(&obj->lock, &obj_class);
    hv_mutex_init(&obj->sec_lock, &sec_class);
    pthread_cond_init(&obj->job_cond, NULL);
    obj->list = l;
    obj->id = -1;
    memcpy(obj->uuid, uuid, HV_VIRT_UUID_LEN);
    memcpy(obj->name, name, n + 1);

    /* virDomainObjListAddLocked */
    hv_mutex_lock(&l->lock);
    if ( uuid_lookup(l, uuid) != NULL || ns_find(l, name) != NULL )
        rc = -EEXIST;
    else if ( l->ns->add )
        rc = l->ns->add(l->ns_priv, obj);
    if ( rc == 0 )
    {
        unsigned int b = uuid_hash(uuid);

        obj->uuid_next = l->buckets[b];
        l->buckets[b] = obj;
        l->count++;
        atomic_fetch_add(&l->live, 1);
        hv_mutex_lock(&obj->lock); /* unreachable by others: no wait */
    }
    hv_mutex_unlock(&l->lock);
    if ( rc )
    {
        obj_free_now(obj);
        return rc;
    }
    *out = obj;
    return 0;
}

/* Found under the list lock: reference, drop the list, lock the object. */
static struct hv_vobj *found(struct hv_vobjlist *l, struct hv_vobj *obj)
{
    if ( obj != NULL )
        hv_vobj_ref(obj);
    hv_mutex_unlock(&l->lock);
    if ( obj == NULL )
        return NULL;
    hv_mutex_lock(&obj->lock);
    if ( obj->removed )
    {
        hv_vobj_end(obj);
        return NULL;
    }
    return obj;
}

struct hv_vobj *hv_vobjlist_find_by_uuid(struct hv_vobjlist *l,
                                         const unsigned char *uuid)
{
    hv_mutex_lock(&l->lock);
    return found(l, uuid_lookup(l, uuid));
}

struct hv_vobj *hv_vobjlist_find_by_name(struct hv_vobjlist *l,
                                         const char *name)
{
    hv_mutex_lock(&l->lock);
    return found(l, ns_find(l, name));
}

struct hv_vobj *hv_vobjlist_search(struct hv_vobjlist *l,
                                   bool (*fn)(struct hv_vobj *obj,
                                              const void *arg),
                                   const void *arg)
{
    unsigned int i;
    struct hv_vobj *obj;

    for ( i = 0; i < UUID_BUCKETS; i++ )
        for ( obj = l->buckets[i]; obj != NULL; obj = obj->uuid_next )
            if ( fn(obj, arg) )
                return obj;
    return NULL;
}

/* virDomainObjListSearchID: the object lock to read its id. */
static bool search_id(struct hv_vobj *obj, const void *arg)
{
    bool want;

    hv_mutex_lock(&obj->lock);
    want = obj->id == *(const int *)arg;
    hv_mutex_unlock(&obj->lock);
    return want;
}

struct hv_vobj *hv_vobjlist_find_by_id(struct hv_vobjlist *l, int id)
{
    struct hv_vobj *obj;

    if ( id < 0 )
        return NULL;
    hv_mutex_lock(&l->lock);
    obj = found(l, hv_vobjlist_search(l, search_id, &id));
    if ( obj != NULL && obj->id != id ) /* stopped meanwhile */
    {
        hv_vobj_end(obj);
        obj = NULL;
    }
    return obj;
}

void hv_vobjlist_remove(struct hv_vobjlist *l, struct hv_vobj *obj)
{
    struct hv_vobj **pp;

    obj->removed = true;
    if ( obj->job )
        hv_vobj_end_job(obj);
    hv_mutex_unlock(&obj->lock);

    hv_mutex_lock(&l->lock);
    for ( pp = &l->buckets[uuid_hash(obj->uuid)]; *pp != NULL;
          pp = &(*pp)->uuid_next )
        if ( *pp == obj )
        {
            *pp = obj->uuid_next;
            l->count--;
            if ( l->ns->remove )
                l->ns->remove(l->ns_priv, obj);
            hv_mutex_unlock(&l->lock);
            hv_vobj_unref(obj); /* the list's */
            hv_vobj_unref(obj); /* the caller's */
            return;
        }
    hv_mutex_unlock(&l->lock);
    hv_bug(__FILE__, __LINE__, "removed object not in its list");
}

int hv_vobjlist_next_id(struct hv_vobjlist *l)
{
    return atomic_fetch_add(&l->next_id, 1) + 1;
}

unsigned int hv_vobjlist_count(struct hv_vobjlist *l)
{
    unsigned int n;

    hv_mutex_lock(&l->lock);
    n = l->count;
    hv_mutex_unlock(&l->lock);
    return n;
}

uint64_t hv_vobjlist_live_objects(const struct hv_vobjlist *l)
{
    return atomic_load(&l->live);
}

int hv_vobj_begin_job(struct hv_vobj *obj)
{
    while ( obj->job && !obj->removed )
        hv_cond_wait(&obj->job_cond, &obj->lock);
    if ( obj->removed )
        return -ENOENT;
    obj->job = true;
    return 0;
}

void hv_vobj_end_job(struct hv_vobj *obj)
{
    obj->job = false;
    pthread_cond_broadcast(&obj->job_cond);
}
