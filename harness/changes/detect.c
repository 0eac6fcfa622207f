/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Change points by E-divisive means (Matteson and James 2014), in the
 * form Apache Otava (formerly Hunter, MongoDB's) runs it:
 *
 *   1. Candidates.  Over windows of W points (W/2 apart, the last one
 *      ending at the last point), the split tau of each window that
 *      maximises the energy statistic
 *        Q(tau) = tau (n - tau) / n x [ 2 mean|x_i - x_j| (across)
 *                 - mean|x_i - x_k| (left) - mean|x_j - x_l| (right) ]
 *      is a candidate, each side at least min_seg points long; then each
 *      side is split again the same way (binary segmentation, as
 *      Matteson and James and Otava's signal_processing_algorithms do)
 *      while the split found is worth a look (Welch's p < 0.05 between
 *      the two sides, before any correction) and a side is long enough.
 *      One split per window missed a change that comes and goes: 30
 *      points with a +10% stretch of 10 in the middle gave one candidate
 *      at an edge, whose far side mixed both levels.  The pairwise
 *      distances of a segment are summed incrementally, so a window
 *      costs O(W^2) per level of splitting.
 *   2. Significance.  Each candidate is tested with Welch's t-test
 *      between the segments it separates (up to its neighbours), its p
 *      multiplied by the W - 2 min_seg + 1 splits it was the best of
 *      (Bonferroni: the best split of a window of noise looks better
 *      than a split chosen beforehand); the least significant is dropped
 *      and its neighbours tested again, until every one left has p <
 *      pvalue.  Otava replaced the permutation test of the original with
 *      the t-test: deterministic, and fast enough for thousands of
 *      series.  A segment's variance is summed about the series' mean
 *      and summed again point by point where the sums cancel, so a
 *      near-constant series (sd/mean ~ 1e-8: sim_instructions with float
 *      rounding) has its true variance, not 0; two constant segments
 *      with the same mean (to 1e-12) are no change.
 *
 * Worked example: 40 points of N(100, 1) then 40 of N(102, 1), W = 50,
 * min_seg 5: the windows [0, 50) and [25, 75) both peak at tau = 40; the
 * t-test of [0, 40) against [40, 80) gives p ~ 1e-15 (x 41 splits, still
 * < 0.001): one change
 * at 40, 100.0 -> 102.0.  The windows [50, 80) peak somewhere in noise;
 * that candidate's p is ~0.5 and it is dropped.
 *
 * What it assumes: the points of a segment are independent with one mean
 * (the t-test: roughly normal, or long segments).  Where it misleads: a
 * slow drift is cut into steps; a bimodal series (two code layouts, a
 * noisy neighbour) looks like changes back and forth; a spike shorter
 * than min_seg is never a change, one longer is.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/changes.h>

/* The best split of @x[0..@n) and its statistic (0 if none). */
static size_t best_split(const double *x, size_t n, size_t min_seg, double *d,
                         double *rowl, double *rowr, double *q)
{
    double across = 0, left = 0, right = 0, best = -1, e;
    size_t i, j, t, at = 0;

    for ( i = 0; i < n; i++ )
        for ( j = 0; j < n; j++ )
            d[i * n + j] = fabs(x[i] - x[j]);
    for ( t = 0; t < n; t++ )
    {
        rowl[t] = rowr[t] = 0;
        for ( i = 0; i < t; i++ )
            rowl[t] += d[i * n + t];
        for ( j = t + 1; j < n; j++ )
            rowr[t] += d[t * n + j];
    }
    /* tau = 0: everything on the right. */
    for ( t = 0; t < n; t++ )
        right += rowr[t];
    for ( t = 0; t + 1 < n; t++ )
    {
        /* Point t moves from the right to the left: tau = t + 1. */
        left += rowl[t];
        right -= rowr[t];
        across += rowr[t] - rowl[t];
        size_t a = t + 1, b = n - a;

        if ( a < min_seg || b < min_seg || a < 2 || b < 2 )
            continue;
        e = 2.0 * across / ((double)a * (double)b) -
            left / ((double)a * (double)(a - 1) / 2.0) -
            right / ((double)b * (double)(b - 1) / 2.0);
        e *= (double)a * (double)b / (double)n;
        if ( e > best )
        {
            best = e;
            at = a;
        }
    }
    *q = best;
    return at;
}

/*
 * A series and its prefix sums about its mean @shift (sums about a far
 * mean cancel: 1e6 + 1e-2 noise squared loses every digit of the noise).
 */
struct sums {
    const double *x;
    double *s, *s2, shift;
};

/* Mean and variance of x[a..b): from the prefix sums, else point by point. */
static void seg(const struct sums *z, size_t a, size_t b, double *m, double *v)
{
    double n = (double)(b - a), sum = z->s[b] - z->s[a];
    double sq = z->s2[b] - z->s2[a];

    *m = z->shift + sum / n;
    *v = n > 1 ? (sq - sum * sum / n) / (n - 1) : 0;
    /* Cancelled (or truly 0): the two-pass sum, exact enough. */
    if ( n > 1 && !(*v > 1e-9 * sq / n) )
        hvb_mean_var(z->x + a, b - a, m, v);
}

void hvb_mean_var(const double *x, size_t n, double *m, double *v)
{
    size_t i;

    for ( *m = 0, i = 0; i < n; i++ )
        *m += x[i] / (double)n;
    for ( *v = 0, i = 0; i < n; i++ )
        *v += (x[i] - *m) * (x[i] - *m);
    *v = n > 1 ? *v / (double)(n - 1) : 0;
}

double hvb_edivisive_splits(size_t min_seg, size_t window)
{
    size_t w = window < 2 * min_seg ? 2 * min_seg : window;

    return (double)(w - 2 * min_seg + 1);
}

static double cp_p(const struct sums *z, size_t lo, size_t at, size_t hi,
                   size_t min_seg, double *m1, double *m2)
{
    double v1, v2;

    seg(z, lo, at, m1, &v1);
    seg(z, at, hi, m2, &v2);
    if ( at - lo < min_seg || hi - at < min_seg )
        return 1.0;
    /* Two constant segments of one mean, but for float rounding. */
    if ( v1 == 0 && v2 == 0 &&
         fabs(*m1 - *m2) <= 1e-12 * fmax(fabs(*m1), fabs(*m2)) )
        return 1.0;
    return hvb_welch_p(*m1, v1, at - lo, *m2, v2, hi - at);
}

/*
 * The change at @at between its neighbours @a and @b: the segments'
 * means, Welch's p times the @sel splits tried, the 95% CI of the step.
 */
static void change_at(const struct sums *z, size_t a, size_t at, size_t b,
                      size_t min_seg, double sel, struct hvb_change *o)
{
    double v1, v2, p = cp_p(z, a, at, b, min_seg, &o->before, &o->after);

    o->at = at;
    o->p = p * sel < 1 ? p * sel : 1;
    seg(z, a, at, &o->before, &v1);
    seg(z, at, b, &o->after, &v2);
    hvb_welch_ci(o->before, v1, at - a, o->after, v2, b - at, 0.95, &o->lo,
                 &o->hi);
}

/* The work space of one series: distances, rows, candidates. */
struct ediv {
    const double *x;
    size_t min_seg;
    double *d, *rowl, *rowr;
    size_t *c, nc, cap;
    size_t (*stack)[2];
};

/*
 * The candidates of window [@lo, @hi): its best split, then each side's,
 * while the split is worth a look and the sides are long enough.
 */
static int window_candidates(struct ediv *e, const struct sums *z, size_t lo,
                             size_t hi)
{
    size_t sp = 0, a, b, at;
    double q, m1, m2;

    e->stack[sp][0] = lo;
    e->stack[sp++][1] = hi;
    while ( sp > 0 )
    {
        a = e->stack[--sp][0];
        b = e->stack[sp][1];
        if ( b - a < 2 * e->min_seg || b - a < 4 )
            continue;
        at =
            best_split(e->x + a, b - a, e->min_seg, e->d, e->rowl, e->rowr, &q);
        if ( at == 0 || !(q > 0) )
            continue;
        if ( e->nc == e->cap )
            return -ENOMEM;
        e->c[e->nc++] = a + at;
        if ( cp_p(z, a, a + at, b, e->min_seg, &m1, &m2) >= 0.05 )
            continue;
        e->stack[sp][0] = a;
        e->stack[sp++][1] = a + at;
        e->stack[sp][0] = a + at;
        e->stack[sp++][1] = b;
    }
    return 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return x < y ? -1 : x > y;
}

/* Every window's candidates into @e, sorted, each once: 0 or -ENOMEM. */
static int candidates(struct ediv *e, const struct sums *z, size_t n, size_t w)
{
    size_t step = w / 2 ? w / 2 : 1, start, len, i, k;

    for ( start = 0; start < n; start += step )
    {
        /* The last window ends at the last point: the tail is seen. */
        if ( start + w > n )
            start = n > w ? n - w : 0;
        len = n - start < w ? n - start : w;
        if ( len < 2 * e->min_seg || len < 4 )
            break;
        if ( window_candidates(e, z, start, start + len) )
            return -ENOMEM;
        if ( start + len == n )
            break;
    }
    qsort(e->c, e->nc, sizeof(*e->c), cmp_size);
    for ( i = k = 0; i < e->nc; i++ )
        if ( k == 0 || e->c[i] != e->c[k - 1] )
            e->c[k++] = e->c[i];
    e->nc = k;
    return 0;
}

/*
 * Drop the least significant candidate of @c[0..@nc) until all are
 * below @pvalue, testing again only the neighbours of the one dropped;
 * each p times the @sel splits its candidate was the best of.  Returns
 * how many are left.
 */
static size_t prune(const struct sums *z, size_t n, size_t *c, double *pv,
                    size_t nc, size_t min_seg, double sel, double pvalue)
{
    double m1, m2, worst;
    size_t i, wi;

    for ( i = 0; i < nc; i++ )
        pv[i] = cp_p(z, i ? c[i - 1] : 0, c[i], i + 1 < nc ? c[i + 1] : n,
                     min_seg, &m1, &m2) *
                sel;
    while ( nc > 0 )
    {
        for ( worst = -1, wi = 0, i = 0; i < nc; i++ )
            if ( pv[i] > worst )
            {
                worst = pv[i];
                wi = i;
            }
        if ( worst < pvalue )
            break;
        memmove(c + wi, c + wi + 1, (nc - wi - 1) * sizeof(*c));
        memmove(pv + wi, pv + wi + 1, (nc - wi - 1) * sizeof(*pv));
        nc--;
        for ( i = wi ? wi - 1 : 0; i <= wi && i < nc; i++ )
            pv[i] = cp_p(z, i ? c[i - 1] : 0, c[i], i + 1 < nc ? c[i + 1] : n,
                         min_seg, &m1, &m2) *
                    sel;
    }
    return nc;
}

/* @z's sums of @x[0..@n) about its mean: 0 or -ENOMEM. */
static int sums_make(struct sums *z, const double *x, size_t n)
{
    size_t i;

    z->x = x;
    z->shift = 0;
    z->s = calloc(n + 1, sizeof(*z->s));
    z->s2 = calloc(n + 1, sizeof(*z->s2));
    if ( z->s == NULL || z->s2 == NULL )
        return -ENOMEM;
    for ( i = 0; i < n; i++ )
        z->shift += x[i] / (double)n;
    for ( i = 0; i < n; i++ )
    {
        z->s[i + 1] = z->s[i] + (x[i] - z->shift);
        z->s2[i + 1] = z->s2[i] + (x[i] - z->shift) * (x[i] - z->shift);
    }
    return 0;
}

int hvb_changes_at(const double *x, size_t n, struct hvb_change *c, size_t k,
                   size_t min_seg, size_t window)
{
    size_t i;
    struct sums z;
    int rc = sums_make(&z, x, n);

    for ( i = 0; rc == 0 && i < k; i++ )
        change_at(&z, i ? c[i - 1].at : 0, c[i].at, i + 1 < k ? c[i + 1].at : n,
                  min_seg, hvb_edivisive_splits(min_seg, window), &c[i]);
    free(z.s);
    free(z.s2);
    return rc;
}

long hvb_edivisive(const double *x, size_t n, double pvalue, size_t min_seg,
                   size_t window, struct hvb_change *out, size_t max)
{
    size_t w = window < 2 * min_seg ? 2 * min_seg : window;
    struct ediv e = {.x = x, .min_seg = min_seg};
    struct sums z = {.x = x};
    double sel = hvb_edivisive_splits(min_seg, window), *pv;
    size_t i, nc;
    long rc = -ENOMEM;

    /* At most one candidate per point (deduplicated per window first). */
    e.cap = 2 * n + 2;
    e.d = malloc(w * w * sizeof(*e.d));
    e.rowl = malloc(w * sizeof(*e.rowl));
    e.rowr = malloc(w * sizeof(*e.rowr));
    e.c = malloc(e.cap * sizeof(*e.c));
    e.stack = malloc((2 * w + 4) * sizeof(*e.stack));
    pv = malloc(e.cap * sizeof(*pv));
    if ( sums_make(&z, x, n) || e.d == NULL || e.rowl == NULL ||
         e.rowr == NULL || e.c == NULL || e.stack == NULL || pv == NULL )
        goto out;
    if ( candidates(&e, &z, n, w) )
        goto out;
    nc = prune(&z, n, e.c, pv, e.nc, min_seg, sel, pvalue);
    for ( i = 0; i < nc && i < max; i++ )
        change_at(&z, i ? e.c[i - 1] : 0, e.c[i], i + 1 < nc ? e.c[i + 1] : n,
                  min_seg, sel, &out[i]);
    rc = (long)nc;
out:
    free(e.d);
    free(e.rowl);
    free(e.rowr);
    free(e.c);
    free(e.stack);
    free(z.s);
    free(z.s2);
    free(pv);
    return rc;
}
