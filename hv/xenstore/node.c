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
 * In place: a node reached from an exclusively held root through nodes
 * of refcnt 1 only is visible to no one else (no snapshot holds it), so
 * xs_tree_set() edits it instead of copying.  This is what makes the
 * 261 writes of one transaction in xenstore-ls cost one path copy each
 * rather than a copy of /quotatest's 1000-entry child array each.  It
 * never changes what a snapshot sees: a snapshot holds a reference, so
 * every node it can reach has refcnt >= 2 on the writer's path.
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
    n->nr_children = n->cap_children = 0;
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
    uint32_t i;

    if ( n == NULL || --n->refcnt )
        return;
    for ( i = 0; i < n->nr_children; i++ )
        xs_node_put(n->children[i]);
    free(n->children);
    free(n);
}

/* strcmp(@name, comp) where comp is @len bytes without a NUL. */
static int name_cmp(const char *name, const char *comp, size_t len)
{
    int c = strncmp(name, comp, len);

    if ( c )
        return c;
    return name[len] ? 1 : 0;
}

long xs_node_find(const struct xs_node *n, const char *name, size_t len)
{
    long lo = 0, hi = (long)n->nr_children - 1;

    while ( lo <= hi )
    {
        long mid = lo + (hi - lo) / 2;
        int c = name_cmp(n->children[mid]->name, name, len);

        if ( c == 0 )
            return mid;
        if ( c < 0 )
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

struct xs_node *xs_node_child(const struct xs_node *n, const char *name,
                              size_t len)
{
    long i = xs_node_find(n, name, len);

    return i >= 0 ? n->children[i] : NULL;
}

static int copy_children(struct xs_node *dst, const struct xs_node *src)
{
    uint32_t i;

    dst->nr_children = dst->cap_children = 0;
    dst->children = NULL;
    if ( src->nr_children == 0 )
        return 0;
    dst->children = malloc(sizeof(*dst->children) * src->nr_children);
    if ( dst->children == NULL )
        return -ENOMEM;
    for ( i = 0; i < src->nr_children; i++ )
        dst->children[i] = xs_node_get(src->children[i]);
    dst->nr_children = dst->cap_children = src->nr_children;
    return 0;
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
    if ( c == NULL )
        return NULL;
    if ( copy_children(c, n) )
    {
        free(c);
        return NULL;
    }
    return c;
}

/* Make room for one more child of exclusively held @n. */
static int grow(struct xs_node *n)
{
    struct xs_node **a;
    uint32_t cap;

    if ( n->nr_children < n->cap_children )
        return 0;
    cap = n->cap_children ? n->cap_children * 2 : 4;
    a = realloc(n->children, sizeof(*a) * cap);
    if ( a == NULL )
        return -ENOMEM;
    n->children = a;
    n->cap_children = cap;
    return 0;
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
    struct xs_node **slot = root, *n;
    unsigned int i;
    long idx;

    if ( k == 0 )
    {
        xs_node_put(*root);
        *root = sub;
        return 0;
    }
    for ( i = 0;; i++ )
    {
        const char *name = p->buf + p->off[i];

        if ( own(slot) )
            goto nomem;
        n = *slot;
        idx = xs_node_find(n, name, p->clen[i]);
        if ( i + 1 < k )
        {
            if ( idx < 0 ) /* caller's bug: the parent must exist */
                goto nomem;
            slot = &n->children[idx];
            continue;
        }
        if ( idx >= 0 )
        {
            xs_node_put(n->children[idx]);
            if ( sub )
                n->children[idx] = sub;
            else
            {
                memmove(&n->children[idx], &n->children[idx + 1],
                        sizeof(*n->children) * (n->nr_children - idx - 1));
                n->nr_children--;
            }
        }
        else if ( sub )
        {
            idx = -idx - 1;
            if ( grow(n) )
                goto nomem;
            memmove(&n->children[idx + 1], &n->children[idx],
                    sizeof(*n->children) * (n->nr_children - idx));
            n->children[idx] = sub;
            n->nr_children++;
        }
        return 0;
    }

nomem:
    xs_node_put(sub);
    return -ENOMEM;
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
    return malloc_usable_size((void *)n) +
           (n->children ? malloc_usable_size(n->children) : 0);
}
