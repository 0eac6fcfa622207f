/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/stats/stats.c against values scipy computed on fixed data
 * (fixtures/stats.json, made by gen-stats-fixtures.py).
 * Usage: unit-stats FIXTURE.json
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <jansson.h>

#include <hvb/noise.h>
#include <hvb/stats.h>

static json_t *fx;

static size_t data(const char *name, double *v, size_t max)
{
    json_t *a = json_object_get(json_object_get(fx, "data"), name);
    size_t i, n = json_array_size(a);

    assert_non_null(a);
    assert_true(n <= max);
    for ( i = 0; i < n; i++ )
        v[i] = json_number_value(json_array_get(a, i));
    return n;
}

static void near(double got, double want, double rel, const char *what)
{
    double tol = rel * fmax(fabs(want), 1e-12);

    if ( !(fabs(got - want) <= tol) )
        fail_msg("%s: got %.12g, scipy %.12g", what, got, want);
}

static void test_describe(void **state)
{
    const char *k;
    json_t *want;

    json_object_foreach(json_object_get(fx, "describe"), k, want)
    {
        double v[64];
        size_t n = data(k, v, 64);
        struct hvb_stats s;

        assert_int_equal(hvb_stats_compute(v, n, &s), 0);
        assert_int_equal(s.n, json_integer_value(json_object_get(want, "n")));
        near(s.mean, json_number_value(json_object_get(want, "mean")), 1e-12,
             "mean");
        near(s.median, json_number_value(json_object_get(want, "median")),
             1e-12, "median");
        near(s.stddev, json_number_value(json_object_get(want, "stddev")),
             1e-10, "stddev");
        near(s.cv, json_number_value(json_object_get(want, "cv")), 1e-10, "cv");
        near(s.min, json_number_value(json_object_get(want, "min")), 0, "min");
        near(s.max, json_number_value(json_object_get(want, "max")), 0, "max");
        near(s.mad, json_number_value(json_object_get(want, "mad")), 1e-12,
             "mad");
        assert_int_equal(s.outliers,
                         json_integer_value(json_object_get(want, "outliers")));
    }
}

static void test_mannwhitneyu(void **state)
{
    size_t i;
    json_t *c;

    json_array_foreach(json_object_get(fx, "mannwhitneyu"), i, c)
    {
        double x[64], y[64], u1, p;
        size_t nx = data(json_string_value(json_object_get(c, "x")), x, 64);
        size_t ny = data(json_string_value(json_object_get(c, "y")), y, 64);

        p = hvb_mannwhitneyu(x, nx, y, ny, &u1);
        near(u1, json_number_value(json_object_get(c, "u1")), 1e-12, "U1");
        near(p, json_number_value(json_object_get(c, "p")), 1e-9, "p");
    }
}

/*
 * Bootstrap intervals come from different random draws, so they agree
 * only within resampling error: 10% of the interval's width.
 */
static void ci_near(double lo, double hi, json_t *want, const char *what)
{
    double wl = json_number_value(json_array_get(want, 0));
    double wh = json_number_value(json_array_get(want, 1));
    double tol = 0.1 * (wh - wl) + 1e-12;

    if ( fabs(lo - wl) > tol || fabs(hi - wh) > tol )
        fail_msg("%s: got [%g, %g], scipy [%g, %g]", what, lo, hi, wl, wh);
}

static void test_bootstrap(void **state)
{
    const char *k;
    json_t *want, *c;
    size_t i;

    json_object_foreach(json_object_get(fx, "bootstrap_median"), k, want)
    {
        double v[64], lo, hi;
        size_t n = data(k, v, 64);

        assert_int_equal(hvb_bootstrap_median_ci(v, n, 20000, 1, &lo, &hi), 0);
        ci_near(lo, hi, want, k);
    }
    json_array_foreach(json_object_get(fx, "bootstrap_ratio"), i, c)
    {
        double x[64], y[64], lo, hi;
        size_t nx = data(json_string_value(json_object_get(c, "x")), x, 64);
        size_t ny = data(json_string_value(json_object_get(c, "y")), y, 64);

        assert_int_equal(
            hvb_bootstrap_ratio_ci(x, nx, y, ny, 20000, 1, &lo, &hi), 0);
        ci_near(lo, hi, json_object_get(c, "ci"),
                json_string_value(json_object_get(c, "y")));
    }
}

/*
 * Two-stage bootstrap over pooled processes: three processes of three
 * rounds each whose levels differ by 10% (a per-process layout effect,
 * no spread within).  Against a copy of itself, a plain resample of the
 * nine values treats them as independent and gives a narrower interval
 * than the clustered one, which must reach the between-process spread;
 * one cluster is the plain bootstrap, bit for bit.
 */
static void test_bootstrap_clustered(void **state)
{
    const double x[9] = {100,   100.5, 99.5,  110,  110.5,
                         109.5, 105,   105.5, 104.5};
    const double y[9] = {110,  110.5, 109.5, 100,  100.5,
                         99.5, 105,   105.5, 104.5};
    double lo, hi, clo, chi, plo, phi, v[30];
    int i;

    assert_int_equal(hvb_bootstrap_ratio_ci(x, 9, y, 9, 20000, 1, &lo, &hi), 0);
    assert_int_equal(hvb_bootstrap_ratio_ci_clustered(x, 9, 1, y, 9, 1, 20000,
                                                      1, &plo, &phi),
                     0);
    assert_true(lo == plo && hi == phi);
    assert_int_equal(hvb_bootstrap_ratio_ci_clustered(x, 9, 3, y, 9, 3, 20000,
                                                      1, &clo, &chi),
                     0);
    assert_true(clo < lo && chi > hi);
    /* Whole processes drawn: the extremes are ~100/110 and ~110/100. */
    assert_true(clo < 0.93 && chi > 1.07);
    /* A count that does not divide the samples falls back to plain. */
    assert_int_equal(hvb_bootstrap_ratio_ci_clustered(x, 9, 2, y, 9, 2, 20000,
                                                      1, &clo, &chi),
                     0);
    assert_true(clo == lo && chi == hi);
    /*
     * One side (paired ratios, gate --base-bin's process pairs): three
     * processes of ten rounds at 100, 105 and 110.  Plainly the median
     * of 30 stays near 105; by process it reaches their levels.
     */
    for ( i = 0; i < 30; i++ )
        v[i] = 100 + 5 * (double)(i / 10) + 0.1 * (double)(i % 10);
    assert_int_equal(hvb_bootstrap_median_ci(v, 30, 20000, 1, &lo, &hi), 0);
    assert_int_equal(
        hvb_bootstrap_median_ci_clustered(v, 30, 1, 20000, 1, &plo, &phi), 0);
    assert_true(lo == plo && hi == phi);
    assert_true(lo > 102 && hi < 108);
    assert_int_equal(
        hvb_bootstrap_median_ci_clustered(v, 30, 3, 20000, 1, &clo, &chi), 0);
    assert_true(clo < 101 && chi > 109);
}

/*
 * Two clusters: the bimodal series of issue 14 (6.2 or 9 ns/op) is
 * flagged; a tight series, one with a single far value and one with a
 * wide but even spread are not.
 */
static void test_two_clusters(void **state)
{
    static const double bimodal[] = {6.2, 9.1, 6.3, 6.1, 9.0, 9.3, 6.2};
    static const double tight[] = {4.17, 4.23, 4.45, 4.21, 4.19, 4.30};
    static const double one_far[] = {4.2, 4.3, 4.25, 9.0, 4.22};
    static const double even[] = {5, 6, 7, 8, 9, 10, 11};
    struct hvb_stats st;

    assert_int_equal(hvb_stats_compute(bimodal, 7, &st), 0);
    assert_true(st.two_clusters);
    assert_true(hvb_noise_flags(&st, -1, false) & HVB_NOISE_CLUSTERS);
    assert_string_equal(hvb_noise_name(9), "two-clusters");
    assert_int_equal(hvb_stats_compute(tight, 6, &st), 0);
    assert_false(st.two_clusters);
    assert_false(hvb_noise_flags(&st, -1, false) & HVB_NOISE_CLUSTERS);
    assert_int_equal(hvb_stats_compute(one_far, 5, &st), 0);
    assert_false(st.two_clusters);
    assert_int_equal(hvb_stats_compute(even, 7, &st), 0);
    assert_false(st.two_clusters);
}

/*
 * Benjamini-Hochberg (gate --base-bin over its cells): the worked
 * examples of hvb/stats.h, the step-up (a p above its own k q / m is a
 * discovery when a larger one passes), none, NaN as 1.
 */
static void test_bh(void **state)
{
    const double a[] = {0.6, 0.02, 0.001, 0.03};
    const double b[] = {0.001, 0.03, 0.04, 0.6};
    const double up[] = {0.02, 0.025, 0.03}; /* 0.02 > 0.05 / 3 */
    const double none[] = {0.2, 0.5};
    const double nan_[] = {NAN, 0.01};

    assert_true(hvb_bh_cut(a, 4, 0.05) == 0.03);
    assert_true(a[0] == 0.6); /* left as it was */
    assert_true(hvb_bh_cut(b, 4, 0.05) == 0.001);
    assert_true(hvb_bh_cut(up, 3, 0.05) == 0.03);
    assert_true(hvb_bh_cut(none, 2, 0.05) == -1);
    assert_true(hvb_bh_cut(nan_, 2, 0.05) == 0.01);
    assert_true(hvb_bh_cut(a, 0, 0.05) == -1);
}

/*
 * The bootstrap's draws are the CI's: their 2.5% and 97.5% points are
 * hvb_bootstrap_median_ci_clustered()'s interval, bit for bit, sorted.
 */
static void test_draws(void **state)
{
    double v[30], d[5000], lo, hi;
    int i;

    for ( i = 0; i < 30; i++ )
        v[i] = 100 + 5 * (double)(i / 10) + 0.1 * (double)(i % 10);
    assert_int_equal(
        hvb_bootstrap_median_ci_clustered(v, 30, 3, 5000, 7, &lo, &hi), 0);
    assert_int_equal(hvb_bootstrap_median_draws_clustered(v, 30, 3, 5000, 7, d),
                     0);
    for ( i = 1; i < 5000; i++ )
        assert_true(d[i - 1] <= d[i]);
    assert_true(hvb_quantile_sorted(d, 5000, 0.025) == lo);
    assert_true(hvb_quantile_sorted(d, 5000, 0.975) == hi);
    assert_int_equal(hvb_bootstrap_median_draws_clustered(v, 0, 1, 10, 7, d),
                     -22);
}

/*
 * One vote per cluster: the Hodges-Lehmann estimate of the cluster
 * medians, and a cluster in a state of its own (one pair of 16 at 1.195)
 * widens its CI far less than it widens the pooled median's.
 */
static void test_hl(void **state)
{
    double v[160], d[2000], d2[2000], point = 0, x[3] = {1, 2, 9};
    unsigned int i;

    (void)state;
    assert_int_equal(
        hvb_bootstrap_hl_draws_clustered(x, 3, 3, 100, 7, d, &point), 0);
    assert_true(point == 3.5); /* Walsh averages 1 1.5 5 2 5.5 9 */
    for ( i = 1; i < 100; i++ )
        assert_true(d[i - 1] <= d[i]);
    assert_true(d[0] >= 1 && d[99] <= 9);
    for ( i = 0; i < 160; i++ )
        v[i] = (i / 10 == 7 ? 1.195 : 1.0 + 0.002 * ((i / 10) % 5 - 2.0)) +
               0.01 * ((i % 10) - 4.5);
    assert_int_equal(
        hvb_bootstrap_hl_draws_clustered(v, 160, 16, 2000, 7, d, &point), 0);
    assert_true(fabs(point - 1.0) < 0.002);
    assert_int_equal(
        hvb_bootstrap_median_draws_clustered(v, 160, 16, 2000, 7, d2), 0);
    /* 99% upper ends: one pair's worth (one rank) against its weight. */
    assert_true(hvb_quantile_sorted(d, 2000, 0.995) < 1.004);
    assert_true(hvb_quantile_sorted(d2, 2000, 0.995) >
                hvb_quantile_sorted(d, 2000, 0.995));
    assert_int_equal(
        hvb_bootstrap_hl_draws_clustered(v, 160, 7, 10, 7, d, &point), -22);
    assert_int_equal(
        hvb_bootstrap_hl_draws_clustered(v, 0, 1, 10, 7, d, &point), -22);
}

static void test_edges(void **state)
{
    double v[1] = {3}, lo, hi;
    struct hvb_stats s;

    assert_int_equal(hvb_stats_compute(v, 0, &s), 0);
    assert_int_equal(s.n, 0);
    assert_int_equal(hvb_stats_compute(v, 1, &s), 0);
    assert_true(s.stddev == 0 && s.cv == 0 && s.mad == 0 && s.outliers == 0);
    assert_true(isnan(hvb_mannwhitneyu(v, 0, v, 1, NULL)));
    assert_int_equal(hvb_bootstrap_median_ci(v, 0, 10, 1, &lo, &hi), -22);
    assert_int_equal(hvb_bootstrap_median_ci(v, 1, 10, 1, &lo, &hi), 0);
    assert_true(lo == 3 && hi == 3);
}

/*
 * Why an interval of fewer than HVB_CI_MIN_N values is called a range:
 * for 3, 4 and 5 values the bootstrap's 95% interval of the median is
 * their min and max exactly, whatever the values; from 6 it lies inside
 * them (the negative control: a CI that is not the range).
 * hvb_median_interval() says which, and its label says so.
 */
static void test_interval_range(void **state)
{
    const double v[7] = {1.31, 0.97, 1.02, 1.75, 1.0, 1.2, 0.99};
    double lo, hi, blo, bhi, mn, mx;
    char buf[48];
    size_t n, i;

    for ( n = 3; n <= 7; n++ )
    {
        mn = mx = v[0];
        for ( i = 1; i < n; i++ )
        {
            mn = v[i] < mn ? v[i] : mn;
            mx = v[i] > mx ? v[i] : mx;
        }
        assert_int_equal(hvb_bootstrap_median_ci(v, n, HVB_BOOTSTRAP_RESAMPLES,
                                                 HVB_BOOTSTRAP_SEED, &blo,
                                                 &bhi),
                         0);
        assert_int_equal(hvb_median_interval(v, n, 1, &lo, &hi),
                         n < HVB_CI_MIN_N);
        if ( n < HVB_CI_MIN_N )
            assert_true(blo == mn && bhi == mx && lo == mn && hi == mx);
        else
            assert_true((blo > mn || bhi < mx) && lo == blo && hi == bhi);
    }
    assert_string_equal(hvb_interval_label(true, 5, "rounds", 0.95, buf, 48),
                        "range of 5 rounds");
    assert_string_equal(hvb_interval_label(false, 9, "rounds", 0.95, buf, 48),
                        "95% CI");
    assert_int_equal(hvb_median_interval(v, 0, 1, &lo, &hi), -EINVAL);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_mannwhitneyu),
        cmocka_unit_test(test_bootstrap),
        cmocka_unit_test(test_bootstrap_clustered),
        cmocka_unit_test(test_two_clusters),
        cmocka_unit_test(test_bh),
        cmocka_unit_test(test_draws),
        cmocka_unit_test(test_hl),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_interval_range),
    };
    json_error_t e;

    if ( argc != 2 )
    {
        fprintf(stderr, "usage: unit-stats FIXTURE.json\n");
        return 2;
    }
    fx = json_load_file(argv[1], 0, &e);
    if ( fx == NULL )
    {
        fprintf(stderr, "unit-stats: %s: %s\n", argv[1], e.text);
        return 2;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
