/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Slot "quota": the per-domain node-count map of the xenstore (oxenstored's
 * Quota.t cur, seed 000).  The store copies it at fixed points of every
 * request (hv/xenstore/xenstore.c: read 1, write 3, transaction start 3);
 * what a copy costs is the strategy's business:
 *
 *   hashtbl-copy  an open hash table deep-copied at every copy point and
 *                 freed when the request ends (Hashtbl.copy + GC);
 *   persistent    a persistent trie: copy is a reference, update copies
 *                 one root-to-leaf path (Map, after b6cf604207).
 *
 * Maps are values: a handle is owned by exactly one holder.  copy() gives
 * a new handle the caller owns; add()/del() replace *m by the updated map
 * (in place when the strategy may) and never change any other handle.
 * An entry whose count reaches 0 disappears (update_entry in quota.ml).
 * Errors: -ENOMEM only; a failed update leaves *m unchanged.
 *
 * Dispatch is once per map operation.  The store is single-threaded
 * (oxenstored is): every call happens under the xenstore lock.
 */
#ifndef HV_QUOTA_H
#define HV_QUOTA_H

#include <hv/plugin.h>
#include <hv/types.h>

struct hv_quota_map; /* the strategy's */

typedef void (*hv_quota_fn)(domid_t id, int count, void *arg);

struct hv_quota_ops {
    struct hv_plugin_hdr hdr;

    /* Slot-wide state (optional).  @opts is the parsed option struct. */
    int (*init)(const void *opts, void **priv);
    void (*fini)(void *priv);

    /* A new empty map, or NULL (out of memory). */
    struct hv_quota_map *(*create)(void *priv);
    /* A snapshot of @m owned by the caller, or NULL (out of memory). */
    struct hv_quota_map *(*copy)(void *priv, struct hv_quota_map *m);
    /* Drop a handle (the "GC" of the copy). */
    void (*release)(void *priv, struct hv_quota_map *m);

    /* The count of @id, 0 when absent. */
    int (*get)(void *priv, const struct hv_quota_map *m, domid_t id);
    /* cur[@id] += @diff; the entry goes when it reaches 0.  0 / -ENOMEM. */
    int (*add)(void *priv, struct hv_quota_map **m, domid_t id, int diff);
    /* Drop @id's entry (Quota.del at domain release).  0 / -ENOMEM. */
    int (*del)(void *priv, struct hv_quota_map **m, domid_t id);
    /* Call @fn for every entry, in any order. */
    void (*foreach)(void *priv, const struct hv_quota_map *m, hv_quota_fn fn,
                    void *arg);
    /* Number of entries. */
    unsigned int (*size)(void *priv, const struct hv_quota_map *m);
};

/* ABI v1 ends at .size: hooks appended later are read with HV_OPS_HAS(). */
#define HV_QUOTA_OPS_V1_SIZE HV_OPS_SIZE_UPTO(struct hv_quota_ops, size)

#endif /* HV_QUOTA_H */
