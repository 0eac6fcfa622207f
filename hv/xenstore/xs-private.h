/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals of the model's xenstore, shared by the files of hv/xenstore/:
 *
 *   node.c         immutable refcounted nodes, path copying
 *   children.c     a node's children: a persistent AVL tree by name
 *   path.c         path validation and resolution
 *   store.c        the operations on one (root, quota) pair
 *   transaction.c  transactions and the three commit paths
 *   xenstore.c     requests, the quota copy schedule, domain release
 */
#ifndef HV_XS_PRIVATE_H
#define HV_XS_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/quota.h>
#include <hv/xenstore.h>

/*
 * A node.  Immutable once reachable from more than one reference: a
 * change copies the node and its ancestors (path copying), so a root
 * pointer is a snapshot and "nobody committed since" is root == oldroot.
 * A node whose every ancestor up to an exclusively held root has refcnt 1
 * is visible to nobody else and is changed in place (node.c).
 * One allocation holds the struct, the perms, the value and the name;
 * the children are a persistent tree of their own (children.c), shared
 * between versions of the node.
 */
struct xs_cnode;
struct xs_node {
    unsigned int refcnt; /* under the xenstore lock */
    uint32_t value_len;
    uint16_t nr_perms;
    struct xs_cnode *children; /* by name (strcmp); NULL: none */
    struct hv_xs_perm *perms;  /* [0] = owner and default */
    char *value;               /* value_len bytes + NUL */
    char *name;                /* "" for the root */
};

/* A resolved absolute path: "/a/b" -> comps "a", "b". */
#define XS_MAX_COMPS (HV_XS_ABS_PATH_MAX / 2 + 1)
struct xs_path {
    char buf[HV_XS_ABS_PATH_MAX + 1];
    size_t len;
    unsigned int n;
    uint16_t off[XS_MAX_COMPS], clen[XS_MAX_COMPS];
};

/* A root and its quota: the committed store, or a transaction's. */
struct xs_store {
    struct xs_node *root;
    struct hv_quota_map *quota;
};

/* What an operation touched, for a transaction's lowpaths. */
enum xs_low_kind {
    XS_LOW_NONE,
    XS_LOW_READ,
    XS_LOW_WRITE
};
struct xs_low {
    enum xs_low_kind kind;
    size_t len; /* prefix of the request's path: the path or its parent */
};

struct xs_txn;

struct hv_xs {
    pthread_mutex_t lock;
    struct hv_xs_config cfg;
    const struct hv_quota_ops *qops;
    void *qpriv;
    struct xs_store store; /* committed */
    struct xs_txn *txns;   /* open transactions */
    uint32_t next_tid;
    struct hv_xs_stats stats;
};

/* node.c */
struct xs_node *xs_node_new(const char *name, size_t name_len,
                            const void *value, size_t value_len,
                            const struct hv_xs_perm *perms,
                            unsigned int nr_perms);
static inline struct xs_node *xs_node_get(struct xs_node *n)
{
    n->refcnt++;
    return n;
}
void xs_node_put(struct xs_node *n);
static inline struct xs_node *xs_node_child(const struct xs_node *n,
                                            const char *name, size_t len);
/* A copy of @n with a new value or perms (NULL: keep), children shared. */
struct xs_node *xs_node_clone(const struct xs_node *n, const void *value,
                              size_t value_len, const struct hv_xs_perm *perms,
                              unsigned int nr_perms);
/*
 * xs_tree_set - in the tree held by *@root, replace the node at
 * comps[0..k) of @p by @sub (NULL removes it; the reference passes).
 * k == 0 replaces the root.  The parent of the target must exist.
 * 0 or -ENOMEM (the tree is then logically unchanged, @sub dropped).
 */
int xs_tree_set(struct xs_node **root, const struct xs_path *p, unsigned int k,
                struct xs_node *sub);
/* The node at comps[0..k) of @p, or NULL. */
struct xs_node *xs_tree_get(struct xs_node *root, const struct xs_path *p,
                            unsigned int k);
size_t xs_node_bytes(const struct xs_node *n);

/* children.c: the map name -> child of one node */
struct xs_cnode *xs_children_get(struct xs_cnode *t);
void xs_children_put(struct xs_cnode *t);
struct xs_node *xs_children_find(const struct xs_cnode *t, const char *name,
                                 size_t len);
/*
 * On a map held exclusively (the children of an exclusively held node):
 * set inserts or replaces the child named like @sub (the reference
 * passes on success only); del removes one; slot makes the path to a
 * child exclusive and returns where its pointer lives (NULL: *@rc).
 */
int xs_children_set(struct xs_cnode **t, struct xs_node *sub);
int xs_children_del(struct xs_cnode **t, const char *name, size_t len);
struct xs_node **xs_children_slot(struct xs_cnode **t, const char *name,
                                  size_t len, int *rc);
/* In name order; a non-zero return of @fn stops the walk and is returned. */
typedef int (*xs_child_fn)(struct xs_node *child, void *arg);
int xs_children_foreach(const struct xs_cnode *t, xs_child_fn fn, void *arg);
size_t xs_children_bytes(const struct xs_cnode *t);
/* Order, heights and balance of the tree; 0 / -EINVAL.  *@h: height. */
int xs_children_check(const struct xs_cnode *t, int *h);

static inline struct xs_node *xs_node_child(const struct xs_node *n,
                                            const char *name, size_t len)
{
    return xs_children_find(n->children, name, len);
}

/* path.c */
int xs_path_resolve(const char *path, domid_t caller, struct xs_path *out);
/* Parse an absolute canonical path (no relative form). */
int xs_path_parse_abs(const char *path, size_t len, struct xs_path *out);
/* Components of @p covered by its first @len bytes. */
unsigned int xs_path_comps_in(const struct xs_path *p, size_t len);
/* Length of the parent of @p ("/" for "/a"). */
size_t xs_path_parent_len(const struct xs_path *p);

/* store.c */
int xs_store_op(struct hv_xs *xs, struct xs_store *s,
                const struct hv_xs_req *req, const struct xs_path *p,
                struct hv_xs_rsp *rsp, struct xs_low *low);
/* Charge @diff to @id in @s's quota. */
int xs_quota_add(struct hv_xs *xs, struct hv_quota_map **m, domid_t id,
                 int diff);

/* transaction.c */
int xs_txn_start(struct hv_xs *xs, domid_t caller, uint32_t *tid);
int xs_txn_end(struct hv_xs *xs, domid_t caller, uint32_t tid, bool commit);
int xs_txn_op(struct hv_xs *xs, const struct hv_xs_req *req,
              struct hv_xs_rsp *rsp);
bool xs_txn_exists(struct hv_xs *xs, domid_t caller, uint32_t tid);
void xs_txn_abort_domain(struct hv_xs *xs, domid_t id);
void xs_txn_abort_all(struct hv_xs *xs);

/* xenstore.c */
struct hv_quota_map *xs_quota_copy(struct hv_xs *xs, struct hv_quota_map *m);
void xs_quota_release(struct hv_xs *xs, struct hv_quota_map *m);

#endif /* HV_XS_PRIVATE_H */
