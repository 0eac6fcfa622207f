/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xs-ref.c - the reference xenstore of the differential test (xs-ref.h).
 *
 * Written from the rules, not from hv/xenstore/: the quota, permission
 * and commit rules of oxenstored 4.17 (xen.git tools/ocaml/xenstored/
 * store.ml, transaction.ml, process.ml, perms.ml, quota.ml; the quota
 * copy is seed 000's, xen-devel 31 Jan 2024, "oxenstored: make Quota.t
 * pure"), the payload formats of xen/include/public/io/xs_wire.h and
 * docs/misc/xenstore.txt, and a Unix-socket connection's semantics as
 * oxenstored and cxenstored 4.17 give them.
 * The only thing taken from the model is its public API
 * (hv/include/hv/xenstore.h): the errnos it promises and the limits.
 *
 * How it is built, each part the plain way and unlike the model's:
 *  - A request is checked against a table of rules (rules[]): what the
 *    op's message carries (a path, a value, perms) and the function that
 *    runs it.  The checks run in the order a
 *    daemon meets them: the message shape, its size on the wire, the
 *    transaction it names, that transaction's request budget, the path,
 *    then the op's own checks (size, quota, permission).
 *  - Paths are parsed into a vector of components (struct xpath) and
 *    walked one component at a time over a mutable n-ary tree whose
 *    children are kept in a sorted array.
 *  - Access is a grant table indexed by the ACL letter (may()).
 *  - Quota is never counted as it goes: it is a recount of owners.
 *  - "Physically unchanged" (oxenstored compares node pointers) is a
 *    version: every change stamps a fresh version on each node from the
 *    root down to the changed one.  Copies keep versions.
 *  - A transaction answers from a private copy of the tree and keeps the
 *    tree as it was at its start, a log of its requests with their
 *    answers, and a log of the effects that changed its copy.  A commit
 *    never merges copies: the fast and coalesce tiers apply the effect
 *    log to the live tree, the replay tier re-runs the request log on a
 *    fresh transaction and commits that if every answer is the same.
 *
 * Worked example (maxent 12).  /local/domain/1 is owned by dom1 (n1).
 * dom1 starts transaction 5 and writes "x" to relative path a/b: a is
 * missing, so the deepest existing node is /local/domain/1 (owner 1,
 * 1 node); 1 + 2 new nodes <= 12, dom1 owns the node, so a and a/b are
 * created with perms n1 in 5's copy, the effect "write /local/domain/1/
 * a/b x" is logged and the write lowpath becomes /local/domain/1.
 * Meanwhile dom0 writes /vm/c: the live root gets a new version.  At
 * commit the root versions differ (no fast tier); the subtree at
 * /local/domain/1 has the same version in 5's start tree and in the live
 * tree and every node from / to it has the same perms in both, so the
 * coalesce tier applies the effect log to the live tree.  dom1's quota
 * is then 3: the recount finds three nodes owned by 1.
 *
 * Where hv/xenstore.h promises otherwise, the promise wins over what
 * oxenstored 4.17 does, and this store follows it: paths over 3072 /
 * 2048 bytes are E2BIG (oxenstored: EINVAL, over 1024 with Debian's
 * conf); a failed request leaves the tree as it was (oxenstored keeps
 * the parents it created when the write itself then fails); at most
 * maxtxn transactions are open (oxenstored's check lets one more
 * through); TRANSACTION_END is not one of the maxops requests; a
 * released domain's nodes go to dom0 (XSA-322; 4.17 deletes them); tids
 * come from one counter.  Oxenstored quirks left out as well: a write of
 * an equal value changes the node here (its set_value keeps the old
 * one), and "/" is no exception to the owner rule of SET_PERMS or to
 * MKDIR's write check.  Dom0's quota counts "/".
 *
 * Out of memory aborts: this is a test oracle.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xs-ref.h"

#define TEXT_MAX  (HV_XS_ABS_PATH_MAX + 1)
#define DEPTH_MAX (HV_XS_ABS_PATH_MAX / 2 + 1)

/* ---- memory (an oracle: no recovery) ---- */

static void *must(void *p)
{
    if ( p == NULL )
        abort();
    return p;
}

static void *grab(size_t n)
{
    return must(calloc(1, n ? n : 1));
}

static char *dup_bytes(const void *src, size_t n)
{
    char *d = grab(n + 1);

    if ( n )
        memcpy(d, src, n);
    return d;
}

/* ---- the tree ---- */

struct xnode {
    char *name; /* one component; "" at the root */
    char *val;
    size_t vlen;
    struct hv_xs_perm acl[HV_XS_MAX_PERMS]; /* [0]: owner and default */
    unsigned int nacl;
    uint64_t ver;       /* renewed when it or anything below it changes */
    struct xnode **sub; /* children, ascending by name (strcmp) */
    unsigned int nsub, subcap;
};

static struct xnode *node_new(const char *name, const struct xnode *like,
                              uint64_t ver)
{
    struct xnode *n = grab(sizeof(*n));

    n->name = dup_bytes(name, strlen(name));
    n->val = dup_bytes("", 0);
    memcpy(n->acl, like->acl, sizeof(n->acl));
    n->nacl = like->nacl;
    n->ver = ver;
    return n;
}

static void node_free(struct xnode *n)
{
    unsigned int i;

    for ( i = 0; i < n->nsub; i++ )
        node_free(n->sub[i]);
    free(n->sub);
    free(n->name);
    free(n->val);
    free(n);
}

static struct xnode *node_clone(const struct xnode *n)
{
    struct xnode *c = grab(sizeof(*c));
    unsigned int i;

    *c = *n;
    c->name = dup_bytes(n->name, strlen(n->name));
    c->val = dup_bytes(n->val, n->vlen);
    c->sub = n->nsub ? grab(sizeof(*c->sub) * n->nsub) : NULL;
    c->subcap = n->nsub;
    for ( i = 0; i < n->nsub; i++ )
        c->sub[i] = node_clone(n->sub[i]);
    return c;
}

/* The child @name of @n, or NULL; *@at: where it is or would go. */
static struct xnode *child(const struct xnode *n, const char *name,
                           unsigned int *at)
{
    unsigned int lo = 0, hi = n->nsub;

    while ( lo < hi )
    {
        unsigned int mid = (lo + hi) / 2;
        int c = strcmp(n->sub[mid]->name, name);

        if ( c == 0 )
        {
            if ( at )
                *at = mid;
            return n->sub[mid];
        }
        if ( c < 0 )
            lo = mid + 1;
        else
            hi = mid;
    }
    if ( at )
        *at = lo;
    return NULL;
}

static void child_insert(struct xnode *n, struct xnode *c, unsigned int at)
{
    if ( n->nsub == n->subcap )
    {
        n->subcap = n->subcap ? n->subcap * 2 : 4;
        n->sub = must(realloc(n->sub, sizeof(*n->sub) * n->subcap));
    }
    memmove(&n->sub[at + 1], &n->sub[at], sizeof(*n->sub) * (n->nsub - at));
    n->sub[at] = c;
    n->nsub++;
}

static void child_remove(struct xnode *n, unsigned int at)
{
    node_free(n->sub[at]);
    memmove(&n->sub[at], &n->sub[at + 1], sizeof(*n->sub) * (n->nsub - at - 1));
    n->nsub--;
}

static unsigned long count_owned(const struct xnode *n, domid_t id,
                                 bool everyone)
{
    unsigned long c = everyone || n->acl[0].id == id;
    unsigned int i;

    for ( i = 0; i < n->nsub; i++ )
        c += count_owned(n->sub[i], id, everyone);
    return c;
}

/* ---- paths as component vectors ---- */

struct xpath {
    char text[TEXT_MAX];  /* canonical absolute form */
    char parts[TEXT_MAX]; /* the components, NUL-separated */
    const char *c[DEPTH_MAX];
    unsigned int n; /* 0: the root */
};

static bool name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '@';
}

/*
 * @raw as the daemon reads it (xenstore-wire.md 5.2; limits and errnos as
 * hv/xenstore.h promises them): relative to /local/domain/<caller>/ unless
 * it starts with '/' or '@' (oxenstored's path_validate: "@x" is the node
 * /@x), -E2BIG over the length limits, -EINVAL for an empty
 * path, an empty component ("//", a trailing '/') or a character outside
 * [A-Za-z0-9_@-].
 */
static int parse_path(const char *raw, domid_t caller, struct xpath *p)
{
    size_t len = strnlen(raw, TEXT_MAX), off = 0, i;
    char *w;

    if ( len == 0 )
        return -EINVAL;
    if ( raw[0] == '@' )
        off = (size_t)snprintf(p->text, sizeof(p->text), "/");
    else if ( raw[0] != '/' )
    {
        if ( len > HV_XS_REL_PATH_MAX )
            return -E2BIG;
        off = (size_t)snprintf(p->text, sizeof(p->text), "/local/domain/%u/",
                               (unsigned int)caller);
    }
    if ( off + len > HV_XS_ABS_PATH_MAX )
        return -E2BIG;
    memcpy(p->text + off, raw, len);
    p->text[off + len] = '\0';

    p->n = 0;
    if ( strcmp(p->text, "/") == 0 )
        return 0;
    memcpy(p->parts, p->text + 1, strlen(p->text));
    for ( w = p->parts;; w += i + 1 )
    {
        for ( i = 0; w[i] != '\0' && w[i] != '/'; i++ )
            if ( !name_char(w[i]) )
                return -EINVAL;
        if ( i == 0 )
            return -EINVAL; /* "//" or a trailing '/' */
        p->c[p->n++] = w;
        if ( w[i] == '\0' )
            return 0;
        w[i] = '\0';
    }
}

/* The node at the first @depth components of @p, or NULL. */
static struct xnode *reach(struct xnode *root, const struct xpath *p,
                           unsigned int depth)
{
    unsigned int i;

    for ( i = 0; i < depth && root; i++ )
        root = child(root, p->c[i], NULL);
    return root;
}

/* How many components of @p exist, walking down from @root. */
static unsigned int existing_depth(struct xnode *root, const struct xpath *p)
{
    unsigned int d = 0;

    while ( d < p->n && (root = child(root, p->c[d], NULL)) != NULL )
        d++;
    return d;
}

/* The canonical text of the first @depth components of @p. */
static void prefix_text(const struct xpath *p, unsigned int depth, char *out)
{
    size_t l = 0;
    unsigned int i;

    for ( i = 0; i < depth; i++ )
        l += (size_t)sprintf(out + l, "/%s", p->c[i]);
    if ( l == 0 )
        strcpy(out, "/");
}

/* ---- permissions (perms.ml: Perms.lacks) ---- */

/*
 * May @who do @need (HV_XS_PERM_READ or _WRITE) on @n?  Dom0 and the
 * owner may do anything; anyone else gets what the letter of their own
 * ACL entry grants (the first entry naming them), or else the letter of
 * entry 0, the default (xenstore-wire.md 2, "Permission strings").
 */
static bool may(const struct xnode *n, domid_t who, unsigned int need)
{
    /* [letter][need]: n grants nothing, r read, w write, b both */
    static const bool grants[4][3] = {
        [HV_XS_PERM_NONE] = {false, false, false},
        [HV_XS_PERM_READ] = {false, true, false},
        [HV_XS_PERM_WRITE] = {false, false, true},
        [HV_XS_PERM_BOTH] = {false, true, true},
    };
    const struct hv_xs_perm *entry = &n->acl[0];
    unsigned int k;

    if ( who == 0 || who == n->acl[0].id )
        return true;
    for ( k = 1; k < n->nacl; k++ )
        if ( n->acl[k].id == who )
        {
            entry = &n->acl[k];
            break;
        }
    return grants[entry->perm][need];
}

static bool same_acl(const struct xnode *a, const struct xnode *b)
{
    unsigned int k;

    if ( a->nacl != b->nacl )
        return false;
    for ( k = 0; k < a->nacl; k++ )
        if ( a->acl[k].id != b->acl[k].id || a->acl[k].perm != b->acl[k].perm )
            return false;
    return true;
}

/* ---- the store ---- */

/* A request a transaction ran, with the answer it got (for replay); one
 * block holds its perms, path, value and answer. */
struct logged {
    struct hv_xs_req req; /* pointing into @block */
    int rc;
    size_t cap, len;
    const char *answer; /* @len bytes in @block when rc == 0 */
    char *block;
};

/* A change a transaction made to its copy, to apply to the live tree. */
struct effect {
    enum hv_xs_op op; /* HV_XS_WRITE, _MKDIR, _RM or _SET_PERMS */
    char path[TEXT_MAX];
    char *val;
    size_t vlen;
    struct hv_xs_perm acl[HV_XS_MAX_PERMS];
    unsigned int nacl;
};

struct lowpath {
    bool set;
    char text[TEXT_MAX];
};

struct txn {
    struct txn *next;
    uint32_t id;
    domid_t owner;
    struct xnode *start; /* the tree at the start: never changed */
    struct xnode *copy;  /* the tree the transaction sees */
    struct logged *reqs;
    unsigned int nreqs;
    struct effect *effs;
    unsigned int neffs;
    struct lowpath rlow, wlow;
};

struct xs_ref {
    struct hv_xs_config cfg;
    struct xnode *live;
    struct txn *txns; /* open transactions, newest first */
    uint32_t tid_next;
    uint64_t clock; /* the last version handed out */
    struct hv_xs_stats st;
};

/* What running one op did, for the transaction that ran it. */
struct trace {
    bool read, changed; /* read_lowpath / write_lowpath at @low */
    char low[TEXT_MAX];
    struct effect eff; /* when @changed */
};

/* Fresh versions on the path from the root to @p's first @depth parts. */
static void restamp(struct xs_ref *x, struct xnode *root, const struct xpath *p,
                    unsigned int depth)
{
    unsigned int i = 0;

    for ( ;; )
    {
        root->ver = ++x->clock;
        if ( i == depth )
            return;
        root = child(root, p->c[i++], NULL);
    }
}

/*
 * Apply one change to @root, with no check: the checks passed where it
 * was first run.  WRITE and MKDIR create the missing nodes with the perms
 * of the deepest existing one (store.ml, Node.create name node.perms).
 */
static void apply(struct xs_ref *x, struct xnode *root, const struct effect *e)
{
    struct xpath p;
    struct xnode *n, *up;
    unsigned int d, at;

    if ( parse_path(e->path, 0, &p) )
        abort();
    d = existing_depth(root, &p);
    switch ( e->op )
    {
    case HV_XS_WRITE:
    case HV_XS_MKDIR:
        for ( up = reach(root, &p, d); d < p.n; d++, up = n )
        {
            n = node_new(p.c[d], up, 0);
            child(up, p.c[d], &at);
            child_insert(up, n, at);
        }
        if ( e->op == HV_XS_WRITE )
        {
            free(up->val);
            up->val = dup_bytes(e->val, e->vlen);
            up->vlen = e->vlen;
        }
        restamp(x, root, &p, p.n);
        break;
    case HV_XS_RM:
        up = reach(root, &p, p.n - 1);
        if ( child(up, p.c[p.n - 1], &at) == NULL )
            abort();
        child_remove(up, at);
        restamp(x, root, &p, p.n - 1);
        break;
    case HV_XS_SET_PERMS:
        n = reach(root, &p, p.n);
        memcpy(n->acl, e->acl, sizeof(n->acl));
        n->nacl = e->nacl;
        restamp(x, root, &p, p.n);
        break;
    default:
        abort();
    }
}

/* ---- the ops: checks, then the effect they would have ---- */

/* Over the caller's buffer, or over the payload limit but for a directory
 * (hv/xenstore.h: DIRECTORY_PART cuts long lists): E2BIG. */
static int answer(struct hv_xs_rsp *rsp, const void *data, size_t len,
                  bool directory)
{
    rsp->len = len;
    if ( len > rsp->cap || (!directory && len > HV_XS_PAYLOAD_MAX) )
        return -E2BIG;
    if ( len )
        memcpy(rsp->buf, data, len);
    return 0;
}

/* @op at @p will change the tree; the write lowpath: @p's first @low. */
static void will_change(struct trace *tr, enum hv_xs_op op,
                        const struct xpath *p, unsigned int low)
{
    tr->changed = true;
    tr->eff.op = op;
    strcpy(tr->eff.path, p->text);
    prefix_text(p, low, tr->low);
}

/*
 * WRITE and MKDIR (store.ml write/mkdir, process.ml create_implicit_path).
 * The value size first, for everyone (E2BIG); then, when a domU creates
 * nodes, the entry quota of the owner of the deepest existing node, who
 * is charged for them (an owner dom0 is exempt); then write access: to
 * the node if it exists, else to that deepest node.  MKDIR of an existing
 * node changes nothing but still needs write access (path_mkdir checks
 * it before Already_exist).  Write lowpath: the node, or the deepest
 * existing node when nodes are created.
 */
static int op_write(struct xs_ref *x, struct xnode *root,
                    const struct hv_xs_req *req, const struct xpath *p,
                    struct hv_xs_rsp *rsp, struct trace *tr)
{
    bool mk = req->op == HV_XS_MKDIR;
    size_t vlen = mk ? 0 : req->value_len;
    unsigned int have = existing_depth(root, p), fresh = p->n - have;
    struct xnode *deep = reach(root, p, have);
    domid_t owner = deep->acl[0].id;

    (void)rsp;
    if ( vlen > x->cfg.maxsize )
        return -E2BIG;
    if ( fresh && req->caller != 0 && owner != 0 &&
         count_owned(root, owner, false) + fresh > x->cfg.maxent )
        return -HV_XS_EQUOTA;
    if ( !may(deep, req->caller, HV_XS_PERM_WRITE) )
        return -EACCES;
    if ( mk && fresh == 0 )
        return 0;
    will_change(tr, req->op, p, have);
    tr->eff.val = dup_bytes(vlen ? req->value : "", vlen);
    tr->eff.vlen = vlen;
    return 0;
}

/*
 * RM (store.ml rm, process.ml do_rm): a missing node is fine when its
 * parent exists, ENOENT when the parent is missing too (xenstore-wire.md
 * 5.5); write access to the node; "/" is EINVAL (hv/xenstore.h).  Write
 * lowpath: the parent.
 */
static int op_rm(struct xs_ref *x, struct xnode *root,
                 const struct hv_xs_req *req, const struct xpath *p,
                 struct hv_xs_rsp *rsp, struct trace *tr)
{
    unsigned int have = existing_depth(root, p);

    (void)x;
    (void)rsp;
    if ( have < p->n )
        return have + 1 == p->n ? 0 : -ENOENT;
    if ( !may(reach(root, p, have), req->caller, HV_XS_PERM_WRITE) )
        return -EACCES;
    if ( p->n == 0 )
        return -EINVAL;
    will_change(tr, HV_XS_RM, p, p->n - 1);
    return 0;
}

/*
 * SET_PERMS (store.ml setperms): the node must exist; a domU must own it
 * and may not give it away (only dom0 changes an owner).  Write lowpath:
 * the node.
 */
static int op_setperms(struct xs_ref *x, struct xnode *root,
                       const struct hv_xs_req *req, const struct xpath *p,
                       struct hv_xs_rsp *rsp, struct trace *tr)
{
    struct xnode *n = reach(root, p, p->n);

    (void)x;
    (void)rsp;
    if ( n == NULL )
        return -ENOENT;
    if ( req->caller != 0 &&
         (n->acl[0].id != req->caller || req->perms[0].id != req->caller) )
        return -EACCES;
    will_change(tr, HV_XS_SET_PERMS, p, p->n);
    memcpy(tr->eff.acl, req->perms, sizeof(*req->perms) * req->nr_perms);
    tr->eff.nacl = req->nr_perms;
    return 0;
}

/*
 * READ, DIRECTORY, GET_PERMS: the node must exist, read access; the
 * answer as the wire carries it (xenstore-wire.md 2): the raw value; the
 * children's names in byte order, each with a NUL; "<letter><domid>" and
 * a NUL per entry.  An answer over the caller's buffer or the payload
 * limit is E2BIG.  Read lowpath (on success): the node.
 */
static int op_read(struct xs_ref *x, struct xnode *root,
                   const struct hv_xs_req *req, const struct xpath *p,
                   struct hv_xs_rsp *rsp, struct trace *tr)
{
    static const char letters[] = "nrwb";
    struct xnode *n = reach(root, p, p->n);
    size_t len = 0;
    unsigned int k;
    char *buf;
    int rc;

    (void)x;
    if ( n == NULL )
        return -ENOENT;
    if ( !may(n, req->caller, HV_XS_PERM_READ) )
        return -EACCES;
    if ( req->op == HV_XS_READ )
        rc = answer(rsp, n->val, n->vlen, false);
    else if ( req->op == HV_XS_GET_PERMS )
    {
        buf = grab(n->nacl * 8);
        for ( k = 0; k < n->nacl; k++ )
            len += (size_t)sprintf(buf + len, "%c%u", letters[n->acl[k].perm],
                                   (unsigned int)n->acl[k].id) +
                   1;
        rc = answer(rsp, buf, len, false);
        free(buf);
    }
    else
    {
        for ( k = 0; k < n->nsub; k++ )
            len += strlen(n->sub[k]->name) + 1;
        buf = grab(len);
        for ( len = 0, k = 0; k < n->nsub; k++ )
        {
            strcpy(buf + len, n->sub[k]->name);
            len += strlen(n->sub[k]->name) + 1;
        }
        rc = answer(rsp, buf, len, true);
        free(buf);
    }
    if ( rc == 0 )
    {
        tr->read = true;
        strcpy(tr->low, p->text);
    }
    return rc;
}

/* ---- the rules table ---- */

#define CARRIES_PATH  (1u << 0)
#define CARRIES_VALUE (1u << 1)
#define CARRIES_PERMS (1u << 2)

typedef int (*op_fn)(struct xs_ref *x, struct xnode *root,
                     const struct hv_xs_req *req, const struct xpath *p,
                     struct hv_xs_rsp *rsp, struct trace *tr);

/* Per op: what its message carries, and what runs it (NULL: txn ops). */
static const struct rule {
    unsigned int carries;
    op_fn run;
} rules[HV_XS_OP_NR] = {
    [HV_XS_READ] = {CARRIES_PATH, op_read},
    [HV_XS_WRITE] = {CARRIES_PATH | CARRIES_VALUE, op_write},
    [HV_XS_MKDIR] = {CARRIES_PATH, op_write},
    [HV_XS_RM] = {CARRIES_PATH, op_rm},
    [HV_XS_DIRECTORY] = {CARRIES_PATH, op_read},
    [HV_XS_GET_PERMS] = {CARRIES_PATH, op_read},
    [HV_XS_SET_PERMS] = {CARRIES_PATH | CARRIES_PERMS, op_setperms},
    [HV_XS_TXN_START] = {0, NULL},
    [HV_XS_TXN_END] = {0, NULL},
};

/* A message the wire could not even carry: EINVAL. */
static bool malformed(const struct rule *r, const struct hv_xs_req *req)
{
    if ( (r->carries & CARRIES_PATH) && req->path == NULL )
        return true;
    if ( (r->carries & CARRIES_VALUE) && req->value == NULL &&
         req->value_len != 0 )
        return true;
    return (r->carries & CARRIES_PERMS) &&
           (req->perms == NULL || req->nr_perms == 0 ||
            req->nr_perms > HV_XS_MAX_PERMS);
}

/* The request's payload bytes on the wire: "path\0", value, "b7\0"... */
static size_t wire_bytes(const struct rule *r, const struct hv_xs_req *req)
{
    char digits[16];
    size_t n = 0;
    unsigned int k;

    if ( r->carries & CARRIES_PATH )
        n += strnlen(req->path, HV_XS_PAYLOAD_MAX + 1) + 1;
    if ( r->carries & CARRIES_VALUE )
        n += req->value_len > HV_XS_PAYLOAD_MAX ? HV_XS_PAYLOAD_MAX + 1
                                                : req->value_len;
    if ( r->carries & CARRIES_PERMS )
        for ( k = 0; k < req->nr_perms; k++ )
            n += 2 + (size_t)snprintf(digits, sizeof(digits), "%u",
                                      (unsigned int)req->perms[k].id);
    return n;
}

/* Entries a domain could not have written: an unknown letter, a domid
 * out of range (hv/xenstore.h "bad perms"). */
static bool perms_bad(const struct hv_xs_req *req)
{
    unsigned int k;

    for ( k = 0; k < req->nr_perms; k++ )
        if ( req->perms[k].perm > HV_XS_PERM_BOTH ||
             req->perms[k].id >= DOMID_FIRST_RESERVED )
            return true;
    return false;
}

/*
 * Run a path op on @root (the live tree or a transaction's copy): the
 * path, the perms entries (process.ml parses the path first), the op's
 * own checks, then its effect on @root.  @tr says what it read or changed.
 */
static int run_op(struct xs_ref *x, struct xnode *root,
                  const struct hv_xs_req *req, struct hv_xs_rsp *rsp,
                  struct trace *tr)
{
    const struct rule *r = &rules[req->op];
    struct xpath *p = grab(sizeof(*p));
    int rc;

    memset(tr, 0, sizeof(*tr));
    rc = parse_path(req->path, req->caller, p);
    if ( rc == 0 && (r->carries & CARRIES_PERMS) && perms_bad(req) )
        rc = -EINVAL;
    if ( rc == 0 )
        rc = r->run(x, root, req, p, rsp, tr);
    if ( rc == 0 && tr->changed )
        apply(x, root, &tr->eff);
    free(p);
    return rc;
}

/* ---- transactions ---- */

/* @l becomes the longest run of whole components it shares with @p. */
static void lower(struct lowpath *l, const char *p)
{
    size_t i, keep = 0;

    if ( !l->set )
    {
        strcpy(l->text, p);
        l->set = true;
        return;
    }
    for ( i = 0;; i++ )
    {
        char a = l->text[i], b = p[i];

        if ( (a == '\0' || a == '/') && (b == '\0' || b == '/') )
            keep = i; /* both end a component here */
        if ( a != b || a == '\0' )
            break;
    }
    l->text[keep ? keep : 1] = '\0';
}

static struct txn *txn_open(struct xs_ref *x, domid_t owner)
{
    struct txn *t = grab(sizeof(*t));

    t->owner = owner;
    t->start = node_clone(x->live);
    t->copy = node_clone(x->live);
    return t;
}

static void txn_close(struct txn *t)
{
    node_free(t->start);
    node_free(t->copy);
    while ( t->nreqs )
        free(t->reqs[--t->nreqs].block);
    while ( t->neffs )
        free(t->effs[--t->neffs].val);
    free(t->reqs);
    free(t->effs);
    free(t);
}

static struct txn *txn_find(struct xs_ref *x, domid_t owner, uint32_t id)
{
    struct txn *t;

    for ( t = x->txns; t; t = t->next )
        if ( t->owner == owner && t->id == id )
            return t;
    return NULL;
}

static void txn_unlink(struct xs_ref *x, struct txn *t)
{
    struct txn **pp = &x->txns;

    while ( *pp != t )
        pp = &(*pp)->next;
    *pp = t->next;
}

/* What @t keeps of an op it ran: its lowpaths and the effect. */
static void keep_trace(struct txn *t, struct trace *tr)
{
    if ( tr->read )
        lower(&t->rlow, tr->low);
    if ( !tr->changed )
        return;
    lower(&t->wlow, tr->low);
    t->effs = must(realloc(t->effs, sizeof(*t->effs) * (t->neffs + 1)));
    t->effs[t->neffs++] = tr->eff;
}

/* ... and the request with its answer, for a replay. */
static void keep_request(struct txn *t, const struct hv_xs_req *req, int rc,
                         const struct hv_xs_rsp *rsp)
{
    size_t np = req->perms ? sizeof(*req->perms) * req->nr_perms : 0;
    size_t nv = req->value ? req->value_len : 0;
    size_t npath = strlen(req->path) + 1, na = rc == 0 ? rsp->len : 0;
    struct logged *l;
    char *b;

    t->reqs = must(realloc(t->reqs, sizeof(*t->reqs) * (t->nreqs + 1)));
    l = &t->reqs[t->nreqs++];
    l->req = *req;
    l->rc = rc;
    l->cap = rsp->cap;
    l->len = rsp->len;
    b = l->block = grab(np + npath + nv + na); /* perms first: aligned */
    if ( np )
        l->req.perms = memcpy(b, req->perms, np);
    l->req.path = memcpy(b + np, req->path, npath);
    if ( req->value )
        l->req.value =
            nv ? memcpy(b + np + npath, req->value, nv) : b + np + npath;
    l->answer = b + np + npath + nv;
    if ( na )
        memcpy(b + np + npath + nv, rsp->buf, na);
}

static void install(struct xs_ref *x, struct txn *t)
{
    unsigned int i;

    for ( i = 0; i < t->neffs; i++ )
        apply(x, x->live, &t->effs[i]);
}

/*
 * transaction.ml test_coalesce: the node at @l is the same (version) in
 * the start tree and the live one, and so are the perms of every node
 * from the root down to it (check_parents_perms_identical); or it is in
 * neither and its parent is live.  No lowpath: nothing to check.
 */
static bool untouched(struct xs_ref *x, struct txn *t, const struct lowpath *l)
{
    struct xpath *p;
    struct xnode *was, *now;
    unsigned int d;
    bool ok;

    if ( !l->set )
        return true;
    p = grab(sizeof(*p));
    if ( parse_path(l->text, 0, p) )
        abort();
    was = reach(t->start, p, p->n);
    now = reach(x->live, p, p->n);
    if ( was && now )
        for ( ok = was->ver == now->ver, d = 0; ok && d <= p->n; d++ )
        {
            struct xnode *a = reach(t->start, p, d), *b = reach(x->live, p, d);

            ok = a && b && same_acl(a, b);
        }
    else
        ok = was == now && p->n && reach(x->live, p, p->n - 1) != NULL;
    free(p);
    return ok;
}

static int commit(struct xs_ref *x, struct txn *t);

/* A transaction that changed nothing commits as a no-op
 * (xenstore-wire.md 5.4; process.ml: commit && not is_read_only). */
static bool tier_nothing(struct xs_ref *x, struct txn *t)
{
    (void)x;
    return t->neffs == 0;
}

/* Nobody committed since it started: its changes go in as they are. */
static bool tier_fast(struct xs_ref *x, struct txn *t)
{
    if ( x->live->ver != t->start->ver )
        return false;
    install(x, t);
    return true;
}

/* What it read and wrote is untouched since: its changes go in. */
static bool tier_coalesce(struct xs_ref *x, struct txn *t)
{
    if ( !x->cfg.coalesce || !untouched(x, t, &t->rlow) ||
         !untouched(x, t, &t->wlow) )
        return false;
    install(x, t);
    return true;
}

/*
 * process.ml transaction_replay: every request again, in order, on a
 * fresh transaction; if every answer is the one the client got, that
 * transaction is committed (and counts as a fast commit of its own).
 */
static bool tier_replay(struct xs_ref *x, struct txn *t)
{
    struct txn *r = txn_open(x, t->owner);
    bool same = true;
    unsigned int i;

    for ( i = 0; i < t->nreqs && same; i++ )
    {
        const struct logged *l = &t->reqs[i];
        char *buf = grab(l->cap);
        struct hv_xs_rsp rsp = {.buf = buf, .cap = l->cap};
        struct trace tr;
        int rc;

        rc = run_op(x, r->copy, &l->req, &rsp, &tr);
        if ( rc == 0 )
            keep_trace(r, &tr);
        same = rc == l->rc &&
               (rc != 0 || (rsp.len == l->len &&
                            (l->len == 0 || !memcmp(buf, l->answer, l->len))));
        free(buf);
    }
    if ( same )
        same = commit(x, r) == 0;
    txn_close(r);
    return same;
}

/* The commit tiers in the order oxenstored tries them. */
static const struct tier {
    bool (*try)(struct xs_ref *x, struct txn *t);
    size_t counter; /* in struct hv_xs_stats */
} tiers[] = {
    {tier_nothing, offsetof(struct hv_xs_stats, commits_fast)},
    {tier_fast, offsetof(struct hv_xs_stats, commits_fast)},
    {tier_coalesce, offsetof(struct hv_xs_stats, commits_coalesce)},
    {tier_replay, offsetof(struct hv_xs_stats, commits_replay)},
};

static int commit(struct xs_ref *x, struct txn *t)
{
    unsigned int i;

    for ( i = 0; i < sizeof(tiers) / sizeof(tiers[0]); i++ )
        if ( tiers[i].try(x, t) )
        {
            (*(uint64_t *)((char *)&x->st + tiers[i].counter))++;
            return 0;
        }
    x->st.conflicts++;
    return -EAGAIN;
}

/* TRANSACTION_START: EBUSY inside one; a domU has at most maxtxn open. */
static int txn_start(struct xs_ref *x, const struct hv_xs_req *req,
                     struct txn *in, struct hv_xs_rsp *rsp)
{
    unsigned int open = 0;
    struct txn *t;

    if ( in )
        return -EBUSY;
    for ( t = x->txns; t; t = t->next )
        open += t->owner == req->caller;
    if ( req->caller != 0 && open >= x->cfg.maxtxn )
        return -HV_XS_EQUOTA;
    t = txn_open(x, req->caller);
    /* one counter for everyone, never 0, never an id the caller holds */
    do
        t->id = x->tid_next++;
    while ( t->id == 0 || txn_find(x, req->caller, t->id) );
    t->next = x->txns;
    x->txns = t;
    rsp->tid = t->id;
    return 0;
}

/* TRANSACTION_END: the transaction is gone, committed or not. */
static int txn_end(struct xs_ref *x, const struct hv_xs_req *req, struct txn *t)
{
    int rc;

    if ( t == NULL )
        return -ENOENT;
    txn_unlink(x, t);
    rc = req->commit ? commit(x, t) : 0;
    txn_close(t);
    return rc;
}

/* ---- the API ---- */

struct xs_ref *xs_ref_create(const struct hv_xs_config *cfg)
{
    struct xs_ref *x = grab(sizeof(*x));
    struct xnode *root = grab(sizeof(*root));

    x->cfg = *cfg;
    x->tid_next = 1;
    root->name = dup_bytes("", 0);
    root->val = dup_bytes("", 0);
    root->acl[0] = (struct hv_xs_perm){0, HV_XS_PERM_NONE};
    root->nacl = 1;
    root->ver = ++x->clock;
    x->live = root;
    return x;
}

void xs_ref_destroy(struct xs_ref *x)
{
    struct txn *t;

    while ( (t = x->txns) != NULL )
    {
        x->txns = t->next;
        txn_close(t);
    }
    node_free(x->live);
    free(x);
}

/*
 * The order a daemon meets the checks in: the message shape and its size
 * on the wire, then the transaction it names (unknown: ENOENT), then the
 * op: the transaction ops, or a path op under the transaction's request
 * budget (maxops for a domU, Transaction.check_quota_exn).  A path op in
 * a transaction is logged with its answer, failed or not.
 */
int xs_ref_request(struct xs_ref *x, const struct hv_xs_req *req,
                   struct hv_xs_rsp *rsp)
{
    const struct rule *r;
    struct txn *t = NULL;
    struct trace tr;
    int rc;

    rsp->len = 0;
    rsp->tid = 0;
    if ( (unsigned int)req->op >= HV_XS_OP_NR )
        return -EINVAL;
    r = &rules[req->op];
    if ( malformed(r, req) )
        return -EINVAL;
    if ( wire_bytes(r, req) > HV_XS_PAYLOAD_MAX )
        return -E2BIG;
    if ( req->tid && (t = txn_find(x, req->caller, req->tid)) == NULL )
        return -ENOENT;
    if ( req->op == HV_XS_TXN_START )
        return txn_start(x, req, t, rsp);
    if ( req->op == HV_XS_TXN_END )
        return txn_end(x, req, t);
    if ( t && req->caller != 0 && t->nreqs >= x->cfg.maxops )
        return -HV_XS_EQUOTA;
    rc = run_op(x, t ? t->copy : x->live, req, rsp, &tr);
    if ( t == NULL )
    {
        if ( tr.changed )
            free(tr.eff.val);
        return rc;
    }
    if ( rc == 0 )
        keep_trace(t, &tr);
    keep_request(t, req, rc, rsp);
    return rc;
}

/* Owner @id becomes dom0, entries naming @id go; fresh versions up from
 * every node that changed.  Whether anything below @n changed. */
static bool forget(struct xs_ref *x, struct xnode *n, domid_t id)
{
    bool any = false;
    unsigned int k, kept;

    if ( n->acl[0].id == id )
    {
        n->acl[0].id = 0;
        any = true;
    }
    for ( kept = k = 1; k < n->nacl; k++ )
        if ( n->acl[k].id != id )
            n->acl[kept++] = n->acl[k];
    any |= kept != n->nacl;
    n->nacl = kept;
    for ( k = 0; k < n->nsub; k++ )
        any |= forget(x, n->sub[k], id);
    if ( any )
        n->ver = ++x->clock;
    return any;
}

/* hv/xenstore.h hv_xs_domain_release: the transactions of @id end
 * unfinished, its home goes, its ownerships go to dom0, its ACL entries
 * go (XSA-322). */
int xs_ref_domain_release(struct xs_ref *x, domid_t id)
{
    struct effect home = {.op = HV_XS_RM};
    struct txn **pp = &x->txns, *t;
    struct xpath *p;

    if ( id == 0 )
        return -EINVAL;
    while ( (t = *pp) != NULL )
        if ( t->owner == id )
        {
            *pp = t->next;
            txn_close(t);
        }
        else
            pp = &t->next;
    snprintf(home.path, sizeof(home.path), "/local/domain/%u",
             (unsigned int)id);
    p = grab(sizeof(*p));
    if ( parse_path(home.path, 0, p) )
        abort();
    if ( reach(x->live, p, p->n) )
        apply(x, x->live, &home);
    free(p);
    forget(x, x->live, id);
    return 0;
}

int xs_ref_quota(struct xs_ref *x, domid_t id)
{
    return (int)count_owned(x->live, id, false);
}

static void walk_from(const struct xnode *n, char *path, size_t len,
                      hv_xs_walk_fn fn, void *arg)
{
    unsigned int k;

    fn(len ? path : "/", n->val, n->vlen, n->acl, n->nacl, arg);
    for ( k = 0; k < n->nsub; k++ )
    {
        path[len] = '/';
        strcpy(path + len + 1, n->sub[k]->name);
        walk_from(n->sub[k], path, len + 1 + strlen(n->sub[k]->name), fn, arg);
        path[len] = '\0';
    }
}

void xs_ref_walk(struct xs_ref *x, hv_xs_walk_fn fn, void *arg)
{
    char *path = grab(TEXT_MAX);

    walk_from(x->live, path, 0, fn, arg);
    free(path);
}

void xs_ref_stats(struct xs_ref *x, struct hv_xs_stats *st)
{
    struct txn *t;

    *st = x->st;
    st->nodes = count_owned(x->live, 0, true);
    st->open_txns = 0;
    for ( t = x->txns; t; t = t->next )
        st->open_txns++;
}
