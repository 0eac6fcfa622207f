/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runner: what every measured thread of a cell does in each Google
 * Benchmark run (the body handed to the engine), and the run-time state a
 * cell keeps across its runs.
 *
 * Per thread and run: prepare the cell once (the first thread to arrive
 * does it, the others wait), enter model CPU <thread index>, seed the
 * thread's generator (distinct per thread and run), snapshot the CPU's
 * perf counters, run the workload's thread hook, add every non-zero perf
 * counter delta as the per-op counter "perfc.<name>", report the thread's
 * counters, leave the CPU.  Thread 0 also runs the background hook on its
 * own pthread (cpu NULL, index nthreads) around its loop, and calls the
 * report hook after it.
 */
#ifndef HVB_RUNNER_H
#define HVB_RUNNER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hvb/counters.h>
#include <hvb/engine.h>
#include <hvb/workload.h>

/* Run-time state of one cell, kept across its runs. */
struct hvb_cell_rt {
    pthread_mutex_t lock; /* prepare, flags */
    bool prepare_called;  /* cleanup() is owed */
    bool prepare_failed;
    char prepare_error[320];
    _Atomic uint64_t thread_runs; /* seeds: one per thread and run */
    struct hvb_ctr_table flags;   /* counter name -> flags, first wins */
    struct hvb_ctr_table report;  /* hvb_counter_set() inside report() */
    _Atomic bool in_report;       /* thread 0 is inside report() */
    _Atomic bool warned_flags;
    _Atomic bool warned_dropped;
    _Atomic bool warned_affinity;
    _Atomic bool warned_set;
};

int hvb_cell_rt_init(struct hvb_cell_rt *rt);
void hvb_cell_rt_fini(struct hvb_cell_rt *rt);

/* The engine body; @arg is the struct hvb_mcell of the cell. */
void hvb_runner_body(void *arg, struct hvb_engine_thread *et);

/*
 * hvb_counter_set - from a workload's report() hook: add counter @name to
 * this run (summed with the threads' counters, divided as @flags say).
 * Ignored, with one warning, outside report().
 * Workloads should see this prototype in hvb/workload.h.
 */
void hvb_counter_set(struct hvb_cell *c, const char *name, double v,
                     unsigned int flags);

#endif /* HVB_RUNNER_H */
