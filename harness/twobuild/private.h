/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The twobuild room (harness/twobuild/): two builds paired in one run,
 * "gate --base-bin" (cmd_gate_bin.c), with the worker of cmd_worker.c in
 * each build, gate_worker.c its gate end, and worker_runs.c the worker
 * answered by whole run processes for a build older than it.
 *
 * The worker protocol (one line each way, on the worker's stdin and
 * stdout; stderr is the worker's own):
 *
 *   worker -> "hello {JSON}" once the cells are built:
 *             {"protocol": 1, "cells": [names],
 *              "hvbench": {"version", "git", "build", "environment"}}
 *             ("build": the results' build block plus "lockstat")
 *   "cal CELL SECONDS"   one sample of cell CELL (its index) with the
 *                        library's calibration to SECONDS
 *             -> "ok {"iterations": per-thread count, "ns": ns/op}"
 *   "run CELL ITERS"     one sample of ITERS operations per thread
 *             -> "ok {"ns": ns/op, "counters": {name: value}}"
 *   "quit" (or end of input) -> "bye", exit 0
 *   a sample that failed, or a bad command -> "err MESSAGE"
 *
 * Worked example: "hvbench worker lookup --plugin domlookup=rcu-ref -q"
 * prints "hello {...\"cells\": [\"lookup/domlookup=rcu-ref/threads:1\"]}";
 * "run 0 1000000" answers "ok {\"ns\": 6.1, \"counters\": {...}}".
 */
#ifndef HVB_TWOBUILD_PRIVATE_H
#define HVB_TWOBUILD_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include <hvb/compare.h>
#include <hvb/twobuild.h>

#define HVB_WORKER_PROTOCOL 1

/*
 * The gate's end of the worker protocol (gate_worker.c): one build's
 * worker process, its pipes and its hello.
 */
struct hvb_gate_worker {
    const char *label; /* "base" or "new" */
    const char *bin;
    double timeout_s; /* for each answer, the hello included */
    pid_t pid;
    FILE *in;
    int out; /* its stdout; -1 before the start and after the stop */
    json_t *hello;
    char *line, *buf; /* the last line read; what came after it */
    size_t cap, bufcap, have;
};

#define HVB_WORKER_TIMEOUT 120 /* s, default --worker-timeout */

/*
 * Start @w running "BIN worker @args..." (@args[0] is replaced by the
 * binary) and read its hello.  Returns 0, or an exit status having said
 * why (2: not a worker, its run options were refused, or no hello
 * within w->timeout_s).
 */
int hvb_gate_worker_start(struct hvb_gate_worker *w, char **args);

/*
 * Send @cmd, read the answer: "ok JSON" -> @reply; else -EIO with @err,
 * or -ETIMEDOUT (no answer within w->timeout_s: the worker killed).
 */
int hvb_gate_worker_ask(struct hvb_gate_worker *w, const char *cmd,
                        json_t **reply, char *err, size_t len);

/* "quit", drain (HVB_WORKER_STOP_S at most, then kill), reap, free @w. */
void hvb_gate_worker_stop(struct hvb_gate_worker *w);

/* cmd_worker.c: a reply line, "@word JSON" (@o put), flushed. */
void hvb_worker_say(const char *word, json_t *o);

/*
 * worker_runs.c: "worker --run-bin OLD LINE...": the protocol answered by
 * whole "OLD run" processes, for a build older than the worker.
 */
int hvb_worker_runs(int argc, char **argv);

/*
 * gate --base-bin (cmd_gate_bin.c: its options, its plan of pairs and
 * looks, the loop; gate_bin_pairs.c: a process pair, a look;
 * gate_bin_report.c: the verdicts said).
 */
#define GATE_ALPHA       0.05 /* over all looks together */
#define SIM_ITERATIONS   20000
#define MAX_ROUNDS       HVB_GATE_MAX_ROUNDS

#define GATE_MAX_METRICS 8

struct gate_bin {
    const char *metric, *md_path, *json_path;
    char metric_buf[256];                  /* --metric, split */
    const char *metrics[GATE_MAX_METRICS]; /* several: sim_ counts alone */
    size_t nr_metrics;
    bool thr_given; /* --max-regression: for every metric */
    double thr;
    bool allow_unstable, sim, tty;
    bool base_runs; /* the base by whole run processes */
    unsigned int pairs, max_pairs, look_every, rounds;
    double sample_s, budget_s;
    char **args;                 /* argv of a worker, [0] set per build */
    char **run_args[2];          /* --base-runs: each build's proxy's argv */
    char self[4096];             /* this hvbench (--base-runs) */
    struct hvb_gate_worker w[2]; /* base, new */
    json_t *hello[2];            /* the first pair's, kept */
    json_t *names;               /* the cells' names */
    size_t nr_cells;
    int64_t *iters;
    unsigned int *npairs;      /* per cell: its process pairs so far */
    bool *decided;             /* per cell: its verdict is final */
    struct hvb_cmp_row *final; /* per cell: the row of its verdict */
    unsigned int looks, max_looks;
    double alpha;         /* per look: GATE_ALPHA / max_looks */
    double t0, pair_s;    /* the start; the last pair's seconds */
    size_t pair_cells;    /* the cells the last pair sampled */
    json_t **time[2];     /* per cell: samples_ns_per_op arrays */
    json_t **counters[2]; /* per cell: {name: {"samples": [...]}} */
    char err[768];
};

/*
 * gate_bin_metrics.c: --metric M[,M...] read into g->metrics (several:
 * sim_ counts only) and the --json/--markdown FILEs checked ("%m" for
 * each metric's); 0 or exit 2.
 */
int hvb_gate_bin_metrics(struct gate_bin *g);

/*
 * Each metric's verdicts from the samples taken (a look per metric
 * after the first) and its report (hvb_gate_bin_report()): the worst
 * exit status (1, then 3, then 0).
 */
int hvb_gate_bin_each(struct gate_bin *g, struct hvb_cmp *c, double seconds);

/*
 * Process pair @p: start both workers (alternating who first), warm,
 * rounds, of the cells not decided yet; stop both.  0 or an exit status.
 */
int hvb_gate_bin_pair(struct gate_bin *g, unsigned int p);

/* How many cells are not decided yet. */
size_t hvb_gate_bin_undecided(const struct gate_bin *g);

/*
 * A look at every cell (@c: the comparison, replaced): a cell not
 * decided before takes its row, and its verdict is final unless it is
 * unknown.  0 or exit 2.
 */
int hvb_gate_bin_look(struct gate_bin *g, struct hvb_cmp *c);

/*
 * The verdicts after @seconds: stdout, the report, --markdown, --json;
 * the exit status.
 */
int hvb_gate_bin_report(struct gate_bin *g, struct hvb_cmp *c, double seconds);

#endif /* HVB_TWOBUILD_PRIVATE_H */
