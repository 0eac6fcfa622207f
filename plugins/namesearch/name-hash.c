/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * namesearch/name-hash: libvirt's objsName (current code, seed 003's
 * fix).  The list keeps a hash of copies of the names, under the list
 * lock, so a search by name reads no object and locks none:
 *
 *   obj = virHashLookup(doms->objsName, name);   // key: strdup'ed name
 *
 * Entries are added at define and removed at undefine, both under the
 * list lock; the copy is safe to read because names never change.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/namesearch.h>
#include <hv/virt_domobj.h>

struct name_hash_opts {
    unsigned int buckets;
};

struct entry {
    struct entry *next;
    struct hv_vobj *obj;
    char *name; /* the copy */
};

struct name_hash {
    unsigned int nbuckets;
    struct entry **b;
};

static unsigned int hash_name(const struct name_hash *h, const char *s)
{
    uint32_t x = 2166136261u;

    while ( *s )
        x = (x ^ (unsigned char)*s++) * 16777619u;
    return x % h->nbuckets;
}

static int name_hash_init(const void *opts, void **priv)
{
    struct name_hash *h = calloc(1, sizeof(*h));

    if ( h == NULL )
        return -ENOMEM;
    h->nbuckets = hv_opt_uint(opts, offsetof(struct name_hash_opts, buckets));
    h->b = calloc(h->nbuckets, sizeof(*h->b));
    if ( h->b == NULL )
    {
        free(h);
        return -ENOMEM;
    }
    *priv = h;
    return 0;
}

static void name_hash_fini(void *priv)
{
    struct name_hash *h = priv;
    unsigned int i;

    for ( i = 0; i < h->nbuckets; i++ )
        while ( h->b[i] != NULL )
        {
            struct entry *e = h->b[i];

            h->b[i] = e->next;
            free(e->name);
            free(e);
        }
    free(h->b);
    free(h);
}

static int name_hash_add(void *priv, struct hv_vobj *obj)
{
    struct name_hash *h = priv;
    struct entry *e = malloc(sizeof(*e));
    unsigned int b;

    if ( e == NULL || (e->name = strdup(obj->name)) == NULL )
    {
        free(e);
        return -ENOMEM;
    }
    e->obj = obj;
    b = hash_name(h, e->name);
    e->next = h->b[b];
    h->b[b] = e;
    return 0;
}

static void name_hash_remove(void *priv, struct hv_vobj *obj)
{
    struct name_hash *h = priv;
    struct entry **pp;

    for ( pp = &h->b[hash_name(h, obj->name)]; *pp != NULL; pp = &(*pp)->next )
        if ( (*pp)->obj == obj )
        {
            struct entry *e = *pp;

            *pp = e->next;
            free(e->name);
            free(e);
            return;
        }
}

static struct hv_vobj *name_hash_find(void *priv, struct hv_vobjlist *l,
                                      const char *name)
{
    struct name_hash *h = priv;
    struct entry *e;

    for ( e = h->b[hash_name(h, name)]; e != NULL; e = e->next )
        if ( strcmp(e->name, name) == 0 )
            return e->obj;
    return NULL;
}

static const struct hv_opt name_hash_opt_table[] = {
    HV_OPT_UINT_ROW(struct name_hash_opts, buckets, "buckets", "1024", 1,
                    1u << 24, "hash buckets of the name table"),
    HV_OPT_TABLE_END,
};

static const struct hv_namesearch_ops name_hash_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("namesearch", "name-hash", struct hv_namesearch_ops),
            .summary = "hash of copied names under the list lock, no "
                       "object locks (libvirt objsName)",
            .opts = name_hash_opt_table,
            .opts_size = sizeof(struct name_hash_opts),
        },
    .init = name_hash_init,
    .fini = name_hash_fini,
    .add = name_hash_add,
    .remove = name_hash_remove,
    .find = name_hash_find,
};

HV_REGISTER_PLUGIN(name_hash_ops);
