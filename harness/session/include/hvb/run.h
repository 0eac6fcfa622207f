/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One "hvbench run": build and check the matrix, create the models, run
 * every cell through the engine, summarise, print and store the results,
 * tear everything down.
 */
#ifndef HVB_RUN_H
#define HVB_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include <hvb/engine.h>
#include <hvb/matrix.h>
#include <hvb/meter.h>
#include <hvb/perfev.h>
#include <hvb/summary.h>

enum hvb_format {
    HVB_FORMAT_CONSOLE,
    HVB_FORMAT_JSON,
    HVB_FORMAT_CSV,
    HVB_FORMAT_MARKDOWN,
};

enum hvb_instrument {
    HVB_INSTRUMENT_NONE,
    HVB_INSTRUMENT_CALLGRIND,
};

/*
 * What "profile" and "lockstat" add to a run; every hook is optional.
 * before: after the models exist, before measuring; may wrap the
 * benches' bodies (each b[i].arg is &m->cells[i]).  Non-zero aborts.
 * annotate: add to the results document before it is written.
 * print: after the console table (stdout).
 * A before hook that returns HVB_HOOK_DONE has done the command's work
 * itself (the paired gate's worker): exit 0, nothing measured or printed.
 */
#define HVB_HOOK_DONE 1
struct hvb_run_hooks {
    void *ctx;
    int (*before)(void *ctx, struct hvb_matrix *m, struct hvb_engine_bench *b,
                  size_t n);
    void (*after)(void *ctx, struct hvb_matrix *m);
    void (*annotate)(void *ctx, const struct hvb_matrix *m,
                     const struct hvb_summary *s, json_t *root);
    void (*print)(void *ctx, const struct hvb_matrix *m,
                  const struct hvb_summary *s);
};

/*
 * For an annotate hook: @run (taken) as hvbench.@key of results document
 * @root, and cell(@ctx, i) as cells[i].@key for each cell i of @m that the
 * document holds (a NULL from cell(): nothing for that cell).  E.g. key
 * "lockstat": hvbench.lockstat = {"compiled_in": true, ...} and
 * cells[0].lockstat = [the first cell's rows].
 */
void hvb_run_annotate(json_t *root, const struct hvb_matrix *m, const char *key,
                      json_t *run, json_t *(*cell)(void *ctx, size_t i),
                      void *ctx);

struct hvb_run_opts {
    struct hvb_matrix_spec spec;
    unsigned int repetitions;
    double min_time_s;
    bool interleave;
    enum hvb_format format; /* what goes to stdout */
    const char *out_path;   /* JSON file, or NULL */
    bool quiet;             /* no progress on stderr */
    enum hvb_counters_mode counters;
    const struct hvb_perfev_list *events; /* --events, or NULL */
    enum hvb_instrument instrument;
    int64_t iterations; /* --iterations: fixed per-thread count, 0: calibrate */
    bool resume;        /* --resume: keep the finished rounds of --out */
    /*
     * --processes N: run N child processes (each the whole command line
     * less --processes, --out and --resume: child_argv, from the command
     * name on) and pool their rounds.  1: measure in this process.
     */
    unsigned int processes;
    int child_argc;
    char **child_argv;
    int argc; /* the whole command line, recorded */
    char *const *argv;
    const struct hvb_run_hooks *hooks; /* or NULL */
    /*
     * --trace FILE (or NULL): a Chrome Trace Event Format timeline of
     * the run, at most trace_max_events events, lock waits (and with
     * trace_holds holds) of at least trace_lock_ns
     * (harness/session/trace_file.c).
     */
    const char *trace_path;
    uint64_t trace_max_events, trace_lock_ns;
    bool trace_holds;
    bool plan; /* --plan: print the cells (hvb/shard.h), measure nothing */
};

/* Run; returns the exit status (0, 1 failed run, 2 input error). */
int hvb_run(const struct hvb_run_opts *o);

struct hvb_cmd_ctx;
struct hvb_cmd_doc;

/*
 * hvb_cmd_run_as - "hvbench run"'s option parser and run over @argv, for
 * the commands that take the run options (@ctx names the command in
 * messages, its first form's --help is printed, its whole command line
 * recorded).
 */
int hvb_cmd_run_as(const struct hvb_cmd_ctx *ctx, int argc, char **argv,
                   const struct hvb_run_hooks *hooks);

/* "hvbench run WORKLOAD [options]" (the commands table). */
int hvb_cmd_run(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_run;

#endif /* HVB_RUN_H */
