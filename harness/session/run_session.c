/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One "hvbench run" from validated options to exit status.  Everything the
 * user named is checked before anything is built or run (matrix, then the
 * workload's check(), then the output path); git is asked for the commit
 * before measuring, so it never runs beside a measured loop.
 *
 * Cells run as paired rounds (hvb/rounds.h).  With --out, the results file
 * is rewritten atomically after every round (hvbench.run.complete false
 * until the last), so an interrupted run keeps its finished rounds and
 * --resume runs only the missing ones.  --instrument callgrind re-runs
 * this command under valgrind (callgrind.c).  --processes N re-runs
 * this command N times, one child process after another, each writing
 * its own results file, and pools the children's rounds
 * (run_processes.c).
 *
 * SIGINT and SIGTERM stop a run cleanly (hvb/watch.h), even one whose
 * round never ends: the rounds done are in --out (complete false; written
 * at once for a pipe or /dev/null, which get no file per round), a child
 * of --processes is stopped and its file removed, and the exit status is
 * 128 + the signal.  Every write of --out holds st->write_lock, so the
 * interrupt never sees half of one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <valgrind/valgrind.h>

#include <hv/compiler.h>

#include <hvb/buildinfo.h>
#include "callgrind.h"
#include <hvb/cmdline.h>
#include <hvb/console.h>
#include <hvb/engine.h>
#include <hvb/env.h>
#include <hvb/meter.h>
#include <hvb/outfile.h>
#include <hvb/results.h>
#include <hvb/results_read.h>
#include <hvb/resume.h>
#include <hvb/rounds.h>
#include <hvb/run.h>
#include <hvb/runner.h>
#include <hvb/shard.h>
#include <hvb/summary.h>
#include <hvb/tabular.h>
#include <hvb/watch.h>

#include "private.h"

/* Fixed operations per sample under callgrind: deterministic counts. */
#define CALLGRIND_ITERATIONS 20000

/* A status of measure_and_report(): the before hook did the work. */
#define HOOK_DONE (-1)

void hvb_run_on_context(void *ctx, const char *context_json)
{
    struct hvb_run_state *st = ctx;
    json_t *gb;

    if ( st->quiet )
        return;
    gb = json_loads(context_json, 0, NULL);
    if ( gb != NULL )
        hvb_console_context(stderr, json_object_get(gb, HVB_RK_CONTEXT));
    json_decref(gb);
}

/* An error code of the matrix stages -> exit status, printing @err. */
static int stage_error(int rc, const char *err)
{
    if ( rc == -EINVAL )
        return hvb_usage_error("%s", err);
    return hvb_failure("%s", err[0] ? err : strerror(-rc));
}

static void fill_meta(const struct hvb_run_state *st, unsigned int rounds_done,
                      struct hvb_run_meta *meta)
{
    const struct hvb_run_opts *o = st->o;

    memset(meta, 0, sizeof(*meta));
    meta->argc = o->argc;
    meta->argv = o->argv;
    meta->repetitions = o->repetitions * o->processes;
    meta->processes = o->processes;
    meta->min_time_s = o->min_time_s;
    meta->interleave = o->interleave;
    meta->seed = o->spec.seed;
    meta->affinity = hvb_affinity_name(o->spec.affinity);
    meta->shared_iterations = st->iters;
    meta->rounds_done = rounds_done;
    meta->instrument =
        o->instrument == HVB_INSTRUMENT_CALLGRIND ? "callgrind" : "none";
    meta->iterations = o->iterations;
    meta->counters = st->probe;
    meta->environment = st->env;
}

/* The document for the rounds so far; NULL with @err. */
static json_t *build_doc(const struct hvb_run_state *st,
                         const struct hvb_engine_result *res,
                         unsigned int rounds_done, struct hvb_summary *s,
                         char *err, size_t len)
{
    struct hvb_run_meta meta;

    fill_meta(st, rounds_done, &meta);
    if ( hvb_summary_build(st->m, res, s) )
    {
        snprintf(err, len, "out of memory summarising the run");
        return NULL;
    }
    return hvb_results_build(st->m, s, res, &meta, st->bi, err, len);
}

/* After each round: rewrite --out with the rounds so far. */
static int on_round(void *ctx, unsigned int round,
                    const struct hvb_engine_result *so_far)
{
    struct hvb_run_state *st = ctx;
    enum hvb_outfile_kind kind;
    struct hvb_summary s;
    char err[512] = "";
    json_t *doc;
    int rc;

    pthread_mutex_lock(&st->write_lock);
    st->done = round + 1;
    pthread_mutex_unlock(&st->write_lock);
    if ( !st->quiet && !isatty(2) )
        fprintf(stderr, "hvbench: round %u/%u done\n", round + 1,
                st->o->repetitions);
    if ( st->o->out_path == NULL || round + 1 >= st->o->repetitions )
        return 0;
    doc = build_doc(st, so_far, round + 1, &s, err, sizeof(err));
    pthread_mutex_lock(&st->write_lock);
    /* A pipe or /dev/null gets one document, at the end (or interrupt). */
    if ( doc != NULL &&
         hvb_outfile_check(st->o->out_path, "results", &kind, err,
                           sizeof(err)) == 0 &&
         kind == HVB_OUTFILE_INPLACE )
    {
        json_decref(st->last);
        st->last = json_incref(doc);
        rc = 0;
    }
    else
        rc = doc ? hvb_results_write(st->o->out_path, doc, err, sizeof(err))
                 : -1;
    if ( rc == 0 )
        st->written = round + 1;
    pthread_mutex_unlock(&st->write_lock);
    json_decref(doc);
    hvb_summary_free(&s);
    if ( rc )
        hvb_failure("%s", err);
    return rc ? -EIO : 0;
}

/* Print and store; returns the exit status. */
void hvb_run_annotate(json_t *root, const struct hvb_matrix *m, const char *key,
                      json_t *run, json_t *(*cell)(void *ctx, size_t i),
                      void *ctx)
{
    json_t *hv = json_object_get(root, HVB_RK_HVBENCH);
    json_t *cells = json_object_get(hv, HVB_RK_CELLS);
    size_t i;

    json_object_set_new(hv, key, run);
    for ( i = 0; i < json_array_size(cells) && i < m->nr_cells; i++ )
    {
        json_t *v = cell(ctx, i);

        if ( v != NULL )
            json_object_set_new(json_array_get(cells, i), key, v);
    }
}

static int report(struct hvb_run_state *st, const struct hvb_engine_result *res)
{
    const struct hvb_run_opts *o = st->o;
    struct hvb_summary s;
    json_t *root;
    char err[512] = "";
    int status = HVB_EXIT_OK, rc;

    root =
        build_doc(st, res, o->repetitions * o->processes, &s, err, sizeof(err));
    if ( root == NULL )
    {
        hvb_summary_free(&s);
        return hvb_failure("%s", err);
    }
    if ( o->hooks != NULL && o->hooks->annotate != NULL )
        o->hooks->annotate(o->hooks->ctx, st->m, &s, root);
    if ( st->trace.path != NULL )
        hvb_trace_annotate(&st->trace, root);
    switch ( o->format )
    {
    case HVB_FORMAT_JSON:
        if ( hvb_results_dump(stdout, root) )
            status =
                hvb_failure("writing results to stdout: %s", strerror(errno));
        break;
    case HVB_FORMAT_CSV:
        hvb_tabular_csv(stdout, root);
        break;
    case HVB_FORMAT_MARKDOWN:
        hvb_tabular_markdown(stdout, root);
        break;
    case HVB_FORMAT_CONSOLE:
        hvb_console_table(stdout, st->m, &s);
        break;
    }
    if ( o->hooks != NULL && o->hooks->print != NULL )
        o->hooks->print(o->hooks->ctx, st->m, &s);
    pthread_mutex_lock(&st->write_lock);
    rc = o->out_path != NULL
             ? hvb_results_write(o->out_path, root, err, sizeof(err))
             : 0;
    if ( rc == 0 )
        st->written = o->repetitions * o->processes;
    pthread_mutex_unlock(&st->write_lock);
    if ( rc )
        status = hvb_failure("%s", err);
    else if ( o->out_path != NULL && !o->quiet )
        fprintf(stderr, "hvbench: results written to %s\n", o->out_path);
    hvb_console_warnings(stderr, st->m, &s);
    if ( s.nr_failed > 0 )
    {
        hvb_failure("%zu of %zu cells failed", s.nr_failed, s.nr_cells);
        status = HVB_EXIT_FAIL;
    }
    json_decref(root);
    hvb_summary_free(&s);
    return status;
}

/* What an interrupt keeps, in one line. */
static void say_interrupted(const struct hvb_run_state *st, const char *name)
{
    const struct hvb_run_opts *o = st->o;
    unsigned int total = o->repetitions * o->processes;

    if ( st->written == 0 && o->processes > 1 )
        fprintf(stderr,
                "hvbench: interrupted (%s) in process %u of %u: nothing "
                "written (--processes writes the pooled rounds at the end)\n",
                name, st->proc, o->processes);
    else if ( st->done == 0 )
        fprintf(stderr,
                "hvbench: interrupted (%s) before round 1 finished: nothing "
                "written\n",
                name);
    else if ( o->out_path == NULL )
        fprintf(stderr,
                "hvbench: interrupted (%s): %u of %u rounds done, not kept "
                "(no --out)\n",
                name, st->done, total);
    else if ( st->written < total )
        fprintf(stderr,
                "hvbench: interrupted (%s): %u of %u rounds done, in %s "
                "(complete: false; --resume runs the rest)\n",
                name, st->written, total, o->out_path);
    else
        fprintf(stderr, "hvbench: interrupted (%s) after the last round\n",
                name);
}

/*
 * SIGINT/SIGTERM, on the watcher thread: stop a child, say what is kept,
 * release --out; the process then exits with 128 + @sig.  The write lock
 * is taken and never given back: no write starts or is cut after this.
 */
static void on_signal(void *ctx, int sig)
{
    struct hvb_run_state *st = ctx;
    const struct hvb_run_opts *o = st->o;
    char err[512] = "";
    int status;

    pthread_mutex_lock(&st->write_lock);
    if ( st->child > 0 && kill(st->child, sig) == 0 )
        while ( waitpid(st->child, &status, 0) < 0 && errno == EINTR )
            ;
    /* Whether a child runs, has ended, or is about to start. */
    if ( st->child_out != NULL )
        hvb_outfile_remove(st->child_out);
    if ( st->child_trace != NULL )
        hvb_outfile_remove(st->child_trace);
    if ( st->last != NULL &&
         hvb_results_write(o->out_path, st->last, err, sizeof(err)) )
        st->written = 0;
    if ( err[0] )
        fprintf(stderr, "hvbench: %s\n", err);
    /* -q (and a --processes child, whose parent speaks): the status says it. */
    if ( !o->quiet )
        say_interrupted(st, sig == SIGINT ? "SIGINT" : "SIGTERM");
    if ( st->lock != NULL )
        hvb_outfile_unlock(st->lock);
}

/*
 * --resume: the rounds of --out already done into @res, @ro->first the
 * next; 0 or the exit status, having said why.
 */
static int resume_rounds(struct hvb_run_state *st, struct hvb_rounds_opts *ro,
                         struct hvb_engine_result *res)
{
    const struct hvb_run_opts *o = st->o;
    struct hvb_run_meta meta;
    char err[512] = "";
    json_t *now;
    int rc;

    /* What this command would record, for the file to match. */
    fill_meta(st, 0, &meta);
    now = hvb_results_settings(&meta, st->bi);
    rc = now ? hvb_resume_load(o->out_path, st->m, o->repetitions, now,
                               st->iters, res, &ro->first, err, sizeof(err))
             : -ENOMEM;
    json_decref(now);
    if ( rc == -ENOMEM && now == NULL )
        snprintf(err, sizeof(err), "out of memory");
    st->written = st->done = ro->first;
    if ( rc == -EINVAL )
        return hvb_usage_error("%s", err);
    if ( rc )
        return hvb_failure("%s", err);
    if ( !o->quiet && ro->first > 0 )
        fprintf(stderr, "hvbench: resuming %s: %u of %u rounds done\n",
                o->out_path, ro->first, o->repetitions);
    return HVB_EXIT_OK;
}

/* What is about to run, on stderr. */
static void say_plan(const struct hvb_matrix *m, const struct hvb_run_opts *o,
                     const struct hvb_rounds_opts *ro)
{
    if ( o->processes > 1 )
        fprintf(stderr,
                "hvbench: %u processes, one after another, rounds pooled\n",
                o->processes);
    fprintf(stderr, "hvbench: %s: %zu cell(s) x %u paired round(s), %s\n",
            m->w->name, m->nr_cells, o->repetitions,
            (m->w->flags & HVB_WF_ONE_SHOT) ? "one iteration each"
            : ro->iterations                ? "fixed iterations"
                                            : "one calibrated count per group");
}

/*
 * The rounds, in this process or --processes children, between the
 * command's hooks: the exit status (HOOK_DONE: a hook did the work).
 */
static int run_rounds(struct hvb_run_state *st, struct hvb_matrix *m,
                      struct hvb_rounds_opts *ro,
                      struct hvb_engine_bench *bodies,
                      struct hvb_engine_result *res)
{
    const struct hvb_run_opts *o = st->o;
    char err[512] = "";
    int rc, status = HVB_EXIT_OK;

    if ( o->hooks != NULL && o->hooks->before != NULL &&
         (rc = o->hooks->before(o->hooks->ctx, m, bodies, m->nr_cells)) )
        return rc == HVB_HOOK_DONE ? HOOK_DONE : HVB_EXIT_FAIL;
    if ( o->processes > 1 && st->trace.path != NULL )
        hvb_trace_set_origin(&st->trace, hv_now_ns());
    if ( o->processes > 1 && (status = hvb_run_processes(st, res)) == 0 &&
         st->trace.path != NULL )
        status = hvb_trace_merge_end(&st->trace, m);
    if ( o->processes > 1 )
        return status;
    if ( st->trace.path != NULL &&
         (status = hvb_trace_begin(&st->trace, bodies, m->nr_cells)) )
        return status;
    rc = hvb_rounds_run(m, ro, st->iters, res, err, sizeof(err));
    if ( rc == -EIO )
        status = HVB_EXIT_FAIL; /* on_round said why */
    else if ( rc )
        status = hvb_failure("%s", err);
    if ( o->hooks != NULL && o->hooks->after != NULL )
        o->hooks->after(o->hooks->ctx, m);
    if ( st->trace.path != NULL && (rc = hvb_trace_end(&st->trace, m)) )
        status = status ? status : rc;
    return status;
}

static int measure_and_report(struct hvb_matrix *m,
                              const struct hvb_run_opts *o,
                              const struct hvb_buildinfo *bi,
                              struct hvb_outfile_lock *lock)
{
    struct hvb_engine_result res = {0};
    struct hvb_run_state st = {.m = m,
                               .o = o,
                               .bi = bi,
                               .quiet = o->quiet,
                               .lock = lock,
                               .write_lock = PTHREAD_MUTEX_INITIALIZER,
                               .trace = {.path = o->trace_path,
                                         .max_events = o->trace_max_events,
                                         .lock_ns = o->trace_lock_ns,
                                         .holds = o->trace_holds}};
    struct hvb_watch_ops wo = {.on_signal = on_signal, .ctx = &st};
    struct hvb_rounds_opts ro = {
        .rounds = o->repetitions,
        .min_time_s = o->min_time_s,
        .iterations = o->iterations,
        .argv0 = o->argc > 0 ? o->argv[0] : "hvbench",
        .quiet = o->quiet,
        .fixed_order = !o->interleave,
        .on_context = hvb_run_on_context,
        .on_round = on_round,
        .ctx = &st,
    };
    bool cg = RUNNING_ON_VALGRIND && o->instrument == HVB_INSTRUMENT_CALLGRIND;
    struct hvb_engine_bench *bodies;
    char err[512] = "";
    int status = HVB_EXIT_OK, rc;
    size_t i;

    st.iters = calloc(m->nr_cells + 1, sizeof(*st.iters));
    bodies = calloc(m->nr_cells + 1, sizeof(*bodies));
    if ( st.iters == NULL || bodies == NULL )
    {
        free(st.iters);
        free(bodies);
        return hvb_failure("out of memory");
    }
    /* What each cell runs: the runner, as wrapped by a command's hooks. */
    for ( i = 0; i < m->nr_cells; i++ )
    {
        bodies[i].body = hvb_runner_body;
        bodies[i].arg = &m->cells[i];
    }
    ro.bodies = bodies;
    if ( cg && ro.iterations == 0 )
        ro.iterations = CALLGRIND_ITERATIONS;
    /*
     * allocs_per_op comes from an untimed counting pass per cell
     * (hvb/rounds.h); profile and lockstat skip it, as it would run
     * outside their bodies' wrappers (windows, tags).
     */
    rc = hvb_meter_probe(o->counters, o->events, cg, o->hooks == NULL,
                         getenv(HVB_CALLGRIND_DIR_ENV), err, sizeof(err));
    if ( rc )
    {
        free(st.iters);
        free(bodies);
        return hvb_usage_error("%s", err);
    }
    if ( !o->quiet )
        hvb_meter_probe_line(stderr);
    st.probe = hvb_meter_probe_json();
    st.env = hvb_env_before();

    if ( hvb_watch_start(&wo) )
        fprintf(stderr, "hvbench: warning: no watcher thread: SIGINT and "
                        "SIGTERM stop the run without a word\n");
    if ( o->resume )
        status = resume_rounds(&st, &ro, &res);
    if ( status == HVB_EXIT_OK && !o->quiet )
        say_plan(m, o, &ro);
    if ( status == HVB_EXIT_OK )
        status = run_rounds(&st, m, &ro, bodies, &res);
    hvb_env_after(st.env);
    if ( status == HVB_EXIT_OK )
        status = report(&st, &res);
    else if ( status == HOOK_DONE )
        status = HVB_EXIT_OK;
    hvb_watch_stop();
    json_decref(st.last);
    hvb_trace_free(&st.trace);
    hvb_engine_result_free(&res);
    json_decref(st.probe);
    json_decref(st.env);
    free(st.iters);
    free(bodies);
    return status;
}

int hvb_run(const struct hvb_run_opts *o)
{
    enum hvb_outfile_kind kind = HVB_OUTFILE_REPLACE, tkind;
    struct hvb_outfile_lock lock = {.fd = -1};
    struct hvb_matrix *m = NULL;
    struct hvb_buildinfo bi;
    char err[512] = "";
    int rc, status;

    rc = hvb_matrix_build(&o->spec, &m, err, sizeof(err));
    if ( rc )
        return stage_error(rc, err);
    rc = hvb_matrix_check(m, err, sizeof(err));
    if ( rc == 0 && o->plan )
    {
        status = hvb_shard_plan_print(stdout, m);
        hvb_matrix_free(m);
        return status;
    }
    if ( rc == 0 && o->out_path != NULL )
        rc = hvb_outfile_check(o->out_path, "results", &kind, err, sizeof(err))
                 ? -EINVAL
                 : 0;
    if ( rc == 0 && o->trace_path != NULL )
        rc = hvb_outfile_check(o->trace_path, "trace", &tkind, err, sizeof(err))
                 ? -EINVAL
                 : 0;
    if ( rc == 0 && o->resume &&
         (o->out_path == NULL || kind != HVB_OUTFILE_REPLACE) )
    {
        snprintf(err, sizeof(err), "--resume needs --out FILE (a file)");
        rc = -EINVAL;
    }
    if ( rc == 0 && o->instrument == HVB_INSTRUMENT_CALLGRIND )
        rc = hvb_callgrind_check(m, err, sizeof(err));
    if ( rc == 0 && o->instrument == HVB_INSTRUMENT_CALLGRIND &&
         !RUNNING_ON_VALGRIND )
    {
        /* The parent: run this very command under callgrind. */
        hvb_matrix_free(m);
        return hvb_callgrind_reexec(o->argc, o->argv);
    }
    /* One writer per --out, from here to the end (hvb/outfile.h). */
    if ( rc == 0 && o->out_path != NULL && kind == HVB_OUTFILE_REPLACE )
        rc = hvb_outfile_lock(o->out_path, "results", &lock, err, sizeof(err))
                 ? -EINVAL
                 : 0;
    if ( rc == 0 )
        rc = hvb_matrix_create_models(m, err, sizeof(err));
    if ( rc )
    {
        hvb_outfile_unlock(&lock);
        hvb_matrix_free(m);
        return stage_error(rc, err);
    }

    hvb_buildinfo_get(&bi);
    status = measure_and_report(m, o, &bi, &lock);
    hvb_outfile_unlock(&lock);
    hvb_matrix_free(m);
    return status;
}
