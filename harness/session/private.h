/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The session room (harness/session/): one measuring run from the command
 * line to its results file, the sequence that run, profile, lockstat and
 * worker share (hvb/run.h).  cmd_run.c reads run's options into struct
 * hvb_run_opts; run_session.c builds the matrix, probes the meter, runs
 * the rounds and writes the results; run_processes.c is --processes (the
 * rounds in child processes, pooled); callgrind.c re-runs the command
 * under valgrind (--instrument callgrind); shard.c splits a matrix into
 * --shard K/N (hvb/shard.h).
 *
 * E.g. "hvbench run lookup --plugin domlookup=rcu-noref": cmd_run.c
 * (options) -> run_session.c: hvb_matrix_build() (run), hvb_meter_probe()
 * (measure), hvb_rounds_run() (run), hvb_summary_build() and
 * hvb_results_build() (output), hvb_console_table() (output).
 *
 * This header holds what the room's files share among themselves.
 */
#ifndef HVB_SESSION_PRIVATE_H
#define HVB_SESSION_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <pthread.h>
#include <sys/types.h>

#include <jansson.h>

#include <hvb/buildinfo.h>
#include <hvb/engine.h>
#include <hvb/matrix.h>
#include <hvb/outfile.h>
#include <hvb/run.h>

/*
 * trace_file.c: --trace FILE.  hvb_trace_begin() wraps the @n bodies
 * @b (after the command's hooks) and starts the recorder; 0 or the exit
 * status.  hvb_trace_end() stops it and writes the file: 0 or the exit
 * status, having said why.  hvb_trace_annotate() adds hvbench.trace to
 * the results.
 */
struct trace_wrap;
struct hvb_trace_run {
    const char *path;
    uint64_t max_events, lock_ns;
    bool holds; /* --trace-holds */
    struct trace_wrap *w;
    uint64_t origin_ns;
    uint64_t origin_realtime_ns; /* CLOCK_REALTIME at origin_ns */
    uint64_t written, overwritten, over_cap;
    /* --processes (trace_merge.c): the children's, taken one by one. */
    json_t *merged_events, *merged_names;
    unsigned int children;
    bool lock_sites, holds_timed;
};
int hvb_trace_begin(struct hvb_trace_run *tr, struct hvb_engine_bench *b,
                    size_t n);
int hvb_trace_end(struct hvb_trace_run *tr, const struct hvb_matrix *m);
void hvb_trace_annotate(const struct hvb_trace_run *tr, json_t *root);
void hvb_trace_free(struct hvb_trace_run *tr);
/*
 * The file's time 0: @origin_ns (CLOCK_MONOTONIC) and the CLOCK_REALTIME
 * of now.  The file's head up to "traceEvents":[ for @n events, with
 * @generator, "@key": @val and the lock flags (trace_merge.c's too).
 */
void hvb_trace_set_origin(struct hvb_trace_run *tr, uint64_t origin_ns);
void hvb_trace_put_head(FILE *f, const struct hvb_trace_run *tr, size_t n,
                        const char *generator, const char *key,
                        unsigned int val, bool holds, bool sites);

/*
 * trace_merge.c: --trace with --processes (the file's origin set with
 * hvb_trace_set_origin()).  hvb_trace_take() adds child @k's trace file
 * @path (0, or -errno with @err); hvb_trace_merge_end() writes the file:
 * 0 or the exit status, having said why.
 */
int hvb_trace_take(struct hvb_trace_run *tr, const struct hvb_matrix *m,
                   const char *path, unsigned int k, char *err, size_t len);
int hvb_trace_merge_end(struct hvb_trace_run *tr, const struct hvb_matrix *m);

/*
 * run_session.c: one measuring run's state, shared with run_processes.c
 * (--processes).
 */
struct hvb_run_state {
    const struct hvb_matrix *m;
    const struct hvb_run_opts *o;
    const struct hvb_buildinfo *bi;
    int64_t *iters;
    json_t *probe, *env;
    bool quiet;
    struct hvb_outfile_lock *lock; /* held on --out for the run */
    /* What an interrupt finds (under write_lock). */
    pthread_mutex_t write_lock;
    unsigned int done;    /* rounds run (with --resume: and kept) */
    unsigned int written; /* rounds in --out (or in last, in place) */
    json_t *last;         /* in place: the document of those rounds */
    pid_t child;          /* --processes: the child running, or 0 */
    unsigned int proc;    /* --processes: its number, from 1 */
    const char *child_out;
    const char *child_trace;    /* --trace: the child's own file */
    struct hvb_trace_run trace; /* --trace: path NULL when not */
};

/* The engine's context is known: print it on stderr unless quiet. */
void hvb_run_on_context(void *ctx, const char *context_json);

/*
 * run_processes.c: run the children one after another and pool their
 * rounds into @res (child k's round r is repetition k * rounds + r).
 * Returns the exit status, having said why on failure.
 */
int hvb_run_processes(struct hvb_run_state *st, struct hvb_engine_result *res);

#endif /* HVB_SESSION_PRIVATE_H */
