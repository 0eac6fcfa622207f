/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libvirt domain-object list (virDomainObjList, seed 003).  Objects
 * are hashed by UUID; every object has its own mutex ("virDomainObj") and
 * a reference count; one list lock ("virDomainObjList") guards the hash,
 * the name index of the slot "namesearch" and the id counter.
 *
 * Lock order: the list lock, then an object lock.  A thread holding an
 * object lock never takes the list lock (hv_vobjlist_remove() drops the
 * object first, as virDomainObjListRemove does).
 *
 * Lifetime: the list holds one reference on every object it contains;
 * each lookup takes another under the list lock, releases the list lock
 * and only then locks the object, so a lookup waits for that object
 * alone.  An undefined object is marked removed under its own lock before
 * it leaves the hash; a lookup that finds it removed returns NULL.  The
 * last reference frees the object: its magic becomes HV_VOBJ_MAGIC_FREE
 * and, with a quarantine, the memory stays mapped (poisoned) for the next
 * @quarantine frees, so a strategy that returns a freed object is caught
 * by the magic check instead of reading reused memory.
 */
#ifndef HV_VIRT_DOMOBJ_H
#define HV_VIRT_DOMOBJ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hv/compiler.h>
#include <hv/lock.h>
#include <hv/plugin.h>
#include <hv/plugin_registry.h>

#define HV_VOBJ_MAGIC      0x564f424au /* "VOBJ" */
#define HV_VOBJ_MAGIC_FREE 0xdeadbeefu
#define HV_VIRT_UUID_LEN   16
#define HV_VIRT_NAME_MAX   64

enum hv_vobj_state {
    HV_VOBJ_SHUTOFF,
    HV_VOBJ_STARTING, /* labelled, QEMU starting (object unlocked) */
    HV_VOBJ_RUNNING,
};

struct hv_vobjlist;

struct hv_vobj {
    _Atomic uint32_t magic; /* HV_VOBJ_MAGIC while allocated */
    _Atomic int refs;
    hv_mutex_t lock;         /* "virDomainObj" */
    pthread_cond_t job_cond; /* a job ended */
    struct hv_vobjlist *list;
    struct hv_vobj *uuid_next; /* UUID hash chain (list lock) */
    /* Under the object lock: */
    bool job;     /* a job owns the object (it may be unlocked) */
    bool removed; /* undefined: no lookup returns it */
    enum hv_vobj_state state;
    int id; /* -1 unless running */
    /* Immutable after define: */
    unsigned char uuid[HV_VIRT_UUID_LEN];
    char name[HV_VIRT_NAME_MAX];
    /* The security manager's (hv/virt_security.h): */
    _Atomic int label;   /* -1: none */
    hv_mutex_t sec_lock; /* "virSecurityDomain": seclock=per-domain */
};

/*
 * hv_vobjlist_create - an empty list whose name lookups use the namesearch
 * plugin @ns (resolved; NULL: the slot's default).  0, -EINVAL (@err says
 * why) or -ENOMEM.
 */
int HV_MUST_CHECK hv_vobjlist_create(const struct hv_plugin_inst *ns,
                                     unsigned int quarantine,
                                     struct hv_vobjlist **out, char *err,
                                     size_t len);
/* Free the list and every object in it (no other thread may use it). */
void hv_vobjlist_destroy(struct hv_vobjlist *l);

/*
 * hv_vobjlist_add - define: a new object @name / @uuid, returned locked
 * with a reference (release with hv_vobj_end()).  -EEXIST if the name or
 * the UUID is taken, -EINVAL for an empty or too long name, -ENOMEM.
 */
int HV_MUST_CHECK hv_vobjlist_add(struct hv_vobjlist *l, const char *name,
                                  const unsigned char *uuid,
                                  struct hv_vobj **out);

/* Lookups: the object locked with a reference, or NULL. */
struct hv_vobj *hv_vobjlist_find_by_uuid(struct hv_vobjlist *l,
                                         const unsigned char *uuid);
struct hv_vobj *hv_vobjlist_find_by_name(struct hv_vobjlist *l,
                                         const char *name);
/* By id: a scan locking every object, as libvirt's FindByID still does. */
struct hv_vobj *hv_vobjlist_find_by_id(struct hv_vobjlist *l, int id);

/*
 * hv_vobjlist_remove - undefine @obj (locked, with the caller's
 * reference): mark it removed, end the caller's job on it, unlink it.
 * Returns with @obj unlocked and the caller's reference dropped.
 */
void hv_vobjlist_remove(struct hv_vobjlist *l, struct hv_vobj *obj);

/* A new running id (an atomic counter: callers hold object locks). */
int hv_vobjlist_next_id(struct hv_vobjlist *l);

unsigned int hv_vobjlist_count(struct hv_vobjlist *l);
uint64_t hv_vobjlist_live_objects(const struct hv_vobjlist *l);

/*
 * For namesearch plugins, with the list lock held: call @fn for every
 * object until it returns true; returns that object or NULL.
 */
struct hv_vobj *hv_vobjlist_search(struct hv_vobjlist *l,
                                   bool (*fn)(struct hv_vobj *obj,
                                              const void *arg),
                                   const void *arg);

static inline void hv_vobj_ref(struct hv_vobj *obj)
{
    atomic_fetch_add_explicit(&obj->refs, 1, memory_order_relaxed);
}

/* The end of an API call on a looked-up object: unlock, unreference. */
void hv_vobj_end(struct hv_vobj *obj);

/*
 * Jobs (qemuDomainObjBeginJob): with the object locked, wait until no
 * other job owns it, then own it.  -ENOENT if it was removed meanwhile.
 * A job lets its owner unlock the object around slow work.
 */
int HV_MUST_CHECK hv_vobj_begin_job(struct hv_vobj *obj);
void hv_vobj_end_job(struct hv_vobj *obj);

#endif /* HV_VIRT_DOMOBJ_H */
