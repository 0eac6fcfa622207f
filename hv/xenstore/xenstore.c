/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The xenstore's front door: one request at a time under one lock
 * (oxenstored is single-threaded), with oxenstored's per-request quota
 * copy schedule (process.ml, seed 000):
 *
 *   request (no transaction)       copies   why
 *   read, directory, getperms      1        Transaction.make none
 *   write, mkdir, rm, setperms     3        make + Store.copy before/after
 *                                           (record_commit for History)
 *   transaction start              3        make id: Quota.copy + 2 Store.copy
 *   request inside a transaction   0        Connection.get_transaction
 *   transaction end                0 (+3 on replay: make internal)
 *   any other packet (watch, domain  1        make none, before the type is
 *   path, introduce: the daemon's)            looked at (hv_xs_request_bare)
 *
 * The copies are dropped when the request ends, as the OCaml objects
 * become garbage.  Which copies exist is the model's; what one costs is
 * the quota strategy's (hashtbl-copy: O(domains) allocations and frees;
 * persistent: a reference count).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xs-private.h"

static const struct hv_xs_perm root_perms[] = {{0, HV_XS_PERM_NONE}};

void hv_xs_config_init(struct hv_xs_config *cfg)
{
    cfg->maxent = 1000;
    cfg->maxsize = 2048;
    cfg->maxtxn = 10;
    cfg->maxops = 1024;
    cfg->coalesce = true;
}

struct hv_quota_map *xs_quota_copy(struct hv_xs *xs, struct hv_quota_map *m)
{
    xs->stats.quota_copies++;
    return xs->qops->copy(xs->qpriv, m);
}

void xs_quota_release(struct hv_xs *xs, struct hv_quota_map *m)
{
    if ( m )
        xs->qops->release(xs->qpriv, m);
}

int hv_xs_create(const struct hv_xs_config *cfg,
                 const struct hv_quota_ops *quota, const void *quota_opts,
                 struct hv_xs **out)
{
    struct hv_xs *xs = calloc(1, sizeof(*xs));
    int rc = -ENOMEM;

    *out = NULL;
    if ( xs == NULL )
        return -ENOMEM;
    xs->cfg = *cfg;
    xs->qops = quota;
    xs->next_tid = 1;
    if ( quota->init && (rc = quota->init(quota_opts, &xs->qpriv)) != 0 )
    {
        free(xs);
        return rc;
    }
    rc = -ENOMEM;
    xs->store.root = xs_node_new("", 0, "", 0, root_perms, 1);
    xs->store.quota = quota->create(xs->qpriv);
    if ( xs->store.root == NULL || xs->store.quota == NULL ||
         xs_quota_add(xs, &xs->store.quota, 0, 1) )
        goto fail;
    pthread_mutex_init(&xs->lock, NULL);
    *out = xs;
    return 0;

fail:
    xs_node_put(xs->store.root);
    xs_quota_release(xs, xs->store.quota);
    if ( quota->fini )
        quota->fini(xs->qpriv);
    free(xs);
    return rc;
}

void hv_xs_destroy(struct hv_xs *xs)
{
    if ( xs == NULL )
        return;
    xs_txn_abort_all(xs);
    xs_node_put(xs->store.root);
    xs_quota_release(xs, xs->store.quota);
    if ( xs->qops->fini )
        xs->qops->fini(xs->qpriv);
    pthread_mutex_destroy(&xs->lock);
    free(xs);
}

static bool is_write_op(enum hv_xs_op op)
{
    return op == HV_XS_WRITE || op == HV_XS_MKDIR || op == HV_XS_RM ||
           op == HV_XS_SET_PERMS;
}

/*
 * Request-level checks, what the wire itself rules out: the message's
 * shape (a path, a value, a perms list of 1..HV_XS_MAX_PERMS) and its
 * payload size.  The entries of the perms list are checked with the op,
 * after the path (store.c).
 */
static int check_req(const struct hv_xs_req *req)
{
    size_t payload;

    if ( req->op >= HV_XS_OP_NR )
        return -EINVAL;
    if ( req->op == HV_XS_TXN_START || req->op == HV_XS_TXN_END )
        return 0;
    if ( req->path == NULL )
        return -EINVAL;
    payload = strnlen(req->path, HV_XS_PAYLOAD_MAX + 1) + 1;
    if ( req->op == HV_XS_WRITE )
    {
        if ( req->value == NULL && req->value_len )
            return -EINVAL;
        payload += req->value_len;
    }
    if ( req->op == HV_XS_SET_PERMS )
    {
        if ( req->perms == NULL || req->nr_perms == 0 ||
             req->nr_perms > HV_XS_MAX_PERMS )
            return -EINVAL;
        payload += 7 * (size_t)req->nr_perms; /* "b32751\0" at most */
    }
    return payload > HV_XS_PAYLOAD_MAX ? -E2BIG : 0;
}

/* A request outside any transaction, with its copy schedule. */
static int direct(struct hv_xs *xs, const struct hv_xs_req *req,
                  const struct xs_path *p, struct hv_xs_rsp *rsp)
{
    struct hv_quota_map *t_quota, *before = NULL, *after = NULL;
    struct xs_low low;
    int rc;

    t_quota = xs_quota_copy(xs, xs->store.quota);
    if ( t_quota == NULL )
        return -ENOMEM;
    if ( is_write_op(req->op) )
    {
        before = xs_quota_copy(xs, xs->store.quota);
        if ( before == NULL )
        {
            rc = -ENOMEM;
            goto out;
        }
    }
    rc = xs_store_op(xs, &xs->store, req, p, rsp, &low);
    if ( is_write_op(req->op) )
    {
        after = xs_quota_copy(xs, xs->store.quota);
        if ( after == NULL && rc == 0 )
            rc = -ENOMEM; /* the write happened; History lost it */
    }
out:
    xs_quota_release(xs, after);
    xs_quota_release(xs, before);
    xs_quota_release(xs, t_quota);
    return rc;
}

int hv_xs_request(struct hv_xs *xs, const struct hv_xs_req *req,
                  struct hv_xs_rsp *rsp)
{
    struct xs_path p;
    int rc;

    rsp->len = 0;
    rsp->tid = 0;
    rc = check_req(req);
    if ( rc )
        return rc;
    pthread_mutex_lock(&xs->lock);
    /*
     * The transaction a request names is looked up before anything of the
     * request is parsed (process.ml process_packet, cxenstored
     * transaction_lookup): an unknown tid is ENOENT even for a bad path or
     * a nested start.
     */
    switch ( req->op )
    {
    case HV_XS_TXN_START:
        if ( req->tid )
            rc = xs_txn_exists(xs, req->caller, req->tid) ? -EBUSY : -ENOENT;
        else
            rc = xs_txn_start(xs, req->caller, &rsp->tid);
        break;
    case HV_XS_TXN_END:
        rc = xs_txn_end(xs, req->caller, req->tid, req->commit);
        break;
    default:
        if ( req->tid )
            rc = xs_txn_op(xs, req, rsp);
        else if ( (rc = xs_path_resolve(req->path, req->caller, &p)) == 0 )
            rc = direct(xs, req, &p, rsp);
    }
    pthread_mutex_unlock(&xs->lock);
    return rc;
}

int hv_xs_request_bare(struct hv_xs *xs)
{
    struct hv_quota_map *t_quota;

    pthread_mutex_lock(&xs->lock);
    t_quota = xs_quota_copy(xs, xs->store.quota);
    xs_quota_release(xs, t_quota);
    pthread_mutex_unlock(&xs->lock);
    return t_quota ? 0 : -ENOMEM;
}

/* ---- domain release ---- */

struct reown {
    struct hv_xs *xs;
    domid_t id;
    int moved;
    int rc;
};

static struct xs_node *reown(struct reown *r, struct xs_node *n);

struct reown_kids {
    struct reown *r;
    const struct xs_node *n; /* the original */
    struct xs_node *c;       /* its new version, once one is needed */
};

static int reown_child(struct xs_node *child, void *arg)
{
    struct reown_kids *k = arg;
    struct xs_node *nc = reown(k->r, child);

    if ( nc == NULL )
        return k->r->rc;
    if ( k->c == NULL &&
         (k->c = xs_node_clone(k->n, NULL, 0, NULL, 0)) == NULL )
    {
        xs_node_put(nc);
        return k->r->rc = -ENOMEM;
    }
    if ( xs_children_set(&k->c->children, nc) )
    {
        xs_node_put(nc);
        return k->r->rc = -ENOMEM;
    }
    return 0;
}

/* @n with @id's perms entries dropped and its ownership given to dom0. */
static struct xs_node *reown(struct reown *r, struct xs_node *n)
{
    struct hv_xs_perm perms[HV_XS_MAX_PERMS + 1];
    struct reown_kids k = {r, n, NULL};
    unsigned int i, np = 0;
    bool change = false;

    for ( i = 0; i < n->nr_perms && np < HV_XS_MAX_PERMS + 1; i++ )
    {
        if ( i == 0 && n->perms[0].id == r->id )
        {
            perms[np++] = (struct hv_xs_perm){0, n->perms[0].perm};
            change = true;
            r->moved++;
        }
        else if ( i > 0 && n->perms[i].id == r->id )
            change = true;
        else
            perms[np++] = n->perms[i];
    }
    if ( change && (k.c = xs_node_clone(n, NULL, 0, perms, np)) == NULL )
    {
        r->rc = -ENOMEM;
        return NULL;
    }
    xs_children_foreach(n->children, reown_child, &k);
    if ( r->rc )
    {
        xs_node_put(k.c);
        return NULL;
    }
    return k.c;
}

int hv_xs_domain_release(struct hv_xs *xs, domid_t id)
{
    struct hv_xs_req rm = {.op = HV_XS_RM, .caller = 0};
    struct hv_quota_map *q;
    struct reown r = {xs, id, 0, 0};
    struct xs_node *root;
    struct xs_path p;
    struct xs_low low;
    char path[32];
    int rc;

    if ( id == 0 )
        return -EINVAL;
    snprintf(path, sizeof(path), "/local/domain/%u", id);
    rm.path = path;
    pthread_mutex_lock(&xs->lock);
    xs_txn_abort_domain(xs, id);
    rc = xs_path_resolve(path, 0, &p);
    if ( rc == 0 )
        rc = xs_store_op(xs, &xs->store, &rm, &p, NULL, &low);
    if ( rc )
        goto out;
    root = reown(&r, xs->store.root);
    rc = r.rc;
    if ( rc )
        goto out;
    q = xs->qops->copy(xs->qpriv, xs->store.quota);
    if ( q == NULL || xs_quota_add(xs, &q, 0, r.moved) ||
         xs->qops->del(xs->qpriv, &q, id) )
    {
        xs_quota_release(xs, q);
        xs_node_put(root);
        rc = -ENOMEM;
        goto out;
    }
    if ( root )
    {
        xs_node_put(xs->store.root);
        xs->store.root = root;
    }
    xs_quota_release(xs, xs->store.quota);
    xs->store.quota = q;
out:
    pthread_mutex_unlock(&xs->lock);
    return rc;
}

/* ---- inspection ---- */

int hv_xs_path_abs(const char *path, domid_t caller, char *out, size_t cap)
{
    struct xs_path p;
    int rc = xs_path_resolve(path, caller, &p);

    if ( rc )
        return rc;
    if ( p.len >= cap )
        return -E2BIG;
    memcpy(out, p.buf, p.len + 1);
    return 0;
}

int hv_xs_quota(struct hv_xs *xs, domid_t id)
{
    int n;

    pthread_mutex_lock(&xs->lock);
    n = xs->qops->get(xs->qpriv, xs->store.quota, id);
    pthread_mutex_unlock(&xs->lock);
    return n;
}

struct recount {
    int *count; /* indexed by domid */
    uint64_t nodes, bytes;
    unsigned int bad_tree; /* children maps out of order or balance */
};

static int count(struct xs_node *n, void *arg)
{
    struct recount *r = arg;
    int h;

    r->count[n->perms[0].id]++;
    r->nodes++;
    r->bytes += xs_node_bytes(n);
    if ( xs_children_check(n->children, &h) )
        r->bad_tree++;
    return xs_children_foreach(n->children, count, r);
}

struct qcheck {
    const int *count;
    int bad_id, bad_n;
};

static void qcheck(domid_t id, int n, void *arg)
{
    struct qcheck *q = arg;

    if ( q->bad_id < 0 && (id >= DOMID_FIRST_RESERVED || q->count[id] != n) )
    {
        q->bad_id = id;
        q->bad_n = n;
    }
}

int hv_xs_check(struct hv_xs *xs, char *err, size_t len)
{
    struct recount r = {calloc(DOMID_FIRST_RESERVED, sizeof(int)), 0, 0, 0};
    struct qcheck q = {r.count, -1, 0};
    unsigned int i, present = 0;
    int rc = 0;

    if ( r.count == NULL )
        return -ENOMEM;
    pthread_mutex_lock(&xs->lock);
    count(xs->store.root, &r);
    xs->qops->foreach(xs->qpriv, xs->store.quota, qcheck, &q);
    for ( i = 0; i < DOMID_FIRST_RESERVED; i++ )
        present += r.count[i] != 0;
    if ( r.bad_tree )
    {
        if ( err )
            snprintf(err, len, "%u children maps out of order or balance",
                     r.bad_tree);
        rc = -EINVAL;
    }
    else if ( q.bad_id >= 0 )
    {
        if ( err )
            snprintf(err, len, "quota of dom%d is %d, the tree holds %d",
                     q.bad_id, q.bad_n,
                     q.bad_id < (int)DOMID_FIRST_RESERVED ? r.count[q.bad_id]
                                                          : 0);
        rc = -EINVAL;
    }
    else if ( present != xs->qops->size(xs->qpriv, xs->store.quota) )
    {
        if ( err )
            snprintf(err, len, "quota has %u entries, the tree %u owners",
                     xs->qops->size(xs->qpriv, xs->store.quota), present);
        rc = -EINVAL;
    }
    pthread_mutex_unlock(&xs->lock);
    free(r.count);
    return rc;
}

void hv_xs_get_stats(struct hv_xs *xs, struct hv_xs_stats *st)
{
    struct recount r = {calloc(DOMID_FIRST_RESERVED, sizeof(int)), 0, 0, 0};

    pthread_mutex_lock(&xs->lock);
    *st = xs->stats;
    if ( r.count )
        count(xs->store.root, &r);
    pthread_mutex_unlock(&xs->lock);
    st->nodes = r.nodes;
    st->node_bytes = r.bytes;
    free(r.count);
}

struct walk {
    char *path; /* HV_XS_ABS_PATH_MAX + 2 bytes */
    size_t len;
    hv_xs_walk_fn fn;
    void *arg;
};

static int walk_child(struct xs_node *c, void *arg);

static void walk(const struct xs_node *n, struct walk *w)
{
    w->fn(w->len ? w->path : "/", n->value, n->value_len, n->perms, n->nr_perms,
          w->arg);
    xs_children_foreach(n->children, walk_child, w);
}

static int walk_child(struct xs_node *c, void *arg)
{
    struct walk *w = arg;
    size_t len = w->len, l = strlen(c->name);

    if ( len + 1 + l > HV_XS_ABS_PATH_MAX )
        return 0;
    w->path[len] = '/';
    memcpy(w->path + len + 1, c->name, l + 1);
    w->len = len + 1 + l;
    walk(c, w);
    w->len = len;
    w->path[len] = '\0';
    return 0;
}

void hv_xs_walk(struct hv_xs *xs, hv_xs_walk_fn fn, void *arg)
{
    char path[HV_XS_ABS_PATH_MAX + 2] = "";
    struct walk w = {path, 0, fn, arg};

    pthread_mutex_lock(&xs->lock);
    walk(xs->store.root, &w);
    pthread_mutex_unlock(&xs->lock);
}

int hv_xs_perms_format(const struct hv_xs_perm *p, unsigned int n, char *buf,
                       size_t cap, size_t *len)
{
    static const char letter[] = "nrwb";
    size_t off = 0;
    unsigned int i;
    int w;

    for ( i = 0; i < n; i++ )
    {
        if ( off >= cap )
            return -E2BIG;
        w = snprintf(buf + off, cap - off, "%c%u", letter[p[i].perm & 3],
                     p[i].id);
        if ( w < 0 || (size_t)w + 1 > cap - off )
            return -E2BIG;
        off += w + 1; /* keep the NUL */
    }
    *len = off;
    return 0;
}
