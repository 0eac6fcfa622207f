/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the model's RCU (hv/rcu.c): grace periods wait for every
 * online CPU and for no offline one, callbacks run in order, may queue
 * more, hv_rcu_barrier() waits for all of them, and the read-side rules
 * are enforced (a quiescent state inside a read section is a BUG).
 *
 * CPUs are only data to the RCU, so one test thread can play several
 * CPUs by reporting their quiescent states in turn; the barrier test uses
 * a real second thread.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <hv/hv.h>
#include <hv/rcu.h>

#include "testlib-cmocka.h"
#include "testlib.h"

struct cb {
    struct hv_rcu_head head;
    struct hv *hv;
    unsigned int runs;
    unsigned int requeue; /* queue itself again this many times */
    unsigned int order;   /* run_seq when it last ran */
};

static unsigned int run_seq;

/*
 * Callbacks live in a static pool, not on a test's stack: a test that
 * fails half-way leaves callbacks queued, and its teardown runs them.
 */
static struct cb cb_pool[16];
static unsigned int cb_used;

static struct cb *new_cb(struct hv *hv, unsigned int requeue)
{
    struct cb *c;

    assert_true(cb_used < HV_ARRAY_SIZE(cb_pool));
    c = &cb_pool[cb_used++];
    *c = (struct cb){.hv = hv, .requeue = requeue};
    return c;
}

static void cb_fn(struct hv_rcu_head *head)
{
    struct cb *c = container_of(head, struct cb, head);

    c->runs++;
    c->order = ++run_seq;
    if ( c->requeue > 0 )
    {
        c->requeue--;
        hv_call_rcu(c->hv, &c->head, cb_fn);
    }
}

/*
 * qs_poll - report a quiescent state of @cpu, then poll: @polled
 * callbacks must run, and @c must have run @runs times in all.
 */
static void qs_poll(struct hv_cpu *cpu, const struct cb *c, unsigned int polled,
                    unsigned int runs)
{
    hv_rcu_quiescent(cpu);
    assert_int_equal(hv_rcu_poll(cpu->hv), polled);
    assert_int_equal(c->runs, runs);
}

static int setup(void **state)
{
    struct hv *hv = tl_hv_create("rcu-noref", 4, 0);

    run_seq = 0;
    cb_used = 0;
    *state = hv;
    return hv != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    struct hv *hv = *state;

    /* A failed test may leave CPUs on line, even inside a section. */
    tl_force_offline(hv);
    hv_rcu_barrier(hv);
    hv_destroy(hv);
    return 0;
}

static void test_gp_waits_for_every_online_cpu(void **state)
{
    struct hv *hv = *state;
    struct hv_cpu *c0 = tl_enter(hv, 0), *c1 = tl_enter(hv, 1);
    struct cb *c = new_cb(hv, 0);

    /* Quiescent states before the callback was queued do not count. */
    hv_rcu_quiescent(c0);
    hv_rcu_quiescent(c1);
    hv_call_rcu(hv, &c->head, cb_fn);
    assert_int_equal(hv_rcu_pending(hv), 1);
    assert_int_equal(hv_rcu_poll(hv), 0);
    assert_int_equal(c->runs, 0);

    qs_poll(c0, c, 0, 0);
    qs_poll(c1, c, 1, 1);
    assert_int_equal(hv_rcu_pending(hv), 0);
    assert_int_equal(hv_rcu_poll(hv), 0);
}

static void test_read_section_nesting(void **state)
{
    struct hv *hv = *state;
    struct hv_cpu *c0 = tl_enter(hv, 0);
    struct cb *c = new_cb(hv, 0);

    hv_rcu_read_lock(c0);
    hv_rcu_read_lock(c0);
    assert_int_equal(c0->rcu_nesting, 2);
    hv_call_rcu(hv, &c->head, cb_fn);
    hv_rcu_read_unlock(c0);
    assert_int_equal(hv_rcu_poll(hv), 0);
    hv_rcu_read_unlock(c0);
    assert_int_equal(c0->rcu_nesting, 0);
    /* Leaving the section is not a quiescent state; ending the batch is. */
    assert_int_equal(hv_rcu_poll(hv), 0);
    assert_int_equal(c->runs, 0);
    qs_poll(c0, c, 1, 1);
}

static void test_offline_cpus_do_not_hold_gp(void **state)
{
    struct hv *hv = *state;
    struct hv_cpu *c0 = tl_enter(hv, 0), *c1 = tl_enter(hv, 1), *c2;
    struct cb *a = new_cb(hv, 0), *b = new_cb(hv, 0), *c = new_cb(hv, 0);

    /* CPU1 off line before the callback: never waited for. */
    hv_cpu_leave(c1);
    hv_call_rcu(hv, &a->head, cb_fn);
    qs_poll(c0, a, 1, 1);

    /* CPU1 goes off line while the grace period waits for it. */
    c1 = tl_enter(hv, 1);
    hv_call_rcu(hv, &b->head, cb_fn);
    qs_poll(c0, b, 0, 0);
    hv_cpu_leave(c1);
    assert_int_equal(hv_rcu_poll(hv), 1);
    assert_int_equal(b->runs, 1);

    /* A CPU that comes on line after the callback cannot hold it up. */
    hv_call_rcu(hv, &c->head, cb_fn);
    c2 = tl_enter(hv, 2);
    qs_poll(c0, c, 1, 1);
    hv_cpu_leave(c2);
}

static void test_no_cpu_online_runs_at_once(void **state)
{
    struct hv *hv = *state;
    struct cb *c = new_cb(hv, 0);

    /* Nobody can hold a reference: call_rcu's own poll runs it. */
    hv_call_rcu(hv, &c->head, cb_fn);
    assert_int_equal(c->runs, 1);
    assert_int_equal(hv_rcu_pending(hv), 0);
}

static void test_callbacks_run_in_order(void **state)
{
    struct hv *hv = *state;
    struct hv_cpu *c0 = tl_enter(hv, 0);
    struct cb *c[5];
    unsigned int i;

    for ( i = 0; i < 5; i++ )
    {
        c[i] = new_cb(hv, 0);
        hv_call_rcu(hv, &c[i]->head, cb_fn);
    }
    assert_int_equal(hv_rcu_pending(hv), 5);
    hv_rcu_quiescent(c0);
    assert_int_equal(hv_rcu_poll(hv), 5);
    for ( i = 0; i < 5; i++ )
        assert_int_equal(c[i]->order, i + 1);
}

static void test_callback_queued_from_callback(void **state)
{
    struct hv *hv = *state;
    struct hv_cpu *c0 = tl_enter(hv, 0);
    struct cb *c = new_cb(hv, 2);

    hv_call_rcu(hv, &c->head, cb_fn);
    qs_poll(c0, c, 1, 1);
    /* The re-queued callback needs a grace period of its own. */
    assert_int_equal(hv_rcu_pending(hv), 1);
    assert_int_equal(hv_rcu_poll(hv), 0);
    qs_poll(c0, c, 1, 2);
    qs_poll(c0, c, 1, 3);
    assert_int_equal(hv_rcu_pending(hv), 0);
}

static void test_every_64th_quiescent_state_polls(void **state)
{
    struct hv *hv = *state;
    struct hv_cpu *c0 = tl_enter(hv, 0);
    struct cb *c = new_cb(hv, 0);
    unsigned int i;

    hv_call_rcu(hv, &c->head, cb_fn);
    for ( i = 1; i < 64; i++ )
        hv_rcu_quiescent(c0);
    assert_int_equal(c->runs, 0); /* ready, but nobody polled */
    hv_rcu_quiescent(c0);
    assert_int_equal(c->runs, 1);
}

struct qs_thread {
    struct hv *hv;
    _Atomic bool stop;
    pthread_barrier_t online;
    bool enter_failed;
};

/* A CPU on another thread that keeps reporting quiescent states. */
static void *qs_main(void *arg)
{
    struct qs_thread *q = arg;
    struct hv_cpu *cpu = hv_cpu_enter(q->hv, 1);

    q->enter_failed = cpu == NULL;
    pthread_barrier_wait(&q->online);
    if ( cpu == NULL )
        return NULL;
    while ( !atomic_load(&q->stop) )
    {
        hv_rcu_quiescent(cpu);
        sched_yield();
    }
    hv_cpu_leave(cpu);
    return NULL;
}

static void test_barrier(void **state)
{
    struct hv *hv = *state;
    struct qs_thread q = {.hv = hv};
    struct cb *c[8];
    pthread_t th;
    unsigned int i;

    pthread_barrier_init(&q.online, NULL, 2);
    assert_int_equal(pthread_create(&th, NULL, qs_main, &q), 0);
    pthread_barrier_wait(&q.online);
    for ( i = 0; i < 8; i++ )
    {
        c[i] = new_cb(hv, i % 3);
        hv_call_rcu(hv, &c[i]->head, cb_fn);
    }
    /* Everything queued, and everything those queue, has run on return. */
    hv_rcu_barrier(hv);
    assert_int_equal(hv_rcu_pending(hv), 0);
    atomic_store(&q.stop, true);
    pthread_join(th, NULL);
    pthread_barrier_destroy(&q.online);
    assert_false(q.enter_failed);
    for ( i = 0; i < 8; i++ )
    {
        assert_int_equal(c[i]->runs, 1 + i % 3);
        assert_int_equal(c[i]->requeue, 0);
    }
}

static void test_barrier_after_cpu_leaves(void **state)
{
    struct hv *hv = *state;
    struct hv_cpu *c0 = tl_enter(hv, 0);
    struct cb *c = new_cb(hv, 3);

    hv_call_rcu(hv, &c->head, cb_fn);
    assert_int_equal(hv_rcu_poll(hv), 0);
    hv_cpu_leave(c0);
    hv_rcu_barrier(hv);
    assert_int_equal(c->runs, 4);
    assert_int_equal(hv_rcu_pending(hv), 0);
}

/* Bodies for tl_child_status(), on the test's model @hv. */
static void qs_inside_read_section(void *hv)
{
    struct hv_cpu *cpu = hv_cpu_enter(hv, 0);

    fprintf(stderr, "(a BUG message is expected here)\n");
    hv_rcu_read_lock(cpu);
    hv_rcu_quiescent(cpu);
}

static void leave_inside_read_section(void *hv)
{
    struct hv_cpu *cpu = hv_cpu_enter(hv, 0);

    fprintf(stderr, "(a BUG message is expected here)\n");
    hv_rcu_read_lock(cpu);
    hv_cpu_leave(cpu);
}

static void unlock_without_lock(void *hv)
{
    struct hv_cpu *cpu = hv_cpu_enter(hv, 0);

    fprintf(stderr, "(a BUG message is expected here)\n");
    hv_rcu_read_unlock(cpu);
}

static void balanced(void *hv)
{
    struct hv_cpu *cpu = hv_cpu_enter(hv, 0);

    hv_rcu_read_lock(cpu);
    hv_rcu_read_unlock(cpu);
    hv_rcu_quiescent(cpu);
    hv_cpu_leave(cpu);
}

static void test_read_side_rules_enforced(void **state)
{
    struct hv *hv = *state;

    /* An HV_BUG_ON aborts the child: 128 + SIGABRT. */
    assert_int_equal(tl_child_status(qs_inside_read_section, hv),
                     128 + SIGABRT);
    assert_int_equal(tl_child_status(leave_inside_read_section, hv),
                     128 + SIGABRT);
    assert_int_equal(tl_child_status(unlock_without_lock, hv), 128 + SIGABRT);
    assert_int_equal(tl_child_status(balanced, hv), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        T(test_gp_waits_for_every_online_cpu),
        T(test_read_section_nesting),
        T(test_offline_cpus_do_not_hold_gp),
        T(test_no_cpu_online_runs_at_once),
        T(test_callbacks_run_in_order),
        T(test_callback_queued_from_callback),
        T(test_every_64th_quiescent_state_polls),
        T(test_barrier),
        T(test_barrier_after_cpu_leaves),
        T(test_read_side_rules_enforced),
#undef T
    };

    return cmocka_run_group_tests_name("rcu", tests, NULL, NULL);
}
