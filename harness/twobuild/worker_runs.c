/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench worker --run-bin OLD WORKLOAD [run options]": the worker
 * protocol (private.h) answered for a build older than the worker (main
 * before fc276dc, its first 88 commits) by whole "OLD run" processes.
 * "gate --base-bin OLD --base-runs" starts this in place of OLD's own
 * worker and pairs it as it pairs a worker: the same commands, the same
 * count per cell, AB BA.  Each sample is a process of its own (start-up,
 * the model built afresh, cold caches), so its spread is wider and the
 * gate needs more pairs to decide; the hello says "by_runs" and the gate
 * and review say so.
 *
 * Example (the line "lookup --plugin domlookup=rwlock-ref,rcu-noref"):
 *   > cal 0 0.01      OLD run LINE --repetitions 1 --min-time 0.01 --out T
 *                     < ok {"iterations": 1612903, "ns": 6.2}
 *   > run 0 1600000   OLD run LINE --repetitions 1 --iterations 1600000 ...
 *                     < ok {"ns": 6.18, "counters": {...}}
 *   > run 1 1600000   answered from that process's cell 1 (once)
 *   > run 0 1600000   a new process
 * A build older than --iterations runs each sample for as long as the
 * count took at calibration instead, and says so in its hello.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <hvb/cmdline.h>
#include <hvb/exec.h>
#include <hvb/gate.h>

#include "private.h"

#define RUN_TIMEOUT_S 3600.0

struct runs {
    const char *bin;
    char *const *line; /* WORKLOAD [run options], as the gate gave them */
    int nr;
    char dir[64], out[96];
    bool has_iterations;
    json_t *cells; /* the last process's replies per cell, or NULL */
    bool *used;    /* per cell: its reply was given */
    double n;      /* the count that process ran (-S: calibrated to S s) */
    double *cal_ns;
    size_t nr_cells;
};

/* Whether OLD's run takes --iterations. */
static bool takes_iterations(const char *bin)
{
    char *av[] = {(char *)bin, "run", "--help", NULL};
    struct hvb_exec c = {
        .argv = av, .timeout_s = 60, .max_out = 1u << 20, .capture_err = true};
    bool yes = hvb_exec_run(&c) == 0 && c.out != NULL &&
               strstr(c.out, "--iterations") != NULL;

    hvb_exec_free(&c);
    return yes;
}

/* A cell's reply from a "benchmarks" entry of OLD's results. */
static json_t *reply_of(json_t *b)
{
    static const char *const skip[] = {"name",
                                       "family_index",
                                       "per_family_instance_index",
                                       "run_name",
                                       "run_type",
                                       "repetitions",
                                       "repetition_index",
                                       "threads",
                                       "iterations",
                                       "real_time",
                                       "cpu_time",
                                       "time_unit",
                                       NULL};
    json_t *ctrs = json_object(), *v;
    const char *k, *unit = json_string_value(json_object_get(b, "time_unit"));
    double ns = json_number_value(json_object_get(b, "real_time"));
    double th = json_number_value(json_object_get(b, "threads"));
    size_t i;

    ns *= unit == NULL || strcmp(unit, "ns") == 0 ? 1
          : strcmp(unit, "us") == 0               ? 1e3
          : strcmp(unit, "ms") == 0               ? 1e6
                                                  : 1e9;
    json_object_foreach(b, k, v)
    {
        for ( i = 0; skip[i] != NULL && strcmp(skip[i], k); i++ )
            ;
        if ( skip[i] == NULL && json_is_number(v) )
            json_object_set(ctrs, k, v);
    }
    return json_pack(
        "{s:I, s:f, s:o}", "iterations",
        (json_int_t)(json_number_value(json_object_get(b, "iterations")) /
                     (th >= 1 ? th : 1)),
        "ns", ns, "counters", ctrs);
}

/*
 * One "OLD run LINE --repetitions 1 @opt @val --out T": every cell's
 * reply into r->cells (@doc: the document, for the hello).  0 or -errno
 * with @err.
 */
static int one_run(struct runs *r, const char *opt, const char *val,
                   json_t **doc, char *err, size_t len)
{
    char **av = calloc((size_t)r->nr + 12, sizeof(*av));
    struct hvb_exec c = {
        .timeout_s = RUN_TIMEOUT_S, .max_out = 1u << 20, .capture_err = true};
    json_error_t je;
    json_t *d, *b;
    size_t n = 0, i;
    int k, rc;

    if ( av == NULL )
        return -ENOMEM;
    av[n++] = (char *)r->bin;
    av[n++] = "run";
    for ( k = 0; k < r->nr; k++ )
        av[n++] = r->line[k];
    av[n++] = "--repetitions";
    av[n++] = "1";
    av[n++] = (char *)opt;
    av[n++] = (char *)val;
    av[n++] = "--out";
    av[n++] = r->out;
    c.argv = av;
    unlink(r->out);
    rc = hvb_exec_run(&c);
    if ( rc )
        hvb_exec_error(&c, rc, err, len);
    hvb_exec_free(&c);
    free(av);
    if ( rc )
        return -EIO;
    d = json_load_file(r->out, 0, &je);
    if ( d == NULL )
    {
        snprintf(err, len, "%s run wrote no results: %s", r->bin, je.text);
        return -EIO;
    }
    json_decref(r->cells);
    r->cells = json_array();
    json_array_foreach(json_object_get(d, "benchmarks"), i, b)
        if ( strcmp(json_string_value(json_object_get(b, "run_type")) ?: "",
                    "aggregate") )
            json_array_append_new(r->cells, reply_of(b));
    if ( doc != NULL )
        *doc = d;
    else
        json_decref(d);
    return 0;
}

/* The hello, from a short first process: OLD's cells and build. */
static int hello(struct runs *r)
{
    json_t *doc = NULL, *hv, *build, *names = json_array(), *b;
    char err[1024];
    size_t i;

    if ( one_run(r, "--min-time", "0.01", &doc, err, sizeof(err)) )
    {
        json_decref(names);
        printf("err %s\n", err);
        return hvb_usage_error("worker --run-bin: %s", err);
    }
    hv = json_object_get(doc, "hvbench");
    build = json_deep_copy(json_object_get(hv, "build"));
    json_object_del(build, "benchmark_library_build_type");
    json_array_foreach(json_object_get(doc, "benchmarks"), i, b)
        json_array_append(names, json_object_get(b, "name"));
    r->nr_cells = json_array_size(names);
    r->used = calloc(r->nr_cells + 1, sizeof(*r->used));
    r->cal_ns = calloc(r->nr_cells + 1, sizeof(*r->cal_ns));
    hvb_worker_say(
        "hello", json_pack("{s:i, s:o, s:b, s:b, s:{s:O?, s:O?, s:o, s:O?}}",
                           "protocol", HVB_WORKER_PROTOCOL, "cells", names,
                           "by_runs", 1, "by_time", !r->has_iterations,
                           "hvbench", "version", json_object_get(hv, "version"),
                           "git", json_object_get(hv, "git"), "build", build,
                           "environment", json_object_get(hv, "environment")));
    json_decref(doc);
    r->n = 0; /* the hello's process answers nothing */
    return r->used && r->cal_ns ? 0 : hvb_failure("out of memory");
}

/* "cal C S" (@cal) or "run C N": the reply for cell @c. */
static void answer(struct runs *r, size_t c, double arg, bool cal)
{
    char val[64], err[1024];
    const char *opt = cal ? "--min-time" : "--iterations";
    json_t *x;

    /* A process answers each of its cells once, for its own count. */
    if ( r->n != (cal ? -arg : arg) || r->cells == NULL || r->used[c] )
    {
        if ( cal )
            snprintf(val, sizeof(val), "%.9g", arg);
        else if ( r->has_iterations )
            snprintf(val, sizeof(val), "%.0f", arg);
        else
        {
            /* No --iterations: as long as the count took at calibration. */
            opt = "--min-time";
            snprintf(val, sizeof(val), "%.9g",
                     r->cal_ns[c] > 0 ? arg * r->cal_ns[c] * 1e-9 : 0.01);
        }
        if ( one_run(r, opt, val, NULL, err, sizeof(err)) )
        {
            printf("err %s\n", err);
            fflush(stdout);
            return;
        }
        r->n = cal ? -arg : arg;
        memset(r->used, 0, r->nr_cells * sizeof(*r->used));
    }
    x = json_array_get(r->cells, c);
    if ( x == NULL )
    {
        printf("err %s made no cell %zu\n", r->bin, c);
        fflush(stdout);
        return;
    }
    r->used[c] = true;
    if ( cal )
    {
        r->cal_ns[c] = json_number_value(json_object_get(x, "ns"));
        hvb_worker_say("ok", json_pack("{s:O, s:O}", "iterations",
                                       json_object_get(x, "iterations"), "ns",
                                       json_object_get(x, "ns")));
    }
    else
        hvb_worker_say("ok",
                       json_pack("{s:O, s:O}", "ns", json_object_get(x, "ns"),
                                 "counters", json_object_get(x, "counters")));
}

int hvb_worker_runs(int argc, char **argv)
{
    struct runs r = {.bin = argc > 2 ? argv[2] : NULL};
    char *line = NULL, *end;
    size_t cap = 0;
    unsigned long c;
    double arg;
    int status;

    if ( r.bin == NULL || argc < 4 )
        return hvb_usage_error("worker --run-bin needs OLD and a workload");
    r.line = argv + 3;
    r.nr = argc - 3;
    snprintf(r.dir, sizeof(r.dir), "/tmp/hvbench-runs.XXXXXX");
    if ( mkdtemp(r.dir) == NULL )
        return hvb_failure("worker --run-bin: %s", strerror(errno));
    snprintf(r.out, sizeof(r.out), "%s/results.json", r.dir);
    r.has_iterations = takes_iterations(r.bin);
    status = hello(&r);
    while ( status == 0 && getline(&line, &cap, stdin) > 0 )
    {
        bool cal = strncmp(line, "cal ", 4) == 0;

        if ( strncmp(line, "quit", 4) == 0 )
            break;
        errno = 0;
        c = strtoul(line + 4, &end, 10);
        arg = *end == ' ' ? strtod(end + 1, NULL) : 0;
        if ( !(cal || strncmp(line, "run ", 4) == 0) || errno ||
             c >= r.nr_cells || !(arg > 0) )
        {
            line[strcspn(line, "\n")] = '\0';
            printf("err bad command '%.64s' (cal CELL SECONDS, run CELL "
                   "ITERS, quit)\n",
                   line);
            fflush(stdout);
            continue;
        }
        answer(&r, c, arg, cal);
    }
    if ( status == 0 )
    {
        printf("bye\n");
        fflush(stdout);
    }
    free(line);
    json_decref(r.cells);
    free(r.used);
    free(r.cal_ns);
    unlink(r.out);
    rmdir(r.dir);
    return status;
}
