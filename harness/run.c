/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One "hvbench run" from validated options to exit status.  Everything the
 * user named is checked before anything is built or run (matrix, then the
 * workload's check(), then the output path); git is asked for the commit
 * before measuring, so it never runs beside a measured loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/buildinfo.h>
#include <hvb/cli.h>
#include <hvb/console.h>
#include <hvb/engine.h>
#include <hvb/results.h>
#include <hvb/run.h>
#include <hvb/summary.h>

/* What the engine's hooks need. */
struct hooks {
    const struct hvb_matrix *m;
    bool quiet;
    size_t done;
};

static void on_context(void *ctx, const char *context_json)
{
    struct hooks *h = ctx;
    json_t *gb;

    if ( h->quiet )
        return;
    gb = json_loads(context_json, 0, NULL);
    if ( gb != NULL )
        hvb_console_context(stderr, json_object_get(gb, "context"));
    json_decref(gb);
}

static void on_done(void *ctx, size_t bench)
{
    struct hooks *h = ctx;

    h->done++;
    if ( !h->quiet )
        fprintf(stderr, "hvbench: [%zu/%zu] %s done\n", h->done, h->m->nr_cells,
                h->m->cells[bench].name);
}

/* An error code of the matrix stages -> exit status, printing @err. */
static int stage_error(int rc, const char *err)
{
    if ( rc == -EINVAL )
        return hvb_usage_error("%s", err);
    return hvb_failure("%s", err[0] ? err : strerror(-rc));
}

static int measure(struct hvb_matrix *m, const struct hvb_run_opts *o,
                   struct hvb_engine_result *res)
{
    struct hvb_engine_bench *b = calloc(m->nr_cells, sizeof(*b));
    struct hooks h = {.m = m, .quiet = o->quiet, .done = 0};
    struct hvb_engine_opts eo = {
        .repetitions = o->repetitions,
        .min_time_s = o->min_time_s,
        .interleave = o->interleave,
        .argv0 = o->argc > 0 ? o->argv[0] : "hvbench",
        .on_context = on_context,
        .on_done = on_done,
        .hook_ctx = &h,
    };
    char err[512] = "";
    size_t i;
    int rc;

    if ( b == NULL )
        return hvb_failure("out of memory");
    for ( i = 0; i < m->nr_cells; i++ )
    {
        b[i].name = m->cells[i].name;
        b[i].threads = m->cells[i].cell.threads;
        b[i].one_shot = m->w->flags & HVB_WF_ONE_SHOT;
        b[i].body = hvb_runner_body;
        b[i].arg = &m->cells[i];
    }
    if ( o->hooks != NULL && o->hooks->before != NULL &&
         o->hooks->before(o->hooks->ctx, m, b, m->nr_cells) )
    {
        free(b);
        return HVB_EXIT_FAIL;
    }
    if ( !o->quiet && (m->w->flags & HVB_WF_ONE_SHOT) )
        fprintf(
            stderr,
            "hvbench: %s: %zu cell(s) x %u repetition(s) of one iteration%s\n",
            m->w->name, m->nr_cells, o->repetitions,
            o->interleave && m->nr_cells > 1 ? ", interleaved" : "");
    else if ( !o->quiet )
        fprintf(
            stderr,
            "hvbench: %s: %zu cell(s) x %u repetition(s) of at least %g s%s\n",
            m->w->name, m->nr_cells, o->repetitions, o->min_time_s,
            o->interleave && m->nr_cells > 1 ? ", interleaved" : "");
    rc = hvb_engine_run(b, m->nr_cells, &eo, res, err, sizeof(err));
    if ( o->hooks != NULL && o->hooks->after != NULL )
        o->hooks->after(o->hooks->ctx, m);
    free(b);
    if ( rc )
        return hvb_failure("%s", err);
    return HVB_EXIT_OK;
}

/* Print and store; returns the exit status. */
static int report(const struct hvb_matrix *m, const struct hvb_run_opts *o,
                  const struct hvb_engine_result *res,
                  const struct hvb_buildinfo *bi)
{
    struct hvb_run_meta meta = {
        .argc = o->argc,
        .argv = o->argv,
        .repetitions = o->repetitions,
        .min_time_s = o->min_time_s,
        .interleave = o->interleave,
        .seed = o->spec.seed,
        .affinity = hvb_affinity_name(o->spec.affinity),
    };
    struct hvb_summary s;
    json_t *root = NULL;
    char err[512] = "";
    int status = HVB_EXIT_OK;

    if ( hvb_summary_build(m, res, &s) )
        return hvb_failure("out of memory summarising the run");
    if ( o->out_path != NULL || o->format == HVB_FORMAT_JSON )
    {
        root = hvb_results_build(m, &s, res, &meta, bi, err, sizeof(err));
        if ( root == NULL )
        {
            hvb_summary_free(&s);
            return hvb_failure("%s", err);
        }
        if ( o->hooks != NULL && o->hooks->annotate != NULL )
            o->hooks->annotate(o->hooks->ctx, m, &s, root);
    }
    if ( o->format == HVB_FORMAT_JSON )
    {
        if ( hvb_results_dump(stdout, root) )
            status =
                hvb_failure("writing results to stdout: %s", strerror(errno));
    }
    else
        hvb_console_table(stdout, m, &s);
    if ( o->hooks != NULL && o->hooks->print != NULL )
        o->hooks->print(o->hooks->ctx, m, &s);
    if ( o->out_path != NULL &&
         hvb_results_write(o->out_path, root, err, sizeof(err)) )
        status = hvb_failure("%s", err);
    else if ( o->out_path != NULL && !o->quiet )
        fprintf(stderr, "hvbench: results written to %s\n", o->out_path);
    hvb_console_warnings(stderr, m, &s);
    if ( s.nr_failed > 0 )
    {
        hvb_failure("%zu of %zu cells failed", s.nr_failed, s.nr_cells);
        status = HVB_EXIT_FAIL;
    }
    json_decref(root);
    hvb_summary_free(&s);
    return status;
}

int hvb_run(const struct hvb_run_opts *o)
{
    struct hvb_engine_result res = {0};
    struct hvb_matrix *m = NULL;
    struct hvb_buildinfo bi;
    char err[512] = "";
    int rc, status;

    rc = hvb_matrix_build(&o->spec, &m, err, sizeof(err));
    if ( rc )
        return stage_error(rc, err);
    rc = hvb_matrix_check(m, err, sizeof(err));
    if ( rc == 0 && o->out_path != NULL )
        rc =
            hvb_results_check_path(o->out_path, err, sizeof(err)) ? -EINVAL : 0;
    if ( rc == 0 )
        rc = hvb_matrix_create_models(m, err, sizeof(err));
    if ( rc )
    {
        hvb_matrix_free(m);
        return stage_error(rc, err);
    }

    hvb_buildinfo_get(&bi);
    status = measure(m, o, &res);
    if ( status == HVB_EXIT_OK )
        status = report(m, o, &res, &bi);
    hvb_matrix_free(m);
    hvb_engine_result_free(&res);
    return status;
}
