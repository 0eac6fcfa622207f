/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output room (harness/output/): what a run leaves behind and what
 * reads it back.  The results document, written here (results.c) and
 * read through one check and one set of key names (results_read.c,
 * hvb/results_read.h); --resume and --processes pooling (resume.c); the
 * per-cell summary of a run's samples (summary.c); comparing two
 * documents (compare.c, for compare and gate); the console table
 * (console.c), csv and markdown (tabular.c); files written atomically
 * (outfile.c); the build and the machine's ledger (buildinfo.c, env.c).
 * It formats what the run room produced (the matrix, the engine's
 * samples) and reads measure's probe, with stats for the numbers; it
 * never runs anything.  E.g. after round 3 of 10 with --out f.json,
 * hvb_results_build() makes the document (run.complete false,
 * rounds_done 3) and hvb_results_write() replaces f.json atomically.
 *
 * The results document (layout: docs/schema.md) and its atomic write.
 *
 * "benchmarks" follows Google Benchmark's JSON reporter field for field:
 * per cell, one "iteration" row per repetition, then "aggregate" rows
 * (mean, median, stddev, cv) when at least two repetitions succeeded.
 * Aggregates are ours, computed like the library's.  Names are our cell
 * names; each row also carries an "hvbench" object naming its cell.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hvb/noise.h>
#include <hvb/outfile.h>
#include <hvb/results.h>
#include <hvb/results_read.h>

/* Builder state: any failed allocation or insertion sets oom. */
struct jb {
    bool oom;
};

static void set(struct jb *b, json_t *obj, const char *key, json_t *val)
{
    if ( val == NULL || obj == NULL || json_object_set_new(obj, key, val) )
        b->oom = true;
}

static void push(struct jb *b, json_t *arr, json_t *val)
{
    if ( val == NULL || arr == NULL || json_array_append_new(arr, val) )
        b->oom = true;
}

/* A number, or null where JSON has none (NaN, infinity). */
static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *uint_json(uint64_t v)
{
    char buf[32];

    if ( v <= (uint64_t)INT64_MAX )
        return json_integer((json_int_t)v);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
    return json_string(buf);
}

static const char *kind_name(enum hvb_kind k)
{
    return k == HVB_MACRO ? "macro" : "micro";
}

static json_t *ctr_flags(struct jb *b, unsigned int flags)
{
    json_t *a = json_array();

    if ( flags & HVB_CTR_PER_OP )
        push(b, a, json_string("per_op"));
    if ( flags & HVB_CTR_RATE )
        push(b, a, json_string("rate"));
    return a;
}

/* A parsed value as JSON: a number, a boolean or the canonical text. */
static json_t *opt_json(const struct hv_opt *o, const struct hv_opt_val *v)
{
    switch ( o->type )
    {
    case HV_OPT_UINT:
    case HV_OPT_U64:
        return uint_json(v->u);
    case HV_OPT_BOOL:
        return json_boolean(v->u);
    default:
        return json_string(v->text);
    }
}

/* A plugin's option values, decoded from its parsed option struct. */
static json_t *plugin_options(struct jb *b, const struct hv_plugin_inst *inst)
{
    json_t *o = json_object();
    const struct hv_opt *opt;
    struct hv_opt_val v;

    for ( opt = inst->hdr->opts; opt != NULL && opt->name != NULL; opt++ )
    {
        if ( inst->opts == NULL )
            break;
        hv_opt_load(opt, inst->opts, &v);
        set(b, o, opt->name, opt_json(opt, &v));
    }
    return o;
}

/* {slot: plugin name} and {param: value}: the per-row "hvbench" object. */
static json_t *row_meta(struct jb *b, const struct hvb_mcell *mc)
{
    const struct hvb_matrix *m = mc->m;
    json_t *o = json_object(), *pl = json_object(), *pa = json_object();
    size_t i;

    set(b, o, "cell", json_integer((json_int_t)mc->index));
    set(b, o, "workload", json_string(m->w->name));
    for ( i = 0; i < m->nr_slots; i++ )
        set(b, pl, m->slots[i].slot,
            json_string(hvb_mcell_plugin(mc, i)->hdr->name));
    set(b, o, "plugins", pl);
    for ( i = 0; i < m->nr_params; i++ )
        set(b, pa, m->params[i].p->name,
            opt_json(m->params[i].p, hvb_mcell_param(mc, i)));
    set(b, o, "params", pa);
    return o;
}

/* The fields every row of a cell starts with. */
static json_t *row_head(struct jb *b, const struct hvb_mcell *mc,
                        const char *name, const char *run_type,
                        unsigned int repetitions)
{
    json_t *r = json_object();

    set(b, r, HVB_RK_NAME, json_string(name));
    set(b, r, HVB_RK_FAMILY, json_integer((json_int_t)mc->index));
    set(b, r, "per_family_instance_index", json_integer(0));
    set(b, r, "run_name", json_string(mc->name));
    set(b, r, HVB_RK_RUN_TYPE, json_string(run_type));
    set(b, r, HVB_RK_REPETITIONS, json_integer(repetitions));
    return r;
}

static void iteration_rows(struct jb *b, json_t *rows,
                           const struct hvb_mcell *mc,
                           const struct hvb_cell_summary *cs,
                           unsigned int repetitions)
{
    size_t i, c;

    for ( i = 0; i < cs->nr_samples; i++ )
    {
        const struct hvb_engine_sample *s = cs->samples[i];
        json_t *r = row_head(b, mc, mc->name, "iteration", repetitions);

        set(b, r, HVB_RK_REP_INDEX, json_integer(s->repetition_index));
        set(b, r, HVB_RK_THREADS, json_integer(s->threads));
        if ( s->error )
        {
            set(b, r, "error_occurred", json_true());
            set(b, r, "error_message",
                json_string(s->error_message ? s->error_message : ""));
        }
        set(b, r, HVB_RK_ITERATIONS, json_integer(s->iterations));
        set(b, r, "real_time", num(s->real_ns));
        set(b, r, "cpu_time", num(s->cpu_ns));
        set(b, r, "time_unit", json_string("ns"));
        for ( c = 0; c < s->nr_counters; c++ )
            set(b, r, s->counters[c].name, num(s->counters[c].value));
        set(b, r, HVB_RK_HVBENCH, row_meta(b, mc));
        push(b, rows, r);
    }
}

enum agg {
    AGG_MEAN,
    AGG_MEDIAN,
    AGG_STDDEV,
    AGG_CV,
    AGG_NR
};

static const char *const agg_names[AGG_NR] = {"mean", "median", "stddev", "cv"};

static double agg_value(const struct hvb_stats *st, enum agg a)
{
    switch ( a )
    {
    case AGG_MEAN:
        return st->mean;
    case AGG_MEDIAN:
        return st->median;
    case AGG_STDDEV:
        return st->stddev;
    case AGG_CV:
    case AGG_NR:
        break;
    }
    return st->cv;
}

static void aggregate_rows(struct jb *b, json_t *rows,
                           const struct hvb_mcell *mc,
                           const struct hvb_cell_summary *cs,
                           unsigned int repetitions)
{
    char name[1024];
    unsigned int a;
    size_t c;

    if ( cs->nr_good < 2 )
        return; /* as Google Benchmark: none for one run */
    for ( a = 0; a < AGG_NR; a++ )
    {
        json_t *r;

        snprintf(name, sizeof(name), "%s_%s", mc->name, agg_names[a]);
        r = row_head(b, mc, name, "aggregate", repetitions);
        set(b, r, HVB_RK_THREADS, json_integer(mc->cell.threads));
        set(b, r, "aggregate_name", json_string(agg_names[a]));
        set(b, r, "aggregate_unit",
            json_string(a == AGG_CV ? "percentage" : "time"));
        set(b, r, HVB_RK_ITERATIONS, json_integer((json_int_t)cs->nr_good));
        set(b, r, "real_time", num(agg_value(&cs->real, a)));
        set(b, r, "cpu_time", num(agg_value(&cs->cpu, a)));
        set(b, r, "time_unit", json_string("ns"));
        for ( c = 0; c < cs->nr_ctrs; c++ )
            set(b, r, cs->ctrs[c].name, num(agg_value(&cs->ctrs[c].st, a)));
        set(b, r, HVB_RK_HVBENCH, row_meta(b, mc));
        push(b, rows, r);
    }
}

static json_t *stats_json(struct jb *b, const struct hvb_stats *st)
{
    json_t *o = json_object();

    set(b, o, "n", json_integer((json_int_t)st->n));
    set(b, o, HVB_RK_MEDIAN, num(st->median));
    set(b, o, "mean", num(st->mean));
    set(b, o, "stddev", num(st->stddev));
    set(b, o, "cv", num(st->cv));
    set(b, o, "min", num(st->min));
    set(b, o, "max", num(st->max));
    set(b, o, "mad", num(st->mad));
    set(b, o, "outliers", json_integer((json_int_t)st->outliers));
    return o;
}

static json_t *cell_plugins(struct jb *b, const struct hvb_mcell *mc)
{
    const struct hvb_matrix *m = mc->m;
    json_t *o = json_object();
    size_t i;

    for ( i = 0; i < m->nr_slots; i++ )
    {
        const struct hv_plugin_inst *inst = hvb_mcell_plugin(mc, i);
        json_t *p = json_object();

        set(b, p, HVB_RK_NAME, json_string(inst->hdr->name));
        set(b, p, "label", json_string(m->slots[i].labels[mc->slot_sel[i]]));
        set(b, p, "spec", json_string(inst->spec ? inst->spec : ""));
        set(b, p, "options", plugin_options(b, inst));
        set(b, p, "origin", json_string(inst->origin ? inst->origin : ""));
        set(b, p, "user_named", json_boolean(m->slots[i].user));
        set(b, o, m->slots[i].slot, p);
    }
    return o;
}

static json_t *paired_json(struct jb *b, const struct hvb_cell_summary *cs)
{
    json_t *o = json_object(), *r = json_array(), *ci = json_array();
    size_t i;

    for ( i = 0; i < cs->nr_pairs; i++ )
        push(b, r, num(cs->pair_ratios[i]));
    set(b, o, "ratios", r);
    set(b, o, HVB_RK_MEDIAN, num(cs->pair_median));
    push(b, ci, num(cs->pair_lo));
    push(b, ci, num(cs->pair_hi));
    set(b, o, HVB_RK_CI95, ci);
    /* What ci95 is: "range" (of fewer than HVB_CI_MIN_N rounds) or "ci". */
    set(b, o, "interval", json_string(cs->pair_range ? "range" : "ci"));
    set(b, o, "mannwhitney_p", num(cs->pair_p));
    return o;
}

static json_t *cell_json(struct jb *b, const struct hvb_mcell *mc,
                         const struct hvb_cell_summary *cs,
                         const struct hvb_run_meta *meta)
{
    const struct hvb_matrix *m = mc->m;
    json_t *o = json_object(), *params = json_object(), *given = json_array(),
           *iters = json_array(), *real = json_array(), *cpu = json_array(),
           *ctrs = json_object();
    size_t i, c, g;

    set(b, o, "index", json_integer((json_int_t)mc->index));
    set(b, o, HVB_RK_NAME, json_string(mc->name));
    set(b, o, "workload", json_string(m->w->name));
    set(b, o, HVB_RK_GROUP, json_integer((json_int_t)mc->group));
    set(b, o, "group_name", json_string(mc->group_name));
    set(b, o, HVB_RK_VARIANT, json_integer((json_int_t)mc->variant));
    set(b, o, HVB_RK_THREADS, json_integer(mc->cell.threads));
    set(b, o, "one_shot", json_boolean(m->w->flags & HVB_WF_ONE_SHOT));
    set(b, o, "plugins", cell_plugins(b, mc));
    for ( i = 0; i < m->nr_params; i++ )
    {
        set(b, params, m->params[i].p->name,
            opt_json(m->params[i].p, hvb_mcell_param(mc, i)));
        if ( m->params[i].user )
            push(b, given, json_string(m->params[i].p->name));
    }
    set(b, o, "params", params);
    set(b, o, "params_given", given);
    set(b, o, HVB_RK_STATUS, json_string(cs->error ? "error" : "ok"));
    set(b, o, HVB_RK_ERROR, cs->error ? json_string(cs->error) : json_null());

    for ( i = 0; i < cs->nr_samples; i++ )
    {
        const struct hvb_engine_sample *s = cs->samples[i];

        push(b, iters, json_integer(s->iterations));
        push(b, real, s->error ? json_null() : num(s->real_ns));
        push(b, cpu, s->error ? json_null() : num(s->cpu_ns));
    }
    set(b, o, HVB_RK_ITERATIONS, iters);
    set(b, o, HVB_RK_SAMPLES, real);
    set(b, o, HVB_RK_CPU_SAMPLES, cpu);
    set(b, o, HVB_RK_SUMMARY, stats_json(b, &cs->real));
    set(b, o, "cpu_summary", stats_json(b, &cs->cpu));
    set(b, o, "ratio_to_reference",
        cs->has_ratio ? num(cs->ratio) : json_null());
    set(b, o, HVB_RK_NOISE, hvb_noise_json(cs->noise));
    if ( meta->shared_iterations != NULL )
        set(b, o, HVB_RK_SHARED_ITER,
            json_integer(meta->shared_iterations[mc->index]));
    if ( mc->variant > 0 && cs->pair_ratios != NULL )
        set(b, o, HVB_RK_PAIRED, paired_json(b, cs));

    for ( c = 0; c < cs->nr_ctrs; c++ )
    {
        const struct hvb_ctr_summary *k = &cs->ctrs[c];
        json_t *co = json_object(), *vals = json_array();

        set(b, co, HVB_RK_CTR_FLAGS, ctr_flags(b, k->flags));
        for ( g = 0; g < k->st.n; g++ )
            push(b, vals, num(k->vals[g]));
        set(b, co, HVB_RK_CTR_SAMPLES, vals);
        set(b, co, HVB_RK_SUMMARY, stats_json(b, &k->st));
        set(b, ctrs, k->name, co);
    }
    set(b, o, HVB_RK_COUNTERS, ctrs);
    return o;
}

static json_t *git_json(struct jb *b, const struct hvb_buildinfo *bi)
{
    json_t *git = json_object();

    set(b, git, "commit", json_string(bi->commit));
    set(b, git, "dirty", bi->dirty < 0 ? json_null() : json_boolean(bi->dirty));
    set(b, git, "source_dir", json_string(bi->source_dir));
    return git;
}

static json_t *build_json(struct jb *b, const struct hvb_buildinfo *bi,
                          const char *lib_build_type)
{
    json_t *build = json_object();

    set(b, build, "compiler", json_string(bi->compiler));
    set(b, build, "cflags", json_string(bi->cflags));
    set(b, build, "build_type", json_string(bi->build_type));
    set(b, build, "benchmark_library_build_type",
        lib_build_type ? json_string(lib_build_type) : json_null());
    return build;
}

/* The run's settings that decide what a measurement is (hvb/results.h). */
static void run_settings(struct jb *b, json_t *run,
                         const struct hvb_run_meta *meta)
{
    set(b, run, HVB_RK_MIN_TIME, num(meta->min_time_s));
    set(b, run, "interleaved", json_boolean(meta->interleave));
    set(b, run, "seed", uint_json(meta->seed));
    set(b, run, "affinity", json_string(meta->affinity));
    set(b, run, HVB_RK_ITERATIONS, json_integer(meta->iterations));
    set(b, run, "instrument",
        json_string(meta->instrument ? meta->instrument : "none"));
}

json_t *hvb_results_settings(const struct hvb_run_meta *meta,
                             const struct hvb_buildinfo *bi)
{
    struct jb b = {.oom = false};
    json_t *o = json_object(), *run = json_object();

    set(&b, o, "version", json_string(bi->version));
    set(&b, o, HVB_RK_GIT, git_json(&b, bi));
    set(&b, o, HVB_RK_BUILD, build_json(&b, bi, NULL));
    run_settings(&b, run, meta);
    set(&b, run, HVB_RK_PROCESSES,
        json_integer(meta->processes ? meta->processes : 1));
    set(&b, o, HVB_RK_RUN, run);
    if ( meta->counters != NULL )
        set(&b, o, HVB_RK_COUNTERS, json_incref(meta->counters));
    if ( b.oom )
    {
        json_decref(o);
        return NULL;
    }
    return o;
}

/*
 * Who wrote the file and when: the writing process, the wall clock at
 * the write, and $HVB_INVOCATION when set (hvbench reproduce sets it per
 * invocation and refuses a file that does not carry its own).
 */
static void run_provenance(struct jb *b, json_t *run)
{
    const char *inv = getenv(HVB_INVOCATION_ENV);
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    set(b, run, HVB_RK_PID, json_integer((json_int_t)getpid()));
    set(b, run, HVB_RK_WRITTEN,
        json_real((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9));
    if ( inv != NULL && *inv != '\0' )
        set(b, run, HVB_RK_INVOCATION, json_string(inv));
}

static json_t *hvbench_json(struct jb *b, const struct hvb_matrix *m,
                            const struct hvb_summary *s,
                            const struct hvb_run_meta *meta,
                            const struct hvb_buildinfo *bi,
                            const char *lib_build_type)
{
    json_t *o = json_object(), *cmd = json_array(), *run = json_object(),
           *cells = json_array();
    size_t i;
    int k;

    set(b, o, HVB_RK_SCHEMA, json_integer(HVB_RESULTS_SCHEMA_VERSION));
    set(b, o, "version", json_string(bi->version));
    set(b, o, HVB_RK_GIT, git_json(b, bi));
    set(b, o, HVB_RK_BUILD, build_json(b, bi, lib_build_type));
    for ( k = 0; k < meta->argc; k++ )
        push(b, cmd, json_string(meta->argv[k]));
    set(b, o, "command_line", cmd);

    set(b, run, "workload", json_string(m->w->name));
    set(b, run, "kind", json_string(kind_name(m->w->kind)));
    set(b, run, HVB_RK_REPETITIONS, json_integer(meta->repetitions));
    set(b, run, HVB_RK_PROCESSES,
        json_integer(meta->processes ? meta->processes : 1));
    run_settings(b, run, meta);
    set(b, run, "time", json_string("real"));
    set(b, run, "time_unit", json_string("ns"));
    set(b, run, HVB_RK_CELLS, json_integer((json_int_t)m->nr_cells));
    set(b, run, "failed_cells", json_integer((json_int_t)s->nr_failed));
    set(b, run, "method", json_string("paired-rounds"));
    set(b, run, HVB_RK_ROUNDS_DONE, json_integer(meta->rounds_done));
    set(b, run, HVB_RK_COMPLETE,
        json_boolean(meta->rounds_done >= meta->repetitions));
    run_provenance(b, run);
    set(b, o, HVB_RK_RUN, run);
    if ( meta->counters != NULL )
        set(b, o, HVB_RK_COUNTERS, json_incref(meta->counters));
    if ( meta->environment != NULL )
        set(b, o, "environment", json_incref(meta->environment));

    for ( i = 0; i < m->nr_cells; i++ )
        push(b, cells, cell_json(b, &m->cells[i], &s->cells[i], meta));
    set(b, o, HVB_RK_CELLS, cells);
    if ( m->shard_n > 0 )
    {
        json_t *sh = json_object(), *full = json_array();

        set(b, sh, HVB_RK_SHARD_K, json_integer(m->shard_k));
        set(b, sh, HVB_RK_SHARD_N, json_integer(m->shard_n));
        set(b, sh, HVB_RK_CELLS_TOTAL, json_integer((json_int_t)m->full_cells));
        set(b, sh, "groups_total", json_integer((json_int_t)m->full_groups));
        for ( i = 0; i < m->nr_cells; i++ )
            push(b, full, json_integer((json_int_t)m->cells[i].full_index));
        set(b, sh, HVB_RK_CELLS, full);
        set(b, o, HVB_RK_SHARD, sh);
    }
    return o;
}

json_t *hvb_results_build(const struct hvb_matrix *m,
                          const struct hvb_summary *s,
                          const struct hvb_engine_result *r,
                          const struct hvb_run_meta *meta,
                          const struct hvb_buildinfo *bi, char *err, size_t len)
{
    struct jb b = {.oom = false};
    json_t *root, *gb, *ctx, *rows;
    json_error_t jerr;
    size_t i;

    gb = json_loads(r->context_json ? r->context_json : "", 0, &jerr);
    ctx = gb ? json_object_get(gb, HVB_RK_CONTEXT) : NULL;
    if ( !json_is_object(ctx) )
    {
        snprintf(err, len, "the benchmark library's context is not JSON: %s",
                 gb ? "no \"context\" object" : jerr.text);
        json_decref(gb);
        return NULL;
    }
    root = json_object();
    set(&b, root, HVB_RK_CONTEXT, json_incref(ctx));
    rows = json_array();
    for ( i = 0; i < m->nr_cells; i++ )
    {
        iteration_rows(&b, rows, &m->cells[i], &s->cells[i], meta->repetitions);
        aggregate_rows(&b, rows, &m->cells[i], &s->cells[i], meta->repetitions);
    }
    set(&b, root, HVB_RK_BENCHMARKS, rows);
    set(&b, root, HVB_RK_HVBENCH,
        hvbench_json(
            &b, m, s, meta, bi,
            json_string_value(json_object_get(ctx, "library_build_type"))));
    json_decref(gb);
    if ( b.oom )
    {
        snprintf(err, len, "out of memory building the results");
        json_decref(root);
        return NULL;
    }
    return root;
}

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(12))

int hvb_results_dump(FILE *f, const json_t *root)
{
    if ( json_dumpf(root, f, DUMP_FLAGS) || fputc('\n', f) == EOF || fflush(f) )
        return -EIO;
    return 0;
}

/* The directory part of @path, malloc'd ("." for a bare name). */
int hvb_results_write(const char *path, const json_t *root, char *err,
                      size_t len)
{
    struct hvb_outfile o;
    int rc = hvb_outfile_open(&o, path, "results", err, len);

    if ( rc )
        return rc;
    errno = 0;
    if ( hvb_results_dump(o.f, root) )
    {
        rc = errno ? -errno : -EIO;
        snprintf(err, len, "cannot write results to '%s' (writing): %s", path,
                 strerror(-rc));
        hvb_outfile_abort(&o);
        return rc;
    }
    return hvb_outfile_commit(&o, err, len);
}
