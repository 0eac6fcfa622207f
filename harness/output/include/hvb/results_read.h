/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a results document back (compare, gate, --resume, report,
 * --processes pooling): the key names every reader uses, in one place,
 * and the one validating check all of them pass a file through
 * (hvb_results_load() in hvb/results.h calls it), so that a reader never
 * meets a NaN, a negative time or a count of 1e15 it did not expect.
 *
 * What the check accepts (docs/schema.md has the layout):
 *
 *   run.repetitions     integer, 1 .. HVB_RD_REPETITIONS_MAX
 *   run.rounds_done     integer, 0 .. repetitions
 *   run.processes       integer, 1 .. repetitions, dividing them
 *   run.complete        boolean, true exactly when rounds_done reaches
 *                       repetitions
 *   run.min_time_s      a finite number >= 0
 *   cells[i].name       a non-empty string, unique
 *   cells[i].threads    integer >= 1
 *   samples_ns_per_op   per repetition a number in (0, HVB_RD_VALUE_MAX]
 *                       (ns/op), or null (a failed repetition)
 *   cpu_samples_ns_per_op, counters.*.samples
 *                       numbers in [0, HVB_RD_VALUE_MAX], or null
 *   iterations          integers >= 0
 *   shared_iterations   integer, 0 .. HVB_RD_ITERATIONS_MAX
 *
 * E.g. a cell whose samples_ns_per_op are [18.8, 1e308, 19.1] is refused:
 * "'f.json': cell 0 'lookup/...': samples_ns_per_op[1] is 1e+308: ...".
 */
#ifndef HVB_RESULTS_READ_H
#define HVB_RESULTS_READ_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* Keys of the document (writer: harness/output/results.c). */
#define HVB_RK_HVBENCH    "hvbench"
#define HVB_RK_SCHEMA     "schema_version"
#define HVB_RK_BENCHMARKS "benchmarks"
#define HVB_RK_CONTEXT    "context"
#define HVB_RK_RUN        "run"
#define HVB_RK_CELLS      "cells"
#define HVB_RK_COUNTERS   "counters"
#define HVB_RK_BUILD      "build"
#define HVB_RK_GIT        "git"
/* run. */
#define HVB_RK_REPETITIONS "repetitions"
#define HVB_RK_ROUNDS_DONE "rounds_done"
#define HVB_RK_COMPLETE    "complete"
#define HVB_RK_PROCESSES   "processes"
#define HVB_RK_MIN_TIME    "min_time_s"
#define HVB_RK_PID         "pid"            /* the process that wrote it */
#define HVB_RK_WRITTEN     "written_unix_s" /* wall clock of the write */
#define HVB_RK_INVOCATION  "invocation"     /* $HVB_INVOCATION, if set */
/* The environment variable a spawning command (reproduce) sets. */
#define HVB_INVOCATION_ENV "HVB_INVOCATION"
/* cells[]. */
#define HVB_RK_NAME        "name"
#define HVB_RK_THREADS     "threads"
#define HVB_RK_VARIANT     "variant"
#define HVB_RK_GROUP       "group"
#define HVB_RK_ERROR       "error"
#define HVB_RK_STATUS      "status"
#define HVB_RK_SAMPLES     "samples_ns_per_op"
#define HVB_RK_CPU_SAMPLES "cpu_samples_ns_per_op"
#define HVB_RK_ITERATIONS  "iterations"
#define HVB_RK_SHARED_ITER "shared_iterations"
#define HVB_RK_CTR_SAMPLES "samples"
#define HVB_RK_CTR_FLAGS   "flags"
#define HVB_RK_NOISE       "noise_flags"
/* a cell's (and a counter's) statistics, and its paired ratio */
#define HVB_RK_SUMMARY "summary"
#define HVB_RK_MEDIAN  "median"
#define HVB_RK_PAIRED  "paired"
#define HVB_RK_CI95    "ci95"
/* shard (hvb/shard.h) and a merged document's hosts (harness/fleet/cmd_merge.c). */
#define HVB_RK_SHARD       "shard"
#define HVB_RK_SHARD_K     "k"
#define HVB_RK_SHARD_N     "n"
#define HVB_RK_CELLS_TOTAL "cells_total"
#define HVB_RK_HOST        "host"
#define HVB_RK_MERGED      "merged"
/* benchmarks[] rows (Google Benchmark's). */
#define HVB_RK_RUN_TYPE  "run_type"
#define HVB_RK_FAMILY    "family_index"
#define HVB_RK_REP_INDEX "repetition_index"

/* Beyond these a figure is not a measurement (statistics overflow). */
#define HVB_RD_VALUE_MAX       1e18
#define HVB_RD_ITERATIONS_MAX  10000000000000ll /* 1e13 ops per round */
#define HVB_RD_REPETITIONS_MAX 1000000

/* hvbench.<a>.<b> of @doc (@b may be NULL: hvbench.<a>), or NULL. */
json_t *hvb_rd_get(json_t *doc, const char *a, const char *b);

/* hvbench.cells of @doc (an array once checked). */
json_t *hvb_rd_cells(json_t *doc);

/*
 * hvb_results_complete - is @doc a complete run?  false with @why (a
 * phrase: "4 of 20 rounds done") for a file an interrupted run left.
 */
bool hvb_results_complete(json_t *doc, char *why, size_t len);

#endif /* HVB_RESULTS_READ_H */
