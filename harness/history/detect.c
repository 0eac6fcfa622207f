/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Change points by E-divisive means (Matteson and James 2014), in the
 * form Apache Otava (formerly Hunter, MongoDB's) runs it:
 *
 *   1. Candidates.  Over windows of W points (W/2 apart, the last one
 *      ending at the last point), the split tau
 *      of each window that maximises the energy statistic
 *        Q(tau) = tau (n - tau) / n x [ 2 mean|x_i - x_j| (across)
 *                 - mean|x_i - x_k| (left) - mean|x_j - x_l| (right) ]
 *      is a candidate, each side at least min_seg points long.  The
 *      pairwise distances of a window are summed incrementally, so a
 *      window costs O(W^2), a series O(n W).
 *   2. Significance.  Each candidate is tested with Welch's t-test
 *      between the segments it separates (up to its neighbours), its p
 *      multiplied by the W - 2 min_seg + 1 splits it was the best of
 *      (Bonferroni: the best split of a window of noise looks better
 *      than a split chosen beforehand); the least significant is dropped
 *      and its neighbours tested again, until every one left has p <
 *      pvalue.  Otava replaced the permutation test of the original with
 *      the t-test: deterministic, and fast enough for thousands of
 *      series.
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

#include <hvb/history.h>

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

/* Mean and variance of x[a..b) from the prefix sums @s, @s2. */
static void seg(const double *s, const double *s2, size_t a, size_t b,
                double *m, double *v)
{
    double n = (double)(b - a), sum = s[b] - s[a], sq = s2[b] - s2[a];

    *m = sum / n;
    *v = n > 1 ? (sq - sum * sum / n) / (n - 1) : 0;
    if ( *v < 0 )
        *v = 0;
}

static double cp_p(const double *s, const double *s2, size_t lo, size_t at,
                   size_t hi, size_t min_seg, double *m1, double *m2)
{
    double v1, v2;

    seg(s, s2, lo, at, m1, &v1);
    seg(s, s2, at, hi, m2, &v2);
    if ( at - lo < min_seg || hi - at < min_seg )
        return 1.0;
    return hvb_welch_p(*m1, v1, at - lo, *m2, v2, hi - at);
}

/*
 * The change at @at between its neighbours @a and @b: the segments'
 * means, Welch's p times the @sel splits tried, the 95% CI of the step.
 */
static void change_at(const double *s, const double *s2, size_t a, size_t at,
                      size_t b, size_t min_seg, double sel,
                      struct hvb_change *o)
{
    double v1, v2, p = cp_p(s, s2, a, at, b, min_seg, &o->before, &o->after);

    o->at = at;
    o->p = p * sel < 1 ? p * sel : 1;
    seg(s, s2, a, at, &o->before, &v1);
    seg(s, s2, at, b, &o->after, &v2);
    hvb_welch_ci(o->before, v1, at - a, o->after, v2, b - at, 0.95, &o->lo,
                 &o->hi);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return x < y ? -1 : x > y;
}

long hvb_edivisive(const double *x, size_t n, double pvalue, size_t min_seg,
                   size_t window, struct hvb_change *out, size_t max)
{
    size_t w = window < 2 * min_seg ? 2 * min_seg : window;
    size_t step = w / 2 ? w / 2 : 1, nc = 0, i, k, start;
    double *d = malloc(w * w * sizeof(*d)), *rowl = malloc(w * sizeof(*rowl));
    double *rowr = malloc(w * sizeof(*rowr));
    double *s = calloc(n + 1, sizeof(*s)), *s2 = calloc(n + 1, sizeof(*s2));
    size_t *c = malloc((n / step + 2) * sizeof(*c));
    double *pv = malloc((n / step + 2) * sizeof(*pv));
    double sel = (double)(w - 2 * min_seg + 1), q, m1, m2;
    long rc = 0;

    if ( d == NULL || rowl == NULL || rowr == NULL || s == NULL || s2 == NULL ||
         c == NULL )
    {
        rc = -ENOMEM;
        goto out;
    }
    for ( i = 0; i < n; i++ )
    {
        s[i + 1] = s[i] + x[i];
        s2[i + 1] = s2[i] + x[i] * x[i];
    }
    for ( start = 0; start < n; start += step )
    {
        size_t len, at;

        /* The last window ends at the last point: the tail is seen. */
        if ( start + w > n )
            start = n > w ? n - w : 0;
        len = n - start < w ? n - start : w;
        if ( len < 2 * min_seg || len < 4 )
            break;
        at = best_split(x + start, len, min_seg, d, rowl, rowr, &q);
        if ( at > 0 && q > 0 )
            c[nc++] = start + at;
        if ( start + len == n )
            break;
    }
    qsort(c, nc, sizeof(*c), cmp_size);
    for ( i = k = 0; i < nc; i++ )
        if ( k == 0 || c[i] != c[k - 1] )
            c[k++] = c[i];
    nc = k;
    /*
     * Drop the least significant until all are below pvalue, testing
     * again only the neighbours of the one dropped.  Each p is multiplied
     * by the split positions its candidate was the best of (Bonferroni):
     * the best split of a window of noise has a smaller p than a split
     * chosen beforehand would.
     */
    for ( i = 0; i < nc; i++ )
        pv[i] = cp_p(s, s2, i ? c[i - 1] : 0, c[i], i + 1 < nc ? c[i + 1] : n,
                     min_seg, &m1, &m2) *
                sel;
    while ( nc > 0 )
    {
        double worst = -1;
        size_t wi = 0;

        for ( i = 0; i < nc; i++ )
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
            pv[i] = cp_p(s, s2, i ? c[i - 1] : 0, c[i],
                         i + 1 < nc ? c[i + 1] : n, min_seg, &m1, &m2) *
                    sel;
    }
    for ( i = 0; i < nc && i < max; i++ )
        change_at(s, s2, i ? c[i - 1] : 0, c[i], i + 1 < nc ? c[i + 1] : n,
                  min_seg, sel, &out[i]);
    rc = (long)nc;
out:
    free(d);
    free(rowl);
    free(rowr);
    free(s);
    free(s2);
    free(c);
    free(pv);
    return rc;
}
