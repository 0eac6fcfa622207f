/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench compare" and "hvbench gate": two results files, one metric,
 * per benchmark the ratio NEW / BASE with its CI and a verdict
 * (hvb/compare.h).  gate turns the verdicts into an exit status (0 pass,
 * 1 regression, 2 usage or input error, 3 too unstable to judge) and can
 * write a PR-comment-ready markdown summary.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvb/cmdline.h>
#include <hvb/gate.h>
#include <hvb/compare.h>
#include "private.h"
#include <hvb/noise.h>
#include <hvb/outfile.h>
#include <hvb/results.h>
#include <hvb/results_read.h>

/* One compare or gate command line being read. */
struct cmp_args {
    bool gate;
    const char *cmd;
    const char *files[2];
    size_t nfiles;
    const char *metric, *md_path;
    int format; /* FMT_* */
    double thr; /* < 0: the metric's default */
    bool allow_unstable, allow_incomplete;
};

enum {
    FMT_CONSOLE,
    FMT_MARKDOWN,
    FMT_JSON
};
static const char *const formats[] = {[FMT_CONSOLE] = "console",
                                      [FMT_MARKDOWN] = "markdown",
                                      [FMT_JSON] = "json",
                                      NULL};

/* Both commands' rows; each knows the other's to name it in the error. */
#define A struct cmp_args
static const struct hvb_optdef metric_opt[] = {
    HVB_OPT_STR("metric", 'm', "M", A, metric,
                "cycles, tsc_cycles, instructions, sim_instructions, "
                "sim_cycles, time, alloc_bytes or allocs (default time); "
                "cycles means hardware cycles where both files have them, "
                "else TSC cycles; sim_cycles: cycles estimated from "
                "callgrind's cache simulation (run --instrument callgrind); "
                "allocs: allocation calls per op (untimed counting pass); or "
                "M for "
                "any counter M_per_op both files have (cache_misses from run "
                "--events cache-misses, sw_page_faults, ...)"),
    HVB_OPT_END,
};

static const struct hvb_optdef compare_only[] = {
    HVB_OPT_CHOICE("format", 'f', "console|markdown|json", A, format, formats,
                   "what goes to stdout (default console)",
                   .elsewhere = "gate has no --format (see --markdown)"),
    HVB_OPT_END,
};

static const struct hvb_optdef gate_only[] = {
    HVB_OPT_PCT("max-regression", 0, "P%", A, thr,
                "threshold (default 5% for time, cycles, tsc_cycles, "
                "alloc_bytes and counters M; 0.5% for instructions, "
                "sim_instructions, sim_cycles and allocs)",
                .elsewhere = "--max-regression is a gate option"),
    HVB_OPT_STR("markdown", 0, "FILE", A, md_path,
                "also write a PR-comment-ready summary",
                .elsewhere = "--markdown is a gate option (compare: --format "
                             "markdown)"),
    HVB_OPT_SET("allow-unstable", 0, A, allow_unstable,
                "pass (exit 0) when no benchmark regressed though some are "
                "too unstable to judge; they are listed as not gated (for "
                "runners known to be noisy on some cells, e.g. contended "
                "ones on a small VM)",
                .elsewhere = "--allow-unstable is a gate option"),
    HVB_OPT_SET("allow-incomplete", 0, A, allow_incomplete,
                "gate a file an interrupted run left (run.complete false: "
                "fewer rounds than asked); without it such a file is exit 2 "
                "(finish it with run --resume)",
                .elsewhere = "--allow-incomplete is a gate option"),
    HVB_OPT_END,
};
#undef A

static const struct hvb_optdef compare_opts[] = {
    HVB_OPT_ALSO(metric_opt),
    HVB_OPT_ALSO(compare_only),
    HVB_OPT_UNLISTED(gate_only),
    HVB_OPT_HELP,
    HVB_OPT_END,
};

static const struct hvb_optdef gate_opts[] = {
    HVB_OPT_ALSO(metric_opt),
    HVB_OPT_ALSO(gate_only),
    HVB_OPT_UNLISTED(compare_only),
    HVB_OPT_HELP,
    HVB_OPT_END,
};

const struct hvb_cmd_doc hvb_doc_gate = {
    .usage = "gate BASE.json NEW.json [--metric M]\n"
             "                    [--max-regression P%] [--markdown FILE]\n"
             "gate RUN.json [...]",
    .text = "With one file of paired rounds, every variant of a group is\n"
            "gated against its reference (the group's first plugin) on the\n"
            "interval of the median per-round ratio (a 95% bootstrap CI, or\n"
            "with fewer than 6 rounds their range); cpu-share<90% is shown,\n"
            "not a veto.  Each row it cannot judge gets a line saying why.\n"
            "\n"
            "Fail when a benchmark of NEW regressed against BASE: the lower\n"
            "bound of the 95% bootstrap CI of the ratio NEW/BASE of medians\n"
            "exceeds 1 + P%.",
    .opts = gate_opts,
    .notes =
        "exit status: 0 pass, 1 regression, 2 usage or input error\n"
        "(also a --markdown file that cannot be written),\n"
        "3 too unstable to judge (noisy samples, or a CI too wide to rule\n"
        "out a regression)",
};

const struct hvb_cmd_doc hvb_doc_compare = {
    .usage = "compare BASE.json NEW.json [--metric M]\n"
             "                       [--format console|markdown|json]",
    .text = "Per benchmark: BASE and NEW medians, the ratio NEW/BASE with\n"
            "its 95% bootstrap CI, the Mann-Whitney U p-value (* if < 0.05),\n"
            "a verdict (regressed, improved, unchanged, unstable: see\n"
            "'hvbench gate --help' for the rule) and noise flags; then a\n"
            "summary line.  Metrics as for gate (default time): cycles,\n"
            "tsc_cycles, instructions, sim_instructions, sim_cycles, time,\n"
            "alloc_bytes, allocs.",
    .opts = compare_opts,
    .notes = "exit status: 0, or 2 for a usage or input error",
};

static int cmp_row_order(const void *a, const void *b)
{
    double x = ((const struct hvb_cmp_row *)a)->ratio;
    double y = ((const struct hvb_cmp_row *)b)->ratio;

    if ( isnan(x) )
        x = -1;
    if ( isnan(y) )
        y = -1;
    return (x < y) - (x > y); /* biggest change (slowdown) first */
}

/* "5%", "5", "0.5%" -> 0.05, 0.05, 0.005. */
/*
 * Write @c's markdown to @path (hvb/outfile.h: atomically, or in place);
 * 0 or HVB_EXIT_USAGE.
 */
static int write_markdown(const char *path, const struct hvb_cmp *c, json_t *b,
                          json_t *n, int status)
{
    struct hvb_outfile o;
    char err[768];

    /*
     * A write failure is exit 2, never 1: CI reads 1 as "regression".
     * The verdict was printed already.
     */
    if ( hvb_outfile_open(&o, path, "markdown", err, sizeof(err)) )
        return hvb_usage_error("%s", err);
    hvb_cmp_print_markdown(o.f, c, b, n, status);
    if ( hvb_outfile_commit(&o, err, sizeof(err)) )
        return hvb_usage_error("%s", err);
    return 0;
}

/* What compare's or gate's command line asks. */
/* What the options given need: -1 to go on, or the exit status. */
static int cmp_check(const struct cmp_args *a)
{
    char err[768];

    if ( a->nfiles == 0 )
        return hvb_usage_error("%s needs BASE.json NEW.json (or one file of "
                               "paired rounds)",
                               a->cmd);
    if ( hvb_cmp_default_threshold(a->metric) < 0 )
        return hvb_usage_error("bad value '%s' for --metric (%s, or M for a "
                               "counter M_per_op)",
                               a->metric, hvb_cmp_metric_names());
    if ( a->md_path != NULL )
    {
        enum hvb_outfile_kind kind;

        if ( hvb_outfile_check(a->md_path, "markdown", &kind, err,
                               sizeof(err)) )
            return hvb_usage_error("%s", err);
    }
    return -1;
}

/* Read the command line into @a: -1 to go on, or the exit status. */
static int cmp_parse(struct cmp_args *a, int argc, char **argv)
{
    struct hvb_optparse p = {.argc = argc,
                             .argv = argv,
                             .i = 1,
                             .cmd = a->cmd,
                             .doc = a->gate ? &hvb_doc_gate : &hvb_doc_compare};
    const char *val;
    int id;

    while ( (id = hvb_opt_parse(&p, a->gate ? gate_opts : compare_opts, a,
                                &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        if ( a->nfiles == 2 )
            return hvb_usage_error("%s takes BASE.json NEW.json; '%s' is "
                                   "one too many",
                                   a->cmd, val);
        a->files[a->nfiles++] = val;
    }
    return cmp_check(a);
}

/*
 * The files of @a into @docs (one file: both its), each from a finished
 * run unless gate was told --allow-incomplete: 0 or the exit status,
 * @docs then released.
 */
static int cmp_load(const struct cmp_args *a, json_t **docs)
{
    char err[768], why[96];
    size_t k;

    docs[0] = hvb_results_load(a->files[0], err, sizeof(err));
    if ( docs[0] != NULL )
        docs[1] = a->nfiles == 1
                      ? json_incref(docs[0])
                      : hvb_results_load(a->files[1], err, sizeof(err));
    if ( docs[0] == NULL || docs[1] == NULL )
    {
        json_decref(docs[0]);
        docs[0] = NULL;
        return hvb_usage_error("%s", err);
    }
    /*
     * A file an interrupted run left has fewer rounds than asked: gate
     * says so and refuses it unless told (compare only says so).
     */
    for ( k = 0; k < a->nfiles; k++ )
    {
        if ( hvb_results_complete(docs[k], why, sizeof(why)) )
            continue;
        if ( a->gate && !a->allow_incomplete )
        {
            json_decref(docs[0]);
            json_decref(docs[1]);
            docs[0] = docs[1] = NULL;
            return hvb_usage_error(
                "'%s' is from an interrupted run (%s): finish it with "
                "'hvbench run ... --resume', or gate it as it is with "
                "--allow-incomplete",
                a->files[k], why);
        }
        fprintf(stderr,
                "hvbench: warning: '%s' is from an interrupted run (%s)\n",
                a->files[k], why);
    }
    return 0;
}

static int cmd(int argc, char **argv, bool gate)
{
    struct cmp_args a = {.gate = gate,
                         .cmd = gate ? "gate" : "compare",
                         .metric = "time",
                         .format = FMT_CONSOLE,
                         .thr = -1};
    json_t *docs[2] = {NULL, NULL};
    struct hvb_cmp c = {.names = {NULL, NULL}};
    char err[768];
    int status;

    status = cmp_parse(&a, argc, argv);
    if ( status >= 0 || (status = cmp_load(&a, docs)) != 0 )
        return status < 0 ? HVB_EXIT_USAGE : status;
    c.names[0] = a.files[0];
    c.names[1] = a.nfiles == 1 ? a.files[0] : a.files[1];
    if ( a.nfiles == 1
             ? hvb_cmp_paired(docs[0], a.metric, a.thr, &c, err, sizeof(err))
             : hvb_cmp_run(docs[0], docs[1], a.metric, a.thr, &c, err,
                           sizeof(err)) )
    {
        status = hvb_usage_error("%s", err);
        goto out;
    }
    qsort(c.rows, c.nr_rows, sizeof(*c.rows), cmp_row_order);
    if ( gate )
        status =
            hvb_gate_report(&c, docs[0], docs[1], a.md_path, a.allow_unstable);
    else
    {
        if ( a.format == FMT_JSON )
            hvb_cmp_print_json(stdout, &c);
        else if ( a.format == FMT_MARKDOWN )
            hvb_cmp_print_markdown(stdout, &c, docs[0], docs[1], -1);
        else
            hvb_cmp_print_console(stdout, &c);
        status = HVB_EXIT_OK;
    }
    hvb_cmp_free(&c);
out:
    json_decref(docs[0]);
    json_decref(docs[1]);
    return status;
}

static bool said_regression;

int hvb_gate_exit(int status)
{
    if ( status == HVB_EXIT_REGRESSION && !said_regression )
        return HVB_EXIT_USAGE;
    return status;
}

int hvb_gate_report(struct hvb_cmp *c, json_t *base, json_t *new_,
                    const char *md_path, bool allow_unstable)
{
    int status;

    qsort(c->rows, c->nr_rows, sizeof(*c->rows), cmp_row_order);
    status = c->nr[HVB_REGRESSED]                     ? HVB_EXIT_REGRESSION
             : c->nr[HVB_UNSTABLE] && !allow_unstable ? HVB_EXIT_UNSTABLE
                                                      : HVB_EXIT_OK;
    said_regression = status == HVB_EXIT_REGRESSION;
    hvb_cmp_print_console(stdout, c);
    printf("gate: %s", status == HVB_EXIT_OK           ? "pass"
                       : status == HVB_EXIT_REGRESSION ? "FAIL: regression"
                       : c->builds ? "UNKNOWN: not decided within the budget "
                                     "of pairs"
                                   : "UNSTABLE: too noisy to judge");
    if ( status == HVB_EXIT_OK && c->nr[HVB_UNSTABLE] )
        printf(" (%zu %s benchmark(s) not gated: "
               "--allow-unstable)",
               c->nr[HVB_UNSTABLE], hvb_cmp_verdict_word(c, HVB_UNSTABLE));
    putchar('\n');
    fflush(stdout);
    if ( md_path != NULL )
    {
        int rc = write_markdown(md_path, c, base, new_, status);

        if ( rc )
            status = rc;
    }
    return status;
}

int hvb_cmd_compare(struct hvb_cmd_ctx *ctx)
{
    return cmd(ctx->argc, ctx->argv, false);
}

int hvb_cmd_gate(struct hvb_cmd_ctx *ctx)
{
    return hvb_gate_exit(cmd(ctx->argc, ctx->argv, true));
}
