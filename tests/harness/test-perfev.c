/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/perfev.c: the multiplexing scale arithmetic, and the group
 * open/read/delta path hardware counters take, run with software events
 * (this VM has no PMU).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <hvb/perfev.h>

static void test_scale(void **state)
{
    double cov;

    /* Not multiplexed: the raw count, full coverage. */
    assert_true(hvb_perfev_scale(1000, 500, 500, &cov) == 1000);
    assert_true(cov == 1.0);
    /* Ran half the time: twice the count, coverage 0.5. */
    assert_true(hvb_perfev_scale(1000, 800, 400, &cov) == 2000);
    assert_true(cov == 0.5);
    /* A third: 1000 * 3 = 3000 exactly, no double rounding of 1/3. */
    assert_true(hvb_perfev_scale(1000, 3000000001ull, 1000000000ull, &cov) ==
                3000.000001);
    /* raw * enabled overflows 64 bits: the 128-bit product is exact. */
    assert_true(hvb_perfev_scale(1ull << 60, 1ull << 10, 1ull << 9, &cov) ==
                (double)(1ull << 61));
    assert_true(cov == 0.5);
    /* Never ran: no number at all (absent, never zero). */
    assert_true(isnan(hvb_perfev_scale(5, 100, 0, &cov)));
    assert_true(cov == 0);
    /* running > enabled (clock skew): treated as full coverage. */
    assert_true(hvb_perfev_scale(7, 100, 101, &cov) == 7 && cov == 1.0);
}

static void test_delta(void **state)
{
    struct hvb_perfev_read a = {
        .nr = 2, .time_enabled = 1000, .time_running = 1000, .value = {10, 20}};
    struct hvb_perfev_read b = {.nr = 2,
                                .time_enabled = 3000,
                                .time_running = 2000,
                                .value = {110, 70}};
    double cov;

    /* Window: enabled 2000, running 1000 -> x2, coverage 0.5. */
    assert_true(hvb_perfev_delta(&a, &b, 0, &cov) == 200);
    assert_true(cov == 0.5);
    assert_true(hvb_perfev_delta(&a, &b, 1, &cov) == 100);
}

static void test_software_group(void **state)
{
    const char *names[] = {"task-clock", "context-switches", "page-faults"};
    struct hvb_perfev_def defs[3];
    struct hvb_perfev_group g;
    struct hvb_perfev_read r0, r1;
    struct timespec t0, t1;
    char why[256];
    double cov, tc, pf;
    size_t i, sz = 64u << 20;
    char *mem;

    for ( i = 0; i < 3; i++ )
    {
        defs[i].name = names[i];
        assert_int_equal(hvb_perfev_software(names[i], &defs[i].attr), 0);
    }
    assert_int_equal(hvb_perfev_software("bogus", &defs[0].attr), -2);
    if ( hvb_perfev_open(&g, defs, 3, why, sizeof(why)) )
        skip(); /* perf_event_open not allowed here at all */
    assert_int_equal(hvb_perfev_readg(&g, &r0), 0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    mem = malloc(sz);
    assert_non_null(mem);
    for ( i = 0; i < sz; i += 4096 )
        mem[i] = (char)i; /* a page fault per page */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    assert_int_equal(hvb_perfev_readg(&g, &r1), 0);
    hvb_perfev_close(&g);
    free(mem);

    tc = hvb_perfev_delta(&r0, &r1, 0, &cov);
    assert_true(cov == 1.0); /* software events are never multiplexed */
    pf = hvb_perfev_delta(&r0, &r1, 2, &cov);
    /* At least most of the 16384 pages faulted (THP may merge some). */
    assert_true(pf >= 16);
    /* task-clock agrees with the thread's CPU clock within 50%. */
    {
        double cpu_ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 +
                        (double)(t1.tv_nsec - t0.tv_nsec);

        assert_true(tc > 0.5 * cpu_ns && tc < 1.5 * cpu_ns + 1e6);
    }
}

static void test_hw_reason(void **state)
{
    struct hvb_perfev_def d = {.name = "cycles"};
    struct hvb_perfev_group g;
    char why[256] = "";

    /* Either it works (a PMU) or it says why, naming the event. */
    if ( hvb_perfev_encode("cycles", &d.attr, why, sizeof(why)) == 0 &&
         hvb_perfev_open(&g, &d, 1, why, sizeof(why)) == 0 )
    {
        hvb_perfev_close(&g);
        return;
    }
    assert_non_null(strstr(why, "cycles"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_delta),
        cmocka_unit_test(test_software_group),
        cmocka_unit_test(test_hw_reason),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
