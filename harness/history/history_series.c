/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What detect and publish share: the runs' commits read once (a history
 * of 10^6 points has some 10^4 runs: a join per point would cost more
 * than the detection), and a series' change points found segment by
 * segment of its chained values (history_chain.c), each given by the
 * index of its first point after the change.
 *
 * E.g. the ratio series X1..X60 against R1, then X61..X90 against R2
 * with no overlap: segments [0, 60) and [60, 90) are detected apart, and
 * a step at X61 is no change point (it is the move), while one at X75
 * is one, at index 74.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

int hvb_hruns_load(struct hvb_hdb *h, struct hvb_hruns *r)
{
    struct hvb_sql_stmt *st;
    long long id;

    memset(r, 0, sizeof(*r));
    if ( (st = hvb_sql_prepare(h->db,
                               "SELECT id, commit_hash, base_commit FROM runs "
                               "ORDER BY id")) == NULL )
        return -EIO;
    while ( hvb_sql_step(st) == HVB_SQL_ROW )
    {
        id = hvb_sql_int64(st, 0);
        if ( id < 0 || id > (1LL << 31) )
            continue;
        if ( (size_t)id >= r->n )
        {
            size_t n = (size_t)id + 1 > 2 * r->n ? (size_t)id + 1 : 2 * r->n;
            char **c = realloc(r->commit, n * sizeof(*c));
            char **b = c ? realloc(r->base, n * sizeof(*b)) : NULL;

            if ( c )
                r->commit = c;
            if ( b == NULL )
            {
                hvb_sql_finalize(st);
                hvb_hruns_free(r);
                return -ENOMEM;
            }
            r->base = b;
            memset(r->commit + r->n, 0, (n - r->n) * sizeof(*c));
            memset(r->base + r->n, 0, (n - r->n) * sizeof(*b));
            r->n = n;
        }
        r->commit[id] = dup_or_null(hvb_sql_text(st, 1));
        r->base[id] = dup_or_null(hvb_sql_text(st, 2));
    }
    hvb_sql_finalize(st);
    return 0;
}

void hvb_hruns_free(struct hvb_hruns *r)
{
    size_t i;

    for ( i = 0; i < r->n; i++ )
    {
        free(r->commit[i]);
        free(r->base[i]);
    }
    free(r->commit);
    free(r->base);
    memset(r, 0, sizeof(*r));
}

const char *hvb_hruns_commit(const struct hvb_hruns *r, long long id)
{
    return id >= 0 && (size_t)id < r->n ? r->commit[id] : NULL;
}

const char *hvb_hruns_base(const struct hvb_hruns *r, long long id)
{
    return id >= 0 && (size_t)id < r->n ? r->base[id] : NULL;
}

/* The kept points of segment @seg from @s: their values into @v, their
 * indexes into @ix; how many, and the next segment's start in @next. */
static size_t segment(const struct hvb_hpoint *p, size_t n, size_t s, double *v,
                      size_t *ix, size_t *next)
{
    size_t seg = p[s].segment, k = 0;

    for ( ; s < n && p[s].segment == seg; s++ )
        if ( p[s].keep )
        {
            v[k] = p[s].chained;
            ix[k++] = s;
        }
    *next = s;
    return k;
}

long hvb_hchanges(const struct hvb_hpoint *p, size_t n,
                  const struct hvb_detect_opts *o, struct hvb_hfound *out,
                  size_t max)
{
    struct hvb_change *cp = malloc(max * sizeof(*cp));
    double *v = malloc((n + 1) * sizeof(*v));
    size_t *ix = malloc((n + 1) * sizeof(*ix));
    size_t s = 0, next, k;
    long found = 0, c, i;

    if ( cp == NULL || v == NULL || ix == NULL )
        found = -ENOMEM;
    for ( ; found >= 0 && s < n; s = next )
    {
        k = segment(p, n, s, v, ix, &next);
        c = hvb_edivisive(v, k, o->pvalue, o->min_seg, o->window, cp, max);
        if ( c < 0 )
        {
            found = c;
            break;
        }
        for ( i = 0; i < c && (size_t)found < max; i++ )
        {
            out[found].at = ix[cp[i].at];
            out[found++].c = cp[i];
        }
    }
    free(cp);
    free(v);
    free(ix);
    return found;
}

void hvb_hunchained(struct hvb_hpoint *p, size_t n)
{
    size_t i;

    for ( i = 0; i < n; i++ )
    {
        p[i].chained = p[i].value;
        p[i].keep = true;
        p[i].segment = 0;
    }
}
