/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The xenstore of the model (hv/xenstore/): oxenstored's store, its
 * permissions, quotas and transactions, without the wire protocol, watches
 * and disk.  One request in, one answer out; the answer is what the wire
 * would carry (a value, NUL-separated names, "<L><domid>" perms, a tid).
 *
 * Errors are -errno, never an abort on guest input:
 *   -EINVAL  bad path (characters, "//", trailing "/", empty), bad perms,
 *            rm of "/"
 *   -E2BIG   value over maxsize (everyone, dom0 too), request payload over
 *            HV_XS_PAYLOAD_MAX, path over the length limits, an answer
 *            that does not fit the caller's buffer (or, but a directory,
 *            HV_XS_PAYLOAD_MAX)
 *   -ENOSPC  (HV_XS_EQUOTA) maxent nodes, maxtxn open transactions,
 *            maxops requests in one transaction
 *   -EACCES  permission denied
 *   -ENOENT  no such node (rm: no parent; a missing node is fine), unknown
 *            transaction (looked up before the path is parsed)
 *   -EBUSY   HV_XS_TXN_START inside a transaction
 *   -EAGAIN  transaction conflict: commit again
 *   -ENOMEM  out of memory; the store is unchanged
 */
#ifndef HV_XENSTORE_H
#define HV_XENSTORE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/types.h>

#define HV_XS_EQUOTA       ENOSPC

#define HV_XS_PAYLOAD_MAX  4096 /* XENSTORE_PAYLOAD_MAX */
#define HV_XS_ABS_PATH_MAX 3072 /* XENSTORE_ABS_PATH_MAX */
#define HV_XS_REL_PATH_MAX 2048 /* XENSTORE_REL_PATH_MAX */
#define HV_XS_MAX_PERMS    32   /* perms entries one request may carry */

/* Limits of the store; hv_config_init() sets oxenstored's defaults. */
struct hv_xs_config {
    unsigned int maxent;  /* nodes per domU (dom0 exempt); 1000 */
    unsigned int maxsize; /* bytes per node value (everyone); 2048 */
    unsigned int maxtxn;  /* open transactions per domU; 10 */
    unsigned int maxops;  /* requests per domU transaction; 1024 */
    bool coalesce;        /* try the coalesce path before replay; true */
};

void hv_xs_config_init(struct hv_xs_config *cfg);

enum hv_xs_op {
    HV_XS_READ,
    HV_XS_WRITE,
    HV_XS_MKDIR,
    HV_XS_RM,
    HV_XS_DIRECTORY,
    HV_XS_GET_PERMS,
    HV_XS_SET_PERMS,
    HV_XS_TXN_START,
    HV_XS_TXN_END,
    HV_XS_OP_NR
};

/* Permission bits; entry 0 of a list is the owner and the default. */
#define HV_XS_PERM_NONE  0u
#define HV_XS_PERM_READ  1u
#define HV_XS_PERM_WRITE 2u
#define HV_XS_PERM_BOTH  3u

struct hv_xs_perm {
    domid_t id;
    uint8_t perm; /* HV_XS_PERM_* */
};

struct hv_xs_req {
    enum hv_xs_op op;
    domid_t caller;    /* the connection's domain; 0 = dom0 */
    uint32_t tid;      /* 0 = no transaction */
    const char *path;  /* absolute, or relative to /local/domain/<caller> */
    const void *value; /* HV_XS_WRITE */
    size_t value_len;  /* HV_XS_WRITE */
    const struct hv_xs_perm *perms; /* HV_XS_SET_PERMS */
    unsigned int nr_perms;          /* HV_XS_SET_PERMS, 1..HV_XS_MAX_PERMS */
    bool commit;                    /* HV_XS_TXN_END: commit or abort */
};

/*
 * The answer: @buf (caller's, @cap bytes) receives the payload, @len its
 * length; @tid the new transaction of HV_XS_TXN_START.
 */
struct hv_xs_rsp {
    char *buf;
    size_t cap;
    size_t len;
    uint32_t tid;
};

struct hv;
struct hv_xs;
struct hv_quota_ops;

/* The machine's store (created with the machine). */
struct hv_xs *hv_xs(struct hv *hv);

/* Model side: create/destroy (hv/hv.c).  @quota is the slot's plugin. */
int hv_xs_create(const struct hv_xs_config *cfg,
                 const struct hv_quota_ops *quota, const void *quota_opts,
                 struct hv_xs **out);
void hv_xs_destroy(struct hv_xs *xs);

/* One request; 0 or -errno (list above).  Thread-safe (one lock). */
int hv_xs_request(struct hv_xs *xs, const struct hv_xs_req *req,
                  struct hv_xs_rsp *rsp);

/*
 * hv_xs_request_bare - what a request that never reaches the store (WATCH,
 * UNWATCH, GET_DOMAIN_PATH, INTRODUCE: the daemon's, xenstored/) costs it
 * outside a transaction: oxenstored's process_packet makes the packet's
 * transaction before it looks at the type (Transaction.make none: one
 * quota copy).  0 / -ENOMEM.
 */
int hv_xs_request_bare(struct hv_xs *xs);

/*
 * hv_xs_domain_release - the domain died: abort its transactions, remove
 * /local/domain/<id>, give its nodes elsewhere to dom0 and drop it from
 * every ACL (XSA-322), drop its quota entry (Quota.del).  0 / -ENOMEM.
 */
int hv_xs_domain_release(struct hv_xs *xs, domid_t id);

/*
 * hv_xs_path_abs - @path as the store takes it from @caller (relative
 * under /local/domain/<caller>, "@name" as /@name), checked: 0 and the
 * absolute path in @out (@cap bytes), or the request's -EINVAL / -E2BIG.
 */
int hv_xs_path_abs(const char *path, domid_t caller, char *out, size_t cap);

/* The quota count of @id in the committed store. */
int hv_xs_quota(struct hv_xs *xs, domid_t id);

/*
 * hv_xs_check - CONTROL check: recount owners over the tree and compare
 * with the quota map.  0, or -EINVAL with @err naming the first
 * mismatch (@err may be NULL).
 */
int hv_xs_check(struct hv_xs *xs, char *err, size_t len);

struct hv_xs_stats {
    uint64_t nodes;        /* committed tree */
    uint64_t node_bytes;   /* malloc_usable_size of nodes and arrays */
    uint64_t quota_copies; /* copy points taken */
    uint64_t commits_fast, commits_coalesce, commits_replay, conflicts;
    unsigned int open_txns;
};
void hv_xs_get_stats(struct hv_xs *xs, struct hv_xs_stats *st);

/* Walk the committed tree depth first, children in name order. */
typedef void (*hv_xs_walk_fn)(const char *path, const char *value,
                              size_t value_len, const struct hv_xs_perm *perms,
                              unsigned int nr_perms, void *arg);
void hv_xs_walk(struct hv_xs *xs, hv_xs_walk_fn fn, void *arg);

/* Format / parse "<L><domid>" perms text ("b0", "r5", "n7"). */
int hv_xs_perms_format(const struct hv_xs_perm *p, unsigned int n, char *buf,
                       size_t cap, size_t *len);

/* Convenience wrappers (answers into @buf, @cap bytes). */
static inline int hv_xs_read(struct hv_xs *xs, domid_t caller, uint32_t tid,
                             const char *path, char *buf, size_t cap,
                             size_t *len)
{
    struct hv_xs_req q = {
        .op = HV_XS_READ, .caller = caller, .tid = tid, .path = path};
    struct hv_xs_rsp r = {.buf = buf, .cap = cap};
    int rc = hv_xs_request(xs, &q, &r);

    if ( len )
        *len = r.len;
    return rc;
}

static inline int hv_xs_directory(struct hv_xs *xs, domid_t caller,
                                  uint32_t tid, const char *path, char *buf,
                                  size_t cap, size_t *len)
{
    struct hv_xs_req q = {
        .op = HV_XS_DIRECTORY, .caller = caller, .tid = tid, .path = path};
    struct hv_xs_rsp r = {.buf = buf, .cap = cap};
    int rc = hv_xs_request(xs, &q, &r);

    if ( len )
        *len = r.len;
    return rc;
}

static inline int hv_xs_write(struct hv_xs *xs, domid_t caller, uint32_t tid,
                              const char *path, const char *value)
{
    size_t n = 0;
    struct hv_xs_req q;
    struct hv_xs_rsp r = {.buf = NULL, .cap = 0};

    while ( value[n] )
        n++;
    q = (struct hv_xs_req){.op = HV_XS_WRITE,
                           .caller = caller,
                           .tid = tid,
                           .path = path,
                           .value = value,
                           .value_len = n};
    return hv_xs_request(xs, &q, &r);
}

static inline int hv_xs_simple(struct hv_xs *xs, enum hv_xs_op op,
                               domid_t caller, uint32_t tid, const char *path)
{
    struct hv_xs_req q = {.op = op, .caller = caller, .tid = tid, .path = path};
    struct hv_xs_rsp r = {.buf = NULL, .cap = 0};

    return hv_xs_request(xs, &q, &r);
}

static inline int hv_xs_set_perms(struct hv_xs *xs, domid_t caller,
                                  uint32_t tid, const char *path,
                                  const struct hv_xs_perm *p, unsigned int n)
{
    struct hv_xs_req q = {.op = HV_XS_SET_PERMS,
                          .caller = caller,
                          .tid = tid,
                          .path = path,
                          .perms = p,
                          .nr_perms = n};
    struct hv_xs_rsp r = {.buf = NULL, .cap = 0};

    return hv_xs_request(xs, &q, &r);
}

/* Start a transaction: 0 and *@tid, or -errno. */
static inline int hv_xs_txn_start(struct hv_xs *xs, domid_t caller,
                                  uint32_t *tid)
{
    struct hv_xs_req q = {.op = HV_XS_TXN_START, .caller = caller};
    struct hv_xs_rsp r = {.buf = NULL, .cap = 0};
    int rc = hv_xs_request(xs, &q, &r);

    *tid = r.tid;
    return rc;
}

static inline int hv_xs_txn_end(struct hv_xs *xs, domid_t caller, uint32_t tid,
                                bool commit)
{
    struct hv_xs_req q = {
        .op = HV_XS_TXN_END, .caller = caller, .tid = tid, .commit = commit};
    struct hv_xs_rsp r = {.buf = NULL, .cap = 0};

    return hv_xs_request(xs, &q, &r);
}

#endif /* HV_XENSTORE_H */
