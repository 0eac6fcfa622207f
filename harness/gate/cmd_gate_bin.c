/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench gate --base-bin OLD/hvbench [gate options] -- WORKLOAD [run
 * options]": two builds paired in one run.  On a VM whose speed drifts
 * over seconds, two results files measured one after the other disagree
 * by more than the change a gate looks for; samples of the two builds
 * taken a few milliseconds apart see the same machine.  So the old and
 * the new binary run as live worker processes (harness/gate/cmd_worker.c, the
 * protocol in private.h), both warm, and the gate alternates short
 * samples between them: per cell and round one sample of each, in the
 * order AB BA AB BA ..., every sample of a cell with one iteration count
 * calibrated once for both builds.  The unit of comparison is the ratio
 * new / base of the two samples of a round; P process pairs (fresh
 * processes of both builds, in alternating start order) each run R
 * rounds, so the layout luck of one process (stack, heap, CPU) averages
 * out.  The verdict is hvb_cmp_paired()'s on the P x R ratios: median,
 * 95% percentile bootstrap CI, threshold; exit codes and --markdown as
 * the two-file gate's.
 *
 * Example (the defaults): P = 12, R = 10, --sample-time 0.01 on the 5
 * one-thread lookup cells: 12 x (5 x 2 warm-up + 5 x 10 x 2 measured
 * samples of ~10-15 ms) ~ 20 s of samples, 120 ratios per cell.  Each
 * process lands in a fast or a slow state of its own on the 2-vCPU VM
 * (per-pair medians of 0.86 or 1.18 beside 1.000 +- 0.5%), so a pair's
 * ratios can sit off 1 together; the median of all 120 is robust to a
 * few such pairs where one pair's 20 (P = 3) is not.  A cell whose
 * ratios have median 1.021 and CI [1.012, 1.030] regressed at a 1%
 * threshold, unstable at 2% (the CI reaches past 1.02), unchanged at 5%.
 *
 * --metric sim_instructions: the workers run under callgrind; counts
 * are deterministic, so one process pair and a few rounds of 20000
 * operations suffice.  Both builds must have been configured alike (the
 * hello's build block); a difference is exit 2, naming it.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hvb/cmdline.h>
#include <hvb/gate.h>
#include <hvb/compare.h>
#include "private.h"
#include <hvb/outfile.h>
#include <hvb/results_read.h>
#include <hvb/stats.h>

#define DEFAULT_PAIRS    12
#define DEFAULT_ROUNDS   10
#define DEFAULT_SAMPLE_S 0.01
#define SIM_ROUNDS       3
#define SIM_ITERATIONS   20000
#define MAX_PAIRS        64
#define MAX_ROUNDS       10000
#define MAX_SAMPLE_S     10.0

struct gate_bin {
    const char *metric, *md_path;
    double thr;
    bool allow_unstable, sim;
    unsigned int pairs, rounds;
    double sample_s;
    char **args;                 /* argv of a worker, [0] set per build */
    struct hvb_gate_worker w[2]; /* base, new */
    size_t nr_cells;
    int64_t *iters;
    json_t **time[2];     /* per cell: samples_ns_per_op arrays */
    json_t **counters[2]; /* per cell: {name: {"samples": [...]}} */
    char err[768];
};

#define METRIC_HELP                                                       \
    "(default time); sim_instructions runs both workers under callgrind " \
    "(1 thread), one pair, " HVB_STR(SIM_ROUNDS) " rounds of " HVB_STR(   \
        SIM_ITERATIONS) " ops: the counts are deterministic"

#define G struct gate_bin
static const struct hvb_optdef gate_bin_opts[] = {
    HVB_OPT_STR("base-bin", 0, "FILE", G, w[0].bin,
                "the base build's hvbench (required)"),
    HVB_OPT_STR("metric", 'm', "time|sim_instructions|tsc_cycles|M", G, metric,
                METRIC_HELP),
    HVB_OPT_PCT("max-regression", 0, "P%", G, thr,
                "threshold (default as gate: 5% time, 0.5% sim_instructions)"),
    HVB_OPT_STR("markdown", 0, "FILE", G, md_path,
                "also write a PR-comment-ready summary"),
    HVB_OPT_SET("allow-unstable", 0, G, allow_unstable,
                "pass when nothing regressed though some cells are too "
                "unstable to judge"),
    HVB_OPT_UINT("pairs", 0, "N", G, pairs, 1, MAX_PAIRS,
                 "process pairs, each a fresh process of both builds "
                 "(default " HVB_STR(DEFAULT_PAIRS) ")"),
    HVB_OPT_UINT(
        "rounds", 0, "N", G, rounds, 3, MAX_ROUNDS,
        "rounds per cell and pair (default " HVB_STR(DEFAULT_ROUNDS) ")"),
    HVB_OPT_SECONDS("sample-time", 0, "S", G, sample_s, 0.0001, MAX_SAMPLE_S,
                    "seconds per sample, calibrated once (default " HVB_STR(
                        DEFAULT_SAMPLE_S) ")"),
    HVB_OPT_SECONDS("worker-timeout", 0, "S", G, w[0].timeout_s, 0.01, 86400,
                    "kill a worker that has not said hello or answered a "
                    "command within S seconds, and say which (default " HVB_STR(
                        HVB_WORKER_TIMEOUT) ")"),
    HVB_OPT_HELP(0),
    HVB_OPT_END,
};
#undef G

const struct hvb_cmd_doc hvb_doc_gate_bin = {
    .usage = "gate --base-bin OLD/hvbench [gate options] --\n"
             "                    WORKLOAD [run options]",
    .text = "Two builds paired in one run: this hvbench (new) and OLD (base)\n"
            "run WORKLOAD's cells as two live worker processes ('hvbench\n"
            "worker', both warm), and the gate alternates short samples of\n"
            "the two (AB BA AB ...), one iteration count shared per cell, so\n"
            "the machine's drift hits both builds alike.  Per cell the\n"
            "ratios new/base of the rounds' two samples, pooled over the\n"
            "process pairs, give the median ratio and its 95% bootstrap CI;\n"
            "verdicts as for the two-file gate ('hvbench gate --help').\n"
            "Both builds must be configured alike (compiler, flags, build\n"
            "type, layout, lockstat): a difference is exit 2, naming it.\n"
            "OLD must be an hvbench with the worker (this version or later).",
    .opts = gate_bin_opts,
    .inherits = "run",
    .notes =
        "Run options follow '--' as for 'hvbench run' (--plugin, --param,\n"
        "--threads, --affinity, --seed, --counters ...); --repetitions,\n"
        "--min-time and --out do not apply, --processes and --resume are\n"
        "refused.\n"
        "\n"
        "exit status: 0 pass, 1 regression, 2 usage or input error (also\n"
        "builds configured differently, a base binary without the worker,\n"
        "a cell or worker that failed), 3 too unstable to judge",
};

bool hvb_gate_bin_wanted(int argc, char **argv)
{
    int i;

    for ( i = 1; i < argc && strcmp(argv[i], "--") != 0; i++ )
        if ( strcmp(argv[i], "--base-bin") == 0 ||
             strncmp(argv[i], "--base-bin=", 11) == 0 )
            return true;
    return false;
}

static const char *json_str(json_t *v, char *buf, size_t len)
{
    char *s;

    if ( json_is_string(v) )
        return json_string_value(v);
    s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    snprintf(buf, len, "%s", s ? s : "(absent)");
    free(s);
    return buf;
}

/* Both hellos: the same build block and cells, else exit 2 naming it. */
static int check_alike(const struct hvb_gate_worker *b,
                       const struct hvb_gate_worker *n)
{
    json_t *bb = json_object_get(json_object_get(b->hello, "hvbench"), "build");
    json_t *nb = json_object_get(json_object_get(n->hello, "hvbench"), "build");
    json_t *bc = json_object_get(b->hello, "cells");
    json_t *nc = json_object_get(n->hello, "cells");
    json_t *sides[2] = {bb, nb}, *v;
    const char *key;
    char x[256], y[256];
    size_t i;

    for ( i = 0; i < 2; i++ )
        json_object_foreach(sides[i], key, v)
        {
            json_t *bv = json_object_get(bb, key),
                   *nv = json_object_get(nb, key);

            if ( bv == NULL || nv == NULL || !json_equal(bv, nv) )
                return hvb_usage_error(
                    "the two builds were configured differently: build.%s is "
                    "'%s' in the base (%s) and '%s' in the new (%s); "
                    "configure both alike",
                    key, json_str(bv, x, sizeof(x)), b->bin,
                    json_str(nv, y, sizeof(y)), n->bin);
        }
    if ( !json_equal(bc, nc) )
        return hvb_usage_error(
            "the two builds make different cells of the run options "
            "(base: %zu, first '%s'; new: %zu, first '%s')",
            json_array_size(bc), json_str(json_array_get(bc, 0), x, sizeof(x)),
            json_array_size(nc), json_str(json_array_get(nc, 0), y, sizeof(y)));
    return 0;
}

static void add_sample(struct gate_bin *g, int side, size_t cell, json_t *r)
{
    json_t *ctrs = json_object_get(r, "counters"), *v;
    const char *name;

    json_array_append(g->time[side][cell], json_object_get(r, "ns"));
    json_object_foreach(ctrs, name, v)
    {
        json_t *o = json_object_get(g->counters[side][cell], name);

        if ( o == NULL )
        {
            o = json_pack("{s[]}", HVB_RK_CTR_SAMPLES);
            json_object_set_new(g->counters[side][cell], name, o);
        }
        json_array_append(json_object_get(o, HVB_RK_CTR_SAMPLES), v);
    }
}

/*
 * A worker that failed a command (a cell that cannot run, a crash) is
 * exit 2, not 1: a gate's 1 means a regression.
 */
static int worker_failed(const struct gate_bin *g)
{
    return hvb_usage_error("%s (no verdict)", g->err);
}

/* Is @v a number > 0 (a sample)? */
static bool positive(json_t *v)
{
    return json_is_number(v) && json_number_value(v) > 0 &&
           json_number_value(v) < HUGE_VAL;
}

/* An answer without its @key: into g->err, @r released. */
static void bad_answer(struct gate_bin *g, int side, const char *cmd, json_t *r,
                       const char *key)
{
    char *s = json_dumps(r, JSON_COMPACT);

    snprintf(g->err, sizeof(g->err),
             "the %s build's worker (%s) answered '%s' with no sample "
             "(\"%s\" > 0 wanted): ok %.200s",
             g->w[side].label, g->w[side].bin, cmd, key, s ? s : "?");
    free(s);
    json_decref(r);
}

/* One sample of @cell from worker @side; @keep: record it. */
static int one(struct gate_bin *g, int side, size_t cell, bool keep)
{
    char cmd[64];
    json_t *r;

    snprintf(cmd, sizeof(cmd), "run %zu %lld", cell, (long long)g->iters[cell]);
    if ( hvb_gate_worker_ask(&g->w[side], cmd, &r, g->err, sizeof(g->err)) )
        return -EIO;
    if ( !positive(json_object_get(r, "ns")) )
    {
        bad_answer(g, side, cmd, r, "ns");
        return -EIO;
    }
    if ( keep )
        add_sample(g, side, cell, r);
    json_decref(r);
    return 0;
}

/* The shared per-thread count of every cell: geometric mean of both. */
static int calibrate(struct gate_bin *g)
{
    char cmd[64];
    size_t c;
    int k;

    for ( c = 0; c < g->nr_cells; c++ )
    {
        double logsum = 0;

        if ( g->sim )
        {
            g->iters[c] = SIM_ITERATIONS;
            continue;
        }
        snprintf(cmd, sizeof(cmd), "cal %zu %g", c, g->sample_s);
        for ( k = 0; k < 2; k++ )
        {
            json_t *r;
            json_int_t it;

            if ( hvb_gate_worker_ask(&g->w[k], cmd, &r, g->err,
                                     sizeof(g->err)) )
                return -EIO;
            it = json_integer_value(json_object_get(r, "iterations"));
            if ( it <= 0 )
            {
                bad_answer(g, k, cmd, r, "iterations");
                return -EIO;
            }
            json_decref(r);
            logsum += log(it > 0 ? (double)it : 1);
        }
        g->iters[c] = (int64_t)ceil(exp(logsum / 2));
    }
    return 0;
}

/* Process pair @p: start both (alternating who first), warm, rounds. */
static int run_pair(struct gate_bin *g, unsigned int p)
{
    unsigned int r;
    size_t c;
    int k, rc;

    for ( k = 0; k < 2; k++ )
    {
        int side = (k + (int)p) % 2;

        rc = hvb_gate_worker_start(&g->w[side], g->args);
        if ( rc )
            return rc;
    }
    rc = check_alike(&g->w[0], &g->w[1]);
    if ( rc )
        return rc;
    if ( p == 0 )
    {
        g->nr_cells = json_array_size(json_object_get(g->w[0].hello, "cells"));
        g->iters = calloc(g->nr_cells + 1, sizeof(*g->iters));
        for ( k = 0; k < 2; k++ )
        {
            g->time[k] = calloc(g->nr_cells + 1, sizeof(json_t *));
            g->counters[k] = calloc(g->nr_cells + 1, sizeof(json_t *));
            for ( c = 0; g->time[k] && g->counters[k] && c < g->nr_cells; c++ )
            {
                g->time[k][c] = json_array();
                g->counters[k][c] = json_object();
            }
        }
        if ( g->iters == NULL || g->time[1] == NULL || g->counters[1] == NULL )
            return hvb_failure("out of memory");
        if ( calibrate(g) )
            return worker_failed(g);
    }
    /* Warm both: the first sample of a cell prepares it. */
    for ( c = 0; !g->sim && c < g->nr_cells; c++ )
        for ( k = 0; k < 2; k++ )
            if ( one(g, k, c, false) )
                return worker_failed(g);
    for ( r = 0; r < g->rounds; r++ )
        for ( c = 0; c < g->nr_cells; c++ )
        {
            int first = (int)((r + p) % 2);

            if ( one(g, first, c, true) || one(g, 1 - first, c, true) )
                return worker_failed(g);
        }
    for ( k = 0; k < 2; k++ )
        if ( p + 1 < g->pairs )
            hvb_gate_worker_stop(&g->w[k]);
    return 0;
}

/* The paired document hvb_cmp_paired() reads: per cell base, then new. */
static json_t *paired_doc(struct gate_bin *g)
{
    json_t *cells = json_array(), *names;
    size_t c;
    int k;

    names = json_object_get(g->w[1].hello, "cells");
    for ( c = 0; c < g->nr_cells; c++ )
        for ( k = 0; k < 2; k++ )
            json_array_append_new(
                cells, json_pack("{sO si sO sO}", HVB_RK_NAME,
                                 json_array_get(names, c), HVB_RK_VARIANT, k,
                                 HVB_RK_SAMPLES, g->time[k][c], HVB_RK_COUNTERS,
                                 g->counters[k][c]));
    return json_pack("{s{so s{si}}}", HVB_RK_HVBENCH, HVB_RK_CELLS, cells,
                     HVB_RK_RUN, HVB_RK_PROCESSES, (int)g->pairs);
}

/* Per cell, the median ratio of each process pair: the layout luck. */
static void print_pairs(struct gate_bin *g, const struct hvb_cmp *c)
{
    size_t i, j;
    unsigned int p;

    printf("two builds paired: base %s, new %s; %u process pair(s) x %u "
           "round(s) per cell, samples in AB BA order%s\n",
           g->w[0].bin, g->w[1].bin, g->pairs, g->rounds,
           g->sim ? ", under callgrind" : "");
    for ( i = 0; i < g->nr_cells && !g->sim && strcmp(c->key, "time") == 0;
          i++ )
    {
        json_t *x = g->time[0][i], *y = g->time[1][i];

        printf("  %s: %lld ops/thread per sample; median new/base per pair:",
               json_string_value(
                   json_array_get(json_object_get(g->w[1].hello, "cells"), i)),
               (long long)g->iters[i]);
        for ( p = 0; p < g->pairs; p++ )
        {
            double q[MAX_ROUNDS];
            size_t n = 0;

            for ( j = p * g->rounds; j < (p + 1) * g->rounds; j++ )
            {
                double a = json_number_value(json_array_get(x, j));

                if ( a > 0 )
                    q[n++] = json_number_value(json_array_get(y, j)) / a;
            }
            printf(" %.4f", n ? hvb_median(q, n) : NAN);
        }
        putchar('\n');
    }
}

static void gate_free(struct gate_bin *g)
{
    size_t c;
    int k;

    for ( k = 0; k < 2; k++ )
    {
        hvb_gate_worker_stop(&g->w[k]);
        for ( c = 0; c < g->nr_cells; c++ )
        {
            if ( g->time[k] )
                json_decref(g->time[k][c]);
            if ( g->counters[k] )
                json_decref(g->counters[k][c]);
        }
        free(g->time[k]);
        free(g->counters[k]);
    }
    free(g->iters);
    free(g->args);
}

static int parse(struct gate_bin *g, int argc, char **argv, int *dd)
{
    struct hvb_optparse p = {.argc = argc,
                             .argv = argv,
                             .i = 1,
                             .cmd = "gate",
                             .doc = &hvb_doc_gate_bin};
    const char *val;
    int id;

    for ( *dd = 1; *dd < argc && strcmp(argv[*dd], "--") != 0; (*dd)++ )
        ;
    p.argc = *dd;
    while ( (id = hvb_opt_parse(&p, gate_bin_opts, g, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return -1;
        return hvb_usage_error("gate --base-bin takes the workload after "
                               "'--' ('%s' before it)",
                               val);
    }
    g->w[1].timeout_s = g->w[0].timeout_s;
    return 0;
}

int hvb_cmd_gate_bin(int argc, char **argv)
{
    struct gate_bin g = {
        .metric = "time",
        .thr = -1,
        .pairs = DEFAULT_PAIRS,
        .rounds = DEFAULT_ROUNDS,
        .sample_s = DEFAULT_SAMPLE_S,
        .w = {{.label = "base", .out = -1, .timeout_s = HVB_WORKER_TIMEOUT},
              {.label = "new",
               .bin = "/proc/self/exe",
               .out = -1,
               .timeout_s = HVB_WORKER_TIMEOUT}},
    };
    enum hvb_outfile_kind kind;
    struct stat st;
    struct hvb_cmp c;
    json_t *doc;
    unsigned int p;
    char self[PATH_MAX];
    int dd, n = 0, i, status;
    ssize_t sl;

    status = parse(&g, argc, argv, &dd);
    if ( status )
        return status < 0 ? HVB_EXIT_OK : status;
    if ( g.w[0].bin == NULL )
        return hvb_usage_error("gate --base-bin needs a file");
    errno = 0;
    if ( stat(g.w[0].bin, &st) || !S_ISREG(st.st_mode) ||
         access(g.w[0].bin, X_OK) )
        return hvb_usage_error("--base-bin %s: %s", g.w[0].bin,
                               errno ? strerror(errno)
                                     : "not an executable file");
    if ( dd + 1 >= argc )
        return hvb_usage_error("gate --base-bin needs '-- WORKLOAD [run "
                               "options]'");
    if ( hvb_cmp_default_threshold(g.metric) < 0 )
        return hvb_usage_error("bad value '%s' for --metric (time, "
                               "sim_instructions, tsc_cycles, or M for a "
                               "counter M_per_op)",
                               g.metric);
    if ( g.md_path != NULL &&
         hvb_outfile_check(g.md_path, "markdown", &kind, g.err, sizeof(g.err)) )
        return hvb_usage_error("%s", g.err);
    sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if ( sl > 0 )
    {
        self[sl] = '\0';
        g.w[1].bin = self;
    }
    g.sim = strcmp(g.metric, "sim_instructions") == 0;
    if ( g.sim )
    {
        g.pairs = 1;
        g.rounds = SIM_ROUNDS;
    }
    g.args = calloc((size_t)(argc - dd) + 6, sizeof(*g.args));
    if ( g.args == NULL )
        return hvb_failure("out of memory");
    g.args[n++] = NULL; /* the binary, per build */
    g.args[n++] = "worker";
    for ( i = dd + 1; i < argc; i++ )
        g.args[n++] = argv[i];
    g.args[n++] = "--quiet";
    if ( g.sim )
    {
        g.args[n++] = "--instrument";
        g.args[n++] = "callgrind";
    }
    signal(SIGPIPE, SIG_IGN); /* a worker that died is an EOF, said so */
    for ( p = 0; p < g.pairs; p++ )
    {
        status = run_pair(&g, p);
        if ( status )
            goto out;
    }
    doc = paired_doc(&g);
    if ( doc == NULL )
    {
        status = hvb_failure("out of memory");
        goto out;
    }
    if ( hvb_cmp_paired(doc, g.metric, g.thr, &c, g.err, sizeof(g.err)) )
        status = hvb_usage_error("%s", g.err);
    else
    {
        print_pairs(&g, &c);
        status = hvb_gate_report(&c, g.w[0].hello, g.w[1].hello, g.md_path,
                                 g.allow_unstable);
        hvb_cmp_free(&c);
    }
    json_decref(doc);
out:
    gate_free(&g);
    return status;
}
