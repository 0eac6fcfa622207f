/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lock-hold: a known wait on a model lock, the lock profiler's yardstick
 * (`hvbench profile lock-hold --view wait` must show hold_ns of wait per
 * op, `hvbench lockstat lock-hold` the same).  One measured thread (the
 * waiter) and the background thread (the holder) share one lock of class
 * "lock-hold", a spin lock or a sleeping mutex (lock=spin|mutex).
 *
 * One operation, e.g. hold_ns=20000:
 *
 *   waiter                              holder (background)
 *   req = 7  -------------------------> sees req 7, takes the lock,
 *   spins until held == 7   <---------  held = 7, busy-waits 20 us on the
 *   lock: contended, waits ~20 us       clock (a real hold: the vDSO's
 *   <-------------------------------->  CLOCK_MONOTONIC reads the TSC),
 *   has it; unlocks                     unlocks
 *
 * The waiter asks for the lock only once the holder has it, so every
 * operation is one contended acquisition whose wait is the hold less
 * the moment it took the waiter to see `held` (a cache-line transfer,
 * ~0.1 us) plus the hand-over at the release: hold_ns within about 1%
 * at 20 us on a spin lock.  A mutex adds the waiter's futex wake-up, a
 * real part of its wait.  The holder's preemption during its hold makes
 * the wait longer, as it would any lock's, and so does the waiter's
 * while it waits: the counter lock_call_ns_per_op is the waiter's own
 * clock around its lock call, which sees both.
 */
#include <errno.h>
#include <stdlib.h>

#include <hv/lock.h>

#include "../lib/wl.h"

/* The params (lh_param_table[] below names each field). */
struct lh_params {
    uint64_t hold_ns;
    unsigned int lock; /* LH_SPIN or LH_MUTEX */
};

enum {
    LH_SPIN,
    LH_MUTEX
};

#define LH_BATCH 16

static HV_LOCK_CLASS(lh_class, "lock-hold");

struct lh {
    hv_spinlock_t spin;
    hv_mutex_t mutex;
    unsigned int kind;
    uint64_t hold_ns;
    _Atomic uint64_t req __hv_cacheline_aligned;  /* waiter -> holder */
    _Atomic uint64_t held __hv_cacheline_aligned; /* holder -> waiter */
};

static void lh_lock(struct lh *s)
{
    if ( s->kind == LH_SPIN )
        hv_spin_lock(&s->spin);
    else
        hv_mutex_lock(&s->mutex);
}

static void lh_unlock(struct lh *s)
{
    if ( s->kind == LH_SPIN )
        hv_spin_unlock(&s->spin);
    else
        hv_mutex_unlock(&s->mutex);
}

static int lh_check(struct hvb_cell *c)
{
    if ( c->threads != 1 )
    {
        hvb_cell_error(c, "lock-hold has one waiting thread (--threads 1): "
                          "the background thread holds the lock");
        return -EINVAL;
    }
    return 0;
}

static int lh_prepare(struct hvb_cell *c)
{
    const struct lh_params *p = c->params;
    struct lh *s = calloc(1, sizeof(*s));

    if ( s == NULL )
        return -ENOMEM;
    hv_spin_init(&s->spin, &lh_class);
    hv_mutex_init(&s->mutex, &lh_class);
    s->kind = p->lock;
    s->hold_ns = p->hold_ns;
    c->priv = s;
    return 0;
}

/*
 * The waiter: one contended acquisition per operation.  lock_call_ns
 * is its own clock around the lock call, what the profiler must find.
 */
static void lh_thread(struct hvb_thread *t)
{
    struct lh *s = t->cell->priv;
    unsigned int i;

    while ( hvb_keep_running_batch(t, LH_BATCH) )
    {
        uint64_t in_lock = 0;

        for ( i = 0; i < LH_BATCH; i++ )
        {
            uint64_t seq = atomic_fetch_add(&s->req, 1) + 1, t0;

            while ( atomic_load_explicit(&s->held, memory_order_acquire) !=
                    seq )
                cpu_relax();
            t0 = hv_now_ns();
            lh_lock(s);
            in_lock += hv_now_ns() - t0;
            lh_unlock(s);
        }
        hvb_counter_add(t, "lock_call_ns", (double)in_lock, HVB_CTR_PER_OP);
    }
}

/* The holder: takes the lock for each request, holds it hold_ns. */
static void lh_background(struct hvb_thread *t)
{
    struct lh *s = t->cell->priv;
    uint64_t last = atomic_load(&s->held);

    while ( !hvb_bg_should_stop(t) )
    {
        uint64_t r = atomic_load_explicit(&s->req, memory_order_acquire), t0;

        if ( r == last )
        {
            cpu_relax();
            continue;
        }
        lh_lock(s);
        t0 = hv_now_ns();
        atomic_store_explicit(&s->held, r, memory_order_release);
        while ( hv_now_ns() - t0 < s->hold_ns )
            cpu_relax();
        lh_unlock(s);
        last = r;
    }
}

static void lh_cleanup(struct hvb_cell *c)
{
    struct lh *s = c->priv;

    if ( s == NULL )
        return;
    hv_mutex_destroy(&s->mutex);
    free(s);
    c->priv = NULL;
}

static const struct hv_opt lh_param_table[] = {
    HVB_PARAM_UINT_ROW(struct lh_params, hold_ns, "20000", 100, 100000000,
                       "how long the holder keeps the lock per operation "
                       "(ns, busy-waited)"),
    HVB_PARAM_ENUM_ROW(struct lh_params, lock, "spin", "spin|mutex",
                       "the lock: a spin lock or a sleeping mutex"),
    HVB_PARAM_TABLE_END,
};

static const char *const lh_slots[] = {NULL};

HVB_REGISTER_WORKLOAD(lock_hold_workload) = {
    .name = "lock-hold",
    .kind = HVB_MICRO,
    .summary = "a known wait: the background thread holds a model lock "
               "hold_ns per op while the measured one waits (the lock "
               "profiler's yardstick)",
    .slots = lh_slots,
    .params = lh_param_table,
    .params_size = sizeof(struct lh_params),
    .check = lh_check,
    .prepare = lh_prepare,
    .thread = lh_thread,
    .background = lh_background,
    .cleanup = lh_cleanup,
    .smoke = "threads=1 hold_ns=2000 lock=spin,mutex",
};
