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
 * report hook after it.  Its per-cell state is struct hvb_cell_rt
 * (hvb/matrix.h); hvb_counter_set() of hvb/workload.h is defined here.
 */
#ifndef HVB_RUNNER_H
#define HVB_RUNNER_H

#include <hvb/engine.h>

/* The engine body; @arg is the struct hvb_mcell of the cell. */
void hvb_runner_body(void *arg, struct hvb_engine_thread *et);

#endif /* HVB_RUNNER_H */
