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

/* Reap @w; its exit status, or 128 + signal. */
int hvb_gate_worker_wait(struct hvb_gate_worker *w);

#endif /* HVB_TWOBUILD_PRIVATE_H */
