/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Transactions, as oxenstored runs them (transaction.ml, connection.ml,
 * process.ml).
 *
 * Start takes a snapshot: the committed root (oldroot, a reference) and
 * three copies of the committed quota (Transaction.make with an id does
 * Quota.copy once and Store.copy twice): "orig" (t.quota), "mod" (the
 * transaction store's own quota, which its operations update) and the
 * unused copy of Full's old store.  Operations run on the transaction's
 * root and "mod", and are recorded with their answers (for replay).  Each
 * successful operation lowers a lowpath, the longest common prefix of:
 *   read_lowpath:  paths read (read, directory, getperms);
 *   write_lowpath: paths written - the node for an existing-node write,
 *                  mkdir and setperms, the parent for a new node and rm.
 *
 * Commit tries three paths in order, after one shortcut:
 *
 *  0. A transaction that changed nothing commits as a no-op, whatever
 *     was committed meanwhile (process.ml do_transaction_end: "commit &&
 *     not is_read_only"; xenstore-wire.md 5.4); it counts as fast.
 *
 *  1. Fast: oldroot == committed root (one pointer comparison: nobody
 *     committed since start).  Install the transaction's root and its
 *     quota wholesale (when it wrote anything).
 *
 *  2. Coalesce: the nodes at read_lowpath and at write_lowpath are the
 *     same objects in oldroot and the committed root, and every node
 *     from the root down to each has the same perms in both
 *     (check_parents_perms_identical); or a lowpath is absent from both
 *     and its parent is in the committed tree (test_coalesce): nobody
 *     touched those subtrees.  Graft the transaction's
 *     subtree at write_lowpath into the committed tree and merge the
 *     quota three ways, dest + (mod - orig), for every domid of mod *or*
 *     orig.  (oxenstored's Quota.merge folds over mod only, so a domain
 *     whose last node the transaction removed keeps its old count; folding
 *     over both keeps quota == recount.)
 *
 *  3. Replay: re-execute the recorded requests in a fresh transaction on
 *     the committed store; identical answers commit it (fast path, as
 *     nothing runs in between), any difference is -EAGAIN.
 *
 * Worked example.  Committed tree /a/x, /b/y.  Domain 0 starts T1.
 *   T1: write /a/z "1"       write_lowpath = /a (z was new: its parent)
 *   outside: write /b/y "2"  committed root R1 != oldroot R0
 *   T1 commit: /a is the same node in R0 and R1 -> coalesce: R2 = R1 with
 *   /a replaced by T1's /a; quota(R2) = quota(R1) + (T1 mod - T1 orig) =
 *   quota(R1) + {0: +1}.
 * Had "outside" written /a/x instead, /a differs -> replay: T1's single
 * recorded request (write /a/z "1" -> ok) answers the same -> commit.
 * Had T1 also read /a/x ("v") and "outside" removed /a/x, the replayed
 * read answers -ENOENT, not "v" -> -EAGAIN, nothing changes (XSA-440:
 * the counts stay consistent and nothing asserts).
 *
 * Limits: a domU may hold maxtxn open transactions (-ENOSPC at start)
 * and send maxops requests in one (-ENOSPC, not executed, not recorded);
 * dom0 is exempt from both.  A request is counted and recorded once the
 * transaction is found, whatever its answer (a bad path too: process.ml
 * parses the path inside the transaction).  A tid belongs to the domain
 * that started it: anyone else gets -ENOENT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xs-private.h"

/* A recorded request and its answer. */
struct xs_oprec {
    struct hv_xs_req req; /* path, value, perms owned */
    int rc;
    size_t cap;
    size_t len;
    char *answer; /* len bytes when rc == 0 */
};

struct xs_lowpath {
    bool set;
    struct xs_path p;
};

struct xs_txn {
    struct xs_txn *next;
    uint32_t id;
    domid_t owner;
    struct xs_node *oldroot;         /* the committed root at start */
    struct xs_store st;              /* root + "mod" quota */
    struct hv_quota_map *orig_quota; /* t.quota */
    struct hv_quota_map *old_copy;   /* Full's old store (unused) */
    bool has_writes;
    bool lost_record; /* -ENOMEM recording: cannot replay */
    struct xs_lowpath read_low, write_low;
    struct xs_oprec *ops;
    unsigned int nr_ops, cap_ops;
};

/* Transaction.make: the snapshot and its three quota copies. */
static struct xs_txn *txn_make(struct hv_xs *xs, domid_t owner)
{
    struct xs_txn *t = calloc(1, sizeof(*t));

    if ( t == NULL )
        return NULL;
    t->owner = owner;
    t->orig_quota = xs_quota_copy(xs, xs->store.quota);
    t->st.quota = xs_quota_copy(xs, xs->store.quota);
    t->old_copy = xs_quota_copy(xs, xs->store.quota);
    if ( !t->orig_quota || !t->st.quota || !t->old_copy )
    {
        xs_quota_release(xs, t->orig_quota);
        xs_quota_release(xs, t->st.quota);
        xs_quota_release(xs, t->old_copy);
        free(t);
        return NULL;
    }
    t->oldroot = xs_node_get(xs->store.root);
    t->st.root = xs_node_get(xs->store.root);
    return t;
}

static void txn_free(struct hv_xs *xs, struct xs_txn *t)
{
    unsigned int i;

    for ( i = 0; i < t->nr_ops; i++ )
    {
        free((void *)t->ops[i].req.path);
        free((void *)t->ops[i].req.value);
        free((void *)t->ops[i].req.perms);
        free(t->ops[i].answer);
    }
    free(t->ops);
    xs_node_put(t->oldroot);
    xs_node_put(t->st.root);
    xs_quota_release(xs, t->orig_quota);
    xs_quota_release(xs, t->st.quota);
    xs_quota_release(xs, t->old_copy);
    free(t);
}

/* get_lowest: the common prefix of @low and @p[0..len), by components. */
static void lower(struct xs_lowpath *low, const struct xs_path *p, size_t len)
{
    unsigned int k = xs_path_comps_in(p, len), i;

    if ( !low->set )
    {
        xs_path_parse_abs(p->buf, len, &low->p);
        low->set = true;
        return;
    }
    for ( i = 0; i < k && i < low->p.n; i++ )
        if ( low->p.clen[i] != p->clen[i] ||
             memcmp(low->p.buf + low->p.off[i], p->buf + p->off[i],
                    p->clen[i]) != 0 )
            break;
    if ( i < low->p.n )
    {
        size_t l = i == 0 ? 1 : (size_t)low->p.off[i - 1] + low->p.clen[i - 1];

        xs_path_parse_abs(low->p.buf, l, &low->p);
    }
}

static struct xs_txn *txn_find(struct hv_xs *xs, domid_t caller, uint32_t id,
                               struct xs_txn ***prevp)
{
    struct xs_txn **pp, *t;

    for ( pp = &xs->txns; (t = *pp) != NULL; pp = &t->next )
        if ( t->id == id && t->owner == caller )
        {
            if ( prevp )
                *prevp = pp;
            return t;
        }
    return NULL;
}

int xs_txn_start(struct hv_xs *xs, domid_t caller, uint32_t *tid)
{
    struct xs_txn *t;
    unsigned int open = 0;

    for ( t = xs->txns; t; t = t->next )
        open += t->owner == caller;
    if ( caller != 0 && open >= xs->cfg.maxtxn )
        return -HV_XS_EQUOTA;
    t = txn_make(xs, caller);
    if ( t == NULL )
        return -ENOMEM;
    do
        t->id = xs->next_tid++;
    while ( t->id == 0 || txn_find(xs, caller, t->id, NULL) );
    t->next = xs->txns;
    xs->txns = t;
    xs->stats.open_txns++;
    *tid = t->id;
    return 0;
}

/* Run @req in @t (no limit check, no recording). */
static int txn_exec(struct hv_xs *xs, struct xs_txn *t,
                    const struct hv_xs_req *req, const struct xs_path *p,
                    struct hv_xs_rsp *rsp)
{
    struct xs_low low;
    int rc = xs_store_op(xs, &t->st, req, p, rsp, &low);

    if ( low.kind == XS_LOW_READ )
        lower(&t->read_low, p, low.len);
    else if ( low.kind == XS_LOW_WRITE )
    {
        lower(&t->write_low, p, low.len);
        t->has_writes = true;
    }
    return rc;
}

static void *dup_bytes(const void *src, size_t len, bool *fail)
{
    void *d;

    if ( src == NULL )
        return NULL;
    d = malloc(len ? len : 1);
    if ( d == NULL )
        *fail = true;
    else if ( len )
        memcpy(d, src, len);
    return d;
}

static int record(struct xs_txn *t, const struct hv_xs_req *req, int rc,
                  const struct hv_xs_rsp *rsp)
{
    struct xs_oprec *o;
    bool fail = false;

    if ( t->nr_ops == t->cap_ops )
    {
        unsigned int cap = t->cap_ops ? t->cap_ops * 2 : 16;

        o = realloc(t->ops, sizeof(*o) * cap);
        if ( o == NULL )
            return -ENOMEM;
        t->ops = o;
        t->cap_ops = cap;
    }
    o = &t->ops[t->nr_ops];
    memset(o, 0, sizeof(*o));
    o->req = *req;
    o->req.path = dup_bytes(req->path, strlen(req->path) + 1, &fail);
    o->req.value = dup_bytes(req->value, req->value_len, &fail);
    o->req.perms =
        dup_bytes(req->perms, sizeof(*req->perms) * req->nr_perms, &fail);
    o->rc = rc;
    o->cap = rsp->cap;
    o->len = rsp->len;
    if ( rc == 0 && rsp->len )
        o->answer = dup_bytes(rsp->buf, rsp->len, &fail);
    if ( fail )
    {
        free((void *)o->req.path);
        free((void *)o->req.value);
        free((void *)o->req.perms);
        free(o->answer);
        return -ENOMEM;
    }
    t->nr_ops++;
    return 0;
}

bool xs_txn_exists(struct hv_xs *xs, domid_t caller, uint32_t tid)
{
    return txn_find(xs, caller, tid, NULL) != NULL;
}

int xs_txn_op(struct hv_xs *xs, const struct hv_xs_req *req,
              struct hv_xs_rsp *rsp)
{
    struct xs_txn *t = txn_find(xs, req->caller, req->tid, NULL);
    struct xs_path p;
    int rc;

    if ( t == NULL )
        return -ENOENT;
    if ( req->caller != 0 && t->nr_ops >= xs->cfg.maxops )
        return -HV_XS_EQUOTA;
    rc = xs_path_resolve(req->path, req->caller, &p);
    if ( rc == 0 )
        rc = txn_exec(xs, t, req, &p, rsp);
    /*
     * Without a record the transaction could not be replayed: fail the
     * whole transaction at commit rather than replay a wrong history.
     */
    if ( record(t, req, rc, rsp) )
        t->lost_record = true;
    return rc;
}

static bool perms_equal(const struct xs_node *a, const struct xs_node *b)
{
    unsigned int i;

    if ( a->nr_perms != b->nr_perms )
        return false;
    for ( i = 0; i < a->nr_perms; i++ )
        if ( a->perms[i].id != b->perms[i].id ||
             a->perms[i].perm != b->perms[i].perm )
            return false;
    return true;
}

/*
 * test_coalesce at @low between @old and @cur: the same node object, and
 * the same perms on every node from the root down to it; or absent from
 * both with its parent in @cur.  No lowpath: nothing to test.
 */
static bool same_at(struct xs_node *old, struct xs_node *cur,
                    const struct xs_lowpath *low)
{
    const struct xs_path *p = &low->p;
    struct xs_node *a, *b;
    unsigned int k;

    if ( !low->set )
        return true;
    a = xs_tree_get(old, p, p->n);
    b = xs_tree_get(cur, p, p->n);
    if ( a == NULL && b == NULL )
        return p->n && xs_tree_get(cur, p, p->n - 1) != NULL;
    if ( a != b )
        return false;
    for ( k = 0; k < p->n; k++ )
        if ( !perms_equal(xs_tree_get(old, p, k), xs_tree_get(cur, p, k)) )
            return false;
    return true;
}

struct merge_ctx {
    struct hv_xs *xs;
    struct hv_quota_map *orig, *mod, **dest;
    int rc;
};

static void merge_mod(domid_t id, int nb, void *arg)
{
    struct merge_ctx *m = arg;
    int diff = nb - m->xs->qops->get(m->xs->qpriv, m->orig, id);

    if ( m->rc == 0 && diff )
        m->rc = xs_quota_add(m->xs, m->dest, id, diff);
}

static void merge_orig(domid_t id, int nb, void *arg)
{
    struct merge_ctx *m = arg;

    if ( m->rc == 0 && m->xs->qops->get(m->xs->qpriv, m->mod, id) == 0 )
        m->rc = xs_quota_add(m->xs, m->dest, id, -nb);
}

/*
 * Quota.merge into a copy of the committed quota, so a failure changes
 * nothing: dest + (mod - orig) over the domids of mod and orig.
 */
static int merge_quota(struct hv_xs *xs, struct xs_txn *t,
                       struct hv_quota_map **out)
{
    struct merge_ctx m = {xs, t->orig_quota, t->st.quota, out, 0};

    *out = xs->qops->copy(xs->qpriv, xs->store.quota);
    if ( *out == NULL )
        return -ENOMEM;
    xs->qops->foreach(xs->qpriv, t->st.quota, merge_mod, &m);
    xs->qops->foreach(xs->qpriv, t->orig_quota, merge_orig, &m);
    if ( m.rc )
    {
        xs->qops->release(xs->qpriv, *out);
        *out = NULL;
    }
    return m.rc;
}

static bool coalesce(struct hv_xs *xs, struct xs_txn *t)
{
    struct xs_node *n, *root = xs->store.root;
    struct hv_quota_map *q;
    const struct xs_path *p = &t->write_low.p;

    if ( !same_at(t->oldroot, root, &t->read_low) ||
         !same_at(t->oldroot, root, &t->write_low) )
        return false;
    n = xs_tree_get(t->st.root, p, p->n);
    /* Nothing to graft, or nowhere to graft it: replay decides. */
    if ( n == NULL || (p->n && xs_tree_get(root, p, p->n - 1) == NULL) )
        return false;
    if ( merge_quota(xs, t, &q) )
        return false;
    if ( xs_tree_set(&xs->store.root, p, p->n, xs_node_get(n)) )
    {
        xs->qops->release(xs->qpriv, q);
        return false;
    }
    xs->qops->release(xs->qpriv, xs->store.quota);
    xs->store.quota = q;
    return true;
}

static int commit(struct hv_xs *xs, struct xs_txn *t);

/* Re-execute @t's requests on a fresh internal transaction. */
static int replay(struct hv_xs *xs, struct xs_txn *t)
{
    char sbuf[HV_XS_PAYLOAD_MAX], *buf = sbuf;
    struct xs_txn *r;
    struct xs_path p;
    size_t cap = sizeof(sbuf);
    unsigned int i;
    int rc = 0;

    if ( t->lost_record )
        return -EAGAIN;
    /* A directory asked with a bigger buffer (DIRECTORY_PART) gets one. */
    for ( i = 0; i < t->nr_ops; i++ )
        if ( t->ops[i].cap > cap )
            cap = t->ops[i].cap;
    if ( cap > sizeof(sbuf) && (buf = malloc(cap)) == NULL )
        return -ENOMEM;
    r = txn_make(xs, t->owner);
    if ( r == NULL )
    {
        if ( buf != sbuf )
            free(buf);
        return -ENOMEM;
    }
    for ( i = 0; i < t->nr_ops && rc == 0; i++ )
    {
        const struct xs_oprec *o = &t->ops[i];
        struct hv_xs_rsp rsp = {.buf = buf, .cap = o->cap};
        int orc;

        orc = xs_path_resolve(o->req.path, o->req.caller, &p);
        if ( orc == 0 )
            orc = txn_exec(xs, r, &o->req, &p, &rsp);
        if ( orc != o->rc ||
             (orc == 0 && (rsp.len != o->len ||
                           (o->len && memcmp(buf, o->answer, o->len)))) )
            rc = -EAGAIN;
    }
    if ( rc == 0 )
        rc = commit(xs, r);
    txn_free(xs, r);
    if ( buf != sbuf )
        free(buf);
    return rc;
}

static int commit(struct hv_xs *xs, struct xs_txn *t)
{
    if ( !t->has_writes )
    {
        xs->stats.commits_fast++; /* a no-op (0. above) */
        return 0;
    }
    if ( t->oldroot == xs->store.root )
    {
        if ( t->has_writes )
        {
            struct xs_node *root = t->st.root;
            struct hv_quota_map *q = t->st.quota;

            t->st.root = xs->store.root;
            t->st.quota = xs->store.quota;
            xs->store.root = root;
            xs->store.quota = q;
        }
        xs->stats.commits_fast++;
        return 0;
    }
    if ( xs->cfg.coalesce && coalesce(xs, t) )
    {
        xs->stats.commits_coalesce++;
        return 0;
    }
    if ( replay(xs, t) == 0 )
    {
        xs->stats.commits_replay++;
        return 0;
    }
    xs->stats.conflicts++;
    return -EAGAIN;
}

int xs_txn_end(struct hv_xs *xs, domid_t caller, uint32_t tid, bool commit_)
{
    struct xs_txn **pp, *t = txn_find(xs, caller, tid, &pp);
    int rc = 0;

    if ( t == NULL )
        return -ENOENT;
    *pp = t->next;
    xs->stats.open_txns--;
    if ( commit_ )
        rc = commit(xs, t);
    txn_free(xs, t);
    return rc;
}

void xs_txn_abort_domain(struct hv_xs *xs, domid_t id)
{
    struct xs_txn **pp = &xs->txns, *t;

    while ( (t = *pp) != NULL )
    {
        if ( t->owner == id )
        {
            *pp = t->next;
            xs->stats.open_txns--;
            txn_free(xs, t);
        }
        else
            pp = &t->next;
    }
}

void xs_txn_abort_all(struct hv_xs *xs)
{
    struct xs_txn *t;

    while ( (t = xs->txns) != NULL )
    {
        xs->txns = t->next;
        xs->stats.open_txns--;
        txn_free(xs, t);
    }
}
