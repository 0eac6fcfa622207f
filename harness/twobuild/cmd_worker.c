/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench worker": one build's half of the paired two-build gate
 * (cmd_gate_bin.c; the protocol is in private.h).  It takes the
 * run options, builds the matrix and the models as "run" does (through
 * run's hooks), says hello with its build block and cell names, then
 * runs one sample per command, so that the gate can alternate samples of
 * two live, warm processes.  Each sample is one engine run of one cell
 * with a fixed per-thread count (the count both builds share); a cell is
 * prepared at its first sample and stays prepared.
 *
 * Example (what the gate sends, what comes back):
 *   > cal 0 0.01         < ok {"iterations": 1612903, "ns": 6.2}
 *   > run 0 1600000      < ok {"ns": 6.18, "counters": {"tsc_cycles_per_op":
 *                          13.9, ...}}
 *   > quit               < bye
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/buildinfo.h>
#include <hvb/cmdline.h>
#include <hvb/gate.h>
#include <hvb/engine.h>
#include <hvb/env.h>
#include "private.h"
#include <hvb/run.h>

#define MAX_CAL_SECONDS 10.0
#define MAX_RUN_ITERS   1000000000000ull /* a run of a 1 ns op: 17 min */

const struct hvb_cmd_doc hvb_doc_worker = {
    .usage = "worker WORKLOAD [run options]",
    .text =
        "Internal: the worker process of 'hvbench gate --base-bin' (one\n"
        "per build).  Builds the cells as 'run' would, prints a hello\n"
        "line, then answers 'cal CELL SECONDS', 'run CELL ITERS' and\n"
        "'quit', one line each, on stdin and stdout (harness/gate/private.h).\n"
        "--repetitions, --min-time and --out do not apply; --processes\n"
        "and --resume are refused.\n"
        "\n"
        "'worker --run-bin OLD WORKLOAD [run options]' answers the same\n"
        "commands with whole 'OLD run' processes, for a build older than\n"
        "the worker ('gate --base-runs').",
    .inherits = "run",
};

/* The build block the two builds must share. */
static json_t *build_json(const struct hvb_buildinfo *bi)
{
    return json_pack("{ss ss ss sb}", "compiler", bi->compiler, "cflags",
                     bi->cflags, "build_type", bi->build_type, "lockstat",
#ifdef HV_NO_LOCKSTAT
                     0
#else
                     1
#endif
    );
}

void hvb_worker_say(const char *word, json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(12));

    printf("%s %s\n", word, s ? s : "{}");
    free(s);
    json_decref(o);
    fflush(stdout);
}

static void say_err(const char *msg)
{
    printf("err %s\n", msg);
    fflush(stdout);
}

static void hello(const struct hvb_matrix *m)
{
    struct hvb_buildinfo bi;
    json_t *cells = json_array(), *env = hvb_env_before();
    size_t i;

    hvb_buildinfo_get(&bi);
    for ( i = 0; i < m->nr_cells; i++ )
        json_array_append_new(cells, json_string(m->cells[i].name));
    hvb_worker_say("hello",
                   json_pack("{si so s{ss s{ss sb} so so}}", "protocol",
                             HVB_WORKER_PROTOCOL, "cells", cells, "hvbench",
                             "version", bi.version, "git", "commit", bi.commit,
                             "dirty", bi.dirty == 1, "build", build_json(&bi),
                             "environment", env ? env : json_null()));
}

/* One sample of @b (iterations 0: calibrate to @secs); answers it. */
static void sample(const struct hvb_engine_bench *b, double secs, bool cal)
{
    struct hvb_engine_opts eo = {
        .repetitions = 1,
        .min_time_s = secs,
        .argv0 = "hvbench worker",
    };
    struct hvb_engine_result r = {0};
    const struct hvb_engine_sample *s;
    json_t *ctrs;
    char err[512] = "";
    size_t i;

    if ( hvb_engine_run(b, 1, &eo, &r, err, sizeof(err)) )
    {
        say_err(err[0] ? err : "engine run failed");
        return;
    }
    s = r.nr_samples ? &r.samples[r.nr_samples - 1] : NULL;
    if ( s == NULL || s->error || s->iterations <= 0 )
        say_err(s && s->error_message ? s->error_message : "no sample");
    else if ( cal )
        hvb_worker_say("ok", json_pack("{sI sf}", "iterations",
                                       (json_int_t)(s->iterations / s->threads),
                                       "ns", s->real_ns));
    else
    {
        ctrs = json_object();
        for ( i = 0; i < s->nr_counters; i++ )
            json_object_set_new(ctrs, s->counters[i].name,
                                json_real(s->counters[i].value));
        hvb_worker_say(
            "ok", json_pack("{sf so}", "ns", s->real_ns, "counters", ctrs));
    }
    hvb_engine_result_free(&r);
}

/*
 * Parse "CELL ARG" (after "cal " or "run "): the cell index and the
 * argument, or false.  With @whole, ARG is an iteration count: digits
 * only, 1 to MAX_RUN_ITERS ("run 0 99999999999999999999" was converted
 * to int64_t out of range: undefined behaviour).
 */
static bool parse_cmd(const char *line, const struct hvb_matrix *m, bool whole,
                      size_t *cell, double *arg)
{
    unsigned long long it;
    unsigned long c;
    char *end;

    errno = 0;
    c = strtoul(line, &end, 10);
    if ( errno || end == line || *line == '-' || *end != ' ' ||
         c >= m->nr_cells )
        return false;
    *cell = c;
    line = end + 1;
    if ( whole )
    {
        it = *line >= '0' && *line <= '9' ? strtoull(line, &end, 10) : 0;
        *arg = (double)it;
        if ( errno || it < 1 || it > MAX_RUN_ITERS )
            return false;
    }
    else
    {
        *arg = strtod(line, &end);
        if ( errno || end == line || !isfinite(*arg) )
            return false;
    }
    return *end == '\0' || *end == '\n';
}

static int worker_loop(void *ctx, struct hvb_matrix *m,
                       struct hvb_engine_bench *bodies, size_t n)
{
    char *line = NULL;
    size_t cap = 0, cell;
    double arg;

    (void)ctx;
    hello(m);
    while ( getline(&line, &cap, stdin) > 0 )
    {
        struct hvb_engine_bench b;
        bool cal = strncmp(line, "cal ", 4) == 0;

        if ( strncmp(line, "quit", 4) == 0 )
            break;
        if ( !(cal || strncmp(line, "run ", 4) == 0) ||
             !parse_cmd(line + 4, m, !cal, &cell, &arg) || cell >= n ||
             (cal ? !(arg > 0 && arg <= MAX_CAL_SECONDS) : !(arg >= 1)) )
        {
            char msg[160];

            line[strcspn(line, "\n")] = '\0';
            snprintf(msg, sizeof(msg),
                     "bad command '%.64s' (cal CELL SECONDS, run CELL ITERS, "
                     "quit)",
                     line);
            say_err(msg);
            continue;
        }
        b = (struct hvb_engine_bench){
            .name = m->cells[cell].name,
            .threads = m->cells[cell].cell.threads,
            .one_shot = m->w->flags & HVB_WF_ONE_SHOT,
            .iterations = cal ? 0 : (int64_t)arg,
            .body = bodies[cell].body,
            .arg = bodies[cell].arg,
        };
        sample(&b, cal ? arg : 0.01, cal);
    }
    free(line);
    printf("bye\n");
    fflush(stdout);
    return HVB_HOOK_DONE;
}

int hvb_cmd_worker(struct hvb_cmd_ctx *ctx)
{
    static const struct hvb_run_hooks hooks = {.before = worker_loop};

    if ( ctx->argc > 1 && strcmp(ctx->argv[1], "--run-bin") == 0 )
        return hvb_worker_runs(ctx->argc, ctx->argv);
    return hvb_cmd_run_as(ctx, ctx->argc, ctx->argv, &hooks);
}
