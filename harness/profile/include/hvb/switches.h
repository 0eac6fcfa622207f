/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The context-switch recorder: the sched:sched_switch tracepoint for
 * this process (hvb/perf_rings.h: one event per CPU, its threads
 * followed), every switch recorded, with the call chain the thread
 * blocked in, kernel and user, and the kernel's context-switch records
 * for the moment it ran again.  A thread is off CPU from its switch out
 * to its next switch in: hvb/offcpu.h turns the records into those
 * intervals and their stacks.
 *
 * The tracepoint needs tracefs (mounted here when it is not, as perf
 * does) and, for other users than root, perf_event_paranoid <= 1 (call
 * chains of the kernel): the error says which it was.
 */
#ifndef HVB_SWITCHES_H
#define HVB_SWITCHES_H

#include <stddef.h>
#include <stdint.h>

#include <hvb/sampler.h>

/*
 * One record in the buffer (hvb_sample_buf's words): rec[0] time (ns,
 * CLOCK_MONOTONIC), rec[1] tid, rec[2] kind (below), rec[3] nk, rec[4]
 * nu and rec[5] ns, then nk kernel return addresses and nu user ones,
 * each innermost first (the first of each is where it was), then the ns
 * words of the user stack at its stack pointer (to find the callers that
 * the frame-pointer walk skipped: hvb_symbols_unwind_sp()).  A switch in
 * has no frames.
 */
#define HVB_SWITCH_HDR 6
enum hvb_switch_kind {
    HVB_SWITCH_IN,
    HVB_SWITCH_OUT_BLOCKED,  /* it slept: a futex, a read, poll, a sleep */
    HVB_SWITCH_OUT_RUNNABLE, /* it was preempted, still runnable */
};

struct hvb_switches;

/* Open (disabled): 0, or -errno with a one-line reason in @err. */
int hvb_switches_open(struct hvb_switches **out, char *err, size_t len);
int hvb_switches_enable(struct hvb_switches *s);
/* Disable and drain; the records stay until close.  0 or -ENOMEM. */
int hvb_switches_stop(struct hvb_switches *s);
const struct hvb_sample_buf *hvb_switches_records(const struct hvb_switches *s);
/* Records the kernel dropped (its rings were full). */
uint64_t hvb_switches_lost(const struct hvb_switches *s);
void hvb_switches_close(struct hvb_switches *s);

#endif /* HVB_SWITCHES_H */
