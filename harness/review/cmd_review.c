/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench review [BASE] [HEAD] [--suite FILE | -- WORKLOAD [run
 * options]]": what a patch did, in one command (hvb/review.h).  The
 * phases, each a function here: read the options; name the two
 * revisions; read the suite; build both (the cache); gate every line in
 * every metric (review_gate.c); explain the cells that moved
 * (hvb/irdiff.h); write the report (review_report.c).
 *
 * E.g. in a clone with one commit on top of origin/main:
 *   hvbench review
 * builds origin/main's merge base and the working tree (its tracked
 * files), gates the lines of .ci/gate-suite in time and in
 * sim_instructions, and writes .git/hvbench-review/{review.json,
 * review.md,index.html} (under the git directory: a report inside the
 * work tree must never become part of what the next review reviews);
 * exit 0 when nothing
 * regressed, 1 when something did, 3 when some cell could not be told.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hv/strbuf.h>
#include <hvb/cmdline.h>
#include <hvb/exec.h>
#include <hvb/fsutil.h>
#include <hvb/interrupt.h>
#include <hvb/outfile.h>
#include <hvb/review.h>
#include <hvb/sampler.h>
#include <hvb/twobuild.h>

#include "private.h"

#define DEFAULT_OUT     "hvbench-review" /* under the git directory */
#define DEFAULT_METRICS "time,sim_instructions,sim_cycles" /* + cycles (PMU) */
#define DEFAULT_BLOCK   "sim_instructions,sim_cycles"      /* + cycles (PMU) */
#define DEFAULT_SUITE   ".ci/gate-suite"
#define SUITE_MAX       (1u << 20) /* bytes of a committed suite */
#define MAX_JOBS        256
/* About 1000 samples per build and cell at 997 Hz. */
#define DEFAULT_FLAME_ROUNDS 4
#define DEFAULT_FLAME_TIME   "0.25"
#define DEFAULT_LOCK_ROUNDS  2

static const char *const wall_views[] = {[WALL_VIEWS_AUTO] = "auto",
                                         [WALL_VIEWS_ALL] = "all",
                                         [WALL_VIEWS_NONE] = "none",
                                         NULL};
static const char *const explains[] = {[EXPLAIN_CHANGED] = "changed",
                                       [EXPLAIN_ALL] = "all",
                                       [EXPLAIN_NONE] = "none",
                                       NULL};

#define O struct review_opts
static const struct hvb_optdef review_opts[] = {
    HVB_OPT_STR("suite", 0, "FILE", O, suite,
                "one gate per line, WORKLOAD [run options] (default "
                "HEAD's " DEFAULT_SUITE "); or give one line after '--'"),
    HVB_OPT_STR("metric", 'm', "M[,M...]", O, metrics,
                "what each line is gated in (default " DEFAULT_METRICS
                "; sim_cycles left out, said so, where a build is older "
                "than the cache simulation): time, sim_instructions, "
                "sim_cycles, tsc_cycles, cycles, or a counter M_per_op, as "
                "the two-build gate takes them"),
    HVB_OPT_STR(
        "block", 0, "M[,M...]", O, block,
        "the metrics that decide the exit status, the others "
        "reported (default: the suite's 'block:' line, else " DEFAULT_BLOCK
        "; with a PMU cycles too; those of them "
        "gated, else every metric gated)"),
    HVB_OPT_PCT("max-regression", 0, "P%", O, threshold,
                "the gate's threshold: SAME inside +-P%, DIFFERENT outside "
                "(default: the gate's for the metric)"),
    HVB_OPT_UINT("pairs", 0, "N", O, pairs, 1, HVB_GATE_MAX_PAIRS,
                 "the gate's process pairs before its first look (default: "
                 "the gate's)"),
    HVB_OPT_UINT("max-pairs", 0, "N", O, max_pairs, 1, HVB_GATE_MAX_PAIRS,
                 "the gate's budget of process pairs per line (default: "
                 "the gate's)"),
    HVB_OPT_UINT("rounds", 0, "N", O, rounds, HVB_GATE_MIN_ROUNDS,
                 HVB_GATE_MAX_ROUNDS,
                 "the gate's rounds per cell and pair (default: the "
                 "gate's)"),
    HVB_OPT_SECONDS("sample-time", 0, "S", O, sample_time,
                    HVB_GATE_MIN_SAMPLE_S, HVB_GATE_MAX_SAMPLE_S,
                    "the gate's seconds per sample (default: the gate's)"),
    HVB_OPT_STR("base-bin", 0, "FILE", O, bins[0],
                "BASE built already: this hvbench, no build (BASE then only "
                "names it in the report)"),
    HVB_OPT_STR("head-bin", 0, "FILE", O, bins[1],
                "HEAD built already: this hvbench, no build"),
    HVB_OPT_CHOICE("explain", 0, "changed|all|none", O, explain, explains,
                   "which cells are explained: a differential flame graph "
                   "and a per-function instruction diff from callgrind "
                   "(default changed: those regressed or improved; all: "
                   "every cell, the unknown ones too)"),
    HVB_OPT_UINT("flame-rounds", 0, "N", O, flame_rounds, 0, 1000,
                 "the cells explained also get a differential flame graph "
                 "of the two builds, profiled in N interleaved rounds per "
                 "build (default " HVB_STR(DEFAULT_FLAME_ROUNDS) "; 0: none)"),
    HVB_OPT_UINT("lock-rounds", 0, "N", O, lock_rounds, 0, 1000,
                 "and a lock table delta where they take model locks: "
                 "lockstat of both builds in N alternating rounds, locks "
                 "ranked by the change of their wait per op (default " HVB_STR(
                     DEFAULT_LOCK_ROUNDS) "; 0: none)"),
    HVB_OPT_CHOICE("wall-views", 0, "auto|all|none", O, wall_views, wall_views,
                   "and where their threads mostly wait, the wall and wait "
                   "views' differentials too, in as many rounds (default "
                   "auto: the cells whose measured threads ran on CPU under "
                   "half their wall time; all: every cell explained)"),
    HVB_OPT_STR("flame-time", 0, "S", O, flame_time,
                "seconds per cell and round of those profiles and lock "
                "tables (default " DEFAULT_FLAME_TIME ")"),
    HVB_OPT_STR("out", 'o', "DIR", O, out,
                "where review.json, review.md and index.html go (default "
                "GIT_DIR/" DEFAULT_OUT ", e.g. .git/" DEFAULT_OUT
                ": never inside the work tree)"),
    HVB_OPT_SET("include-untracked", 0, O, untracked,
                "the working tree's untracked files (not ignored ones) are "
                "part of HEAD (default: its tracked files only)"),
    HVB_OPT_STR("markdown", 0, "FILE", O, markdown,
                "also write review.md to FILE (a PR or mailing-list "
                "comment)"),
    HVB_OPT_SECONDS("build-timeout", 0, "S", O, build_timeout, 1, 604800,
                    "kill a build step running longer than S seconds (default "
                    "7200: 2 hours)"),
    HVB_OPT_STR("cache", 0, "DIR", O, cache,
                "the build cache (default $HVBENCH_CACHE, else "
                "$XDG_CACHE_HOME/hvbench/builds or ~/.cache/hvbench/builds)"),
    HVB_OPT_STR("repo", 0, "DIR", O, repo,
                "the git repository to review (default: the one the current "
                "directory is in)"),
    HVB_OPT_UINT("jobs", 'j', "N", O, jobs, 1, MAX_JOBS,
                 "build parallelism (default: the online CPUs)"),
    HVB_OPT_SET("quiet", 'q', O, quiet, "no progress on stderr"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef O

const struct hvb_cmd_doc hvb_doc_review = {
    .usage = "review [BASE] [HEAD] [--suite FILE | -- WORKLOAD [run options]]\n"
             "                       [--metric M[,M...]] [--out DIR] "
             "[--markdown FILE]",
    .text =
        "What a patch did: BASE and HEAD built with this hvbench's CMake\n"
        "options in a build cache (a second review of the same pair\n"
        "builds nothing), every line of the suite gated on the two builds\n"
        "paired ('gate --base-bin': process pairs added until each cell is\n"
        "SAME, DIFFERENT or out of budget, corrected across the suite by\n"
        "false discovery rate), and the cells that moved explained: a\n"
        "differential flame graph of the two builds, profiled in\n"
        "interleaved rounds, and a per-function instruction diff from\n"
        "callgrind.\n"
        "\n"
        "HEAD defaults to the working tree, uncommitted changes to its\n"
        "tracked files included (the output says so; untracked files\n"
        "only with --include-untracked); BASE to the merge base with the upstream\n"
        "branch, else HEAD for a working tree with changes, else HEAD's\n"
        "parent.  Any two revisions work, also unrelated ones.",
    .opts = review_opts,
    .notes = "exit status, of the blocking metrics (--block): 0 nothing\n"
             "regressed, 1 a regression, 2 usage or build error (a revision\n"
             "that does not build: the last lines of its log), 3 some cell\n"
             "could not be told (UNKNOWN).  Files in --out: review.json,\n"
             "review.md (a comment), review.txt (a mail reply, 72 columns),\n"
             "junit.xml (one test case per cell and blocking metric),\n"
             "index.html",
};

/* Split @text at blanks into @l (the words point into a copy). */
static int line_split(struct review_line *l, const char *text)
{
    char *save = NULL, *w, *copy;
    size_t cap = 8;

    l->text = strdup(text);
    copy = l->buf = strdup(text);
    l->words = calloc(cap + 1, sizeof(*l->words));
    if ( l->text == NULL || copy == NULL || l->words == NULL )
        return -ENOMEM;
    for ( w = strtok_r(copy, " \t", &save); w != NULL;
          w = strtok_r(NULL, " \t", &save) )
    {
        if ( l->nr == cap )
        {
            char **p = realloc(l->words, (2 * cap + 1) * sizeof(*p));

            if ( p == NULL )
                return -ENOMEM;
            l->words = p;
            cap *= 2;
        }
        l->words[l->nr++] = w;
    }
    l->words[l->nr] = NULL;
    return 0;
}

static int add_line(struct review *rv, const char *text)
{
    struct review_line *p = realloc(rv->lines, (rv->nr_lines + 1) * sizeof(*p));

    if ( p == NULL )
        return -ENOMEM;
    rv->lines = p;
    memset(&p[rv->nr_lines], 0, sizeof(*p));
    return line_split(&p[rv->nr_lines++], text);
}

/*
 * The suite's lines (blank ones and "# ..." skipped): --suite's file, or
 * HEAD's DEFAULT_SUITE as committed (it was read from the work tree, an
 * edit not yet committed deciding what a review of HEAD gated).
 */
static int read_suite(struct review *rv, const char *path)
{
    static const char *const show[] = {"show", "HEAD:" DEFAULT_SUITE, NULL};
    char *text, *save = NULL, *l, err[1024];
    int rc = 0;

    if ( path != NULL )
        text = hvb_slurp(path, NULL);
    else if ( (text = malloc(SUITE_MAX)) != NULL &&
              hvb_git(rv->repo, text, SUITE_MAX, err, sizeof(err), NULL, show) )
    {
        free(text);
        return hvb_usage_error("review: no suite: %s (--suite FILE, or a "
                               "line after '--')",
                               err);
    }
    if ( text == NULL )
        return hvb_usage_error("review: --suite %s: %s", path, strerror(errno));
    path = path ? path : "HEAD:" DEFAULT_SUITE;
    for ( l = strtok_r(text, "\n", &save); l != NULL && rc == 0;
          l = strtok_r(NULL, "\n", &save) )
    {
        l += strspn(l, " \t");
        if ( strncmp(l, "block:", 6) == 0 )
        {
            free(rv->suite_block);
            rv->suite_block = strdup(l + 6);
            rc = rv->suite_block ? 0 : -ENOMEM;
        }
        else if ( *l != '\0' && *l != '#' )
            rc = add_line(rv, l);
    }
    free(text);
    if ( rc )
        return hvb_failure("out of memory");
    if ( rv->nr_lines == 0 )
        return hvb_usage_error("review: %s has no gate (WORKLOAD [run "
                               "options] per line)",
                               path);
    return 0;
}

/* Read the command line into @rv: -1 to go on, or the exit status. */
static int parse(struct review *rv, int argc, char **argv)
{
    struct hvb_optparse p = {.argc = argc,
                             .argv = argv,
                             .i = 1,
                             .cmd = "review",
                             .doc = &hvb_doc_review};
    struct hv_strbuf b;
    char line[8192];
    const char *val;
    size_t nrev = 0;
    int id, dd;

    for ( dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++ )
        ;
    p.argc = dd;
    while ( (id = hvb_opt_parse(&p, review_opts, &rv->o, &val)) !=
            HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        if ( nrev == 2 )
            return hvb_usage_error("review takes BASE and HEAD; '%s' is one "
                                   "too many (a workload goes after '--')",
                                   val);
        rv->revspec[nrev++] = val;
    }
    if ( dd + 1 < argc )
    {
        if ( rv->o.suite != NULL )
            return hvb_usage_error("review: --suite or '-- WORKLOAD', not "
                                   "both");
        hv_strbuf_init(&b, line, sizeof(line));
        for ( id = dd + 1; id < argc; id++ )
            hv_strbuf_join(&b, " ", "%s", argv[id]);
        if ( add_line(rv, line) )
            return hvb_failure("out of memory");
    }
    else if ( dd < argc )
        return hvb_usage_error("review: '--' needs WORKLOAD [run options]");
    return -1;
}

/* --metric's list into rv->metrics. */
static int metrics(struct review *rv)
{
    char *copy = strdup(rv->o.metrics ? rv->o.metrics : DEFAULT_METRICS);
    char *save = NULL, *m;

    if ( copy == NULL )
        return hvb_failure("out of memory");
    for ( m = strtok_r(copy, ",", &save); m != NULL;
          m = strtok_r(NULL, ",", &save) )
    {
        if ( rv->nr_metrics == REVIEW_MAX_METRICS )
        {
            free(copy);
            return hvb_usage_error("review: at most %d metrics",
                                   REVIEW_MAX_METRICS);
        }
        rv->metrics[rv->nr_metrics++] = strdup(m);
    }
    free(copy);
    if ( rv->nr_metrics == 0 )
        return hvb_usage_error("review: --metric names no metric");
    /* Hardware cycles beside their estimate, where there is a PMU. */
    if ( rv->o.metrics == NULL && hvb_sampler_pmu_present() )
        rv->metrics[rv->nr_metrics++] = strdup("cycles");
    return 0;
}

/*
 * Which metrics decide the exit status (private.h): --block's, else the
 * suite's "block:" line, else DEFAULT_BLOCK (and cycles with a PMU) of
 * those gated, else every one gated.  A metric named but not gated is
 * said (exit 2), as "all" blocks every one.
 */
static int blocking(struct review *rv)
{
    const char *list = rv->o.block ? rv->o.block : rv->suite_block;
    const char *from = rv->o.block ? "--block" : "the suite's 'block:' line";
    bool dflt = list == NULL, any = false;
    char *copy, *save = NULL, *m;
    size_t i;

    if ( dflt )
        list =
            hvb_sampler_pmu_present() ? DEFAULT_BLOCK ",cycles" : DEFAULT_BLOCK;
    copy = strdup(list);
    if ( copy == NULL )
        return hvb_failure("out of memory");
    for ( m = strtok_r(copy, ", \t", &save); m != NULL;
          m = strtok_r(NULL, ", \t", &save) )
    {
        bool found = false;

        for ( i = 0; i < rv->nr_metrics; i++ )
            if ( !strcmp(m, "all") || !strcmp(m, rv->metrics[i]) )
                rv->blocking[i] = found = any = true;
        if ( !found && !dflt && strcmp(m, "all") )
        {
            free(copy);
            return hvb_usage_error("review: %s names '%s', which is not "
                                   "gated (--metric)",
                                   from, m);
        }
    }
    free(copy);
    if ( !any && !dflt )
        return hvb_usage_error("review: %s names no metric", from);
    for ( i = 0; !any && i < rv->nr_metrics; i++ )
        rv->blocking[i] = true;
    return 0;
}

/*
 * The repository, and the default output under its git directory: 0 or
 * the exit status.
 */
static int repository(struct review *rv)
{
    char cwd[PATH_MAX], err[1024];

    if ( getcwd(cwd, sizeof(cwd)) == NULL )
        return hvb_failure("review: getcwd: %s", strerror(errno));
    if ( hvb_rev_repo(rv->o.repo ? rv->o.repo : cwd, rv->repo, sizeof(rv->repo),
                      err, sizeof(err)) )
        return hvb_usage_error("review: %s", err);
    if ( rv->o.out != NULL )
        return 0;
    if ( hvb_rev_gitdir_path(rv->repo, DEFAULT_OUT, rv->out, sizeof(rv->out),
                             err, sizeof(err)) )
        return hvb_usage_error("review: %s", err);
    rv->o.out = rv->out;
    return 0;
}

/*
 * An output inside the work tree, with its untracked files reviewed,
 * would be part of the next review's HEAD: refused.
 */
static int out_outside(struct review *rv)
{
    char real[PATH_MAX];
    size_t n = strlen(rv->repo);

    if ( !rv->o.untracked || realpath(rv->o.out, real) == NULL )
        return 0;
    if ( strncmp(real, rv->repo, n) == 0 && real[n] == '/' &&
         strncmp(real + n, "/.git/", 6) != 0 )
        return hvb_usage_error("review: --out %s is inside the work tree and "
                               "--include-untracked would review it: choose "
                               "an --out outside %s",
                               rv->o.out, rv->repo);
    return 0;
}

/* The two revisions: 0 or the exit status. */
static int revisions(struct review *rv)
{
    char err[1024];
    int rc;

    rc = rv->revspec[1] != NULL
             ? hvb_rev_resolve(rv->repo, rv->revspec[1], &rv->revs[1], err,
                               sizeof(err))
             : hvb_rev_worktree(rv->repo, &rv->revs[1], rv->o.untracked, err,
                                sizeof(err));
    if ( rc == 0 )
        rc = rv->revspec[0] != NULL
                 ? hvb_rev_resolve(rv->repo, rv->revspec[0], &rv->revs[0], err,
                                   sizeof(err))
                 : hvb_rev_default_base(rv->repo, &rv->revs[1], &rv->revs[0],
                                        err, sizeof(err));
    if ( rc )
        return hvb_usage_error("review: %s", err);
    return 0;
}

/* Side @b built already as @bin (--base-bin, --head-bin): 0 or -1. */
static int prebuilt(struct hvb_build *b, const char *bin)
{
    char *slash;

    memset(b, 0, sizeof(*b));
    if ( realpath(bin, b->bin) == NULL || access(b->bin, X_OK) )
        return -1;
    snprintf(b->key, sizeof(b->key), "given");
    snprintf(b->dir, sizeof(b->dir), "%s", b->bin);
    slash = strrchr(b->dir, '/');
    if ( slash != NULL )
        *slash = '\0';
    b->cached = true;
    return 0;
}

/* Build (or find) both revisions: 0 or the exit status. */
static int builds(struct review *rv)
{
    static const char *const side[2] = {"base", "head"};
    char err[8192], sh[32];
    int k;

    if ( hvb_build_cache_init(&rv->cache, rv->o.cache, rv->o.jobs, err,
                              sizeof(err)) )
        return hvb_usage_error("review: %s", err);
    rv->cache.quiet = rv->o.quiet;
    rv->cache.timeout_s = rv->o.build_timeout;
    for ( k = 0; k < 2; k++ )
    {
        const struct hvb_rev *r = &rv->revs[k];

        if ( !rv->o.quiet )
            fprintf(stderr, "hvbench: review: %s %s (%s%s): %s\n", side[k],
                    hvb_rev_short(r, sh, sizeof(sh)), r->spec,
                    r->dirty ? ", uncommitted changes included" : "",
                    r->subject);
        if ( rv->o.bins[k] != NULL )
        {
            if ( prebuilt(&rv->builds[k], rv->o.bins[k]) )
                return hvb_usage_error("review: --%s-bin %s: not an "
                                       "executable file",
                                       side[k], rv->o.bins[k]);
        }
        else if ( hvb_build_get(&rv->cache, rv->repo, r, &rv->builds[k], err,
                                sizeof(err)) )
            return hvb_interrupted() ? HVB_EXIT_FAIL /* said by the caller */
                                     : hvb_usage_error("review: %s %s: %s",
                                                       side[k], r->spec, err);
        if ( !rv->o.quiet )
            fprintf(stderr, "hvbench: review: %s %s in %s (%.0f s)\n", side[k],
                    rv->builds[k].cached ? "found" : "built", rv->builds[k].dir,
                    rv->builds[k].build_s);
    }
    return 0;
}

/* Does "BIN @cmd @sub --help" (build @k) print @want? */
static bool build_says(struct review *rv, int k, const char *cmd,
                       const char *sub, const char *want)
{
    char *argv[] = {rv->builds[k].bin, (char *)cmd,
                    (char *)sub,       sub ? rv->builds[k].bin : NULL,
                    "--help",          NULL};
    struct hvb_exec c = {.argv = argv,
                         .timeout_s = 60,
                         .max_out = 1u << 20,
                         .capture_err = true};
    int rc;
    bool ok;

    if ( sub == NULL )
        argv[2] = "--help";
    rc = hvb_exec_run(&c);
    ok = rc == 0 && c.out != NULL && strstr(c.out, want) != NULL;
    hvb_exec_free(&c);
    return ok;
}

/*
 * How the builds are paired: live workers, or (a build older than the
 * worker, main's first 88 commits) whole run processes of both, said.
 * A binary that is no hvbench at all is exit 2.
 */
static int pairing(struct review *rv)
{
    static const char *const side[] = {"base", "head"};
    int k;

    if ( rv->o.metrics == NULL && !rv->o.quiet && !hvb_sampler_pmu_present() )
        fprintf(stderr, "hvbench: review: note: no hardware PMU here: cycles "
                        "are not gated; sim_cycles is their estimate\n");

    for ( k = 0; k < 2; k++ )
    {
        if ( build_says(rv, k, "gate", "--base-bin", "--pairs") )
            continue;
        if ( !build_says(rv, k, "run", NULL, "--min-time") )
            return hvb_usage_error("review: the %s %s is not an hvbench "
                                   "build ('run --help' says no --min-time)",
                                   side[k], rv->builds[k].bin);
        if ( !rv->by_runs && !rv->o.quiet )
            fprintf(stderr,
                    "hvbench: review: note: the %s %.12s predates the "
                    "two-build worker: both builds are paired by whole run "
                    "processes (gate --base-runs; wider CI, more pairs)\n",
                    side[k], rv->revs[k].commit);
        rv->by_runs = true;
    }
    /* Both can explain the moved cells alone (run --cell)? */
    rv->cell_ok = build_says(rv, 0, "run", NULL, "--cell NAME") &&
                  build_says(rv, 1, "run", NULL, "--cell NAME");
    return 0;
}

static void review_free(struct review *rv)
{
    size_t i;

    for ( i = 0; i < rv->nr_lines; i++ )
    {
        free(rv->lines[i].text);
        free(rv->lines[i].buf);
        free(rv->lines[i].words);
    }
    free(rv->lines);
    for ( i = 0; i < rv->nr_metrics; i++ )
        free(rv->metrics[i]);
    free(rv->suite_block);
    json_decref(rv->gates);
    json_decref(rv->explain);
    json_decref(rv->explain_totals);
    free(rv->eta.cells);
    json_decref(rv->explain_skipped);
    json_decref(rv->flames);
    json_decref(rv->locks);
    hvb_build_cache_free(&rv->cache);
    hvb_rev_release(&rv->revs[1]);
}

/*
 * --max-pairs below the gate's --pairs is said before any build (it
 * surfaced after them as "the gate wrote no verdicts (exit 2; log ...)").
 */
static int pairs_check(const struct review *rv)
{
    unsigned int lo = rv->o.pairs ? rv->o.pairs : HVB_GATE_DEFAULT_PAIRS;

    if ( rv->o.max_pairs == 0 || rv->o.max_pairs >= lo )
        return 0;
    return hvb_usage_error("review: --max-pairs %u is below the gate's "
                           "--pairs (%s%u): raise it, or give --pairs too",
                           rv->o.max_pairs, rv->o.pairs ? "" : "default ", lo);
}

/* Everything before the gates: 0 or the exit status. */
static int prepare(struct review *rv)
{
    char suite[PATH_MAX + 32], err[768];
    ssize_t sl;
    int status;

    sl = readlink("/proc/self/exe", rv->self, sizeof(rv->self) - 1);
    if ( sl <= 0 )
        return hvb_failure("review: /proc/self/exe: %s", strerror(errno));
    rv->self[sl] = '\0';
    status = pairs_check(rv);
    if ( status == 0 )
        status = metrics(rv);
    if ( status == 0 )
        status = repository(rv);
    if ( status == 0 && hvb_mkdirs(rv->o.out) )
        status =
            hvb_usage_error("review: --out %s: %s", rv->o.out, strerror(errno));
    if ( status == 0 )
        status = out_outside(rv);
    if ( status == 0 )
        status = revisions(rv);
    if ( status == 0 && rv->nr_lines == 0 )
        status = read_suite(rv, rv->o.suite);
    if ( status == 0 )
        status = blocking(rv);
    snprintf(suite, sizeof(suite), "%s/gates", rv->o.out);
    if ( status == 0 && hvb_mkdirs(suite) )
        status = hvb_usage_error("review: %s: %s", suite, strerror(errno));
    if ( status == 0 && rv->o.markdown != NULL )
    {
        enum hvb_outfile_kind kind;

        if ( hvb_outfile_check(rv->o.markdown, "markdown", &kind, err,
                               sizeof(err)) )
            status = hvb_usage_error("%s", err);
    }
    return status;
}

/* Ctrl-C or SIGTERM: said, with what is kept; 128 + the signal. */
static int interrupted(struct review *rv)
{
    char kept[PATH_MAX + 160];

    snprintf(kept, sizeof(kept),
             "its builds and gates stopped; what finished is kept (builds "
             "in the cache, gates' logs in %s/gates), no verdict",
             rv->o.out ? rv->o.out : ".");
    return hvb_interrupt_status("review", kept);
}

int hvb_cmd_review(struct hvb_cmd_ctx *ctx)
{
    struct review rv = {.o = {.explain = EXPLAIN_CHANGED,
                              .flame_rounds = DEFAULT_FLAME_ROUNDS,
                              .flame_time = DEFAULT_FLAME_TIME,
                              .lock_rounds = DEFAULT_LOCK_ROUNDS}};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int status;

    rv.o.jobs = cpus > 0 ? (unsigned int)cpus : 2;
    status = parse(&rv, ctx->argc, ctx->argv);
    if ( status >= 0 )
        goto out;
    hvb_interrupt_catch(); /* builds and gates stopped with review */
    status = prepare(&rv);
    if ( status == 0 )
        status = builds(&rv);
    if ( status == 0 )
        status = pairing(&rv);
    if ( status == 0 )
        status = hvb_review_gates(&rv);
    if ( status == 0 && !hvb_interrupted() )
    {
        hvb_review_explain(&rv);
        status = hvb_review_report(&rv);
    }
    if ( hvb_interrupted() )
        status = interrupted(&rv);
out:
    review_free(&rv);
    return status;
}
