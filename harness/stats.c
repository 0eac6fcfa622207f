/* SPDX-License-Identifier: GPL-2.0-only */
/* Statistics; see hvb/stats.h. */
#include <errno.h>
#include <math.h>
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

/* P(U >= u) for sizes @m, @n without ties: counts of U by recursion. */
static double exact_sf(double u, size_t m, size_t n)
{
    size_t mn = m * n, i, j, k;
    double *f, *g, total = 0, tail = 0;

    /* f[j][k]: arrangements of i x's and j y's with U == k, rolled on i. */
    f = calloc((n + 1) * (mn + 1), sizeof(*f));
    g = calloc((n + 1) * (mn + 1), sizeof(*g));
    if ( f == NULL || g == NULL )
    {
        free(f);
        free(g);
        return NAN;
    }
#define F(a, j, k) (a)[(j) * (mn + 1) + (k)]
    /* i == 0: one arrangement with U == 0 for every j. */
    for ( j = 0; j <= n; j++ )
        F(f, j, 0) = 1;
    for ( i = 1; i <= m; i++ )
    {
        memset(g, 0, (n + 1) * (mn + 1) * sizeof(*g));
        for ( j = 0; j <= n; j++ )
            for ( k = 0; k <= i * j; k++ )
            {
                /* Largest element is an x (it beats all j y's) or a y. */
                double c = k >= j ? F(f, j, k - j) : 0;

                if ( j > 0 )
                    c += F(g, j - 1, k);
                F(g, j, k) = c;
            }
        memcpy(f, g, (n + 1) * (mn + 1) * sizeof(*f));
    }
    for ( k = 0; k <= mn; k++ )
    {
        total += F(f, n, k);
        if ( (double)k >= u - 1e-9 )
            tail += F(f, n, k);
    }
#undef F
    free(f);
    free(g);
    return tail / total;
}

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

    if ( (nx <= 8 || ny <= 8) && !ties )
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
 * One bootstrap resample of @v into @tmp, and its median.  @v holds @k
 * equal clusters (the rounds of @k worker processes, one after another):
 * with k > 1 the resample is two-stage, k clusters drawn with
 * replacement, then within each as many samples as it has, so the spread
 * between processes counts as what it is, k observations, not n.  E.g.
 * processes {10, 10, 10} {12, 12, 12}: a plain resample of the 6 values
 * almost never draws 6 of one process, the two-stage one does half the
 * time, and the interval of the median spans 10..12 as it should.
 */
static double resample_median(const double *v, size_t n, unsigned int k,
                              double *tmp, uint64_t *s)
{
    size_t i, j, m;

    if ( k <= 1 || n % k != 0 )
        for ( i = 0; i < n; i++ )
            tmp[i] = v[next(s) % n];
    else
    {
        m = n / k;
        for ( j = 0; j < k; j++ )
        {
            const double *c = v + (next(s) % k) * m;

            for ( i = 0; i < m; i++ )
                tmp[j * m + i] = c[next(s) % m];
        }
    }
    qsort(tmp, n, sizeof(*tmp), cmp_double);
    return median_sorted(tmp, n);
}

static int bootstrap(const double *x, size_t nx, unsigned int kx,
                     const double *y, size_t ny, unsigned int ky,
                     unsigned int b, uint64_t seed, double *lo, double *hi)
{
    double *est, *tx, *ty = NULL;
    uint64_t s = seed;
    unsigned int i;

    if ( nx == 0 || (y != NULL && ny == 0) || b == 0 )
        return -EINVAL;
    est = malloc(b * sizeof(*est));
    tx = malloc(nx * sizeof(*tx));
    if ( y != NULL )
        ty = malloc(ny * sizeof(*ty));
    if ( est == NULL || tx == NULL || (y != NULL && ty == NULL) )
    {
        free(est);
        free(tx);
        free(ty);
        return -ENOMEM;
    }
    for ( i = 0; i < b; i++ )
    {
        double mx = resample_median(x, nx, kx, tx, &s);

        est[i] = y == NULL ? mx : resample_median(y, ny, ky, ty, &s) / mx;
    }
    qsort(est, b, sizeof(*est), cmp_double);
    *lo = hvb_quantile_sorted(est, b, 0.025);
    *hi = hvb_quantile_sorted(est, b, 0.975);
    free(est);
    free(tx);
    free(ty);
    return 0;
}

int hvb_bootstrap_median_ci(const double *v, size_t n, unsigned int resamples,
                            uint64_t seed, double *lo, double *hi)
{
    return bootstrap(v, n, 1, NULL, 0, 1, resamples, seed, lo, hi);
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
