/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the timeline recorder (hv/trace.h):
 *
 *   - off, a trace point records nothing;
 *   - a ring keeps its newest HV_TRACE_RING events and counts the rest
 *     as lost;
 *   - an event carries the cell, the thread's name, or the adopted
 *     thread's;
 *   - a lock wait at or above the threshold is recorded with class,
 *     site and CLOCK_MONOTONIC times, a shorter one is not, without the
 *     lock profiler's hooks; with holds, the holder's hold too, through
 *     the hooks; tracing alone leaves the profiler's tables empty.
 *
 * It also prints what a recorded event costs, and a lock round trip
 * with the recorder on and off (not checks: timing).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <hv/lock.h>
#include <hv/lockstat.h>
#include <hv/trace.h>

static HV_LOCK_CLASS(test_class, "test-class");

static long collect(struct hv_trace_event **ev, struct hv_trace_stats *st)
{
    long n = hv_trace_collect(ev, st);

    assert_true(n >= 0);
    return n;
}

static void test_off(void **state)
{
    struct hv_trace_event *ev;
    struct hv_trace_stats st;

    (void)state;
    assert_int_equal(hv_trace_start(0, true), 0);
    hv_trace_stop();
    hv_trace_span("t", "off", NULL, 0, hv_now_ns(), hv_now_ns() + 1);
    assert_int_equal(collect(&ev, &st), 0);
    free(ev);
}

static void test_ring_wraps(void **state)
{
    struct hv_trace_event *ev;
    struct hv_trace_stats st;
    uint64_t i, t = hv_now_ns();
    long n;

    (void)state;
    assert_int_equal(hv_trace_start(0, true), 0);
    for ( i = 0; i < HV_TRACE_RING + 10; i++ )
        hv_trace_span("t", "e", "i", i, t + i, t + i + 1);
    hv_trace_stop();
    n = collect(&ev, &st);
    assert_int_equal(n, HV_TRACE_RING);
    assert_int_equal(st.lost, 10);
    for ( i = 0; i < (uint64_t)n; i++ )
        assert_true(ev[i].arg >= 10); /* the oldest ten went */
    free(ev);
}

static void test_names_cells_adopt(void **state)
{
    struct hv_trace_event *ev;
    struct hv_trace_stats st;
    unsigned int mine, other;
    uint64_t t = hv_now_ns();

    (void)state;
    assert_int_equal(hv_trace_start(0, true), 0);
    hv_trace_name_thread("client %u", 7);
    hv_trace_set_cell(3);
    mine = hv_trace_tid();
    hv_trace_span("t", "own", NULL, 0, t, t + 5);
    hv_trace_name_thread("worker");
    other = hv_trace_tid();
    hv_trace_adopt(mine);
    hv_trace_span("t", "adopted", NULL, 0, t + 1, t + 2);
    hv_trace_adopt(0);
    hv_trace_stop();
    hv_trace_set_cell(0);
    assert_int_equal(collect(&ev, &st), 2);
    assert_string_equal(hv_trace_thread_name(ev[0].tid), "client 7");
    assert_int_equal(ev[0].tid, ev[1].tid);
    assert_int_not_equal(mine, other);
    assert_int_equal(ev[0].cell, 3);
    assert_int_equal(ev[1].dur, 1);
    free(ev);
}

static hv_spinlock_t lock;
static _Atomic int held;

static void sleep_ns(long ns)
{
    struct timespec d = {0, ns};

    nanosleep(&d, NULL);
}

static void *holder(void *arg)
{
    (void)arg;
    hv_spin_lock(&lock);
    atomic_store(&held, 1);
    sleep_ns(3000000);
    hv_spin_unlock(&lock);
    return NULL;
}

/* The event of @type in @ev[@n], or NULL. */
static const struct hv_trace_event *find(const struct hv_trace_event *ev,
                                         long n, enum hv_trace_type type)
{
    long i;

    for ( i = 0; i < n; i++ )
        if ( ev[i].type == type )
            return &ev[i];
    return NULL;
}

/*
 * A ~3 ms wait for a spin lock another thread holds, and a short
 * acquisition, with a 1 ms threshold: the wait (and with @holds the
 * holder's hold) recorded, the short one not.
 */
static void lock_events(bool holds)
{
    const struct hv_trace_event *w, *h;
    const struct hv_lock_site *site;
    struct hv_lockstat_row *rows;
    struct hv_trace_event *ev;
    struct hv_trace_stats st;
    uint64_t t0, t1;
    pthread_t th;
    long n;

    hv_spin_init(&lock, &test_class);
    atomic_store(&held, 0);
    t0 = hv_now_ns();
    assert_int_equal(hv_trace_start(1000000, holds), 0); /* 1 ms */
    /* Waits need no hooks; holds need them. */
    assert_true(hv_lockstat_active() == (holds && hv_lockstat_available()));
    hv_spin_lock(&lock); /* short: not recorded */
    hv_spin_unlock(&lock);
    assert_int_equal(pthread_create(&th, NULL, holder, NULL), 0);
    while ( !atomic_load(&held) )
        sleep_ns(100000);
    hv_spin_lock(&lock); /* waits ~3 ms */
    hv_spin_unlock(&lock);
    pthread_join(th, NULL);
    hv_trace_stop();
    t1 = hv_now_ns();
    assert_false(hv_lockstat_active());
    n = collect(&ev, &st);
    holds = holds && hv_lockstat_available();
    assert_int_equal(n, holds ? 2 : 1); /* the wait, the holder's hold */
    w = find(ev, n, HV_TRACE_LOCK_WAIT);
    h = find(ev, n, HV_TRACE_LOCK_HOLD);
    assert_non_null(w);
    assert_string_equal(w->name, "test-class");
    site = w->what;
    assert_true(site != NULL || !hv_lockstat_available());
    assert_true(site == NULL || strstr(site->file, "unit-trace.c") != NULL);
    assert_true(w->dur >= 1000000);
    assert_true(w->t0 >= t0 && w->t0 + w->dur <= t1);
    if ( holds )
    {
        assert_non_null(h);
        assert_true(h->dur >= 2000000);
        assert_true(h->t0 >= t0 && h->t0 + h->dur <= t1);
        assert_true(w->t0 + w->dur + 200 >= h->t0 + h->dur); /* waited out */
    }
    free(ev);
    assert_int_equal(hv_lockstat_collect(&rows, NULL), 0); /* tables off */
    free(rows);
}

static void test_lock_waits(void **state)
{
    (void)state;
    lock_events(false);
}

static void test_lock_waits_holds(void **state)
{
    (void)state;
    lock_events(true);
}

/* @n spin lock + unlock round trips: ns each. */
static double round_trips(uint64_t n)
{
    uint64_t t = hv_now_ns(), i;

    for ( i = 0; i < n; i++ )
    {
        hv_spin_lock(&lock);
        hv_spin_unlock(&lock);
    }
    return (double)(hv_now_ns() - t) / (double)n;
}

/* Not a check: ns per recorded event and per lock round trip. */
static void test_cost(void **state)
{
    struct hv_trace_event *ev;
    struct hv_trace_stats st;
    enum {
        N = 2000000
    };
    double rec, waits, holds, off;
    uint64_t t, i;

    (void)state;
    hv_spin_init(&lock, &test_class);
    assert_int_equal(hv_trace_start(10000, false), 0);
    t = hv_now_ns();
    for ( i = 0; i < N; i++ )
        hv_trace_span("t", "e", "i", i, t, t + 1);
    rec = (double)(hv_now_ns() - t) / N;
    waits = round_trips(N);
    hv_trace_stop();
    assert_int_equal(hv_trace_start(10000, true), 0);
    holds = round_trips(N);
    hv_trace_stop();
    off = round_trips(N);
    (void)collect(&ev, &st);
    free(ev);
    printf("trace: %.1f ns per recorded event; uncontended spin lock + "
           "unlock: %.1f ns off, %.1f ns on (waits), %.1f ns on with "
           "--trace-holds (below the threshold)\n",
           rec, off, waits, holds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off),
        cmocka_unit_test(test_ring_wraps),
        cmocka_unit_test(test_names_cells_adopt),
        cmocka_unit_test(test_lock_waits),
        cmocka_unit_test(test_lock_waits_holds),
        cmocka_unit_test(test_cost),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
