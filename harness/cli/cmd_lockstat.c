/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench lockstat WORKLOAD [run options]": a run with the lock profiler
 * (hv/lockstat.h) on.  Each cell's locks are attributed to the cell (the
 * bodies are wrapped to set the profiler's tag), and after the run one
 * table per cell goes to stdout, sorted by total wait, and into the
 * results JSON as hvbench.cells[].lockstat.
 */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <hv/lockstat.h>
#include <hvb/cli.h>
#include <hvb/results_read.h>
#include <hvb/run.h>

struct wrap {
    void (*body)(void *arg, struct hvb_engine_thread *et);
    void *arg;
    unsigned int tag;
    _Atomic uint64_t ops; /* of every thread and run, calibration too */
};

struct lockstat_run {
    struct wrap *w;
    struct hv_lockstat_row *rows;
    long nr_rows;
    uint64_t dropped;
};

static void wrapped_body(void *arg, struct hvb_engine_thread *et)
{
    struct wrap *w = arg;

    hv_lockstat_set_tag(w->tag);
    w->body(w->arg, et);
    atomic_fetch_add(&w->ops, et->ops);
}

static int ls_before(void *ctx, struct hvb_matrix *m,
                     struct hvb_engine_bench *b, size_t n)
{
    struct lockstat_run *r = ctx;
    size_t i;

    r->w = calloc(n, sizeof(*r->w));
    if ( r->w == NULL )
    {
        hvb_failure("out of memory");
        return -1;
    }
    for ( i = 0; i < n; i++ )
    {
        r->w[i] = (struct wrap){b[i].body, b[i].arg, (unsigned int)i + 1, 0};
        b[i].body = wrapped_body;
        b[i].arg = &r->w[i];
    }
    hv_lockstat_reset();
    hv_lockstat_enable(true);
    return 0;
}

static void ls_after(void *ctx, struct hvb_matrix *m)
{
    struct lockstat_run *r = ctx;

    hv_lockstat_enable(false);
    hv_lockstat_set_tag(0);
    r->nr_rows = hv_lockstat_collect(&r->rows, &r->dropped);
    if ( r->nr_rows < 0 )
    {
        hvb_failure("out of memory collecting lock statistics");
        r->nr_rows = 0;
        r->rows = NULL;
    }
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

static void site_str(const struct hv_lock_site *site, char *buf, size_t len)
{
    if ( site == NULL )
        snprintf(buf, len, "(unknown)");
    else
        snprintf(buf, len, "%s %s:%d", site->func, base_name(site->file),
                 site->line);
}

/* A row; per op over the @ops operations its cell's threads ran. */
static json_t *row_json(const struct hv_lockstat_row *r, uint64_t ops)
{
    char site[256];
    double n = ops ? (double)ops : NAN;

    site_str(r->site, site, sizeof(site));
    return json_pack(
        "{s:s, s:s, s:s, s:s?, s:s?, s:i, s:I, s:I, s:I, s:f, s:I, s:I, s:I, "
        "s:I, s:o, s:o, s:o}",
        "class", r->cls, "kind", hv_lock_kind_name(r->kind), "site", site,
        "function", r->site ? r->site->func : NULL, "file",
        r->site ? base_name(r->site->file) : NULL, "line",
        r->site ? r->site->line : 0, "acquisitions",
        (json_int_t)r->acquisitions, "contended", (json_int_t)r->contended,
        "wait_ns_total", (json_int_t)r->wait_ns, "wait_ns_avg",
        r->contended ? (double)r->wait_ns / (double)r->contended : 0.0,
        "wait_ns_max", (json_int_t)r->wait_max_ns, "hold_ns_total",
        (json_int_t)r->hold_ns, "hold_ns_max", (json_int_t)r->hold_max_ns,
        "ops", (json_int_t)ops, "acquisitions_per_op",
        ops ? json_real((double)r->acquisitions / n) : json_null(),
        "wait_ns_per_op", ops ? json_real((double)r->wait_ns / n) : json_null(),
        "hold_ns_per_op",
        ops ? json_real((double)r->hold_ns / n) : json_null());
}

static json_t *ls_cell(void *ctx, size_t i)
{
    struct lockstat_run *r = ctx;
    json_t *a = json_array();
    long k;

    for ( k = 0; k < r->nr_rows; k++ )
        if ( r->rows[k].tag == i + 1 )
            json_array_append_new(
                a, row_json(&r->rows[k], atomic_load(&r->w[i].ops)));
    return a;
}

static void ls_annotate(void *ctx, const struct hvb_matrix *m,
                        const struct hvb_summary *s, json_t *root)
{
    struct lockstat_run *r = ctx;

    hvb_run_annotate(
        root, m, "lockstat",
        json_pack(
            "{s:b, s:I, s:s, s:s, s:s}", "compiled_in", hv_lockstat_available(),
            "dropped", (json_int_t)r->dropped, "contended",
            "held by another CPU on arrival (read lock: a writer or other "
            "readers inside)",
            "wait_ns_avg", "total wait / contended acquisitions", "per_op",
            "over every operation the cell's threads ran while "
            "the profiler was on (ops), calibration included"),
        ls_cell, r);
}

static void fmt_ns(uint64_t ns, char *buf, size_t len)
{
    if ( ns >= 10000000000ull )
        snprintf(buf, len, "%.1f s", (double)ns / 1e9);
    else if ( ns >= 10000000ull )
        snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
    else if ( ns >= 10000ull )
        snprintf(buf, len, "%.1f us", (double)ns / 1e3);
    else
        snprintf(buf, len, "%" PRIu64 " ns", ns);
}

static void ls_print(void *ctx, const struct hvb_matrix *m,
                     const struct hvb_summary *s)
{
    struct lockstat_run *r = ctx;
    size_t i;
    long k;

    for ( i = 0; i < m->nr_cells; i++ )
    {
        bool any = false;

        printf("\nlock contention: %s\n", m->cells[i].name);
        printf("%-26s %-44s %12s %10s %6s %10s %10s %10s %10s %10s\n",
               "lock class (kind)", "call site", "acquired", "contended",
               "cont%", "wait tot", "wait avg", "wait max", "hold tot",
               "hold max");
        for ( k = 0; k < r->nr_rows; k++ )
        {
            const struct hv_lockstat_row *x = &r->rows[k];
            char cls[64], site[256], wt[24], wa[24], wm[24], ht[24], hm[24];

            if ( x->tag != i + 1 )
                continue;
            any = true;
            snprintf(cls, sizeof(cls), "%s (%s)", x->cls,
                     hv_lock_kind_name(x->kind));
            site_str(x->site, site, sizeof(site));
            fmt_ns(x->wait_ns, wt, sizeof(wt));
            fmt_ns(x->contended ? x->wait_ns / x->contended : 0, wa,
                   sizeof(wa));
            fmt_ns(x->wait_max_ns, wm, sizeof(wm));
            fmt_ns(x->hold_ns, ht, sizeof(ht));
            fmt_ns(x->hold_max_ns, hm, sizeof(hm));
            printf("%-26s %-44s %12" PRIu64 " %10" PRIu64
                   " %5.1f%% %10s %10s %10s %10s %10s\n",
                   cls, site, x->acquisitions, x->contended,
                   x->acquisitions
                       ? 100.0 * (double)x->contended / (double)x->acquisitions
                       : 0.0,
                   wt, wa, wm, ht, hm);
        }
        if ( !any )
            printf("(no model lock taken)\n");
    }
    if ( r->dropped )
        fprintf(stderr,
                "hvbench: warning: %" PRIu64
                " acquisitions not recorded (a thread's table was full)\n",
                r->dropped);
}

const struct hvb_cmd_doc hvb_doc_lockstat = {
    .usage = "lockstat WORKLOAD [run options]",
    .text = "Run WORKLOAD as 'hvbench run' does (same options; see 'hvbench\n"
            "run --help') with the lock profiler on, then print per cell\n"
            "and per lock class and call site: acquisitions, contended\n"
            "acquisitions (held by another CPU on arrival; for a read lock,\n"
            "a writer or other readers inside), wait time total/avg/max\n"
            "(avg over contended acquisitions) and hold time total/max,\n"
            "sorted by total wait.  With --out FILE the tables are stored in\n"
            "the results as hvbench.cells[].lockstat.  Timings include the\n"
            "profiler's own cost; compare times with 'hvbench run'.",
    .inherits = "run",
    .notes = "exit status: 0 success, 1 a cell failed or the lock profiler\n"
             "is not compiled in (cmake -DHVB_LOCKSTAT=OFF), 2 usage error",
};

int hvb_cmd_lockstat(struct hvb_cmd_ctx *ctx)
{
    struct lockstat_run r = {0};
    struct hvb_run_hooks h = {
        .ctx = &r,
        .before = ls_before,
        .after = ls_after,
        .annotate = ls_annotate,
        .print = ls_print,
    };
    int i, status;

    for ( i = 1; i < ctx->argc; i++ )
        if ( strcmp(ctx->argv[i], "--help") == 0 ||
             strcmp(ctx->argv[i], "-h") == 0 )
        {
            hvb_cmd_doc_help(stdout, &hvb_doc_lockstat);
            return HVB_EXIT_OK;
        }
    if ( !hv_lockstat_available() )
        return hvb_failure("lockstat: the lock profiler is not compiled in "
                           "(built with -DHVB_LOCKSTAT=OFF)");
    status = hvb_cmd_run_as(ctx, ctx->argc, ctx->argv, &h);
    free(r.w);
    free(r.rows);
    return status;
}
