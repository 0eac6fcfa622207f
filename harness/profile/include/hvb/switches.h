/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The context-switch recorder: the sched:sched_switch tracepoint for
 * this process (hvb/perf_rings.h: one event per CPU, its threads
 * followed), every switch recorded, with the call chain the thread
 * blocked in, kernel and user, and the kernel's context-switch records
 * for the moment it ran again, and the thread's fork and exit.  A thread
 * is off CPU from its switch out to its next switch in: hvb/offcpu.h
 * turns the events into those intervals and their stacks.
 *
 * The tracepoint needs tracefs (mounted here when it is not, as perf
 * does) and, for other users than root, perf_event_paranoid <= 1 (call
 * chains of the kernel): the error says which it was.
 */
#ifndef HVB_SWITCHES_H
#define HVB_SWITCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hvb_switch_kind {
    HVB_SWITCH_IN,
    HVB_SWITCH_OUT_BLOCKED,  /* it slept: a futex, a read, poll, a sleep */
    HVB_SWITCH_OUT_RUNNABLE, /* it was preempted, still runnable */
    HVB_SWITCH_FORK,         /* the thread began */
    HVB_SWITCH_EXIT,         /* the thread ended */
    HVB_SWITCH_COMM,         /* it was named: chain is the name's index */
    HVB_SWITCH_EXEC,         /* it exec'd, and was named: the same */
};

/* One event of a thread: a switch out names its call chain. */
struct hvb_switch_ev {
    uint64_t t; /* ns, CLOCK_MONOTONIC */
    uint32_t tid;
    uint16_t kind; /* enum hvb_switch_kind */
    /*
     * A switch out's: hvb_switch_log.chain_off's index; a fork's: the
     * parent thread; a name's: hvb_switch_log.names's index.
     */
    uint32_t chain;
};

/* A thread's name in the kernel (its comm): 15 characters and a NUL. */
#define HVB_COMM_LEN 16

/* The chain of off-CPU time whose switch out was never recorded. */
#define HVB_CHAIN_UNSEEN UINT32_MAX

/*
 * What was recorded.  The call chains are kept once each (a million
 * switches in a few hundred distinct stacks): chain i is the words at
 * words[chain_off[i]]: nk, nu, then nk kernel and nu user addresses,
 * each innermost first (the first of each is where it was, the rest
 * return addresses), the user callers that the frame-pointer walk
 * skipped put back (hvb_symbols_unwind_sp(), from the words of the user
 * stack recorded with the switch).
 */
struct hvb_switch_log {
    struct hvb_switch_ev *ev;
    size_t nr, cap;
    uint64_t *words;
    size_t nw, cw;
    size_t *chain_off;
    size_t nr_chains, cap_chains;
    uint32_t *hash; /* open addressing: chain index + 1, 0 free */
    size_t hcap;
    char (*names)[HVB_COMM_LEN]; /* the threads' names, each once */
    size_t nr_names, cap_names;
};

/* Append an event: 0 or -ENOMEM (switch_log.c). */
int hvb_switch_log_event(struct hvb_switch_log *l, uint64_t t, uint32_t tid,
                         enum hvb_switch_kind kind, uint32_t chain);
/* The index of chain @w[0..n) (nk, nu, frames), added if new; -1: ENOMEM. */
long hvb_switch_log_intern(struct hvb_switch_log *l, const uint64_t *w,
                           size_t n);
/* @name's index in @l->names (added if new; cut to 15 characters), or -1. */
long hvb_switch_log_name(struct hvb_switch_log *l, const char *name);
void hvb_switch_log_free(struct hvb_switch_log *l);

struct hvb_switches;

/* Open (disabled): 0, or -errno with a one-line reason in @err. */
int hvb_switches_open(struct hvb_switches **out, char *err, size_t len);
/* Enable, once every plugin is loaded (the unwinding reads their CFI). */
int hvb_switches_enable(struct hvb_switches *s);
/* Disable and drain; the log stays until close.  0 or -ENOMEM. */
int hvb_switches_stop(struct hvb_switches *s);
const struct hvb_switch_log *hvb_switches_log(const struct hvb_switches *s);
/* Records the kernel dropped (its rings were full). */
uint64_t hvb_switches_lost(const struct hvb_switches *s);
/* As hvb_sampler_cpu_wide(). */
bool hvb_switches_cpu_wide(const struct hvb_switches *s, uint64_t *foreign);
void hvb_switches_close(struct hvb_switches *s);

#endif /* HVB_SWITCHES_H */
