/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Slot "namesearch": how the domain-object list finds an object by name
 * (virDomainObjListSearchName, seed 003).  Define calls it, with the list
 * lock held, to refuse a name that exists, and so does every lookup by
 * name:
 *
 *   lock-each  scan every object, locking each to read its name: one
 *              object busy in a slow label operation stalls the scan,
 *              and the list lock with it (the convoy);
 *   name-hash  a hash of copied, immutable names kept under the list
 *              lock: no object lock at all (libvirt's objsName).
 *
 * Every hook runs with the list lock held.  find() returns the object
 * without a reference (the list takes it before dropping the lock); it
 * must never return an object that has been removed.
 */
#ifndef HV_NAMESEARCH_H
#define HV_NAMESEARCH_H

#include <hv/plugin.h>

struct hv_vobj;
struct hv_vobjlist;

struct hv_namesearch_ops {
    struct hv_plugin_hdr hdr;

    /* Per-list state (optional).  @opts: the parsed option struct. */
    int (*init)(const void *opts, void **priv);
    void (*fini)(void *priv);

    /* @obj joins / leaves the list (optional; 0 or -ENOMEM). */
    int (*add)(void *priv, struct hv_vobj *obj);
    void (*remove)(void *priv, struct hv_vobj *obj);

    /* The object named @name, or NULL. */
    struct hv_vobj *(*find)(void *priv, struct hv_vobjlist *l,
                            const char *name);
};

/* ABI v1 ends at .find: hooks appended later are read with HV_OPS_HAS(). */
#define HV_NAMESEARCH_OPS_V1_SIZE \
    HV_OPS_SIZE_UPTO(struct hv_namesearch_ops, find)

#endif /* HV_NAMESEARCH_H */
