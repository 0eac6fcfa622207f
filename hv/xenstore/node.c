/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Xenstore nodes: immutable, refcounted, shared between snapshots.
 *
 * A change never edits a node another snapshot can reach; it copies the
 * node and every ancestor up to the root (path copying), so writing
 * /a/b/c under root R gives a new root R' sharing everything off that
 * path with R:
 *
 *        R            R'               R and R' differ in 4 nodes;
 *       / \          /  \              /x and its subtree are shared
 *      a   x        a'   x  (shared)   (refcnt 2).  A transaction that
 *      |            |                  kept R sees "nobody committed"
 *      b            b'                 as root == R: one comparison.
 *      |            |
 *      c            c'
 *
 * A copied node shares its children map with the original (children.c:
 * a persistent tree, so the copy is one reference and changing one child
 * copies O(log n) tree nodes, not an n-entry array).
 *
 * In place: a node reached from an exclusively held root through nodes
 * of refcnt 1 only is visible to no one else (no snapshot holds it), so
 * xs_tree_set() edits it instead of copying.  It never changes what a
 * snapshot sees: a snapshot holds a reference, so every node it can
 * reach has refcnt >= 2 on the writer's path.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "xs-private.h"

struct xs_node *xs_node_new(const char *name, size_t name_len,
                            const void *value, size_t value_len,
                            const struct hv_xs_perm *perms,
                            unsigned int nr_perms)
{
    size_t psz = sizeof(*perms) * nr_perms;
    struct xs_node *n = malloc(sizeof(*n) + psz + value_len + 1 + name_len + 1);

    if ( n == NULL )
        return NULL;
    n->refcnt = 1;
    n->children = NULL;
    n->nr_perms = nr_perms;
    n->perms = (struct hv_xs_perm *)(n + 1);
    memcpy(n->perms, perms, psz);
    n->value = (char *)n->perms + psz;
    n->name = n->value + value_len + 1;
    n->value_len = value_len;
    if ( value_len )
        memcpy(n->value, value, value_len);
    n->value[value_len] = '\0';
    memcpy(n->name, name, name_len);
    n->name[name_len] = '\0';
    return n;
}

void xs_node_put(struct xs_node *n)
{
    if ( n == NULL || --n->refcnt )
        return;
    xs_children_put(n->children);
    free(n);
}

struct xs_node *xs_node_clone(const struct xs_node *n, const void *value,
                              size_t value_len, const struct hv_xs_perm *perms,
                              unsigned int nr_perms)
{
    struct xs_node *c;

    if ( value == NULL )
    {
        value = n->value;
        value_len = n->value_len;
    }
    if ( perms == NULL )
    {
        perms = n->perms;
        nr_perms = n->nr_perms;
    }
    c = xs_node_new(n->name, strlen(n->name), value, value_len, perms,
                    nr_perms);
    if ( c )
        c->children = xs_children_get(n->children); /* O(1): shared */
    return c;
}

/* *@slot made exclusively ours: itself if refcnt 1, else a copy. */
static int own(struct xs_node **slot)
{
    struct xs_node *n = *slot, *c;

    if ( n->refcnt == 1 )
        return 0;
    c = xs_node_clone(n, NULL, 0, NULL, 0);
    if ( c == NULL )
        return -ENOMEM;
    xs_node_put(n);
    *slot = c;
    return 0;
}

int xs_tree_set(struct xs_node **root, const struct xs_path *p, unsigned int k,
                struct xs_node *sub)
{
    struct xs_node **slot = root;
    unsigned int i;
    int rc = -ENOMEM;

    if ( k == 0 )
    {
        xs_node_put(*root);
        *root = sub;
        return 0;
    }
    for ( i = 0; i + 1 < k; i++ )
    {
        if ( own(slot) )
            goto fail;
        /* -ENOENT: the caller's bug, the parent must exist */
        slot = xs_children_slot(&(*slot)->children, p->buf + p->off[i],
                                p->clen[i], &rc);
        if ( slot == NULL )
            goto fail;
    }
    if ( own(slot) )
        goto fail;
    if ( sub )
        rc = xs_children_set(&(*slot)->children, sub);
    else
    {
        rc = xs_children_del(&(*slot)->children, p->buf + p->off[k - 1],
                             p->clen[k - 1]);
        if ( rc == -ENOENT )
            rc = 0; /* nothing to remove */
    }
    if ( rc == 0 )
        return 0;
fail:
    xs_node_put(sub);
    return rc;
}

struct xs_node *xs_tree_get(struct xs_node *root, const struct xs_path *p,
                            unsigned int k)
{
    struct xs_node *n = root;
    unsigned int i;

    for ( i = 0; i < k && n; i++ )
        n = xs_node_child(n, p->buf + p->off[i], p->clen[i]);
    return n;
}

size_t xs_node_bytes(const struct xs_node *n)
{
    return malloc_usable_size((void *)n) + xs_children_bytes(n->children);
}
