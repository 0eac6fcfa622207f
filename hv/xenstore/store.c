/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The store operations on one (root, quota) pair: the committed store or
 * a transaction's copy.  The rules are oxenstored's (store.ml, perms.ml,
 * quota.ml), in its order of checks:
 *
 *  - Permissions: dom0 and the owner (entry 0) may do anything; anyone
 *    else gets the bits of its own entry, else entry 0's.  The root node
 *    is checked like any other (XSA-353): "/" is owned by dom0 with no
 *    default rights, so a domU can neither read, chmod nor rm it.
 *  - write: E2BIG if the value is over maxsize, for everyone; then, if
 *    the node is new and the caller not dom0, EQUOTA if its nodes would
 *    take the *owner of the deepest existing ancestor* over maxent (an
 *    owner of 0 is exempt); then WRITE on the node, or on that ancestor
 *    when new.  New nodes copy the ancestor's perms (owner included) and
 *    are charged to that owner.  In a transaction, the write lowpath of
 *    a creation is that ancestor (oxenstored: the parent, which is the
 *    same node unless intermediates are created too).
 *  - mkdir: an existing node is success if the caller may write it
 *    (path_mkdir checks WRITE before raising Already_exist); else as a
 *    write of "".
 *  - rm: READ of nothing, WRITE on the node; a missing node is success
 *    when its parent exists, ENOENT when the parent is missing too
 *    (lookup_get raises Not_found on the way); "/" is EINVAL; every
 *    removed node is uncharged from its own owner.
 *  - setperms: bad entries are EINVAL (parsed after the path, as in
 *    process.ml do_setperms); only the owner or dom0; only dom0 changes
 *    the owner; the node's charge moves from the old owner to the new
 *    one (no maxent check: dom0 is trusted, CVE-2020-29486 is why a domU
 *    may not).
 *  - read, directory, getperms: ENOENT, then READ.
 *
 * One divergence, on purpose: oxenstored charges only the leaf when a
 * write creates missing intermediate nodes (/a/b/c with /a absent charges
 * 1, yet rm later uncharges 3).  Here every created node is charged and
 * the maxent check counts them all, so the quota always equals a recount
 * of owners over the tree (hv_xs_check), the oracle the tests use.
 *
 * Worked example, domain 5 owns /local/domain/5 (maxent 1000, holds 999):
 *   write 5 "data/x" "v"   (data absent)  -> 999 + 2 > 1000: -ENOSPC
 *   write 5 "x" "v"                       -> 1000, ok
 *   write 0 "/local/domain/5/y" "v"       -> dom0: no entry check, 1001
 *   write 5 "x" <2049 bytes>              -> -E2BIG (also for dom0)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xs-private.h"

static bool xs_perm_ok(const struct xs_node *n, domid_t caller,
                       unsigned int need)
{
    unsigned int i;

    if ( caller == 0 || n->perms[0].id == caller )
        return true;
    for ( i = 1; i < n->nr_perms; i++ )
        if ( n->perms[i].id == caller )
            return (n->perms[i].perm & need) == need;
    return (n->perms[0].perm & need) == need;
}

int xs_quota_add(struct hv_xs *xs, struct hv_quota_map **m, domid_t id,
                 int diff)
{
    return diff ? xs->qops->add(xs->qpriv, m, id, diff) : 0;
}

static int answer(struct hv_xs_rsp *rsp, const void *data, size_t len)
{
    rsp->len = len;
    if ( len > rsp->cap || len > HV_XS_PAYLOAD_MAX )
        return -E2BIG;
    if ( len )
        memcpy(rsp->buf, data, len);
    return 0;
}

/* The deepest existing node on @p's way and its depth. */
static struct xs_node *deepest(struct xs_node *root, const struct xs_path *p,
                               unsigned int *depth)
{
    struct xs_node *n = root, *c;
    unsigned int i;

    for ( i = 0; i < p->n; i++ )
    {
        c = xs_node_child(n, p->buf + p->off[i], p->clen[i]);
        if ( c == NULL )
            break;
        n = c;
    }
    *depth = i;
    return n;
}

/* Create comps[depth..n) under the node at depth with its perms. */
static int create(struct hv_xs *xs, struct xs_store *s, const struct xs_path *p,
                  struct xs_node *anc, unsigned int depth, const void *value,
                  size_t vlen)
{
    domid_t owner = anc->perms[0].id;
    unsigned int nnew = p->n - depth, j;
    struct xs_node *top = NULL, *n;
    int rc;

    for ( j = p->n; j-- > depth; )
    {
        n = xs_node_new(p->buf + p->off[j], p->clen[j],
                        j + 1 == p->n ? value : "", j + 1 == p->n ? vlen : 0,
                        anc->perms, anc->nr_perms);
        if ( n == NULL || (top && xs_children_set(&n->children, top)) )
        {
            xs_node_put(n);
            xs_node_put(top);
            return -ENOMEM;
        }
        top = n;
    }
    rc = xs_quota_add(xs, &s->quota, owner, nnew);
    if ( rc )
    {
        xs_node_put(top);
        return rc;
    }
    rc = xs_tree_set(&s->root, p, depth + 1, top);
    if ( rc )
        xs_quota_add(xs, &s->quota, owner, -(int)nnew);
    return rc;
}

static int do_write(struct hv_xs *xs, struct xs_store *s, domid_t caller,
                    const struct xs_path *p, const void *value, size_t vlen,
                    bool mkdir, struct xs_low *low)
{
    unsigned int depth;
    struct xs_node *n = deepest(s->root, p, &depth), *c;
    bool existing = depth == p->n;
    domid_t owner = n->perms[0].id;
    int rc;

    if ( existing && mkdir ) /* Already_exist is success, if writable */
        return xs_perm_ok(n, caller, HV_XS_PERM_WRITE) ? 0 : -EACCES;
    if ( vlen > xs->cfg.maxsize )
        return -E2BIG;
    if ( !existing && caller != 0 && owner != 0 &&
         (uint64_t)xs->qops->get(xs->qpriv, s->quota, owner) + (p->n - depth) >
             xs->cfg.maxent )
        return -HV_XS_EQUOTA;
    if ( !xs_perm_ok(n, caller, HV_XS_PERM_WRITE) )
        return -EACCES;
    if ( existing )
    {
        c = xs_node_clone(n, vlen ? value : "", vlen, NULL, 0);
        if ( c == NULL )
            return -ENOMEM;
        rc = xs_tree_set(&s->root, p, p->n, c);
        low->len = p->len;
    }
    else
    {
        rc = create(xs, s, p, n, depth, value, vlen);
        /*
         * oxenstored records the parent of a new node; with missing
         * intermediates that is not enough: the deepest existing ancestor
         * is what changed (the parent when it exists, as there).
         */
        low->len = depth ? (size_t)p->off[depth - 1] + p->clen[depth - 1] : 1;
    }
    if ( rc == 0 )
        low->kind = XS_LOW_WRITE;
    return rc;
}

struct owner_count {
    domid_t id;
    int n;
};

struct uncharge {
    struct owner_count *v;
    unsigned int nr, cap;
    int rc;
};

static int count_owners(struct xs_node *n, void *arg)
{
    struct uncharge *u = arg;
    domid_t id = n->perms[0].id;
    unsigned int i;

    for ( i = 0; i < u->nr; i++ )
        if ( u->v[i].id == id )
            break;
    if ( i == u->nr )
    {
        if ( u->nr == u->cap )
        {
            unsigned int cap = u->cap ? u->cap * 2 : 8;
            struct owner_count *v = realloc(u->v, sizeof(*v) * cap);

            if ( v == NULL )
                return u->rc = -ENOMEM;
            u->v = v;
            u->cap = cap;
        }
        u->v[u->nr].id = id;
        u->v[u->nr++].n = 0;
    }
    u->v[i].n++;
    return xs_children_foreach(n->children, count_owners, u);
}

static int do_rm(struct hv_xs *xs, struct xs_store *s, domid_t caller,
                 const struct xs_path *p, struct xs_low *low)
{
    struct xs_node *n = xs_tree_get(s->root, p, p->n);
    struct uncharge u = {NULL, 0, 0, 0};
    unsigned int i;
    int rc;

    if ( n == NULL )
    {
        /* Doesnt_exist is success; a missing parent is ENOENT */
        deepest(s->root, p, &i);
        return i + 1 == p->n ? 0 : -ENOENT;
    }
    if ( !xs_perm_ok(n, caller, HV_XS_PERM_WRITE) )
        return -EACCES;
    if ( p->n == 0 )
        return -EINVAL;
    rc = count_owners(n, &u);
    for ( i = 0; rc == 0 && i < u.nr; i++ )
        rc = xs_quota_add(xs, &s->quota, u.v[i].id, -u.v[i].n);
    if ( rc == 0 )
        rc = xs_tree_set(&s->root, p, p->n, NULL);
    if ( rc )
        while ( i-- )
            xs_quota_add(xs, &s->quota, u.v[i].id, u.v[i].n);
    free(u.v);
    if ( rc == 0 )
    {
        low->kind = XS_LOW_WRITE;
        low->len = xs_path_parent_len(p);
    }
    return rc;
}

static int do_setperms(struct hv_xs *xs, struct xs_store *s, domid_t caller,
                       const struct xs_path *p, const struct hv_xs_perm *perms,
                       unsigned int nr, struct xs_low *low)
{
    struct xs_node *n = xs_tree_get(s->root, p, p->n), *c;
    domid_t old_owner, new_owner = perms[0].id;
    int rc;

    if ( n == NULL )
        return -ENOENT;
    old_owner = n->perms[0].id;
    if ( caller != 0 && (old_owner != caller || new_owner != old_owner) )
        return -EACCES;
    c = xs_node_clone(n, NULL, 0, perms, nr);
    if ( c == NULL )
        return -ENOMEM;
    rc = xs_quota_add(xs, &s->quota, new_owner, 1);
    if ( rc )
    {
        xs_node_put(c);
        return rc;
    }
    rc = xs_quota_add(xs, &s->quota, old_owner, -1);
    if ( rc == 0 )
        rc = xs_tree_set(&s->root, p, p->n, c);
    else
        xs_node_put(c);
    if ( rc )
    {
        xs_quota_add(xs, &s->quota, new_owner, -1);
        return rc;
    }
    low->kind = XS_LOW_WRITE;
    low->len = p->len;
    return 0;
}

/* Letters n/r/w/b and domids below the reserved range. */
static bool perms_valid(const struct hv_xs_perm *perms, unsigned int nr)
{
    unsigned int i;

    for ( i = 0; i < nr; i++ )
        if ( perms[i].perm > HV_XS_PERM_BOTH ||
             perms[i].id >= DOMID_FIRST_RESERVED )
            return false;
    return true;
}

struct dir_answer {
    struct hv_xs_rsp *rsp;
    size_t len;
};

static int dir_len(struct xs_node *c, void *arg)
{
    ((struct dir_answer *)arg)->len += strlen(c->name) + 1;
    return 0;
}

static int dir_copy(struct xs_node *c, void *arg)
{
    struct dir_answer *d = arg;
    size_t l = strlen(c->name) + 1;

    memcpy(d->rsp->buf + d->len, c->name, l);
    d->len += l;
    return 0;
}

static int do_directory(const struct xs_node *n, struct hv_xs_rsp *rsp)
{
    struct dir_answer d = {rsp, 0};

    xs_children_foreach(n->children, dir_len, &d);
    rsp->len = d.len;
    /* The caller's buffer only: a list over the wire's payload limit
     * is for DIRECTORY_PART to cut (xenstored/dispatch.c). */
    if ( d.len > rsp->cap )
        return -E2BIG;
    d.len = 0;
    xs_children_foreach(n->children, dir_copy, &d);
    return 0;
}

int xs_store_op(struct hv_xs *xs, struct xs_store *s,
                const struct hv_xs_req *req, const struct xs_path *p,
                struct hv_xs_rsp *rsp, struct xs_low *low)
{
    struct xs_node *n;
    char tmp[HV_XS_PAYLOAD_MAX];
    size_t len;
    int rc;

    low->kind = XS_LOW_NONE;
    switch ( req->op )
    {
    case HV_XS_WRITE:
        return do_write(xs, s, req->caller, p, req->value, req->value_len,
                        false, low);
    case HV_XS_MKDIR:
        return do_write(xs, s, req->caller, p, NULL, 0, true, low);
    case HV_XS_RM:
        return do_rm(xs, s, req->caller, p, low);
    case HV_XS_SET_PERMS:
        if ( !perms_valid(req->perms, req->nr_perms) )
            return -EINVAL;
        return do_setperms(xs, s, req->caller, p, req->perms, req->nr_perms,
                           low);
    case HV_XS_READ:
    case HV_XS_DIRECTORY:
    case HV_XS_GET_PERMS:
        break;
    default:
        return -EINVAL;
    }

    n = xs_tree_get(s->root, p, p->n);
    if ( n == NULL )
        return -ENOENT;
    if ( !xs_perm_ok(n, req->caller, HV_XS_PERM_READ) )
        return -EACCES;
    if ( req->op == HV_XS_READ )
        rc = answer(rsp, n->value, n->value_len);
    else if ( req->op == HV_XS_DIRECTORY )
        rc = do_directory(n, rsp);
    else
    {
        rc = hv_xs_perms_format(n->perms, n->nr_perms, tmp, sizeof(tmp), &len);
        if ( rc == 0 )
            rc = answer(rsp, tmp, len);
    }
    if ( rc == 0 )
    {
        low->kind = XS_LOW_READ;
        low->len = p->len;
    }
    return rc;
}
