/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The naive reference xenstore (xs-ref.h).  Linear, no sharing, no path
 * copying: written from the rules in the comments of hv/xenstore/,
 * not from their code, so that a differential test compares two
 * readings of the same rules.  Out of memory aborts (a test oracle).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xs-ref.h"

#define PATH_MAX_REF (HV_XS_ABS_PATH_MAX + 1)

struct rnode {
    char *path; /* canonical absolute; "/" for the root */
    char *value;
    size_t vlen;
    struct hv_xs_perm perms[HV_XS_MAX_PERMS + 1];
    unsigned int np;
    uint64_t stamp; /* new whenever the node or a descendant changes */
};

struct rtree {
    struct rnode *v;
    unsigned int n, cap;
};

struct rlow {
    bool set;
    char path[PATH_MAX_REF];
};

struct rop {
    struct hv_xs_req req; /* path, value, perms owned */
    int rc;
    size_t cap, len;
    char *answer;
};

struct rtxn {
    uint32_t id;
    domid_t owner;
    struct rtree tree, old; /* working copy; snapshot at start */
    bool has_writes;
    struct rlow read_low, write_low;
    struct rop *ops;
    unsigned int nr_ops;
};

struct xs_ref {
    struct hv_xs_config cfg;
    struct rtree tree;
    struct rtxn **txns;
    unsigned int nr_txns;
    uint32_t next_tid;
    uint64_t stamp;
    struct hv_xs_stats stats;
};

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if ( p == NULL )
        abort();
    return p;
}

static char *xmemdup(const void *s, size_t n)
{
    char *d = xmalloc(n + 1);

    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* ---- paths ---- */

static bool valid_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '-' || c == '/' || c == '_' ||
           c == '@';
}

/* Make @path absolute and canonical into @out, or -errno. */
static int resolve(const char *path, domid_t caller, char *out)
{
    size_t len = strnlen(path, HV_XS_ABS_PATH_MAX + 1), i;

    if ( len == 0 )
        return -EINVAL;
    if ( path[0] != '/' )
    {
        if ( len > HV_XS_REL_PATH_MAX )
            return -E2BIG;
        if ( (size_t)snprintf(out, PATH_MAX_REF, "/local/domain/%u/%s", caller,
                              path) > HV_XS_ABS_PATH_MAX )
            return -E2BIG;
    }
    else
    {
        if ( len > HV_XS_ABS_PATH_MAX )
            return -E2BIG;
        memcpy(out, path, len + 1);
    }
    len = strlen(out);
    if ( len == 1 )
        return 0;
    if ( out[len - 1] == '/' || strstr(out, "//") )
        return -EINVAL;
    for ( i = 0; i < len; i++ )
        if ( !valid_char(out[i]) )
            return -EINVAL;
    return 0;
}

/* The parent of @p ("/" for "/a"; @p is not "/"). */
static void parent_of(const char *p, char *out)
{
    size_t l = strrchr(p, '/') - p;

    if ( l == 0 )
        l = 1;
    memcpy(out, p, l);
    out[l] = '\0';
}

/* @p is @anc or below it. */
static bool under(const char *p, const char *anc)
{
    size_t l = strlen(anc);

    if ( strcmp(anc, "/") == 0 )
        return true;
    return strncmp(p, anc, l) == 0 && (p[l] == '\0' || p[l] == '/');
}

/* ---- trees ---- */

static struct rnode *find(struct rtree *t, const char *p)
{
    unsigned int i;

    for ( i = 0; i < t->n; i++ )
        if ( strcmp(t->v[i].path, p) == 0 )
            return &t->v[i];
    return NULL;
}

static struct rnode *add_node(struct rtree *t, const char *p, const void *value,
                              size_t vlen, const struct hv_xs_perm *perms,
                              unsigned int np, uint64_t stamp)
{
    struct rnode *n;

    if ( t->n == t->cap )
    {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = realloc(t->v, sizeof(*t->v) * t->cap);
        if ( t->v == NULL )
            abort();
    }
    n = &t->v[t->n++];
    n->path = xmemdup(p, strlen(p));
    n->value = xmemdup(value, vlen);
    n->vlen = vlen;
    memcpy(n->perms, perms, sizeof(*perms) * np);
    n->np = np;
    n->stamp = stamp;
    return n;
}

static void free_tree(struct rtree *t)
{
    unsigned int i;

    for ( i = 0; i < t->n; i++ )
    {
        free(t->v[i].path);
        free(t->v[i].value);
    }
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

static void copy_tree(struct rtree *dst, const struct rtree *src)
{
    unsigned int i;

    memset(dst, 0, sizeof(*dst));
    for ( i = 0; i < src->n; i++ )
        add_node(dst, src->v[i].path, src->v[i].value, src->v[i].vlen,
                 src->v[i].perms, src->v[i].np, src->v[i].stamp);
}

/* Remove @p and everything below it. */
static void remove_subtree(struct rtree *t, const char *p)
{
    unsigned int i = 0;

    while ( i < t->n )
        if ( under(t->v[i].path, p) )
        {
            free(t->v[i].path);
            free(t->v[i].value);
            t->v[i] = t->v[--t->n];
        }
        else
            i++;
}

/* @p (if present) and all its ancestors changed: fresh stamps. */
static void touch(struct xs_ref *x, struct rtree *t, const char *p)
{
    char cur[PATH_MAX_REF];
    struct rnode *n;

    strcpy(cur, p);
    for ( ;; )
    {
        n = find(t, cur);
        if ( n )
            n->stamp = ++x->stamp;
        if ( strcmp(cur, "/") == 0 )
            break;
        parent_of(cur, cur);
    }
}

static int owned_by(const struct rtree *t, domid_t id)
{
    unsigned int i;
    int c = 0;

    for ( i = 0; i < t->n; i++ )
        c += t->v[i].perms[0].id == id;
    return c;
}

static bool perm_ok(const struct rnode *n, domid_t caller, unsigned int need)
{
    unsigned int i;

    if ( caller == 0 || n->perms[0].id == caller )
        return true;
    for ( i = 1; i < n->np; i++ )
        if ( n->perms[i].id == caller )
            return (n->perms[i].perm & need) == need;
    return (n->perms[0].perm & need) == need;
}

/* Component-wise order: a parent before its children, names by strcmp. */
static int path_cmp(const void *a, const void *b)
{
    const char *p = ((const struct rnode *)a)->path;
    const char *q = ((const struct rnode *)b)->path;

    for ( ;; )
    {
        size_t lp, lq;
        int c;

        p += *p == '/';
        q += *q == '/';
        if ( *p == '\0' || *q == '\0' )
            return (*p != '\0') - (*q != '\0');
        lp = strcspn(p, "/");
        lq = strcspn(q, "/");
        c = strncmp(p, q, lp < lq ? lp : lq);
        if ( c == 0 && lp != lq )
            c = lp < lq ? -1 : 1;
        if ( c )
            return c;
        p += lp;
        q += lq;
    }
}

/* ---- operations on one tree ---- */

struct answer {
    struct hv_xs_rsp *rsp;
    char low[PATH_MAX_REF]; /* what the op touched, "" for nothing */
    bool write;
};

static int give(struct hv_xs_rsp *rsp, const void *data, size_t len)
{
    rsp->len = len;
    if ( len > rsp->cap || len > HV_XS_PAYLOAD_MAX )
        return -E2BIG;
    if ( len )
        memcpy(rsp->buf, data, len);
    return 0;
}

static int op_write(struct xs_ref *x, struct rtree *t,
                    const struct hv_xs_req *req, const char *p, bool mkdir,
                    struct answer *a)
{
    char anc[PATH_MAX_REF], cur[PATH_MAX_REF];
    const void *value = mkdir ? "" : req->value;
    size_t vlen = mkdir ? 0 : req->value_len, l;
    unsigned int missing = 0;
    struct rnode *n;

    /* the deepest existing node on the way, and how many are missing */
    strcpy(anc, p);
    while ( find(t, anc) == NULL )
    {
        missing++;
        parent_of(anc, anc);
    }
    n = find(t, anc);
    if ( missing == 0 && mkdir )
        return 0;
    if ( vlen > x->cfg.maxsize )
        return -E2BIG;
    if ( missing && req->caller != 0 && n->perms[0].id != 0 &&
         owned_by(t, n->perms[0].id) + missing > x->cfg.maxent )
        return -HV_XS_EQUOTA;
    if ( !perm_ok(n, req->caller, HV_XS_PERM_WRITE) )
        return -EACCES;
    if ( missing == 0 )
    {
        free(n->value);
        n->value = xmemdup(value ? value : "", vlen);
        n->vlen = vlen;
        touch(x, t, p);
        strcpy(a->low, p);
    }
    else
    {
        struct hv_xs_perm perms[HV_XS_MAX_PERMS + 1];
        unsigned int np = n->np;

        memcpy(perms, n->perms, sizeof(perms));
        strcpy(a->low, anc);
        /* create every missing node, the leaf with the value */
        l = strlen(anc) == 1 ? 0 : strlen(anc);
        while ( l < strlen(p) )
        {
            l += 1 + strcspn(p + l + 1, "/");
            memcpy(cur, p, l);
            cur[l] = '\0';
            if ( l == strlen(p) )
                add_node(t, cur, value ? value : "", vlen, perms, np,
                         ++x->stamp);
            else
                add_node(t, cur, "", 0, perms, np, ++x->stamp);
        }
        touch(x, t, anc);
    }
    a->write = true;
    return 0;
}

static int op_rm(struct xs_ref *x, struct rtree *t, domid_t caller,
                 const char *p, struct answer *a)
{
    struct rnode *n = find(t, p);

    if ( n == NULL )
        return 0;
    if ( !perm_ok(n, caller, HV_XS_PERM_WRITE) )
        return -EACCES;
    if ( strcmp(p, "/") == 0 )
        return -EINVAL;
    remove_subtree(t, p);
    parent_of(p, a->low);
    touch(x, t, a->low);
    a->write = true;
    return 0;
}

static int op_setperms(struct xs_ref *x, struct rtree *t,
                       const struct hv_xs_req *req, const char *p,
                       struct answer *a)
{
    struct rnode *n = find(t, p);

    if ( n == NULL )
        return -ENOENT;
    if ( req->caller != 0 &&
         (n->perms[0].id != req->caller || req->perms[0].id != n->perms[0].id) )
        return -EACCES;
    memcpy(n->perms, req->perms, sizeof(*req->perms) * req->nr_perms);
    n->np = req->nr_perms;
    touch(x, t, p);
    strcpy(a->low, p);
    a->write = true;
    return 0;
}

static int op_read(struct rtree *t, const struct hv_xs_req *req, const char *p,
                   struct answer *a)
{
    static const char letter[] = "nrwb";
    char buf[HV_XS_PAYLOAD_MAX * 2];
    struct rnode *n = find(t, p), *kids;
    size_t len = 0, l;
    unsigned int i, nk = 0;
    int rc;

    if ( n == NULL )
        return -ENOENT;
    if ( !perm_ok(n, req->caller, HV_XS_PERM_READ) )
        return -EACCES;
    if ( req->op == HV_XS_READ )
        rc = give(a->rsp, n->value, n->vlen);
    else if ( req->op == HV_XS_GET_PERMS )
    {
        for ( i = 0; i < n->np; i++ )
            len += sprintf(buf + len, "%c%u", letter[n->perms[i].perm & 3],
                           n->perms[i].id) +
                   1;
        rc = give(a->rsp, buf, len);
    }
    else
    {
        /* the children: records whose parent is @p, by name */
        kids = xmalloc(sizeof(*kids) * t->n);
        for ( i = 0; i < t->n; i++ )
        {
            char par[PATH_MAX_REF];

            if ( strcmp(t->v[i].path, "/") == 0 )
                continue;
            parent_of(t->v[i].path, par);
            if ( strcmp(par, p) == 0 )
                kids[nk++] = t->v[i];
        }
        qsort(kids, nk, sizeof(*kids), path_cmp);
        for ( i = 0; i < nk; i++ )
            len += strlen(strrchr(kids[i].path, '/') + 1) + 1;
        if ( len > HV_XS_PAYLOAD_MAX )
            rc = give(a->rsp, buf, len); /* too long: -E2BIG */
        else
        {
            for ( len = 0, i = 0; i < nk; i++ )
            {
                l = strlen(strrchr(kids[i].path, '/') + 1) + 1;
                memcpy(buf + len, strrchr(kids[i].path, '/') + 1, l);
                len += l;
            }
            rc = give(a->rsp, buf, len);
        }
        free(kids);
    }
    if ( rc == 0 )
        strcpy(a->low, p);
    return rc;
}

static int tree_op(struct xs_ref *x, struct rtree *t,
                   const struct hv_xs_req *req, const char *p, struct answer *a)
{
    a->low[0] = '\0';
    a->write = false;
    switch ( req->op )
    {
    case HV_XS_WRITE:
        return op_write(x, t, req, p, false, a);
    case HV_XS_MKDIR:
        return op_write(x, t, req, p, true, a);
    case HV_XS_RM:
        return op_rm(x, t, req->caller, p, a);
    case HV_XS_SET_PERMS:
        return op_setperms(x, t, req, p, a);
    case HV_XS_READ:
    case HV_XS_DIRECTORY:
    case HV_XS_GET_PERMS:
        return op_read(t, req, p, a);
    default:
        return -EINVAL;
    }
}

/* ---- transactions ---- */

/* The lowpath becomes the common prefix (by components) with @p. */
static void lower(struct rlow *low, const char *p)
{
    size_t i = 0, last = 1;

    if ( !low->set )
    {
        strcpy(low->path, p);
        low->set = true;
        return;
    }
    if ( under(p, low->path) )
        return;
    while ( low->path[i] && low->path[i] == p[i] )
    {
        if ( i && low->path[i] == '/' )
            last = i;
        i++;
    }
    if ( (low->path[i] == '\0' && p[i] == '/') ||
         (p[i] == '\0' && low->path[i] == '/') )
        last = i;
    low->path[last] = '\0';
}

static struct rtxn *txn_new(struct xs_ref *x, domid_t owner)
{
    struct rtxn *t = calloc(1, sizeof(*t));

    if ( t == NULL )
        abort();
    t->owner = owner;
    copy_tree(&t->tree, &x->tree);
    copy_tree(&t->old, &x->tree);
    return t;
}

static void txn_free(struct rtxn *t)
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
    free_tree(&t->tree);
    free_tree(&t->old);
    free(t);
}

static int txn_exec(struct xs_ref *x, struct rtxn *t,
                    const struct hv_xs_req *req, const char *p,
                    struct hv_xs_rsp *rsp)
{
    struct answer a = {.rsp = rsp};
    int rc = tree_op(x, &t->tree, req, p, &a);

    if ( a.low[0] && a.write )
    {
        lower(&t->write_low, a.low);
        t->has_writes = true;
    }
    else if ( a.low[0] )
        lower(&t->read_low, a.low);
    return rc;
}

static void record(struct rtxn *t, const struct hv_xs_req *req, int rc,
                   const struct hv_xs_rsp *rsp)
{
    struct rop *o;

    t->ops = realloc(t->ops, sizeof(*t->ops) * (t->nr_ops + 1));
    if ( t->ops == NULL )
        abort();
    o = &t->ops[t->nr_ops++];
    o->req = *req;
    o->req.path = xmemdup(req->path, strlen(req->path));
    o->req.value = req->value ? xmemdup(req->value, req->value_len) : NULL;
    o->req.perms =
        req->perms
            ? (void *)xmemdup(req->perms, sizeof(*req->perms) * req->nr_perms)
            : NULL;
    o->rc = rc;
    o->cap = rsp->cap;
    o->len = rsp->len;
    o->answer = rc == 0 ? xmemdup(rsp->buf, rsp->len) : NULL;
}

/* The node at @low in @a and @b: both absent or of the same stamp. */
static bool same_at(struct rtree *a, struct rtree *b, const struct rlow *low)
{
    struct rnode *m, *n;

    if ( !low->set )
        return true;
    m = find(a, low->path);
    n = find(b, low->path);
    if ( m == NULL || n == NULL )
        return m == n;
    return m->stamp == n->stamp;
}

static bool coalesce(struct xs_ref *x, struct rtxn *t)
{
    const char *p = t->write_low.path;
    char par[PATH_MAX_REF];
    unsigned int i;

    if ( !same_at(&t->old, &x->tree, &t->read_low) ||
         !same_at(&t->old, &x->tree, &t->write_low) )
        return false;
    if ( !t->write_low.set )
        return true;
    if ( find(&t->tree, p) == NULL )
        return false;
    if ( strcmp(p, "/") != 0 )
    {
        parent_of(p, par);
        if ( find(&x->tree, par) == NULL )
            return false;
    }
    /* graft the transaction's subtree, stamps and all */
    remove_subtree(&x->tree, p);
    for ( i = 0; i < t->tree.n; i++ )
        if ( under(t->tree.v[i].path, p) )
            add_node(&x->tree, t->tree.v[i].path, t->tree.v[i].value,
                     t->tree.v[i].vlen, t->tree.v[i].perms, t->tree.v[i].np,
                     t->tree.v[i].stamp);
    if ( strcmp(p, "/") != 0 )
        touch(x, &x->tree, par);
    return true;
}

static int commit(struct xs_ref *x, struct rtxn *t);

static int replay(struct xs_ref *x, struct rtxn *t)
{
    char buf[HV_XS_PAYLOAD_MAX], p[PATH_MAX_REF];
    struct rtxn *r = txn_new(x, t->owner);
    unsigned int i;
    int rc = 0;

    for ( i = 0; i < t->nr_ops && rc == 0; i++ )
    {
        const struct rop *o = &t->ops[i];
        struct hv_xs_rsp rsp = {.buf = buf, .cap = o->cap};
        int orc;

        if ( rsp.cap > sizeof(buf) )
            rsp.cap = sizeof(buf);
        orc = resolve(o->req.path, o->req.caller, p);
        if ( orc == 0 )
            orc = txn_exec(x, r, &o->req, p, &rsp);
        if ( orc != o->rc ||
             (orc == 0 && (rsp.len != o->len ||
                           (o->len && memcmp(buf, o->answer, o->len)))) )
            rc = -EAGAIN;
    }
    if ( rc == 0 )
        rc = commit(x, r);
    txn_free(r);
    return rc;
}

static int commit(struct xs_ref *x, struct rtxn *t)
{
    if ( find(&t->old, "/")->stamp == find(&x->tree, "/")->stamp )
    {
        if ( t->has_writes )
        {
            struct rtree tmp = x->tree;

            x->tree = t->tree;
            t->tree = tmp;
        }
        x->stats.commits_fast++;
        return 0;
    }
    if ( x->cfg.coalesce && coalesce(x, t) )
    {
        x->stats.commits_coalesce++;
        return 0;
    }
    if ( replay(x, t) == 0 )
    {
        x->stats.commits_replay++;
        return 0;
    }
    x->stats.conflicts++;
    return -EAGAIN;
}

static int txn_find(struct xs_ref *x, domid_t caller, uint32_t id)
{
    unsigned int i;

    for ( i = 0; i < x->nr_txns; i++ )
        if ( x->txns[i]->id == id && x->txns[i]->owner == caller )
            return i;
    return -1;
}

static void txn_drop(struct xs_ref *x, unsigned int i)
{
    txn_free(x->txns[i]);
    memmove(&x->txns[i], &x->txns[i + 1],
            sizeof(*x->txns) * (x->nr_txns - i - 1));
    x->nr_txns--;
}

static int txn_start(struct xs_ref *x, domid_t caller, uint32_t *tid)
{
    unsigned int i, open = 0;
    struct rtxn *t;

    for ( i = 0; i < x->nr_txns; i++ )
        open += x->txns[i]->owner == caller;
    if ( caller != 0 && open >= x->cfg.maxtxn )
        return -HV_XS_EQUOTA;
    t = txn_new(x, caller);
    do
        t->id = x->next_tid++;
    while ( t->id == 0 || txn_find(x, caller, t->id) >= 0 );
    x->txns = realloc(x->txns, sizeof(*x->txns) * (x->nr_txns + 1));
    if ( x->txns == NULL )
        abort();
    x->txns[x->nr_txns++] = t;
    *tid = t->id;
    return 0;
}

/* ---- the API ---- */

struct xs_ref *xs_ref_create(const struct hv_xs_config *cfg)
{
    static const struct hv_xs_perm root_perms[] = {{0, HV_XS_PERM_NONE}};
    struct xs_ref *x = calloc(1, sizeof(*x));

    if ( x == NULL )
        abort();
    x->cfg = *cfg;
    x->next_tid = 1;
    add_node(&x->tree, "/", "", 0, root_perms, 1, ++x->stamp);
    return x;
}

void xs_ref_destroy(struct xs_ref *x)
{
    while ( x->nr_txns )
        txn_drop(x, 0);
    free(x->txns);
    free_tree(&x->tree);
    free(x);
}

/* The request-level checks: perms list, payload size. */
static int check_req(const struct hv_xs_req *req)
{
    size_t payload;
    unsigned int i;

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
        for ( i = 0; i < req->nr_perms; i++ )
            if ( req->perms[i].perm > HV_XS_PERM_BOTH ||
                 req->perms[i].id >= DOMID_FIRST_RESERVED )
                return -EINVAL;
        payload += 7 * req->nr_perms;
    }
    return payload > HV_XS_PAYLOAD_MAX ? -E2BIG : 0;
}

int xs_ref_request(struct xs_ref *x, const struct hv_xs_req *req,
                   struct hv_xs_rsp *rsp)
{
    char p[PATH_MAX_REF];
    struct answer a = {.rsp = rsp};
    int rc, i;

    rsp->len = 0;
    rsp->tid = 0;
    rc = check_req(req);
    if ( rc )
        return rc;
    if ( req->op == HV_XS_TXN_START )
        return req->tid ? -EBUSY : txn_start(x, req->caller, &rsp->tid);
    if ( req->op == HV_XS_TXN_END )
    {
        i = txn_find(x, req->caller, req->tid);
        if ( i < 0 )
            return -ENOENT;
        rc = req->commit ? commit(x, x->txns[i]) : 0;
        txn_drop(x, i);
        return rc;
    }
    rc = resolve(req->path, req->caller, p);
    if ( rc )
        return rc;
    if ( req->tid == 0 )
        return tree_op(x, &x->tree, req, p, &a);
    i = txn_find(x, req->caller, req->tid);
    if ( i < 0 )
        return -ENOENT;
    if ( req->caller != 0 && x->txns[i]->nr_ops >= x->cfg.maxops )
        return -HV_XS_EQUOTA;
    rc = txn_exec(x, x->txns[i], req, p, rsp);
    record(x->txns[i], req, rc, rsp);
    return rc;
}

int xs_ref_domain_release(struct xs_ref *x, domid_t id)
{
    char home[64];
    struct answer a;
    unsigned int i, j, np;

    if ( id == 0 )
        return -EINVAL;
    for ( i = x->nr_txns; i-- > 0; )
        if ( x->txns[i]->owner == id )
            txn_drop(x, i);
    snprintf(home, sizeof(home), "/local/domain/%u", id);
    op_rm(x, &x->tree, 0, home, &a);
    /* ownership to dom0 (perms kept), every other entry of @id dropped */
    for ( i = 0; i < x->tree.n; i++ )
    {
        struct rnode *n = &x->tree.v[i];
        bool change = false;

        if ( n->perms[0].id == id )
        {
            n->perms[0].id = 0;
            change = true;
        }
        for ( np = j = 1; j < n->np; j++ )
            if ( n->perms[j].id == id )
                change = true;
            else
                n->perms[np++] = n->perms[j];
        n->np = np;
        if ( change )
            touch(x, &x->tree, n->path);
    }
    return 0;
}

int xs_ref_quota(struct xs_ref *x, domid_t id)
{
    return owned_by(&x->tree, id);
}

void xs_ref_walk(struct xs_ref *x, hv_xs_walk_fn fn, void *arg)
{
    struct rtree t;
    unsigned int i;

    copy_tree(&t, &x->tree);
    qsort(t.v, t.n, sizeof(*t.v), path_cmp);
    for ( i = 0; i < t.n; i++ )
        fn(t.v[i].path, t.v[i].value, t.v[i].vlen, t.v[i].perms, t.v[i].np,
           arg);
    free_tree(&t);
}

void xs_ref_stats(struct xs_ref *x, struct hv_xs_stats *st)
{
    *st = x->stats;
    st->nodes = x->tree.n;
    st->open_txns = x->nr_txns;
}
