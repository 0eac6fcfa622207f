/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * history detect's change points (hvb_edivisive) on fixed synthetic
 * series (issue 34, bug 2): a regression that comes and goes (a +10%
 * stretch of 5, 10 or 20 points inside 30 to 80, 0.5% noise) is found at
 * both edges; a step is found once; noise alone and a near-constant
 * series (sd/mean 1e-8, whose variance from prefix sums cancelled to 0)
 * give none; two constant segments of one mean are no change, of two
 * means one.
 *
 * "unit-detect --measure" prints the power and false-alarm table of the
 * issue (1,000 series per row, seeds fixed) and the speed of 100 series
 * of 10,000 points: a benchmark, not a test.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hvb/history.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <cmocka.h>

#define PV      0.001 /* history detect's defaults */
#define MIN_SEG 5
#define WINDOW  50

static uint64_t rng = 1;

/* splitmix64: well mixed from the first draw of a small seed. */
static double unif(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
    return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

/*
 * @n points of N(@base, @base x @sd): x @step from @at for @len points
 * (@len 0: to the end), and a drift of @drift per point.
 */
static void series(double *x, size_t n, double base, double sd, size_t at,
                   size_t len, double step, double drift)
{
    size_t i;

    for ( i = 0; i < n; i++ )
    {
        double m = base * (1 + drift * (double)i);

        if ( i >= at && (len == 0 || i < at + len) )
            m *= 1 + step;
        x[i] = m + base * sd * gauss();
    }
}

static long detect(const double *x, size_t n, struct hvb_change *c)
{
    return hvb_edivisive(x, n, PV, MIN_SEG, WINDOW, c, 64);
}

/* Is a change within 1 point of @at among @c[0..@k)? */
static bool has(const struct hvb_change *c, long k, size_t at)
{
    for ( long i = 0; i < k; i++ )
        if ( c[i].at + 1 >= at && c[i].at <= at + 1 )
            return true;
    return false;
}

/*
 * Each come-and-go case on 100 seeds: both edges found, up then down, in
 * at least 95 (before binary segmentation: 0 for the 30-point cases).
 */
static void come_and_go(void **state)
{
    static const size_t cases[][3] = {{10, 10, 10}, {15, 10, 15}, {20, 10, 20},
                                      {10, 10, 40}, {5, 20, 5},   {30, 5, 30},
                                      {30, 20, 30}, {40, 10, 30}};
    struct hvb_change c[64];
    double x[128];
    size_t i, seed, hits;

    (void)state;
    for ( i = 0; i < sizeof(cases) / sizeof(cases[0]); i++ )
    {
        size_t a = cases[i][0], l = cases[i][1], n = a + l + cases[i][2];

        for ( hits = 0, seed = 1; seed <= 100; seed++ )
        {
            long k;

            rng = seed * 7919;
            series(x, n, 100, 0.005, a, l, 0.10, 0);
            k = detect(x, n, c);
            hits += k == 2 && has(c, k, a) && has(c, k, a + l) &&
                    c[0].after > c[0].before && c[1].after < c[1].before;
        }
        if ( hits < 95 )
            fail_msg("%zu/%zu/%zu: both edges in %zu of 100", a, l, cases[i][2],
                     hits);
    }
}

static void one_step(void **state)
{
    struct hvb_change c[64];
    double x[80];
    long k;

    (void)state;
    rng = 42;
    series(x, 80, 100, 0.01, 40, 0, 0.03, 0);
    k = detect(x, 80, c);
    assert_int_equal(k, 1);
    assert_true(has(c, k, 40));
    assert_true(c[0].p < PV);
}

static void noise_and_near_constant(void **state)
{
    struct hvb_change c[64];
    static double x[1000];
    size_t seed;
    long noise = 0, flat = 0;

    (void)state;
    /* 20,000 points each: about 3 false alarms expected at p < 0.001. */
    for ( seed = 1; seed <= 20; seed++ )
    {
        rng = seed;
        series(x, 1000, 1.0, 0.01, 0, 0, 0, 0);
        noise += detect(x, 1000, c);
        /* sim_instructions with float rounding: 1e6 +- 1e-2 (was 88). */
        series(x, 1000, 1e6, 1e-8, 0, 0, 0, 0);
        flat += detect(x, 1000, c);
    }
    if ( noise > 10 || flat > 10 )
        fail_msg("false alarms in 20,000 points: %ld of noise, %ld "
                 "near-constant",
                 noise, flat);
}

static void constant_segments(void **state)
{
    struct hvb_change c[64];
    double x[40];
    size_t i;

    (void)state;
    for ( i = 0; i < 40; i++ )
        x[i] = 0.1 * 3; /* 0.30000000000000004 */
    for ( i = 20; i < 40; i++ )
        x[i] = 0.3; /* equal to 1e-16: no change */
    assert_int_equal(detect(x, 40, c), 0);
    for ( i = 20; i < 40; i++ )
        x[i] = 0.31;
    assert_int_equal(detect(x, 40, c), 1);
    assert_int_equal(c[0].at, 20);
}

/* One row of the table: how often @k changes hit, per 1,000 series. */
static void measure_row(const char *what, size_t n, size_t at, size_t len,
                        double step, double drift, double sd)
{
    static double x[100000];
    struct hvb_change c[64];
    size_t s, found = 0, falses = 0, points = 0;
    int want = step == 0 ? 0 : len ? 2 : 1;

    for ( s = 1; s <= 1000; s++ )
    {
        long k, i;

        rng = s * 104729;
        series(x, n, 100, sd, at, len, step, drift);
        k = detect(x, n, c);
        points += n;
        for ( i = 0; i < k; i++ )
            if ( want == 0 || (!(c[i].at + 2 >= at && c[i].at <= at + 2) &&
                               !(len && c[i].at + 2 >= at + len &&
                                 c[i].at <= at + len + 2)) )
                falses++;
        if ( want && has(c, k, at) && (want == 1 || has(c, k, at + len)) )
            found++;
    }
    printf("| %-34s | %5zu | %s%5.1f%% | %6.2f |\n", what, n,
           want ? "" : "n/a ", want ? 100.0 * (double)found / 1000 : 0.0,
           1000.0 * (double)falses / (double)points);
}

static int measure(void)
{
    static double x[10000];
    struct hvb_change c[64];
    struct timespec t0, t1;
    size_t s;

    printf("| series (1,000 each, 0.5%% noise unless said) | points | "
           "power | false alarms / 1,000 points |\n|---|---|---|---|\n");
    measure_row("step +2% at 40 (1% noise)", 80, 40, 0, 0.02, 0, 0.01);
    measure_row("step +5% at 40", 80, 40, 0, 0.05, 0, 0.005);
    measure_row("+10% for 5 in 30 (10/5/15)", 30, 10, 5, 0.10, 0, 0.005);
    measure_row("+10% for 10 in 30 (10/10/10)", 30, 10, 10, 0.10, 0, 0.005);
    measure_row("+10% for 20 in 30 (5/20/5)", 30, 5, 20, 0.10, 0, 0.005);
    measure_row("+10% for 5 in 80 (40/5/35)", 80, 40, 5, 0.10, 0, 0.005);
    measure_row("+10% for 10 in 80 (30/10/40)", 80, 30, 10, 0.10, 0, 0.005);
    measure_row("+10% for 20 in 80 (30/20/30)", 80, 30, 20, 0.10, 0, 0.005);
    measure_row("+2% for 10 in 50 (1% noise)", 50, 20, 10, 0.02, 0, 0.01);
    measure_row("drift +10% over 80 (no step)", 80, 0, 0, 0, 0.10 / 80, 0.005);
    measure_row("noise alone", 1000, 0, 0, 0, 0, 0.01);
    measure_row("near-constant (sd/mean 1e-8)", 1000, 0, 0, 0, 0, 1e-8);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for ( s = 0; s < 100; s++ )
    {
        rng = s + 1;
        series(x, 10000, 1.0, 0.01, 5000, 0, 0.02, 0);
        detect(x, 10000, c);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("\n100 series x 10,000 points: %.2f s\n",
           (double)(t1.tv_sec - t0.tv_sec) +
               (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(come_and_go),
        cmocka_unit_test(one_step),
        cmocka_unit_test(noise_and_near_constant),
        cmocka_unit_test(constant_segments),
    };

    if ( argc > 1 && strcmp(argv[1], "--measure") == 0 )
        return measure();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
