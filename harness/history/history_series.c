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
#include <math.h>
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
    r->refs = hvb_hrefs_load(h);
    return r->refs ? 0 : -ENOMEM;
}

char **hvb_hrefs_load(struct hvb_hdb *h)
{
    struct hvb_sql_stmt *st = hvb_sql_prepare(
        h->db, "SELECT DISTINCT commit_hash FROM refs ORDER BY commit_hash");
    char **v = calloc(1, sizeof(*v)), **nv;
    size_t n = 0;

    while ( st != NULL && v != NULL && hvb_sql_step(st) == HVB_SQL_ROW &&
            hvb_sql_text(st, 0) != NULL )
    {
        nv = realloc(v, (n + 2) * sizeof(*v));
        if ( nv == NULL || (nv[n] = strdup(hvb_sql_text(st, 0))) == NULL )
        {
            hvb_hrefs_free(nv ? nv : v);
            v = NULL;
            break;
        }
        v = nv;
        v[++n] = NULL;
    }
    if ( st != NULL )
        hvb_sql_finalize(st);
    return v;
}

void hvb_hrefs_free(char **refs)
{
    size_t i;

    for ( i = 0; refs != NULL && refs[i] != NULL; i++ )
        free(refs[i]);
    free(refs);
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
    hvb_hrefs_free(r->refs);
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

/* Does the reference change between kept points @at - 1 and @at? */
static bool moved(const struct hvb_hpoint *p, const size_t *ix, size_t nv,
                  size_t at)
{
    return at > 0 && at < nv && p[ix[at]].base != NULL &&
           p[ix[at - 1]].base != NULL &&
           strcmp(p[ix[at]].base, p[ix[at - 1]].base) != 0;
}

/*
 * Is change @k of @cp[0..@c) (on the chained values @v[0..@nv) of the
 * points @ix into @p) a step the chain itself may have made?  At a
 * reference move the later points are scaled by a factor of two single
 * points (the anchor and the overlap review), each as noisy as one point
 * of its segment, so a noisy anchor moves every later point (and itself)
 * by its error: a step at the move or at its anchor is tested again with
 * that error added to its variance, and dropped where it is not
 * significant then.
 */
static bool chain_step(const struct hvb_hpoint *p, const size_t *ix,
                       const double *v, size_t nv, const struct hvb_change *cp,
                       long c, long k, const struct hvb_detect_opts *o)
{
    size_t at = cp[k].at, a = k ? cp[k - 1].at : 0;
    size_t b = k + 1 < c ? cp[k + 1].at : nv, n1 = at - a, n2 = b - at;
    double m1, v1, m2, v2, extra, pv;

    /* At the move, or at its anchor (the last point before it). */
    if ( !moved(p, ix, nv, at) && !moved(p, ix, nv, at + 1) )
        return false;
    hvb_mean_var(v + a, n1, &m1, &v1);
    hvb_mean_var(v + at, n2, &m2, &v2);
    if ( !(m1 != 0 && m2 != 0) )
        return false;
    /* The factor's relative variance, times the later level squared. */
    extra = m2 * m2 * (v1 / (m1 * m1) + v2 / (m2 * m2));
    pv = hvb_welch_p(m1, v1 + extra * (double)n1 / 2, n1, m2,
                     v2 + extra * (double)n2 / 2, n2);
    return pv * hvb_edivisive_splits(o->min_seg, o->window) >= o->pvalue;
}

/*
 * A level step of a parent-relative series (hvb_hchain()) at point @q
 * whose own review did not move (its ratio's CI holds 1): the level's
 * random walk, not that commit.
 */
static bool parent_noise(const struct hvb_hpoint *q)
{
    double f = q->value != 0 ? q->chained / q->value : NAN;

    if ( !q->parent || !isfinite(f) || !isfinite(q->lo) || !isfinite(q->hi) ||
         f == 0 )
        return false;
    return q->lo / f <= 1.0 && q->hi / f >= 1.0;
}

/* @cp[0..@c) less the chain's steps, the rest's figures made again. */
static long drop_chain_steps(const struct hvb_hpoint *p, const size_t *ix,
                             const double *v, size_t nv, struct hvb_change *cp,
                             long c, const struct hvb_detect_opts *o)
{
    long i, k;

    for ( i = k = 0; i < c; i++ )
        if ( !chain_step(p, ix, v, nv, cp, c, i, o) &&
             !parent_noise(&p[ix[cp[i].at]]) )
            cp[k++] = cp[i];
    if ( k < c && hvb_changes_at(v, nv, cp, (size_t)k, o->min_seg, o->window) )
        return -ENOMEM;
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
        c = drop_chain_steps(p, ix, v, k, cp, c, o);
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
        p[i].parent = false;
        p[i].segment = 0;
    }
}
