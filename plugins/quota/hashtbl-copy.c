/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * quota/hashtbl-copy: oxenstored before b6cf604207.  Quota.cur was an
 * OCaml (domid, int) Hashtbl.t made by Hashtbl.create 100: chained
 * buckets (128 of them, doubled when the size exceeds twice the bucket
 * count), and Quota.copy was Hashtbl.copy, which allocates a new bucket
 * array and a new cell for every entry.  The copies became garbage at
 * the end of each request.  Here a copy is that: malloc the bucket array,
 * malloc and fill one cell per entry; release frees them all (the GC's
 * share of the work).  With D domains holding quota a read costs O(D)
 * allocations: the ~40% of CPU seen in seed 000.
 *
 * Updates change the handle's table in place: every handle is owned by
 * one holder (hv/quota.h), as each Hashtbl copy was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/quota.h>

struct cell {
    struct cell *next;
    domid_t id;
    int count;
};

struct hv_quota_map {
    struct cell **buckets;
    unsigned int nr_buckets; /* a power of two */
    unsigned int size;
};

struct htc_opts {
    unsigned int initial;
};

struct htc {
    unsigned int initial;
};

static int htc_init(const void *opts, void **priv)
{
    struct htc *h = malloc(sizeof(*h));

    if ( h == NULL )
        return -ENOMEM;
    h->initial = opts ? ((const struct htc_opts *)opts)->initial : 128;
    *priv = h;
    return 0;
}

static void htc_fini(void *priv)
{
    free(priv);
}

static unsigned int hash(const struct hv_quota_map *m, domid_t id)
{
    return (id * 0x9E3779B1u) >> 7 & (m->nr_buckets - 1);
}

static struct hv_quota_map *htc_create(void *priv)
{
    struct hv_quota_map *m = malloc(sizeof(*m));
    unsigned int n = 1;

    if ( m == NULL )
        return NULL;
    while ( n < ((struct htc *)priv)->initial )
        n <<= 1;
    m->buckets = calloc(n, sizeof(*m->buckets));
    if ( m->buckets == NULL )
    {
        free(m);
        return NULL;
    }
    m->nr_buckets = n;
    m->size = 0;
    return m;
}

static void htc_release(void *priv, struct hv_quota_map *m)
{
    struct cell *c, *next;
    unsigned int i;

    for ( i = 0; i < m->nr_buckets; i++ )
        for ( c = m->buckets[i]; c; c = next )
        {
            next = c->next;
            free(c);
        }
    free(m->buckets);
    free(m);
}

/* Hashtbl.copy: a new bucket array and a new cell per entry, in order. */
static struct hv_quota_map *htc_copy(void *priv, struct hv_quota_map *src)
{
    struct hv_quota_map *m = malloc(sizeof(*m));
    struct cell *c, **tail;
    unsigned int i;

    if ( m == NULL )
        return NULL;
    m->buckets = malloc(sizeof(*m->buckets) * src->nr_buckets);
    if ( m->buckets == NULL )
    {
        free(m);
        return NULL;
    }
    m->nr_buckets = src->nr_buckets;
    m->size = src->size;
    for ( i = 0; i < m->nr_buckets; i++ )
    {
        tail = &m->buckets[i];
        for ( c = src->buckets[i]; c; c = c->next )
        {
            struct cell *n = malloc(sizeof(*n));

            if ( n == NULL )
            {
                *tail = NULL;
                while ( ++i < m->nr_buckets )
                    m->buckets[i] = NULL;
                htc_release(priv, m);
                return NULL;
            }
            n->id = c->id;
            n->count = c->count;
            *tail = n;
            tail = &n->next;
        }
        *tail = NULL;
    }
    return m;
}

static struct cell *lookup(const struct hv_quota_map *m, domid_t id)
{
    struct cell *c;

    for ( c = m->buckets[hash(m, id)]; c; c = c->next )
        if ( c->id == id )
            return c;
    return NULL;
}

static int htc_get(void *priv, const struct hv_quota_map *m, domid_t id)
{
    const struct cell *c = lookup(m, id);

    return c ? c->count : 0;
}

/* Hashtbl.resize: double the buckets when size > 2 * buckets. */
static void resize(struct hv_quota_map *m)
{
    unsigned int n = m->nr_buckets * 2, i, old = m->nr_buckets;
    struct cell **b = calloc(n, sizeof(*b)), **ob = m->buckets, *c, *next;

    if ( b == NULL )
        return; /* keep the longer chains */
    m->buckets = b;
    m->nr_buckets = n;
    for ( i = 0; i < old; i++ )
        for ( c = ob[i]; c; c = next )
        {
            unsigned int h = hash(m, c->id);

            next = c->next;
            c->next = b[h];
            b[h] = c;
        }
    free(ob);
}

static void unlink_cell(struct hv_quota_map *m, domid_t id)
{
    struct cell **pp, *c;

    for ( pp = &m->buckets[hash(m, id)]; (c = *pp) != NULL; pp = &c->next )
        if ( c->id == id )
        {
            *pp = c->next;
            free(c);
            m->size--;
            return;
        }
}

static int htc_add(void *priv, struct hv_quota_map **mp, domid_t id, int diff)
{
    struct hv_quota_map *m = *mp;
    struct cell *c = lookup(m, id);

    if ( c )
    {
        c->count += diff;
        if ( c->count == 0 )
            unlink_cell(m, id);
        return 0;
    }
    if ( diff == 0 )
        return 0;
    c = malloc(sizeof(*c));
    if ( c == NULL )
        return -ENOMEM;
    c->id = id;
    c->count = diff;
    c->next = m->buckets[hash(m, id)];
    m->buckets[hash(m, id)] = c;
    if ( ++m->size > 2 * m->nr_buckets )
        resize(m);
    return 0;
}

static int htc_del(void *priv, struct hv_quota_map **mp, domid_t id)
{
    unlink_cell(*mp, id);
    return 0;
}

static void htc_foreach(void *priv, const struct hv_quota_map *m,
                        hv_quota_fn fn, void *arg)
{
    const struct cell *c;
    unsigned int i;

    for ( i = 0; i < m->nr_buckets; i++ )
        for ( c = m->buckets[i]; c; c = c->next )
            fn(c->id, c->count, arg);
}

static unsigned int htc_size(void *priv, const struct hv_quota_map *m)
{
    return m->size;
}

static const struct hv_opt htc_opts_table[] = {
    HV_OPT_UINT_ROW(struct htc_opts, initial, "buckets", "128", 1, 1u << 20,
                    "initial bucket count (Hashtbl.create 100 -> 128)"),
    HV_OPT_TABLE_END,
};

static const struct hv_quota_ops hashtbl_copy_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("quota", "hashtbl-copy", struct hv_quota_ops),
            .summary = "chained hash table deep-copied at every copy "
                       "point, freed at request end (Hashtbl.copy + GC)",
            .opts = htc_opts_table,
            .opts_size = sizeof(struct htc_opts),
        },
    .init = htc_init,
    .fini = htc_fini,
    .create = htc_create,
    .copy = htc_copy,
    .release = htc_release,
    .get = htc_get,
    .add = htc_add,
    .del = htc_del,
    .foreach = htc_foreach,
    .size = htc_size,
};

HV_REGISTER_PLUGIN(hashtbl_copy_ops);
