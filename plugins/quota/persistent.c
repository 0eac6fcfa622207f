/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * quota/persistent: oxenstored after b6cf604207 and 098d868e52, where
 * Quota.cur became an immutable map and Quota.copy became "share it".
 * Here the map is a persistent radix trie over the 16 domid bits (an
 * array-mapped trie, i.e. a HAMT whose hash is the domid): fanout
 * 2^bits, depth 16/bits, reference-counted nodes shared between versions.
 *
 *   copy    one reference count increment: O(1), no allocation;
 *   add     copy the root-to-leaf path (depth nodes), unless every node
 *           on it is held by this version only (refcnt 1), which is then
 *           changed in place; the old path's nodes lose a reference;
 *   release drop a reference; a node freed at 0 drops its children.
 *
 * Example, bits=4: domid 0x01A3 lives at slots 0, 1, A, 3 from the root.
 * Version v1 = copy(v0) shares v0's root.  add(v1, 0x01A3, +1) makes 4
 * new nodes (root', [0]', [0][1]', leaf') that point at v0's other
 * subtrees; v0 is untouched and both versions stay valid until released.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/quota.h>

#define KEY_BITS 16

struct pnode {
    unsigned int refcnt;
    unsigned int used; /* non-empty slots */
    union pslot {
        struct pnode *child; /* inner levels */
        long count;          /* the leaf level */
    } s[];                   /* fanout entries */
};

struct hv_quota_map {
    unsigned int refs; /* handles sharing this version */
    unsigned int size;
    struct pnode *root; /* NULL: empty */
};

struct pm_opts {
    unsigned int bits;
};

struct pm {
    unsigned int bits, fanout, depth;
};

static int pm_init(const void *opts, void **priv)
{
    struct pm *p = malloc(sizeof(*p));

    if ( p == NULL )
        return -ENOMEM;
    p->bits = opts ? ((const struct pm_opts *)opts)->bits : 4;
    p->fanout = 1u << p->bits;
    p->depth = (KEY_BITS + p->bits - 1) / p->bits;
    *priv = p;
    return 0;
}

static void pm_fini(void *priv)
{
    free(priv);
}

static size_t node_size(const struct pm *p)
{
    return sizeof(struct pnode) + sizeof(union pslot) * p->fanout;
}

static unsigned int slot_of(const struct pm *p, domid_t id, unsigned int lvl)
{
    unsigned int shift = (p->depth - 1 - lvl) * p->bits;

    return (id >> shift) & (p->fanout - 1);
}

static void node_put(const struct pm *p, struct pnode *n, unsigned int lvl)
{
    unsigned int i;

    if ( n == NULL || --n->refcnt )
        return;
    if ( lvl + 1 < p->depth )
        for ( i = 0; i < p->fanout; i++ )
            node_put(p, n->s[i].child, lvl + 1);
    free(n);
}

static struct hv_quota_map *pm_create(void *priv)
{
    return calloc(1, sizeof(struct hv_quota_map));
}

static struct hv_quota_map *pm_copy(void *priv, struct hv_quota_map *m)
{
    m->refs++;
    return m;
}

static void pm_release(void *priv, struct hv_quota_map *m)
{
    if ( m->refs )
    {
        m->refs--;
        return;
    }
    node_put(priv, m->root, 0);
    free(m);
}

static int pm_get(void *priv, const struct hv_quota_map *m, domid_t id)
{
    const struct pm *p = priv;
    const struct pnode *n = m->root;
    unsigned int lvl;

    for ( lvl = 0; n && lvl + 1 < p->depth; lvl++ )
        n = n->s[slot_of(p, id, lvl)].child;
    return n ? (int)n->s[slot_of(p, id, p->depth - 1)].count : 0;
}

/* A version of *@mp owned by this handle alone. */
static struct hv_quota_map *unshare(struct hv_quota_map **mp)
{
    struct hv_quota_map *m = *mp, *c;

    if ( m->refs == 0 )
        return m;
    c = malloc(sizeof(*c));
    if ( c == NULL )
        return NULL;
    c->refs = 0;
    c->size = m->size;
    c->root = m->root;
    if ( c->root )
        c->root->refcnt++;
    m->refs--;
    *mp = c;
    return c;
}

/* *@slot made exclusively ours: in place if refcnt 1, else a copy. */
static struct pnode *own(const struct pm *p, struct pnode **slot,
                         unsigned int lvl)
{
    struct pnode *n = *slot, *c;
    size_t sz = node_size(p);
    unsigned int i;

    if ( n && n->refcnt == 1 )
        return n;
    c = malloc(sz);
    if ( c == NULL )
        return NULL;
    if ( n == NULL )
    {
        memset(c, 0, sz);
        c->refcnt = 1;
        *slot = c;
        return c;
    }
    memcpy(c, n, sz);
    c->refcnt = 1;
    if ( lvl + 1 < p->depth )
        for ( i = 0; i < p->fanout; i++ )
            if ( c->s[i].child )
                c->s[i].child->refcnt++;
    node_put(p, n, lvl);
    *slot = c;
    return c;
}

/*
 * Copy the path to @id's leaf and apply @diff (del: set to 0).  Empty
 * nodes on the way back are freed.  Allocation happens before any
 * change that matters: a failure leaves an equivalent (copied) path.
 */
static int update(const struct pm *p, struct hv_quota_map *m, domid_t id,
                  int diff, bool del)
{
    struct pnode **path[KEY_BITS + 1], *n;
    unsigned int lvl, s;
    long old, nv;

    if ( del && pm_get((void *)p, m, id) == 0 )
        return 0;
    path[0] = &m->root;
    for ( lvl = 0;; lvl++ )
    {
        n = own(p, path[lvl], lvl);
        if ( n == NULL )
            return -ENOMEM;
        s = slot_of(p, id, lvl);
        if ( lvl + 1 == p->depth )
            break;
        path[lvl + 1] = &n->s[s].child;
    }
    old = n->s[s].count;
    nv = del ? 0 : old + diff;
    n->s[s].count = nv;
    if ( (old == 0) != (nv == 0) )
    {
        int d = nv ? 1 : -1;

        m->size += d;
        /* Propagate slot occupancy up while a node fills or empties. */
        for ( lvl = p->depth;; )
        {
            n = *path[lvl - 1];
            n->used += d;
            if ( d > 0 ? n->used != 1 : n->used != 0 )
                break;
            if ( d < 0 )
            {
                free(n);
                *path[lvl - 1] = NULL;
            }
            if ( --lvl == 0 )
                break;
        }
    }
    return 0;
}

static int pm_add(void *priv, struct hv_quota_map **mp, domid_t id, int diff)
{
    struct hv_quota_map *m;

    if ( diff == 0 )
        return 0;
    m = unshare(mp);
    return m ? update(priv, m, id, diff, false) : -ENOMEM;
}

static int pm_del(void *priv, struct hv_quota_map **mp, domid_t id)
{
    struct hv_quota_map *m;

    if ( pm_get(priv, *mp, id) == 0 )
        return 0;
    m = unshare(mp);
    return m ? update(priv, m, id, 0, true) : -ENOMEM;
}

static void walk(const struct pm *p, const struct pnode *n, unsigned int lvl,
                 unsigned int prefix, hv_quota_fn fn, void *arg)
{
    unsigned int i;

    for ( i = 0; i < p->fanout; i++ )
    {
        unsigned int key = prefix << p->bits | i;

        if ( lvl + 1 < p->depth )
        {
            if ( n->s[i].child )
                walk(p, n->s[i].child, lvl + 1, key, fn, arg);
        }
        else if ( n->s[i].count )
            fn((domid_t)key, (int)n->s[i].count, arg);
    }
}

static void pm_foreach(void *priv, const struct hv_quota_map *m, hv_quota_fn fn,
                       void *arg)
{
    if ( m->root )
        walk(priv, m->root, 0, 0, fn, arg);
}

static unsigned int pm_size(void *priv, const struct hv_quota_map *m)
{
    return m->size;
}

static const struct hv_opt pm_opts_table[] = {
    HV_OPT_UINT_ROW(struct pm_opts, bits, "bits", "4", 1, 8,
                    "domid bits per trie level (fanout 2^bits)"),
    HV_OPT_TABLE_END,
};

static const struct hv_quota_ops persistent_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("quota", "persistent", struct hv_quota_ops),
            .summary = "persistent radix trie over domids: O(1) copy, "
                       "path copying, refcounted sharing (Map)",
            .opts = pm_opts_table,
            .opts_size = sizeof(struct pm_opts),
        },
    .init = pm_init,
    .fini = pm_fini,
    .create = pm_create,
    .copy = pm_copy,
    .release = pm_release,
    .get = pm_get,
    .add = pm_add,
    .del = pm_del,
    .foreach = pm_foreach,
    .size = pm_size,
};

HV_REGISTER_PLUGIN(persistent_ops);
