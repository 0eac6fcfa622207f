/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench bisect GOOD BAD -- WORKLOAD [run options]": the first commit
 * (on BAD's first-parent line since GOOD) whose paired verdict against
 * GOOD differs, found by binary search where every step is a review of
 * GOOD against the midpoint (the two builds paired by the adaptive
 * gate, both from the build cache).  A step that is UNKNOWN is asked
 * again with four times the pairs; still unknown, the search stops and
 * says between which commits, never guessing.  A commit that does not
 * build is skipped, as "git bisect skip" does, its neighbour tried.  At
 * the end the commit found is reviewed against its parent, explained.
 *
 * Worked example: 8 commits after GOOD, the 5th slows rcu_ref_lock.
 * BAD (8) against GOOD: regressed.  4: same; 6: regressed; 5: regressed:
 * the 5th, in 3 steps (log2 8), then "review 5^ 5" writes its page.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <hv/compiler.h>
#include <hv/num.h>
#include <hvb/builds.h>
#include <hvb/cmdline.h>
#include <hvb/exec.h>
#include <hvb/fsutil.h>
#include <hvb/interrupt.h>
#include <hvb/bisect.h>

#include "private.h"

/* The fleet rows are struct hvb_hreview's: it must come first. */
_Static_assert(offsetof(struct bisect, r) == 0, "bisect: r first");

#define B struct bisect
static const struct hvb_optdef bisect_opts[] = {
    HVB_OPT_STR("metric", 'm', "M", B, r.metric,
                "what the steps are gated in (default sim_instructions: "
                "deterministic; time works, with more pairs)"),
    HVB_OPT_STR("max-regression", 0, "P%", B, r.threshold,
                "the gate's threshold (default: the gate's for the metric)"),
    HVB_OPT_STR("max-pairs", 0, "N", B, r.max_pairs,
                "the gate's budget of pairs a step (default the gate's; an "
                "unknown step is asked again with four times as many)"),
    HVB_OPT_STR("out", 'o', "DIR", B, out,
                "where each step's review and bisect.json go (default "
                "GIT_DIR/hvbench-bisect, e.g. .git/hvbench-bisect: never "
                "inside the work tree)"),
    HVB_OPT_STR("cache", 0, "DIR", B, r.cache, "the build cache (as review's)"),
    HVB_OPT_SECONDS("build-timeout", 0, "S", B, r.build_timeout_s, 1, 604800,
                    "each review: kill a build step running longer than S "
                    "seconds (review's default: 7200)"),
    HVB_OPT_STR("repo", 0, "DIR", B, repo_opt,
                "the repository (default: the current directory's)"),
    HVB_OPT_UINT("jobs", 'j', "N", B, r.jobs, 1, 256, "build parallelism"),
    HVB_OPT_SET("quiet", 'q', B, quiet, "no progress on stderr"),
    HVB_OPT_UINT("midpoints", 'k', "K", B, k, 1, 1000,
                 "--fleet: K commits built and gated at once a round, a job "
                 "array (k-ary search: about log_(K+1) N rounds; default 3)"),
    HVB_OPT_ALSO(hvb_hreview_fleet_opts),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef B

const struct hvb_cmd_doc hvb_doc_bisect = {
    .usage = "bisect GOOD BAD [--metric M] [--out DIR] [--fleet slurm [-k "
             "K]] -- WORKLOAD [run options]",
    .text = "The first commit on BAD's first-parent line since GOOD whose\n"
            "paired verdict against GOOD differs (regressed or improved in\n"
            "any cell of the line), by binary search: each step reviews GOOD\n"
            "against the midpoint ('hvbench review GOOD MID --explain none':\n"
            "both built in the build cache, paired by the adaptive gate).  An\n"
            "unknown step is asked again with four times the pairs; still\n"
            "unknown, bisect stops and names the range left (exit 3).  A\n"
            "commit that does not build is skipped.  The commit found is\n"
            "reviewed against its parent (flame graph, lock and instruction\n"
            "diffs) into OUT/found/.  With --fleet slurm, each round gates K\n"
            "commits at once as one job array and keeps the one interval.",
    .opts = bisect_opts,
    .notes = "exit status: 0 found (or GOOD and BAD the same: nothing to "
             "find), 2 usage or GOOD does not build, 3 a step that stayed "
             "unknown",
};

/* The commits after GOOD up to BAD on BAD's first-parent line. */
static int commits(struct bisect *b, const char *good, const char *bad)
{
    char range[200], err[1024];
    const char *args[] = {"rev-list", "--first-parent", "--reverse", range,
                          NULL};
    size_t cap = 1u << 22, i, k;
    char *out = malloc(cap), *line, *save = NULL;

    if ( out == NULL )
        return hvb_failure("out of memory");
    snprintf(range, sizeof(range), "%s..%s", good, bad);
    if ( hvb_git(b->r.repo, out, cap, err, sizeof(err), NULL, args) )
    {
        free(out);
        return hvb_usage_error("bisect: %s", err);
    }
    for ( k = 0, i = 0; out[i]; i++ )
        k += out[i] == '\n';
    b->commits = calloc(k + 2, sizeof(*b->commits));
    for ( line = strtok_r(out, "\n", &save); b->commits && line;
          line = strtok_r(NULL, "\n", &save) )
        snprintf(b->commits[b->n++], 41, "%s", line);
    free(out);
    if ( b->commits == NULL )
        return hvb_failure("out of memory");
    if ( b->n == 0 )
        return hvb_usage_error("bisect: no commit after GOOD on BAD's line "
                               "(is GOOD an ancestor of BAD?)");
    return 0;
}

unsigned long long bisect_more_pairs(const char *pairs)
{
    uint64_t n = BISECT_PAIRS;

    if ( pairs != NULL && hv_num_parse(pairs, &n) )
        n = BISECT_PAIRS; /* review says what is wrong with it */
    return (unsigned long long)BISECT_RETRY_FACTOR * n;
}

static const char *const bisect_vnames[] = {"same", "differs", "unknown",
                                            "does not build"};

const char *bisect_vname(int v)
{
    return v >= 0 ? bisect_vnames[v] : "error";
}

int bisect_verdict(const char *dir, int rc, const char *logp, json_t **doc)
{
    char path[4300];
    char *log = hvb_slurp(logp, NULL);
    /* Built now and failed, or failed before (the cache remembers). */
    bool nobuild = log != NULL && (strstr(log, "does not build") != NULL ||
                                   strstr(log, "did not build") != NULL);
    json_t *cell, *v;
    size_t i;
    const char *m;
    int verdict = V_SAME;

    free(log);
    snprintf(path, sizeof(path), "%s/review.json", dir);
    *doc = rc == 2 ? NULL : json_load_file(path, 0, NULL);
    if ( *doc == NULL )
        return nobuild ? V_NOBUILD : -1;
    json_array_foreach(json_object_get(*doc, "cells"), i, cell)
        json_object_foreach(json_object_get(cell, "verdicts"), m, v)
        {
            const char *x = json_string_value(json_object_get(v, "verdict"));

            if ( x &&
                 (strcmp(x, "regressed") == 0 || strcmp(x, "improved") == 0) )
                verdict = V_DIFFERS;
            else if ( x && strcmp(x, "same") && verdict == V_SAME )
                verdict = V_UNKNOWN;
        }
    return verdict;
}

/* Commit @k (index; -1 GOOD) gated against GOOD: its verdict. */
static int step(struct bisect *b, const char *good, size_t k)
{
    char dir[4200], logp[4300], more[32];
    const char *pairs = b->r.max_pairs;
    json_t *doc = NULL;
    int try, v = -1, rc;
    double t0 = (double)hv_now_ns() * 1e-9, t;

    for ( try = 0; try < 2; try++ )
    {
        char **av;

        snprintf(dir, sizeof(dir), "%s/steps/%.12s%s", b->out, b->commits[k],
                 try ? "-more" : "");
        snprintf(logp, sizeof(logp), "%s.log", dir);
        if ( hvb_mkdirs(dir) ||
             (av = hvb_hreview_argv(&b->r, good, b->commits[k], dir, pairs,
                                    false)) == NULL )
            return -1;
        rc = hvb_hreview_run(av, logp);
        free(av);
        json_decref(doc);
        v = rc < 0 ? -1 : bisect_verdict(dir, rc, logp, &doc);
        if ( v != V_UNKNOWN )
            break;
        /* Unknown: more pairs, never a guess. */
        snprintf(more, sizeof(more), "%llu", bisect_more_pairs(pairs));
        pairs = more;
    }
    t = (double)hv_now_ns() * 1e-9 - t0;
    bisect_record(b, k, v, t, dir, doc);
    json_decref(doc);
    /* A round of one. */
    json_array_append_new(b->rounds,
                          json_pack("{s:i, s:[s], s:[s], s:f}", "round",
                                    (int)json_array_size(b->rounds) + 1,
                                    "commits", b->commits[k], "verdicts",
                                    bisect_vname(v), "seconds", t));
    return v;
}

void bisect_record(struct bisect *b, size_t k, int v, double seconds,
                   const char *dir, json_t *doc)
{
    json_array_append_new(
        b->steps,
        json_pack("{s:s, s:I, s:s, s:f, s:s, s:O?}", "commit", b->commits[k],
                  "index", (json_int_t)k + 1, "verdict", bisect_vname(v),
                  "seconds", seconds, "review", dir, "cells",
                  doc ? json_object_get(doc, "cells") : NULL));
    if ( !b->quiet )
        fprintf(stderr, "hvbench: bisect: %.12s (%zu of %zu): %s\n",
                b->commits[k], k + 1, b->n, bisect_vname(v));
}

int bisect_bad(const struct bisect *b, int v)
{
    if ( v == V_DIFFERS )
        return 0;
    if ( v == V_SAME )
        printf("bisect: GOOD and BAD are the same in %s: nothing to "
               "find\n",
               b->r.metric ? b->r.metric : "sim_instructions");
    return v == V_SAME      ? 0
           : v == V_UNKNOWN ? 3
                            : hvb_usage_error("bisect: BAD could not be "
                                              "reviewed against GOOD (see "
                                              "%s/steps/)",
                                              b->out);
}

/*
 * A commit strictly between @lo and @hi to test: the middle, else the
 * nearest one that was not skipped (does not build); -1 if none.
 */
static long pick(long lo, long hi, const bool *skipped)
{
    long mid = lo + (hi - lo) / 2, d;

    for ( d = 0; d < hi - lo; d++ )
    {
        if ( mid + d < hi && mid + d > lo && !skipped[mid + d] )
            return mid + d;
        if ( mid - d > lo && mid - d < hi && !skipped[mid - d] )
            return mid - d;
    }
    return -1;
}

/* Binary search between GOOD (-1) and BAD; exit status, *@hi found. */
static int search(struct bisect *b, const char *good, long *lo, long *hi,
                  bool *differs)
{
    bool *skipped = calloc(b->n + 1, sizeof(*skipped));
    long mid;
    int v = step(b, good, b->n - 1), status = 0;

    *lo = -1;
    *hi = (long)b->n - 1;
    *differs = v == V_DIFFERS;
    if ( skipped == NULL )
        return hvb_failure("out of memory");
    if ( v != V_DIFFERS )
    {
        free(skipped);
        return bisect_bad(b, v);
    }
    while ( *hi - *lo > 1 && status == 0 && !hvb_interrupted() )
    {
        if ( (mid = pick(*lo, *hi, skipped)) < 0 )
            break; /* only commits that do not build are left */
        v = step(b, good, (size_t)mid);
        if ( v == V_DIFFERS )
            *hi = mid;
        else if ( v == V_SAME )
            *lo = mid;
        else if ( v == V_NOBUILD )
            skipped[mid] = true;
        else
            status = 3; /* unknown even with more pairs, or an error */
    }
    free(skipped);
    return status;
}

/* OUT/bisect.json (@o put). */
static int write_json(struct bisect *b, json_t *o)
{
    char path[4200], *text;
    int rc;

    snprintf(path, sizeof(path), "%s/bisect.json", b->out);
    text = o ? json_dumps(o, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(o);
    rc = text ? hvb_replace_file(path, text, strlen(text), 0644) : -ENOMEM;
    free(text);
    return rc ? hvb_failure("bisect: cannot write %s", path) : 0;
}

/* The commit found, reviewed against its parent, explained. */
static void review_found(struct bisect *b, const char *c)
{
    char dir[4200], logp[4300], parent[64];
    char **av;

    snprintf(dir, sizeof(dir), "%s/found", b->out);
    snprintf(logp, sizeof(logp), "%s/found.log", b->out);
    snprintf(parent, sizeof(parent), "%s^", c);
    if ( !b->quiet )
        fprintf(stderr, "hvbench: bisect: reviewing %.12s against its parent\n",
                c);
    av = hvb_hreview_argv(&b->r, parent, c, dir, NULL, true);
    if ( av != NULL && hvb_mkdirs(dir) == 0 )
        hvb_hreview_run(av, logp);
    free(av);
}

static int parse(struct bisect *b, int argc, char **argv, const char **rev)
{
    struct hvb_optparse p = {.argc = argc,
                             .argv = argv,
                             .i = 1,
                             .cmd = "bisect",
                             .doc = &hvb_doc_bisect};
    const char *val;
    int id, dd, nrev = 0;

    for ( dd = 1; dd < argc && strcmp(argv[dd], "--"); dd++ )
        ;
    p.argc = dd;
    while ( (id = hvb_opt_parse(&p, bisect_opts, b, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        if ( nrev == 2 )
            return hvb_usage_error("bisect takes GOOD and BAD; '%s' is one "
                                   "too many",
                                   val);
        rev[nrev++] = val;
    }
    if ( nrev != 2 || dd + 1 >= argc )
        return hvb_usage_error("bisect needs GOOD BAD -- WORKLOAD [run "
                               "options]");
    b->r.line = argv + dd + 1;
    b->r.nr_line = argc - dd - 1;
    if ( b->k && b->r.fleet == NULL )
        return hvb_usage_error("bisect: -k is --fleet slurm's (K commits "
                               "gated at once)");
    b->k = b->k ? b->k : 3;
    if ( b->out == NULL )
    {
        char cwd[4096], err[1024];

        if ( getcwd(cwd, sizeof(cwd)) == NULL ||
             hvb_rev_gitdir_path(b->repo_opt ? b->repo_opt : cwd,
                                 "hvbench-bisect", b->out_default,
                                 sizeof(b->out_default), err, sizeof(err)) )
            return hvb_usage_error("bisect: %s is not in a git repository",
                                   b->repo_opt ? b->repo_opt : ".");
        b->out = b->out_default;
    }
    return hvb_hfleet_check(&b->r, "bisect", &b->out);
}

int hvb_cmd_bisect(struct hvb_cmd_ctx *ctx)
{
    struct bisect b = {.out = NULL};
    const char *rev[2];
    struct hvb_rev good, bad;
    char cwd[4096], err[1024];
    double t0 = (double)hv_now_ns() * 1e-9;
    ssize_t sl;
    long lo, hi;
    bool differs, found;
    int status = parse(&b, ctx->argc, ctx->argv, rev);

    if ( status >= 0 )
        return status;
    sl = readlink("/proc/self/exe", b.r.self, sizeof(b.r.self) - 1);
    b.r.self[sl > 0 ? sl : 0] = '\0';
    if ( getcwd(cwd, sizeof(cwd)) == NULL ||
         hvb_rev_repo(b.repo_opt ? b.repo_opt : cwd, b.r.repo, sizeof(b.r.repo),
                      err, sizeof(err)) ||
         hvb_rev_resolve(b.r.repo, rev[0], &good, err, sizeof(err)) ||
         hvb_rev_resolve(b.r.repo, rev[1], &bad, err, sizeof(err)) )
        return hvb_usage_error("bisect: %s", err);
    if ( strcmp(good.commit, bad.commit) == 0 )
    {
        /* As the help says: exit 0 (it was "no commit after GOOD", 2). */
        printf("bisect: GOOD and BAD are one commit (%.12s): nothing to "
               "bisect\n",
               good.commit);
        return HVB_EXIT_OK;
    }
    if ( (status = commits(&b, good.commit, bad.commit)) != 0 )
        return status;
    if ( hvb_mkdirs(b.out) )
        return hvb_failure("bisect: %s: %s", b.out, strerror(errno));
    if ( !b.quiet )
        fprintf(
            stderr,
            "hvbench: bisect: %zu commit(s) after %.12s, about "
            "%.0f %s\n",
            b.n, good.commit,
            ceil(log((double)b.n + 1) / log(b.r.fleet ? (double)b.k + 1 : 2)),
            b.r.fleet ? "round(s)" : "step(s)");
    b.steps = json_array();
    b.rounds = json_array();
    hvb_interrupt_catch(); /* the step's review stopped with bisect */
    status = b.r.fleet ? bisect_kary(&b, good.commit, &lo, &hi, &differs)
                       : search(&b, good.commit, &lo, &hi, &differs);
    found = differs && status == 0 && hi - lo == 1 && !hvb_interrupted();
    if ( hvb_interrupted() )
    {
        snprintf(err, sizeof(err),
                 "the steps done are kept in %s/steps and bisect.json; the "
                 "one running was stopped",
                 b.out);
        status = hvb_interrupt_status("bisect", err);
    }
    else if ( found )
    {
        printf("bisect: the first commit that differs from %.12s: %s (%zu "
               "of %zu), after %zu step(s) in %zu round(s), %.0f s; its "
               "review: %s/found/review.md\n",
               good.commit, b.commits[hi], (size_t)hi + 1, b.n,
               json_array_size(b.steps), json_array_size(b.rounds),
               (double)hv_now_ns() * 1e-9 - t0, b.out);
        review_found(&b, b.commits[hi]);
    }
    else if ( differs )
    {
        printf("bisect: stopped between %.12s and %.12s (%s)\n",
               lo < 0 ? good.commit : b.commits[lo], b.commits[hi],
               status == 3 ? "a step stayed unknown"
                           : "the commits between do not build");
        status = status ? status : 3;
    }
    if ( write_json(&b,
                    json_pack("{s:s, s:s, s:O, s:O, s:s?, s:I, s:s?, s:i}",
                              "good", good.commit, "bad", bad.commit, "steps",
                              b.steps, "rounds", b.rounds, "fleet", b.r.fleet,
                              "k", (json_int_t)(b.r.fleet ? b.k : 1), "found",
                              found ? b.commits[hi] : NULL, "exit", status)) )
        status = 2;
    json_decref(b.steps);
    json_decref(b.rounds);
    free(b.commits);
    return status;
}
