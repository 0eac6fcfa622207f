/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the lock profiler's wait stacks (hv/lockstat.h).  A
 * read lock taken again by a thread already inside it is a contended
 * acquisition (another reader is in: the shared word's line bounces)
 * that never waits, so one thread makes as many contended acquisitions
 * as it likes, from the call sites it likes:
 *
 *   - the stack starts in the function that took the lock, its next
 *     frame is where that function returns to (__builtin_return_address),
 *     and the outermost frames are this thread's;
 *   - uncontended acquisitions, and contended ones with the stacks off,
 *     record no stack (lockstat's rows still count them);
 *   - two call sites give two stacks; two threads on one call stack give
 *     one, their counts summed; a tag keeps its own stacks;
 *   - the waits of the stacks sum to lockstat's.
 *
 * It also prints what a recorded event costs (not a check: timing).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hv/lockstat.h>

static HV_LOCK_CLASS(test_class, "test-class");
static hv_rwlock_t lock;
static void *volatile ret_a; /* where take_a() returns to */

/* @n contended read acquisitions (we are inside already). */
static __attribute__((noinline)) void take_a(unsigned int n)
{
    ret_a = __builtin_return_address(0);
    while ( n-- )
    {
        hv_read_lock(&lock);
        hv_read_unlock(&lock);
    }
    __asm__ volatile("" ::: "memory"); /* no tail call */
}

static __attribute__((noinline)) void take_b(unsigned int n)
{
    while ( n-- )
    {
        hv_read_lock(&lock);
        hv_read_unlock(&lock);
    }
    __asm__ volatile("" ::: "memory");
}

/* take_b(@n) @levels frames deeper. */
static __attribute__((noinline)) void nest(unsigned int levels, unsigned int n)
{
    if ( levels == 0 )
        take_b(n);
    else
        nest(levels - 1, n);
    __asm__ volatile("" ::: "memory");
}

static void start(bool stacks, unsigned int tag)
{
    hv_lockstat_reset();
    hv_lockstat_set_tag(tag);
    assert_true(hv_lockstat_stacks(stacks));
    hv_lockstat_enable(true);
    hv_read_lock(&lock); /* the reader already inside */
}

static long stop(struct hv_lockstat_stack **v)
{
    uint64_t dropped = 1;
    long n;

    hv_read_unlock(&lock);
    hv_lockstat_enable(false);
    hv_lockstat_stacks(false);
    n = hv_lockstat_collect_stacks(v, &dropped);
    assert_true(n >= 0);
    assert_int_equal(dropped, 0);
    return n;
}

static void test_stack_of_caller(void **state)
{
    struct hv_lockstat_stack *v;

    (void)state;
    start(true, 1);
    take_a(10);
    assert_int_equal(stop(&v), 1);
    assert_int_equal(v[0].tag, 1);
    assert_string_equal(v[0].cls, "test-class");
    assert_int_equal(v[0].contended, 10);
    assert_true(v[0].depth >= 3);
    assert_true((uintptr_t)v[0].pc[0] > (uintptr_t)take_a &&
                (uintptr_t)v[0].pc[0] < (uintptr_t)take_a + 4096);
    assert_ptr_equal(v[0].pc[1], ret_a);
    free(v);
}

static void test_none_uncontended_or_off(void **state)
{
    struct hv_lockstat_stack *v;
    struct hv_lockstat_row *rows;
    long n;

    (void)state;
    /* Uncontended: nobody inside. */
    hv_lockstat_reset();
    hv_lockstat_stacks(true);
    hv_lockstat_enable(true);
    hv_read_lock(&lock);
    hv_read_unlock(&lock);
    hv_read_lock(&lock);
    assert_int_equal(stop(&v), 0);
    free(v);
    /* Off: lockstat counts the contended ones, no stack. */
    start(false, 1);
    take_a(5);
    assert_int_equal(stop(&v), 0);
    free(v);
    n = hv_lockstat_collect(&rows, NULL);
    assert_true(n >= 1);
    assert_int_equal(rows[0].contended, 5);
    free(rows);
}

static void test_sites_and_tags(void **state)
{
    struct hv_lockstat_stack *v;
    struct hv_lockstat_row *rows;
    uint64_t wait_rows = 0, wait_stacks = 0;
    long n, i;

    (void)state;
    start(true, 1);
    take_a(3);
    take_b(4);
    hv_lockstat_set_tag(2);
    take_a(2);
    n = stop(&v);
    assert_int_equal(n, 3);
    /* By tag, then wait; count by (tag, contended). */
    assert_int_equal(v[0].tag + v[1].tag + v[2].tag, 4);
    assert_int_equal(v[0].contended + v[1].contended + v[2].contended, 9);
    assert_int_equal(v[2].tag, 2);
    assert_int_equal(v[2].contended, 2);
    for ( i = 0; i < n; i++ )
        wait_stacks += v[i].wait_ns;
    n = hv_lockstat_collect(&rows, NULL);
    for ( i = 0; i < n; i++ )
        wait_rows += rows[i].wait_ns;
    /* Rounding to ns happens per entry on either side. */
    assert_true(wait_stacks + 8 >= wait_rows && wait_rows + 8 >= wait_stacks);
    free(rows);
    free(v);
}

static void *thread_take(void *arg)
{
    (void)arg;
    take_b(7);
    return NULL;
}

static void test_threads_merge(void **state)
{
    struct hv_lockstat_stack *v;
    pthread_t t[2];
    int i;

    (void)state;
    start(true, 1);
    for ( i = 0; i < 2; i++ )
        assert_int_equal(pthread_create(&t[i], NULL, thread_take, NULL), 0);
    for ( i = 0; i < 2; i++ )
        pthread_join(t[i], NULL);
    assert_int_equal(stop(&v), 1);
    assert_int_equal(v[0].contended, 14);
    free(v);
}

/*
 * ns per contended acquisition of take_b(), @n of them, @levels frames
 * down; @depth: the frames recorded.
 */
static double per_event(bool stacks, unsigned int levels, unsigned int n,
                        unsigned int *depth)
{
    struct hv_lockstat_stack *v;
    uint64_t t0;
    double ns;

    start(stacks, 1);
    t0 = hv_now_ns();
    nest(levels, n);
    ns = (double)(hv_now_ns() - t0) / n;
    if ( stop(&v) > 0 )
        *depth = v[0].depth;
    free(v);
    return ns;
}

static void test_cost(void **state)
{
    static const unsigned int levels[] = {0, 20};
    unsigned int depth = 0, l, i;

    (void)state;
    for ( l = 0; l < 2; l++ )
    {
        double off = 1e9, on = 1e9;

        for ( i = 0; i < 5; i++ ) /* the best of 5: the least disturbed */
        {
            double a = per_event(false, levels[l], 200000, &depth),
                   b = per_event(true, levels[l], 200000, &depth);

            off = a < off ? a : off;
            on = b < on ? b : on;
        }
        printf("a contended acquisition under lockstat: %.1f ns; with its "
               "wait stack of %u frames: %.1f ns (+%.1f ns an event)\n",
               off, depth, on, on - off);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack_of_caller),
        cmocka_unit_test(test_none_uncontended_or_off),
        cmocka_unit_test(test_sites_and_tags),
        cmocka_unit_test(test_threads_merge),
        cmocka_unit_test(test_cost),
    };

    hv_rwlock_init(&lock, &test_class);
    if ( !hv_lockstat_available() )
    {
        printf("lock profiler not compiled in\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
