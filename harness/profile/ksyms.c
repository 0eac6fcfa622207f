/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel symbols (hvb/ksyms.h).  /proc/kallsyms lists "ADDR TYPE NAME
 * [MODULE]" per symbol; the text ones (t, T, w, W) sorted by address
 * answer a lookup by binary search: the last symbol at or below it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/ksyms.h>

struct ksym {
    uint64_t addr;
    char *name;
};

struct hvb_ksyms {
    struct ksym *v;
    size_t nr, cap;
};

static int ksym_cmp(const void *a, const void *b)
{
    const struct ksym *x = a, *y = b;

    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add(struct hvb_ksyms *k, uint64_t addr, const char *name)
{
    if ( k->nr == k->cap )
    {
        size_t cap = k->cap ? 2 * k->cap : 65536;
        struct ksym *n = realloc(k->v, cap * sizeof(*n));

        if ( n == NULL )
            return -1;
        k->v = n;
        k->cap = cap;
    }
    if ( (k->v[k->nr].name = strdup(name)) == NULL )
        return -1;
    k->v[k->nr++].addr = addr;
    return 0;
}

struct hvb_ksyms *hvb_ksyms_open(void)
{
    struct hvb_ksyms *k = calloc(1, sizeof(*k));
    FILE *f = fopen("/proc/kallsyms", "r");
    char line[512], type, name[256];
    uint64_t addr;

    if ( k == NULL )
    {
        if ( f != NULL )
            fclose(f);
        return NULL;
    }
    while ( f != NULL && fgets(line, sizeof(line), f) )
    {
        if ( sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 ||
             addr == 0 || strchr("tTwW", type) == NULL )
            continue;
        if ( add(k, addr, name) )
        {
            fclose(f);
            hvb_ksyms_close(k);
            return NULL;
        }
    }
    if ( f != NULL )
        fclose(f);
    qsort(k->v, k->nr, sizeof(*k->v), ksym_cmp);
    return k;
}

const char *hvb_ksyms_name(const struct hvb_ksyms *k, uint64_t addr)
{
    size_t lo = 0, hi = k->nr;

    while ( lo < hi ) /* the first symbol above @addr */
    {
        size_t mid = (lo + hi) / 2;

        if ( k->v[mid].addr <= addr )
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 ? k->v[lo - 1].name : "[kernel]";
}

void hvb_ksyms_close(struct hvb_ksyms *k)
{
    size_t i;

    if ( k == NULL )
        return;
    for ( i = 0; i < k->nr; i++ )
        free(k->v[i].name);
    free(k->v);
    free(k);
}
