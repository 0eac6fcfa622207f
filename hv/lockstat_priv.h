/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the lock profiler's two files share: hv/lockstat.c (the per-site
 * tables, the instrumented lock paths, the clock) calls
 * hv/lockstat_stacks.c (the wait stacks) on each contended acquisition,
 * and hv/trace.c (the timeline recorder) on each hold at or above its
 * threshold; hv/lock.c's slow paths hand it the waits.  The hooks of
 * hv/lock.h (hv_lockstat_on) are on while the profiler is, or the
 * recorder with holds.
 */
#ifndef HV_LOCKSTAT_PRIV_H
#define HV_LOCKSTAT_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hv/lockstat.h>
#include <hv/trace.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HV_LOCKSTAT_TSC 1
#endif

/* The profiler's clock: the TSC on x86, else hv_now_ns(). */
static inline uint64_t hv_lockstat_ticks(void)
{
#ifdef HV_LOCKSTAT_TSC
    return __rdtsc();
#else
    return hv_now_ns();
#endif
}

/* Hooks on while the profiler or the recorder wants them. */
void hv_lockstat_hooks_update(void);

/* The recorder's threshold in ticks (UINT64_MAX: never); holds too? */
extern uint64_t hv_trace_lock_ticks;
extern bool hv_trace_holds;

/* A wait or hold from tick @t0 for @ticks of a lock of @cls at @site. */
void hv_trace_lock(enum hv_trace_type type, const char *cls, const void *site,
                   unsigned int kind, uint64_t t0, uint64_t ticks);

extern _Atomic bool hv_lockstat_stacks_on;

static inline bool hv_lockstat_stacks_active(void)
{
    return atomic_load_explicit(&hv_lockstat_stacks_on, memory_order_relaxed);
}

/* A thread's wait stacks (lockstat_stacks.c). */
struct hv_lockstat_stk;

/*
 * A contended acquisition of a lock of class @cls under tag @tag waited
 * @wait ticks; @fp is the frame of the hv_lockstat_*_lock() function
 * the lock's user called, where the walk starts.  *@slot is the
 * thread's table, made here on first use.
 */
void hv_lockstat_stack_add(struct hv_lockstat_stk **slot, const void *fp,
                           unsigned int tag, const struct hv_lock_class *cls,
                           uint64_t wait);

/* Forget every wait stack (hv_lockstat_reset()). */
void hv_lockstat_stacks_reset(void);

/* Nanoseconds per tick of the profiler's clock, calibrated since enable. */
double hv_lockstat_ns_per_tick(void);

#endif /* HV_LOCKSTAT_PRIV_H */
