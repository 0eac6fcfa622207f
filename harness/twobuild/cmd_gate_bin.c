/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench gate --base-bin OLD/hvbench [--new-bin NEW/hvbench] [gate
 * options] -- WORKLOAD [run options]": two builds paired in one run.  On
 * a VM whose speed drifts over seconds, two results files measured one
 * after the other disagree by more than the change a gate looks for;
 * samples of the two builds taken a few milliseconds apart see the same
 * machine.  So the old and the new binary run as live worker processes
 * (cmd_worker.c, the protocol in private.h), both warm, and
 * the gate alternates short samples between them: per cell and round one
 * sample of each, in the order AB BA AB BA ..., every sample of a cell
 * with one iteration count calibrated once for both builds.  The unit of
 * comparison is the ratio new / base of the two samples of a round; each
 * process pair (fresh processes of both builds, in alternating start
 * order) runs R rounds, so the layout luck of one process (stack, heap,
 * CPU) averages out over the pairs.
 *
 * How many pairs is adaptive (Chromium Pinpoint's SAME / DIFFERENT /
 * UNKNOWN): after the first --pairs P0 pairs the gate looks at every
 * cell (hvb_cmp_builds(): the median ratio, its bootstrap CI, the
 * Benjamini-Hochberg control over the cells), and a cell whose CI lies
 * inside [1 - t, 1 + t] is "same", one whose CI lies wholly outside it
 * "regressed" or "improved"; the cells still undecided get more pairs,
 * --look-every S at a time, and another look, until all are decided or
 * --max-pairs Pmax (or --budget seconds) is spent: those left are
 * "unknown" (exit 3), with an estimate of the pairs that would decide
 * them.  A verdict once reached is final.  Looking again and again
 * would raise the chance of a wrong verdict with every look, so each
 * look's CI is at level 1 - 0.05 / L, L the looks the budget allows
 * (Bonferroni): whichever look decides, the chance that it was wrong
 * stays under 0.05.
 *
 * Example (the defaults): P0 = 8, S = 4, Pmax = 24, R = 100 rounds of
 * 1 ms samples: looks after 8, 12, 16, 20 and 24 pairs, L = 5, 99% CIs.
 * Two gates of a +1% slowdown at t = 0.5% (docs/gating.md, measured):
 * one whose 99% CI after 16 pairs was [+0.54%, +2.72%] (median +1.71%)
 * stopped there, regressed; one at [+0.28%, +2.50%] (median +1.36%)
 * after 24 was unknown, "about 14 more would decide it" (24 x ((1.0136
 * - 1.0028) / (1.0136 - 1.005))^2 - 24).  Cells that were "same" at a
 * look run no more pairs.  On the 2-vCPU VM a process lands in a fast or a
 * slow state of its own for a cell (per-pair medians of 0.86 or 1.18
 * beside 1.000 +- 0.5%), so a pair's ratios can sit off 1 together:
 * the CI resamples pairs first, then rounds (hvb/compare.h).
 *
 * --metric sim_instructions, sim_cycles (any sim_ count): the workers
 * run under callgrind (its cache simulation pinned); counts are
 * deterministic, so one process pair and a few rounds of 20000
 * operations suffice (no further looks).  Both builds must have been
 * configured alike (the hello's build block); a difference is exit 2,
 * naming it.
 *
 * Here: the options, the plan of pairs and looks, the loop.  A process
 * pair and a look are gate_bin_pairs.c's, the verdicts said
 * gate_bin_report.c's.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hvb/cmdline.h>
#include <hvb/gate.h>
#include <hvb/interrupt.h>
#include <hvb/twobuild.h>
#include <hvb/compare.h>
#include "private.h"
#include <hvb/outfile.h>

#define DEFAULT_PAIRS      HVB_GATE_DEFAULT_PAIRS
#define DEFAULT_MAX_FACTOR 3 /* --max-pairs: 3 x --pairs */
#define DEFAULT_ROUNDS     HVB_GATE_DEFAULT_ROUNDS
#define DEFAULT_SAMPLE_S   HVB_GATE_DEFAULT_SAMPLE_S
#define DEFAULT_TIME_THR   0.005 /* time, cycles, tsc_cycles */
#define SIM_ROUNDS         3
#define RUNS_ROUNDS        6 /* --base-runs: each sample a process */
#define RUNS_SAMPLE_S      0.02
#define MAX_PAIRS          HVB_GATE_MAX_PAIRS
#define MAX_LOOKS          50
#define MAX_SAMPLE_S       HVB_GATE_MAX_SAMPLE_S

#define SIM_PLAN \
    HVB_STR(SIM_ROUNDS) " rounds of " HVB_STR(SIM_ITERATIONS) " ops"
#define METRIC_HELP                                                         \
    "(default time); cycles: hardware cycles where both builds count them " \
    "(a PMU), else TSC cycles; sim_instructions and sim_cycles "            \
    "(callgrind's cache simulation) run both workers under callgrind (1 "   \
    "thread), one pair, " SIM_PLAN ": the counts are deterministic; "       \
    "several sim_ metrics, comma-separated, from that one run (each its "   \
    "own table; --json and --markdown FILE then name each by %m in FILE)"

#define G struct gate_bin
static const struct hvb_optdef gate_bin_opts[] = {
    HVB_OPT_STR("base-bin", 0, "FILE", G, w[0].bin,
                "the base build's hvbench (required)"),
    HVB_OPT_STR("new-bin", 0, "FILE", G, w[1].bin,
                "the new build's hvbench (default this one)"),
    HVB_OPT_STR("metric", 'm',
                "time|cycles|tsc_cycles|sim_instructions|sim_cycles|M[,M...]",
                G, metric, METRIC_HELP),
    HVB_OPT_PCT("max-regression", 0, "P%", G, thr,
                "threshold t: same within +-t, regressed or improved beyond "
                "it (default 0.5% for time, cycles and tsc_cycles, 0.5% "
                "sim_instructions and sim_cycles, 5% a counter M)"),
    HVB_OPT_STR("markdown", 0, "FILE", G, md_path,
                "also write a PR-comment-ready summary"),
    HVB_OPT_STR("json", 0, "FILE", G, json_path,
                "also write the verdicts as JSON (docs/schema.md)"),
    HVB_OPT_SET("base-runs", 0, G, base_runs,
                "the base predates the worker: pair it by whole 'OLD run' "
                "processes, one per sample ('worker --run-bin'; wider CI, "
                "more pairs)"),
    HVB_OPT_SET("allow-unstable", 0, G, allow_unstable,
                "pass when nothing regressed though some cells are unknown "
                "(not decided within the budget)"),
    HVB_OPT_UINT("pairs", 0, "N", G, pairs, 1, MAX_PAIRS,
                 "process pairs before the first look, each a fresh process "
                 "of both builds (default " HVB_STR(DEFAULT_PAIRS) ")"),
    HVB_OPT_UINT(
        "max-pairs", 0, "N", G, max_pairs, 1, MAX_PAIRS,
        "at most N pairs for a cell still undecided (default " HVB_STR(
            DEFAULT_MAX_FACTOR) " x --pairs; --pairs: no second look)"),
    HVB_OPT_UINT("look-every", 0, "N", G, look_every, 1, MAX_PAIRS,
                 "look again after every N pairs more (default half of "
                 "--pairs, rounded up)"),
    HVB_OPT_SECONDS("budget", 0, "S", G, budget_s, 0.001, 86400,
                    "add no pair that would end past S seconds from the "
                    "start (the first --pairs always run)"),
    HVB_OPT_UINT("rounds", 0, "N", G, rounds, HVB_GATE_MIN_ROUNDS, MAX_ROUNDS,
                 "rounds per cell and pair (default " HVB_STR(
                     DEFAULT_ROUNDS) "; --base-runs " HVB_STR(RUNS_ROUNDS) ")"),
    HVB_OPT_SECONDS(
        "sample-time", 0, "S", G, sample_s, HVB_GATE_MIN_SAMPLE_S, MAX_SAMPLE_S,
        "seconds per sample, calibrated once (default " HVB_STR(
            DEFAULT_SAMPLE_S) "; --base-runs " HVB_STR(RUNS_SAMPLE_S) ")"),
    HVB_OPT_SECONDS("worker-timeout", 0, "S", G, w[0].timeout_s, 0.01, 86400,
                    "kill a worker that has not said hello or answered a "
                    "command within S seconds, and say which (default " HVB_STR(
                        HVB_WORKER_TIMEOUT) ")"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef G

const struct hvb_cmd_doc hvb_doc_gate_bin = {
    .usage = "gate --base-bin OLD/hvbench [--new-bin NEW/hvbench]\n"
             "                    [gate options] -- WORKLOAD [run options]",
    .text =
        "Two builds paired in one run: NEW (default this hvbench) and OLD\n"
        "(base) run WORKLOAD's cells as two live worker processes\n"
        "('hvbench worker', both warm), and the gate alternates short\n"
        "samples of the two (AB BA AB ...), one iteration count shared per\n"
        "cell, so the machine's drift hits both builds alike.  Per cell the\n"
        "ratios new/base of the rounds' two samples give each process pair\n"
        "one vote, its median; the Hodges-Lehmann estimate of the pairs'\n"
        "medians is the ratio, with its bootstrap CI.  Adaptive, as\n"
        "Chromium Pinpoint: after --pairs pairs a cell whose CI lies inside\n"
        "[1-t, 1+t] is same, one whose CI lies wholly above (below) it is\n"
        "regressed (improved); the cells still undecided get more pairs,\n"
        "--look-every at a time, until --max-pairs or --budget: then they\n"
        "are unknown, with the pairs more that would likely decide them.\n"
        "Each look's CI is at level 1 - 0.05/L, L the looks the budget\n"
        "allows (Bonferroni), and a regressed or improved cell must also be\n"
        "a Benjamini-Hochberg discovery among all the cells (the false\n"
        "discovery rate at that level).  Both builds must be configured\n"
        "alike (compiler, flags, build type, layout, lockstat): a\n"
        "difference is exit 2, naming it.  OLD and NEW must be hvbench\n"
        "builds with the worker (this version or later).",
    .opts = gate_bin_opts,
    .inherits = "run",
    .notes =
        "Run options follow '--' as for 'hvbench run' (--plugin, --param,\n"
        "--threads, --affinity, --seed, --counters ...); --repetitions,\n"
        "--min-time and --out do not apply, --processes and --resume are\n"
        "refused.  Progress goes to stderr: a line per pair on a terminal,\n"
        "else a line per look.\n"
        "\n"
        "exit status: 0 pass (nothing regressed), 1 regression, 2 usage or\n"
        "input error (also builds configured differently, a binary without\n"
        "the worker, a cell or worker that failed; no --json written),\n"
        "3 unknown: a cell not decided within the budget (0 with\n"
        "--allow-unstable)",
};

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Would one more pair end past --budget?  (The last pair's pace.) */
static bool over_budget(const struct gate_bin *g)
{
    double next;

    if ( g->budget_s <= 0 )
        return false;
    next = g->pair_cells ? g->pair_s * (double)hvb_gate_bin_undecided(g) /
                               (double)g->pair_cells
                         : 0;
    return mono_now() - g->t0 + next > g->budget_s;
}

/* stderr: a line per pair on a terminal (rewritten), else per look. */
static void progress(const struct gate_bin *g, unsigned int p, bool looked,
                     const struct hvb_cmp *c)
{
    char what[160] = "";

    if ( looked )
        snprintf(what, sizeof(what),
                 "; look %u of at most %u: %zu regressed, %zu improved, "
                 "%zu same, %zu unknown",
                 g->looks, g->max_looks, c->nr[HVB_REGRESSED],
                 c->nr[HVB_IMPROVED], c->nr[HVB_UNCHANGED],
                 c->nr[HVB_UNSTABLE]);
    if ( g->tty )
        fprintf(stderr,
                "\r\033[Kgate --base-bin: pair %u (%u to %u), %zu of %zu "
                "cell(s) undecided, %.0f s%.120s",
                p, g->pairs, g->max_pairs, hvb_gate_bin_undecided(g),
                g->nr_cells, mono_now() - g->t0, what);
    else if ( looked )
        fprintf(stderr, "hvbench: gate: after %u pair(s), %.1f s%s\n", p,
                mono_now() - g->t0, what);
    fflush(stderr);
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
        json_decref(g->hello[k]);
    }
    json_decref(g->names);
    free(g->iters);
    free(g->npairs);
    free(g->decided);
    free(g->final);
    free(g->args);
    free(g->run_args[0]);
    free(g->run_args[1]);
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

/*
 * --base-runs: each build's worker is this hvbench's "worker --run-bin
 * BUILD" with the same run options (@n words of g->args): whole run
 * processes on both sides, so that neither build is the warm one.
 */
static int proxy_args(struct gate_bin *g, size_t n)
{
    ssize_t sl = readlink("/proc/self/exe", g->self, sizeof(g->self) - 1);
    size_t i, k;
    int side;

    g->self[sl > 0 ? sl : 0] = '\0';
    if ( sl <= 0 )
        return hvb_failure("gate --base-runs: /proc/self/exe: %s",
                           strerror(errno));
    for ( side = 0; side < 2; side++ )
    {
        char **a = calloc(n + 4, sizeof(*a));

        if ( a == NULL )
            return hvb_failure("out of memory");
        k = 0;
        a[k++] = NULL; /* the binary: this hvbench */
        a[k++] = "worker";
        a[k++] = "--run-bin";
        a[k++] = (char *)g->w[side].bin;
        for ( i = 2; i < n; i++ )
            a[k++] = g->args[i];
        g->run_args[side] = a;
        g->w[side].bin = g->self;
    }
    return 0;
}

/* @bin (--@opt) is an executable file, else exit 2. */
static int check_bin(const char *opt, const char *bin)
{
    struct stat st;

    errno = 0;
    if ( stat(bin, &st) || !S_ISREG(st.st_mode) || access(bin, X_OK) )
        return hvb_usage_error("--%s %s: %s", opt, bin,
                               errno ? strerror(errno)
                                     : "not an executable file");
    return 0;
}

/* The pairs and looks: defaults, limits; 0 or exit 2. */
static int plan_looks(struct gate_bin *g, bool look_given)
{
    unsigned int extra;

    if ( g->sim )
    {
        g->pairs = g->max_pairs = g->look_every = 1;
        g->rounds = SIM_ROUNDS;
    }
    else if ( g->base_runs )
    {
        /* A sample is a process: fewer, longer ones (unless given). */
        if ( g->rounds == DEFAULT_ROUNDS )
            g->rounds = RUNS_ROUNDS;
        if ( g->sample_s == DEFAULT_SAMPLE_S )
            g->sample_s = RUNS_SAMPLE_S;
    }
    if ( g->max_pairs == 0 )
        g->max_pairs = g->pairs * DEFAULT_MAX_FACTOR < MAX_PAIRS
                           ? g->pairs * DEFAULT_MAX_FACTOR
                           : MAX_PAIRS;
    if ( g->max_pairs < g->pairs )
        return hvb_usage_error("--max-pairs %u is below --pairs %u",
                               g->max_pairs, g->pairs);
    extra = g->max_pairs - g->pairs;
    if ( !look_given )
    {
        g->look_every = (g->pairs + 1) / 2;
        /* A long budget: fewer, wider steps, at most MAX_LOOKS looks. */
        if ( extra > g->look_every * (MAX_LOOKS - 1) )
            g->look_every = (extra + MAX_LOOKS - 2) / (MAX_LOOKS - 1);
    }
    g->max_looks = 1 + (extra + g->look_every - 1) / g->look_every;
    if ( g->max_looks > MAX_LOOKS )
        return hvb_usage_error("--look-every %u: %u looks from %u to %u pairs, "
                               "more than %u (each at alpha 0.05 / looks)",
                               g->look_every, g->max_looks, g->pairs,
                               g->max_pairs, MAX_LOOKS);
    g->alpha = GATE_ALPHA / g->max_looks;
    return 0;
}

/* Everything before the first pair: 0 to go on, -1 (help) or the exit. */
static int setup(struct gate_bin *g, int argc, char **argv)
{
    static char self[PATH_MAX];
    int dd, n = 0, i, status;
    ssize_t sl;

    status = parse(g, argc, argv, &dd);
    if ( status )
        return status;
    if ( g->w[0].bin == NULL )
        return hvb_usage_error("gate --base-bin needs a file");
    if ( (status = check_bin("base-bin", g->w[0].bin)) != 0 ||
         (g->w[1].bin && (status = check_bin("new-bin", g->w[1].bin)) != 0) )
        return status;
    if ( dd + 1 >= argc )
        return hvb_usage_error("gate --base-bin needs '-- WORKLOAD [run "
                               "options]'");
    status = hvb_gate_bin_metrics(g);
    if ( status )
        return status;
    /* Every callgrind count: sim_instructions, sim_cycles, sim_ir, ... */
    g->sim = strncmp(g->metric, "sim_", 4) == 0;
    if ( g->thr < 0 )
        g->thr = strcmp(g->metric, "time") == 0 ||
                         strcmp(g->metric, "cycles") == 0 ||
                         strcmp(g->metric, "tsc_cycles") == 0
                     ? DEFAULT_TIME_THR
                     : hvb_cmp_default_threshold(g->metric);
    status = plan_looks(g, g->look_every != 0);
    if ( status )
        return status;
    if ( g->w[1].bin == NULL )
    {
        sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
        self[sl > 0 ? sl : 0] = '\0';
        g->w[1].bin = sl > 0 ? self : "/proc/self/exe";
    }
    g->args = calloc((size_t)(argc - dd) + 6, sizeof(*g->args));
    if ( g->args == NULL )
        return hvb_failure("out of memory");
    g->args[n++] = NULL; /* the binary, per build */
    g->args[n++] = "worker";
    for ( i = dd + 1; i < argc; i++ )
        g->args[n++] = argv[i];
    g->args[n++] = "--quiet";
    if ( g->sim )
    {
        g->args[n++] = "--instrument";
        g->args[n++] = "callgrind";
    }
    return g->base_runs ? proxy_args(g, n) : 0;
}

static int gate_bin(int argc, char **argv)
{
    struct gate_bin g = {
        .metric = "time",
        .thr = -1,
        .pairs = DEFAULT_PAIRS,
        .rounds = DEFAULT_ROUNDS,
        .sample_s = DEFAULT_SAMPLE_S,
        .w = {{.label = "base", .out = -1, .timeout_s = HVB_WORKER_TIMEOUT},
              {.label = "new", .out = -1, .timeout_s = HVB_WORKER_TIMEOUT}},
    };
    struct hvb_cmp c = {.rows = NULL};
    unsigned int p = 0;
    int status;

    hvb_interrupt_catch(); /* passed on to the workers (hvb/interrupt.h) */
    status = setup(&g, argc, argv);
    if ( status && hvb_interrupted() )
        status = hvb_interrupt_status("gate", "no verdict");
    if ( status )
    {
        free(g.args);
        free(g.run_args[0]);
        free(g.run_args[1]);
        return status < 0 ? HVB_EXIT_OK : status;
    }
    g.tty = isatty(STDERR_FILENO);
    g.t0 = mono_now();
    signal(SIGPIPE, SIG_IGN); /* a worker that died is an EOF, said so */
    for ( ;; )
    {
        bool last, looked = false;
        double t = mono_now();

        status = hvb_gate_bin_pair(&g, p++);
        g.pair_s = mono_now() - t;
        if ( hvb_interrupted() )
            status = hvb_interrupt_status("gate", "no verdict");
        if ( status )
            goto out;
        last = p >= g.max_pairs || (p >= g.pairs && over_budget(&g));
        if ( p >= g.pairs && ((p - g.pairs) % g.look_every == 0 || last) )
        {
            status = hvb_gate_bin_look(&g, &c);
            if ( status )
                goto out;
            looked = true;
            last = last || hvb_gate_bin_undecided(&g) == 0;
        }
        progress(&g, p, looked, &c);
        if ( last )
            break;
    }
    if ( g.tty )
        fprintf(stderr, "\r\033[K");
    status = hvb_gate_bin_each(&g, &c, mono_now() - g.t0);
out:
    hvb_cmp_free(&c);
    gate_free(&g);
    return status;
}

int hvb_cmd_gate_bin(struct hvb_cmd_ctx *ctx)
{
    return hvb_gate_exit(gate_bin(ctx->argc, ctx->argv));
}
