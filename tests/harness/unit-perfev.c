/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/measure/perfev.c: the multiplexing scale arithmetic, the group
 * open/read/delta path hardware counters take, run with software events
 * (this VM has no PMU), and the --events list: keys, shortcuts, unknown
 * names, libpfm4's perf:: software events counted through a group.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/*
 * Count group @defs[0..3) (page faults at @pf, task clock at @tc unless
 * it is NO_CLOCK) over 64 MiB of first touches, and check both: 0, or -1
 * where perf_event_open is refused.  At least @min_faults of the 16384
 * pages must fault (THP may merge some).
 */
#define NO_CLOCK 3

static int count_touches(const struct hvb_perfev_def *defs, unsigned int tc,
                         unsigned int pf, double min_faults, bool solo)
{
    struct hvb_perfev_group g;
    struct hvb_perfev_read r0, r1;
    struct timespec t0, t1;
    char why[256];
    double cov, ns, faults, cpu_ns;
    size_t i, sz = 64u << 20;
    char *mem;

    if ( (solo ? hvb_perfev_open_solo : hvb_perfev_open)(&g, defs, 3, why,
                                                         sizeof(why)) )
        return -1; /* perf_event_open not allowed here at all */
    assert_int_equal(hvb_perfev_readg(&g, &r0), 0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    /* Fresh pages: an allocator may hand back ones touched before. */
    mem = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
               -1, 0);
    assert_true(mem != MAP_FAILED);
    for ( i = 0; i < sz; i += 4096 )
        mem[i] = (char)i; /* a page fault per page */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    assert_int_equal(hvb_perfev_readg(&g, &r1), 0);
    hvb_perfev_close(&g);
    munmap(mem, sz);

    faults = hvb_perfev_delta(&r0, &r1, pf, &cov);
    assert_true(cov == 1.0); /* software events are never multiplexed */
    assert_true(faults >= min_faults && faults <= 16384 + 64);
    if ( tc == NO_CLOCK )
        return 0;
    ns = hvb_perfev_delta(&r0, &r1, tc, &cov);
    /* task-clock agrees with the thread's CPU clock within 50%. */
    cpu_ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 +
             (double)(t1.tv_nsec - t0.tv_nsec);
    assert_true(ns > 0.5 * cpu_ns && ns < 1.5 * cpu_ns + 1e6);
    return 0;
}

/* Transparent huge pages on every mapping: first touches may merge. */
static bool thp_always(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char line[128] = "";

    if ( f == NULL )
        return false;
    if ( fgets(line, sizeof(line), f) == NULL )
        line[0] = '\0';
    fclose(f);
    return strstr(line, "[always]") != NULL;
}

/*
 * The meter's software events, one by one: every first touch faults
 * (grouped under task-clock, Linux 6.18 lost 10-20% of them), and with
 * the kernel side counted a thread that sleeps switches context (user
 * space only, a switch reads 0).
 */
static void test_software_group(void **state)
{
    const char *names[] = {"task-clock", "context-switches", "page-faults"};
    const struct timespec nap = {0, 100000};
    struct hvb_perfev_def defs[3];
    struct hvb_perfev_group g;
    struct hvb_perfev_read r0, r1;
    char why[256];
    double cov;
    size_t i;

    for ( i = 0; i < 3; i++ )
    {
        defs[i].name = names[i];
        assert_int_equal(hvb_perfev_software(names[i], true, &defs[i].attr), 0);
    }
    assert_int_equal(hvb_perfev_software("bogus", true, &defs[0].attr), -2);
    if ( hvb_perfev_open_solo(&g, defs, 3, why, sizeof(why)) )
        skip(); /* kernel-side counting not allowed here */
    assert_int_equal(hvb_perfev_readg(&g, &r0), 0);
    for ( i = 0; i < 20; i++ )
        nanosleep(&nap, NULL);
    assert_int_equal(hvb_perfev_readg(&g, &r1), 0);
    hvb_perfev_close(&g);
    assert_true(hvb_perfev_delta(&r0, &r1, 1, &cov) >= 10);
    assert_int_equal(
        count_touches(defs, 0, 2, thp_always() ? 16 : 16384 - 64, true), 0);
}

/* --events names: keys, shortcuts, duplicates, unknown names. */
static void test_event_list(void **state)
{
    struct hvb_perfev_list l = {.nr = 0};
    char err[256] = "";
    unsigned int i;

    assert_int_equal(hvb_perfev_add_list(&l,
                                         "cache,branch-misses,"
                                         "LLC-load-misses,cycles",
                                         err, sizeof(err)),
                     0);
    /* cycles is measured anyway: skipped. */
    assert_int_equal(l.nr, 4);
    assert_string_equal(l.ev[0].name, "cache-references");
    assert_string_equal(l.ev[0].key, "cache_references");
    assert_string_equal(l.ev[1].key, "cache_misses");
    assert_string_equal(l.ev[2].key, "branch_misses");
    assert_string_equal(l.ev[3].key, "llc_load_misses");
    for ( i = 0; i < l.nr; i++ )
        assert_true(l.ev[i].encoded); /* generic: perf:: always encodes */
    /* A key already there is not added twice. */
    assert_int_equal(hvb_perfev_add_list(&l, "cache-misses,perf::cache-misses",
                                         err, sizeof(err)),
                     0);
    assert_int_equal(l.nr, 4);
    /* Software events through libpfm4's perf:: PMU; "perf::" dropped. */
    assert_int_equal(hvb_perfev_add_list(&l, "perf::PERF_COUNT_SW_PAGE_FAULTS",
                                         err, sizeof(err)),
                     0);
    assert_string_equal(l.ev[4].key, "perf_count_sw_page_faults");
    assert_int_equal(l.ev[4].attr.type, PERF_TYPE_SOFTWARE);
    assert_int_equal(l.ev[4].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
    /* Room for one more, not two. */
    assert_int_equal(hvb_perfev_add_list(&l,
                                         "branches,instructions,"
                                         "L1-dcache-load-misses",
                                         err, sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "at most 6 events"));

    l.nr = 0;
    assert_int_equal(
        hvb_perfev_add_list(&l, "cache-misses,no-such-event", err, sizeof(err)),
        -EINVAL);
    assert_non_null(strstr(err, "unknown event 'no-such-event'"));
    assert_int_equal(hvb_perfev_add_list(&l, "cache-misses,", err, sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "bad event name ''"));
    assert_int_equal(
        hvb_perfev_add_list(&l, "cache-misses:nosuchattr", err, sizeof(err)),
        -EINVAL);
    assert_non_null(strstr(err, "bad event 'cache-misses:nosuchattr'"));
    assert_int_equal(
        hvb_perfev_add_list(&l, "skl::NO_SUCH_EVENT", err, sizeof(err)),
        -EINVAL);
}

/*
 * A PMU libpfm4 knows: its event is encoded where that PMU is detected,
 * else kept unencoded with the reason (never an unknown name).
 */
static void test_event_absent_pmu(void **state)
{
    struct hvb_perfev_list l = {.nr = 0};
    char err[256] = "";

    assert_int_equal(
        hvb_perfev_add_list(&l, "skl::L2_RQSTS:MISS", err, sizeof(err)), 0);
    assert_int_equal(l.nr, 1);
    assert_string_equal(l.ev[0].key, "skl_l2_rqsts_miss");
    if ( !l.ev[0].encoded )
        assert_non_null(strstr(l.ev[0].why, "PMU skl"));
}

/*
 * libpfm4-encoded perf:: software events count as the direct ones do.
 * No task clock in this group: Linux 6.18 loses some or all of the counts
 * of a sibling when a group mixes task-clock and page-faults (whichever
 * leads), so every page fault is asked only of a group without it.
 */
static void test_event_software_group(void **state)
{
    struct hvb_perfev_list l = {.nr = 0};
    struct hvb_perfev_def defs[3];
    char err[256] = "";
    unsigned int i;

    assert_int_equal(hvb_perfev_add_list(&l,
                                         "perf::PERF_COUNT_SW_CONTEXT_SWITCHES,"
                                         "perf::PERF_COUNT_SW_CPU_MIGRATIONS,"
                                         "perf::PERF_COUNT_SW_PAGE_FAULTS",
                                         err, sizeof(err)),
                     0);
    assert_int_equal(l.nr, 3);
    /* Software events count the kernel side: a switch happens there. */
    for ( i = 0; i < 3; i++ )
        assert_int_equal(l.ev[i].attr.exclude_kernel, 0);
    for ( i = 0; i < 3; i++ )
    {
        defs[i].name = l.ev[i].key;
        defs[i].attr = l.ev[i].attr;
    }
    /* Every page, less what THP (madvise only by default) may merge. */
    if ( count_touches(defs, NO_CLOCK, 2, 16384 / 2, false) )
        skip();
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
        cmocka_unit_test(test_event_list),
        cmocka_unit_test(test_event_absent_pmu),
        cmocka_unit_test(test_event_software_group),
        cmocka_unit_test(test_hw_reason),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
