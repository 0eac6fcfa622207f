/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The stats room (harness/stats/): numbers in, numbers out.  stats.c
 * (median, quantiles, MAD, bootstrap CIs of a median and of a ratio of
 * medians, Mann-Whitney U; hvb/stats.h) and noise.c (the noise flags of a
 * sample set: CV, min/max, outliers, too few or too short samples, two
 * clusters ...; hvb/noise.h, with their names as JSON).  No engine, no
 * matrix, no I/O: everything above calls in (output's summary and
 * compare, the gate), nothing here calls out, so it is tested against
 * scipy on fixed data alone (tests/harness/unit-stats.c).  E.g.
 * hvb_bootstrap_median_ci() of 20 samples with HVB_BOOTSTRAP_RESAMPLES and
 * HVB_BOOTSTRAP_SEED gives the same CI on every machine.
 *
 * Statistics; see hvb/stats.h.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/stats.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median_sorted(const double *s, size_t n)
{
    if ( n == 0 )
        return NAN;
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

double hvb_quantile_sorted(const double *v, size_t n, double q)
{
    double pos, frac;
    size_t i;

    if ( n == 0 )
        return NAN;
    pos = q * (double)(n - 1);
    i = (size_t)floor(pos);
    if ( i + 1 >= n )
        return v[n - 1];
    frac = pos - (double)i;
    return v[i] + (v[i + 1] - v[i]) * frac;
}

double hvb_median(const double *v, size_t n)
{
    double *s, m;

    if ( n == 0 )
        return NAN;
    s = malloc(n * sizeof(*s));
    if ( s == NULL )
        return NAN;
    memcpy(s, v, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    m = median_sorted(s, n);
    free(s);
    return m;
}

/* See hvb_stats.two_clusters; @s sorted ascending. */
static bool two_clusters(const double *s, size_t n, double median)
{
    double gap = -1, wider;
    size_t i, at = 0;

    for ( i = 1; i + 2 < n; i++ ) /* at least two on each side */
        if ( s[i + 1] - s[i] > gap )
        {
            gap = s[i + 1] - s[i];
            at = i;
        }
    if ( gap <= 0 || !(gap >= 0.10 * fabs(median)) )
        return false;
    wider = fmax(s[at] - s[0], s[n - 1] - s[at + 1]);
    return gap >= 2 * wider;
}

int hvb_stats_compute(const double *v, size_t n, struct hvb_stats *out)
{
    double *sorted, sum = 0, sq = 0;
    size_t i;

    memset(out, 0, sizeof(*out));
    if ( n == 0 )
        return 0;
    sorted = malloc(n * sizeof(*sorted));
    if ( sorted == NULL )
        return -ENOMEM;
    memcpy(sorted, v, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), cmp_double);

    out->n = n;
    out->min = sorted[0];
    out->max = sorted[n - 1];
    out->median = median_sorted(sorted, n);
    out->two_clusters = two_clusters(sorted, n, out->median);
    for ( i = 0; i < n; i++ )
        sum += v[i];
    out->mean = sum / (double)n;
    if ( n > 1 )
    {
        for ( i = 0; i < n; i++ )
            sq += (v[i] - out->mean) * (v[i] - out->mean);
        out->stddev = sqrt(sq / (double)(n - 1));
        if ( out->mean != 0 )
            out->cv = out->stddev / fabs(out->mean);
    }

    /* MAD, then outliers by modified z-score (Iglewicz and Hoaglin). */
    for ( i = 0; i < n; i++ )
        sorted[i] = fabs(v[i] - out->median);
    qsort(sorted, n, sizeof(*sorted), cmp_double);
    out->mad = median_sorted(sorted, n);
    for ( i = 0; i < n && out->mad > 0; i++ )
        if ( fabs(0.6745 * (v[i] - out->median) / out->mad) > 3.5 )
            out->outliers++;
    free(sorted);
    return 0;
}

/* ---- Mann-Whitney U ---------------------------------------------------- */

struct ranked {
    double v;
    bool from_x;
};

static int cmp_ranked(const void *a, const void *b)
{
    return cmp_double(&((const struct ranked *)a)->v,
                      &((const struct ranked *)b)->v);
}

/*
 * P(U >= u) for sizes @m, @n without ties.  The counts of U are the
 * coefficients of the Gaussian binomial [m+n choose m] in q, built as
 * prod_{i=1..s} (1 - q^(l+i)) / (1 - q^i) with s = min(m, n), l = max:
 * one array of m n + 1 counts, s passes over it.  E.g. m = 2, n = 2:
 * 1 -> 1 + q + q^2 -> 1 + q + 2q^2 + q^3 + q^4 (6 arrangements), so
 * P(U >= 4) = 1/6.  (Rolling the recursion over one side instead held
 * (n + 1)(m n + 1) counts: 6 GB for 6 against 8,000 samples.)  The
 * cancellations in double cost ~1e-13 of the total at the sizes used.
 */
static double exact_sf(double u, size_t m, size_t n)
{
    size_t mn = m * n, s = m < n ? m : n, l = m < n ? n : m, i, k, deg = 0;
    double *c, total = 0, tail = 0;

    c = calloc(mn + 1, sizeof(*c));
    if ( c == NULL )
        return NAN;
    c[0] = 1;
    for ( i = 1; i <= s; i++ )
    {
        size_t top = deg + l; /* the degree after this pass */

        /* Times (1 - q^(l+i)), descending so c[k - l - i] is the old one. */
        for ( k = top; k >= l + i; k-- )
            c[k] -= c[k - l - i];
        /* Over (1 - q^i): the quotient is a polynomial of degree top. */
        for ( k = i; k <= top; k++ )
            c[k] += c[k - i];
        deg = top;
    }
    for ( k = 0; k <= mn; k++ )
    {
        total += c[k];
        if ( (double)k >= u - 1e-9 )
            tail += c[k];
    }
    free(c);
    return tail / total;
}

/*
 * The exact distribution is used as scipy's "auto" does (a side of at
 * most 8, no ties) while it fits in EXACT_MAX_MN counts (8 MB); beyond,
 * the normal approximation, already within 1e-3 of it there.
 */
#define EXACT_MAX_MN (1u << 20)

double hvb_mannwhitneyu(const double *x, size_t nx, const double *y, size_t ny,
                        double *u1_out)
{
    size_t n = nx + ny, i, j;
    struct ranked *r;
    double r1 = 0, u1, u2, u, tie_term = 0, p;
    bool ties = false;

    if ( nx == 0 || ny == 0 )
        return NAN;
    r = malloc(n * sizeof(*r));
    if ( r == NULL )
        return NAN;
    for ( i = 0; i < nx; i++ )
        r[i] = (struct ranked){x[i], true};
    for ( i = 0; i < ny; i++ )
        r[nx + i] = (struct ranked){y[i], false};
    qsort(r, n, sizeof(*r), cmp_ranked);
    /* Average ranks for ties. */
    for ( i = 0; i < n; i = j )
    {
        double rank, t;

        for ( j = i + 1; j < n && r[j].v == r[i].v; j++ )
            ;
        rank = ((double)i + 1 + (double)j) / 2.0;
        t = (double)(j - i);
        if ( j - i > 1 )
            ties = true;
        tie_term += t * t * t - t;
        for ( size_t k = i; k < j; k++ )
            if ( r[k].from_x )
                r1 += rank;
    }
    free(r);

    u1 = r1 - (double)nx * ((double)nx + 1) / 2.0;
    u2 = (double)nx * (double)ny - u1;
    u = u1 > u2 ? u1 : u2;
    if ( u1_out != NULL )
        *u1_out = u1;

    if ( (nx <= 8 || ny <= 8) && !ties && nx * ny <= EXACT_MAX_MN )
        p = exact_sf(u, nx, ny);
    else
    {
        double mu = (double)nx * (double)ny / 2.0, dn = (double)n;
        double s = sqrt((double)nx * (double)ny / 12.0 *
                        ((dn + 1) - tie_term / (dn * (dn - 1))));
        double z = (u - mu - 0.5) / s;

        p = 0.5 * erfc(z / sqrt(2.0));
    }
    p *= 2;
    return p > 1 ? 1 : (p < 0 ? 0 : p);
}

/* ---- Bootstrap --------------------------------------------------------- */

static uint64_t next(uint64_t *s)
{
    /* splitmix64: good enough and trivially seeded. */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/*
 * A draw in [0, n): the high half of next() x n (Lemire), not next() % n,
 * whose 64-bit division was much of a 100k-sample bootstrap's time.
 */
static size_t pick(uint64_t *s, size_t n)
{
    return (size_t)(((unsigned __int128)next(s) * n) >> 64);
}

/*
 * One side of a bootstrap: its samples sorted once (@sorted), the rank
 * of each sample in that order (@rank) and a count per rank (@cnt).  A
 * resample is then counts, not values: n draws each add one to the rank
 * drawn, and its median is where the running count passes the middle,
 * found in one sequential pass.  E.g. v = {30, 10, 20} (ranks 2 0 1),
 * draws 0 0 2 count ranks {1, 0, 2}: the middle (1) is passed at rank
 * 2, median 30, as sorting {30, 30, 20} would give.  Sorting each
 * resample instead made a 100k-sample bootstrap of 5000 resamples take
 * minutes.
 */
struct side {
    const double *v;
    size_t n;
    unsigned int k; /* clusters (hvb/stats.h) */
    double *sorted;
    size_t *rank, *cnt;
};

struct ranked_at {
    double v;
    size_t i;
};

static int cmp_ranked_at(const void *a, const void *b)
{
    const struct ranked_at *x = a, *y = b;
    int c = cmp_double(&x->v, &y->v);

    return c ? c : (x->i > y->i) - (x->i < y->i);
}

static void side_free(struct side *d)
{
    free(d->sorted);
    free(d->rank);
    free(d->cnt);
}

static int side_init(struct side *d, const double *v, size_t n, unsigned int k)
{
    struct ranked_at *r = malloc(n * sizeof(*r));
    size_t i;

    d->v = v;
    d->n = n;
    d->k = k;
    d->sorted = malloc(n * sizeof(*d->sorted));
    d->rank = malloc(n * sizeof(*d->rank));
    d->cnt = malloc(n * sizeof(*d->cnt));
    if ( r == NULL || d->sorted == NULL || d->rank == NULL || d->cnt == NULL )
    {
        free(r);
        side_free(d);
        return -ENOMEM;
    }
    for ( i = 0; i < n; i++ )
        r[i] = (struct ranked_at){v[i], i};
    qsort(r, n, sizeof(*r), cmp_ranked_at);
    for ( i = 0; i < n; i++ )
    {
        d->sorted[i] = r[i].v;
        d->rank[r[i].i] = i;
    }
    free(r);
    return 0;
}

/*
 * The median of one resample of @d.  With k > 1 clusters (the rounds of
 * k worker processes, one after another) the resample is two-stage, k
 * clusters drawn with replacement, then within each as many samples as
 * it has, so the spread between processes counts as what it is, k
 * observations, not n.  E.g. processes {10, 10, 10} {12, 12, 12}: a
 * plain resample of the 6 values almost never draws 6 of one process,
 * the two-stage one does half the time, and the interval of the median
 * spans 10..12 as it should.
 */
static double resample_median(struct side *d, uint64_t *s)
{
    size_t n = d->n, i, j, m, cum = 0, lo_at = (n - 1) / 2, hi_at = n / 2;
    double lo = NAN;

    memset(d->cnt, 0, n * sizeof(*d->cnt));
    if ( d->k <= 1 || n % d->k != 0 )
        for ( i = 0; i < n; i++ )
            d->cnt[d->rank[pick(s, n)]]++;
    else
    {
        m = n / d->k;
        for ( j = 0; j < d->k; j++ )
        {
            const size_t *c = d->rank + pick(s, d->k) * m;

            for ( i = 0; i < m; i++ )
                d->cnt[c[pick(s, m)]]++;
        }
    }
    /* Positions lo_at and hi_at of the resample, sorted. */
    for ( j = 0; j < n; j++ )
    {
        cum += d->cnt[j];
        if ( isnan(lo) && cum > lo_at )
            lo = d->sorted[j];
        if ( cum > hi_at )
            return n % 2 ? d->sorted[j] : (lo + d->sorted[j]) / 2.0;
    }
    return NAN; /* not reached: the counts sum to n */
}

/* The @b bootstrap estimates, sorted, into @est. */
static int draws(const double *x, size_t nx, unsigned int kx, const double *y,
                 size_t ny, unsigned int ky, unsigned int b, uint64_t seed,
                 double *est)
{
    struct side sx = {0}, sy = {0};
    uint64_t s = seed;
    unsigned int i;
    int rc = -ENOMEM;

    if ( nx == 0 || (y != NULL && ny == 0) || b == 0 )
        return -EINVAL;
    if ( side_init(&sx, x, nx, kx) )
        goto out;
    if ( y != NULL && side_init(&sy, y, ny, ky) )
        goto out;
    for ( i = 0; i < b; i++ )
    {
        double mx = resample_median(&sx, &s);

        est[i] = y == NULL ? mx : resample_median(&sy, &s) / mx;
    }
    qsort(est, b, sizeof(*est), cmp_double);
    rc = 0;
out:
    side_free(&sx);
    side_free(&sy);
    return rc;
}

static int bootstrap(const double *x, size_t nx, unsigned int kx,
                     const double *y, size_t ny, unsigned int ky,
                     unsigned int b, uint64_t seed, double *lo, double *hi)
{
    double *est = b ? malloc(b * sizeof(*est)) : NULL;
    int rc =
        est || b == 0 ? draws(x, nx, kx, y, ny, ky, b, seed, est) : -ENOMEM;

    if ( rc == 0 )
    {
        *lo = hvb_quantile_sorted(est, b, 0.025);
        *hi = hvb_quantile_sorted(est, b, 0.975);
    }
    free(est);
    return rc;
}

int hvb_bootstrap_median_draws_clustered(const double *v, size_t n,
                                         unsigned int k, unsigned int resamples,
                                         uint64_t seed, double *est)
{
    return draws(v, n, k, NULL, 0, 1, resamples, seed, est);
}

/*
 * The @k-th smallest of @v[0..n) (k < n), @v reordered: quickselect with
 * a three-way partition, so that the many equal values of a bootstrap
 * resample (clusters drawn twice) keep it linear.
 */
static double select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k;

    while ( lo < hi )
    {
        double p = v[lo + (hi - lo) / 2], t;
        ptrdiff_t lt = lo, i = lo, gt = hi;

        /* v[lo, lt) < p, v[lt, i) == p, v(gt, hi] > p */
        while ( i <= gt )
            if ( v[i] < p )
            {
                t = v[lt];
                v[lt++] = v[i];
                v[i++] = t;
            }
            else if ( v[i] > p )
            {
                t = v[gt];
                v[gt--] = v[i];
                v[i] = t;
            }
            else
                i++;
        if ( want < lt )
            hi = lt - 1;
        else if ( want > gt )
            lo = gt + 1;
        else
            return p;
    }
    return v[want];
}

/*
 * The Hodges-Lehmann estimate of @m[0..k): the median of the k (k + 1) / 2
 * Walsh averages (m_i + m_j) / 2, i <= j, built in @w.  E.g. {1, 2, 9}:
 * averages 1, 1.5, 5, 2, 5.5, 9, median (2 + 5) / 2 = 3.5, where the
 * mean is 4 and the median 2.
 */
static double hodges_lehmann(const double *m, size_t k, double *w)
{
    size_t i, j, nw = 0, half;
    double a;

    for ( i = 0; i < k; i++ )
        for ( j = i; j < k; j++ )
            w[nw++] = (m[i] + m[j]) / 2;
    half = nw / 2;
    a = select_kth(w, nw, half);
    if ( nw % 2 )
        return a;
    /* The largest of w[0..half), all <= a after the selection. */
    return (select_kth(w, half, half - 1) + a) / 2;
}

int hvb_bootstrap_hl_draws_clustered(const double *v, size_t n, unsigned int k,
                                     unsigned int resamples, uint64_t seed,
                                     double *est, double *point)
{
    size_t m = k ? n / k : 0, c, i;
    double *med = NULL, *pick_m = NULL, *w = NULL;
    uint64_t s = seed;
    unsigned int b;
    int rc = -EINVAL;

    if ( k == 0 || n == 0 || n % k != 0 || resamples == 0 )
        return rc;
    rc = -ENOMEM;
    med = malloc(k * sizeof(*med));
    pick_m = malloc(k * sizeof(*pick_m));
    w = malloc(((size_t)k * (k + 1) / 2 > m ? (size_t)k * (k + 1) / 2 : m) *
               sizeof(*w));
    if ( med == NULL || pick_m == NULL || w == NULL )
        goto out;
    for ( c = 0; c < k; c++ )
    {
        for ( i = 0; i < m; i++ )
            w[i] = v[c * m + i];
        med[c] = select_kth(w, m, m / 2);
        if ( m % 2 == 0 )
            med[c] = (med[c] + select_kth(w, m / 2, m / 2 - 1)) / 2;
    }
    *point = hodges_lehmann(med, k, w);
    for ( b = 0; b < resamples; b++ )
    {
        for ( c = 0; c < k; c++ )
            pick_m[c] = med[pick(&s, k)];
        est[b] = hodges_lehmann(pick_m, k, w);
    }
    qsort(est, resamples, sizeof(*est), cmp_double);
    rc = 0;
out:
    free(med);
    free(pick_m);
    free(w);
    return rc;
}

int hvb_bootstrap_median_ci(const double *v, size_t n, unsigned int resamples,
                            uint64_t seed, double *lo, double *hi)
{
    return bootstrap(v, n, 1, NULL, 0, 1, resamples, seed, lo, hi);
}

int hvb_bootstrap_median_ci_clustered(const double *v, size_t n, unsigned int k,
                                      unsigned int resamples, uint64_t seed,
                                      double *lo, double *hi)
{
    return bootstrap(v, n, k, NULL, 0, 1, resamples, seed, lo, hi);
}

int hvb_bootstrap_ratio_ci(const double *x, size_t nx, const double *y,
                           size_t ny, unsigned int resamples, uint64_t seed,
                           double *lo, double *hi)
{
    return hvb_bootstrap_ratio_ci_clustered(x, nx, 1, y, ny, 1, resamples, seed,
                                            lo, hi);
}

int hvb_bootstrap_ratio_ci_clustered(const double *x, size_t nx,
                                     unsigned int kx, const double *y,
                                     size_t ny, unsigned int ky,
                                     unsigned int resamples, uint64_t seed,
                                     double *lo, double *hi)
{
    if ( y == NULL )
        return -EINVAL;
    return bootstrap(x, nx, kx, y, ny, ky, resamples, seed, lo, hi);
}

double hvb_bh_cut(const double *p, size_t m, double q)
{
    double *s = m ? malloc(m * sizeof(*s)) : NULL, cut = -1;
    size_t i;

    if ( s == NULL )
        return -1;
    for ( i = 0; i < m; i++ )
        s[i] = isnan(p[i]) ? 1 : p[i];
    qsort(s, m, sizeof(*s), cmp_double);
    for ( i = m; i > 0; i-- )
        if ( s[i - 1] <= (double)i * q / (double)m )
        {
            cut = s[i - 1];
            break;
        }
    free(s);
    return cut;
}

int hvb_median_interval(const double *v, size_t n, unsigned int k, double *lo,
                        double *hi)
{
    size_t i;

    if ( n == 0 )
        return -EINVAL;
    if ( n >= HVB_CI_MIN_N )
        return hvb_bootstrap_median_ci_clustered(
            v, n, k, HVB_BOOTSTRAP_RESAMPLES, HVB_BOOTSTRAP_SEED, lo, hi);
    *lo = *hi = v[0];
    for ( i = 1; i < n; i++ )
    {
        *lo = v[i] < *lo ? v[i] : *lo;
        *hi = v[i] > *hi ? v[i] : *hi;
    }
    return 1;
}

const char *hvb_interval_label(bool range, size_t n, const char *unit,
                               double level, char *buf, size_t len)
{
    if ( range )
        snprintf(buf, len, "range of %zu %s", n, unit);
    else
        snprintf(buf, len, "%.4g%% CI", level * 100);
    return buf;
}
