/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The children of a xenstore node: a persistent AVL tree keyed by name
 * (oxenstored's children are a SymbolMap, a balanced map, for the same
 * reason).  Tree nodes (cnodes) are refcounted and shared between the
 * children maps of different versions of a node, so
 *
 *   clone a node        one reference on the root cnode: O(1);
 *   set/remove a child  copy the root-to-target cnode path: O(log n),
 *                       where a sorted array copied all n pointers.
 *
 * That is what keeps quota-txn flat under "persistent": the first write
 * of a transaction copies /local/domain, whose children are one per
 * domain, and used to copy all of them.
 *
 * Example: /local/domain has children 1..1000.  A transaction's write to
 * /local/domain/7/data/0 clones /local/domain (shares the cnode root),
 * then copies the ~10 cnodes from the root down to the one holding "7",
 * which now points at the new /local/domain/7; every other cnode (and
 * every other domain's subtree) stays shared with the committed tree.
 *
 * In place: a cnode of refcnt 1 reached from an exclusively held node
 * through cnodes of refcnt 1 belongs to no other version and is changed
 * in place (as nodes are in node.c).  Rotations only ever touch cnodes
 * made exclusive first.
 *
 * Errors: -ENOMEM (the map is then logically unchanged; a rebalance that
 * cannot copy a sibling is skipped, leaving a valid but less balanced
 * tree) and -ENOENT.  Walks are recursive (depth: the tree's height).
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "xs-private.h"

struct xs_cnode {
    unsigned int refcnt;
    int height;
    struct xs_cnode *l, *r;
    struct xs_node *child; /* holds a reference; its name is the key */
};

static int height(const struct xs_cnode *c)
{
    return c ? c->height : 0;
}

static void fix_height(struct xs_cnode *c)
{
    int l = height(c->l), r = height(c->r);

    c->height = 1 + (l > r ? l : r);
}

struct xs_cnode *xs_children_get(struct xs_cnode *t)
{
    if ( t )
        t->refcnt++;
    return t;
}

void xs_children_put(struct xs_cnode *t)
{
    if ( t == NULL || --t->refcnt )
        return;
    xs_children_put(t->l);
    xs_children_put(t->r);
    xs_node_put(t->child);
    free(t);
}

/*
 * strcmp(@name, comp) where comp is @len bytes without a NUL.  Out of
 * line as it was while exported: inlined, the xs-read figures the
 * history and the CI gate keep would move (-5.5% sim_instructions) for
 * no change of the store's own work.
 */
static int __attribute__((noinline))
xs_name_cmp(const char *name, const char *comp, size_t len)
{
    int c = strncmp(name, comp, len);

    if ( c )
        return c;
    return name[len] ? 1 : 0;
}

struct xs_node *xs_children_find(const struct xs_cnode *t, const char *name,
                                 size_t len)
{
    while ( t )
    {
        int c = xs_name_cmp(t->child->name, name, len);

        if ( c == 0 )
            return t->child;
        t = c > 0 ? t->l : t->r;
    }
    return NULL;
}

/* Make *@t (not NULL) exclusively ours: itself or a copy.  0 / -ENOMEM. */
static int own(struct xs_cnode **t)
{
    struct xs_cnode *c = *t, *n;

    if ( c->refcnt == 1 )
        return 0;
    n = malloc(sizeof(*n));
    if ( n == NULL )
        return -ENOMEM;
    *n = *c;
    n->refcnt = 1;
    xs_children_get(n->l);
    xs_children_get(n->r);
    xs_node_get(n->child);
    c->refcnt--; /* was > 1: still held by another version */
    *t = n;
    return 0;
}

/* Rotations of exclusively held cnodes; references move, none is taken. */
static void rot_right(struct xs_cnode **t)
{
    struct xs_cnode *c = *t, *l = c->l;

    c->l = l->r;
    l->r = c;
    fix_height(c);
    fix_height(l);
    *t = l;
}

static void rot_left(struct xs_cnode **t)
{
    struct xs_cnode *c = *t, *r = c->r;

    c->r = r->l;
    r->l = c;
    fix_height(c);
    fix_height(r);
    *t = r;
}

/* Restore the AVL balance at exclusively held *@t. */
static void balance(struct xs_cnode **t)
{
    struct xs_cnode *c = *t;
    int b = height(c->l) - height(c->r);

    if ( b > 1 && own(&c->l) == 0 )
    {
        if ( height(c->l->l) < height(c->l->r) )
        {
            if ( own(&c->l->r) )
                goto skip;
            rot_left(&c->l);
        }
        rot_right(t);
        return;
    }
    if ( b < -1 && own(&c->r) == 0 )
    {
        if ( height(c->r->r) < height(c->r->l) )
        {
            if ( own(&c->r->l) )
                goto skip;
            rot_right(&c->r);
        }
        rot_left(t);
        return;
    }
skip:
    fix_height(c);
}

static int insert(struct xs_cnode **t, struct xs_node *sub, const char *name,
                  size_t len)
{
    struct xs_cnode *c = *t;
    int cmp, rc;

    if ( c == NULL )
    {
        c = malloc(sizeof(*c));
        if ( c == NULL )
            return -ENOMEM;
        c->refcnt = 1;
        c->height = 1;
        c->l = c->r = NULL;
        c->child = sub;
        *t = c;
        return 0;
    }
    if ( own(t) )
        return -ENOMEM;
    c = *t;
    cmp = xs_name_cmp(c->child->name, name, len);
    if ( cmp == 0 )
    {
        xs_node_put(c->child);
        c->child = sub;
        return 0;
    }
    rc = insert(cmp > 0 ? &c->l : &c->r, sub, name, len);
    if ( rc == 0 )
        balance(t);
    return rc;
}

int xs_children_set(struct xs_cnode **t, struct xs_node *sub)
{
    return insert(t, sub, sub->name, strlen(sub->name));
}

/* Unlink the leftmost cnode of *@t; its child's reference goes to *@out. */
static int pop_min(struct xs_cnode **t, struct xs_node **out)
{
    struct xs_cnode *c;
    int rc;

    if ( own(t) )
        return -ENOMEM;
    c = *t;
    if ( c->l == NULL )
    {
        *out = c->child;
        *t = c->r;
        free(c);
        return 0;
    }
    rc = pop_min(&c->l, out);
    if ( rc == 0 )
        balance(t);
    return rc;
}

int xs_children_del(struct xs_cnode **t, const char *name, size_t len)
{
    struct xs_cnode *c = *t;
    struct xs_node *m;
    int cmp, rc;

    if ( c == NULL )
        return -ENOENT;
    if ( own(t) )
        return -ENOMEM;
    c = *t;
    cmp = xs_name_cmp(c->child->name, name, len);
    if ( cmp != 0 )
    {
        rc = xs_children_del(cmp > 0 ? &c->l : &c->r, name, len);
        if ( rc == 0 )
            balance(t);
        return rc;
    }
    if ( c->l == NULL || c->r == NULL )
    {
        *t = c->l ? c->l : c->r;
        xs_node_put(c->child);
        free(c);
        return 0;
    }
    rc = pop_min(&c->r, &m);
    if ( rc )
        return rc;
    xs_node_put(c->child);
    c->child = m;
    balance(t);
    return 0;
}

struct xs_node **xs_children_slot(struct xs_cnode **t, const char *name,
                                  size_t len, int *rc)
{
    int cmp;

    while ( *t )
    {
        if ( own(t) )
        {
            *rc = -ENOMEM;
            return NULL;
        }
        cmp = xs_name_cmp((*t)->child->name, name, len);
        if ( cmp == 0 )
            return &(*t)->child;
        t = cmp > 0 ? &(*t)->l : &(*t)->r;
    }
    *rc = -ENOENT;
    return NULL;
}

int xs_children_foreach(const struct xs_cnode *t, xs_child_fn fn, void *arg)
{
    int rc;

    if ( t == NULL )
        return 0;
    rc = xs_children_foreach(t->l, fn, arg);
    if ( rc == 0 )
        rc = fn(t->child, arg);
    if ( rc == 0 )
        rc = xs_children_foreach(t->r, fn, arg);
    return rc;
}

size_t xs_children_bytes(const struct xs_cnode *t)
{
    if ( t == NULL )
        return 0;
    return malloc_usable_size((void *)t) + xs_children_bytes(t->l) +
           xs_children_bytes(t->r);
}

int xs_children_check(const struct xs_cnode *t, int *h)
{
    int hl, hr;

    if ( t == NULL )
    {
        *h = 0;
        return 0;
    }
    if ( xs_children_check(t->l, &hl) || xs_children_check(t->r, &hr) )
        return -EINVAL;
    if ( (t->l && strcmp(t->l->child->name, t->child->name) >= 0) ||
         (t->r && strcmp(t->r->child->name, t->child->name) <= 0) )
        return -EINVAL;
    *h = 1 + (hl > hr ? hl : hr);
    if ( t->height != *h || hl - hr > 1 || hr - hl > 1 )
        return -EINVAL;
    return 0;
}
