/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench reproduce [--quick] [--seed ID] --out DIR": every seed's
 * claims beside the same figures measured here (hvb/reproduce.h).
 *
 * Each run of a scenario is an ordinary `hvbench run ... --out
 * DIR/<seed>-<name>.json`, spawned from this same binary
 * (/proc/self/exe), so a user can rerun or compare any of them; its
 * console output goes to DIR/<seed>-<name>.log.  A figure is only ever
 * taken from a file that this invocation's child wrote:
 *
 *   - before a run, its file (and any lock or temporary one beside it)
 *     is removed, so a run that writes nothing leaves nothing to read;
 *   - every child gets $HVB_INVOCATION = "<pid>-<start ns>-<random>",
 *     which `run` records as hvbench.run.invocation beside its own pid
 *     and the time of the write (harness/results.c);
 *   - the file is read through hvb_results_load() (the readers' check)
 *     and refused unless it carries this invocation, the child's pid,
 *     a write time inside the child's life, and a complete run.
 *
 * E.g. a results file from yesterday copied into DIR under the right
 * name fails all three: "004-lookup: DIR/004-lookup.json was not written
 * by this run (pid 4711, invocation 4700-...; expected pid 5123, ...)".
 *
 * Exit: 0 every measured claim's direction matches, 1 one does not or a
 * run failed, 2 bad input (unknown seed, bad DIR, an unwritable table).
 * A ratio whose paired 95% CI contains 1 is "unclear" (shown, counted,
 * not a mismatch: a difference the run did not resolve has no direction).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hvb/cli.h>
#include <hvb/outfile.h>
#include <hvb/progress.h>
#include <hvb/reproduce.h>
#include <hvb/results.h>
#include <hvb/results_read.h>

extern char **environ;

/* The test suite's seam: spawn this instead of /proc/self/exe. */
#define HVB_RP_EXE_ENV    "HVB_REPRODUCE_EXE"

#define RP_MIN_TIME_QUICK 0.1
#define RP_MIN_TIME_FULL  0.5

static void reproduce_seeds(FILE *f)
{
    size_t i;

    fputs("seeds:\n", f);
    for ( i = 0; i < hvb_rp_nr_seeds; i++ )
        fprintf(f, "  %s  %s\n", hvb_rp_seeds[i].id, hvb_rp_seeds[i].title);
}

enum {
    O_QUICK = 1,
    O_SEED,
    O_OUT,
    O_MIN_TIME,
    O_QUIET,
    O_HELP
};

static const struct hvb_optdef reproduce_opts[] = {
    HVB_OPT_FLAG("quick", 0, O_QUICK,
                 "fewer repetitions, shorter listings (at most 5 minutes on 2 "
                 "vCPUs)"),
    HVB_OPT("seed", 0, "ID", O_SEED, "one seed only (the seeds above)"),
    HVB_OPT(
        "min-time", 0, "S", O_MIN_TIME,
        "--min-time of the calibrated (micro) runs (default " HVB_STR(
            RP_MIN_TIME_QUICK) " with --quick, else " HVB_STR(RP_MIN_TIME_FULL) ")"),
    HVB_OPT("out", 'o', "DIR", O_OUT, "the output directory (created)"),
    HVB_OPT_FLAG("quiet", 'q', O_QUIET, "no progress bar"),
    HVB_OPT_HELP(O_HELP),
    HVB_OPT_END,
};

const struct hvb_cmd_doc hvb_doc_reproduce = {
    .usage = "reproduce [--quick] [--seed ID] [--min-time S] --out DIR",
    .text = "Run every seed's scenario (a fixed list of 'hvbench run's with\n"
            "the seed's parameters, scaled where they do not fit this\n"
            "machine) and put each claim of the seed beside the same figure\n"
            "measured here: the ratio of ratios, whether the direction\n"
            "matches and whether the magnitude is within 2x, and how it was\n"
            "measured (which constants are modelled).  A claim the model\n"
            "cannot measure is listed with the reason.\n"
            "\n"
            "Each run writes DIR/<seed>-<name>.json (an ordinary results\n"
            "file: rerun it with the command in the table, compare it) and\n"
            "its console output to DIR/<seed>-<name>.log; the table is\n"
            "printed and written to DIR/reproduce.md and DIR/reproduce.json.\n"
            "Only files written by this invocation's runs are read.\n"
            "'hvbench report DIR --out OUT' draws it.",
    .more = reproduce_seeds,
    .opts = reproduce_opts,
    .notes =
        "exit status: 0 every direction matches, 1 one does not (or a run "
        "failed),\n2 usage or input error; a ratio whose 95% CI contains 1 "
        "is 'unclear'\nand fails nothing",
};

static double wall_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *path_join(const char *dir, const char *a, const char *b,
                       const char *ext)
{
    size_t n = strlen(dir) + strlen(a) + strlen(b) + strlen(ext) + 4;
    char *p = malloc(n);

    if ( p != NULL )
        snprintf(p, n, "%s/%s%s%s%s", dir, a, *b ? "-" : "", b, ext);
    return p;
}

/* Append the words of @s (split at spaces) to @v. */
static void push_words(char **v, size_t *n, const char *s)
{
    const char *p = s, *e;

    while ( *p )
    {
        while ( *p == ' ' )
            p++;
        if ( !*p )
            break;
        e = strchr(p, ' ');
        if ( e == NULL )
            e = p + strlen(p);
        v[(*n)++] = strndup(p, (size_t)(e - p));
        p = e;
    }
}

static size_t count_words(const char *s)
{
    size_t n = 0;

    for ( ; *s; s++ )
        n += *s != ' ' && (s[1] == ' ' || s[1] == '\0');
    return n;
}

static char **run_argv(const struct hvb_rp_run *r, bool quick,
                       const char *min_time, const char *file)
{
    size_t n = 0, cap = 10 + count_words(r->args) + count_words(r->quick) +
                        count_words(r->full);
    char **v = calloc(cap, sizeof(*v));

    if ( v == NULL )
        return NULL;
    v[n++] = strdup("hvbench");
    v[n++] = strdup("run");
    v[n++] = strdup(r->workload);
    push_words(v, &n, r->args);
    push_words(v, &n, quick ? r->quick : r->full);
    if ( r->micro )
    {
        v[n++] = strdup("--min-time");
        v[n++] = strdup(min_time);
    }
    v[n++] = strdup("--out");
    v[n++] = strdup(file);
    v[n++] = strdup("-q");
    return v;
}

/* The last non-empty line of @path, for a failure's message. */
static void last_line(const char *path, char *buf, size_t len)
{
    char line[256];
    FILE *f = fopen(path, "r");

    buf[0] = '\0';
    if ( f == NULL )
        return;
    while ( fgets(line, sizeof(line), f) )
    {
        line[strcspn(line, "\n")] = '\0';
        if ( line[0] )
            snprintf(buf, len, "%s", line);
    }
    fclose(f);
}

/* Spawn @d's command with its output in its log; wait for it. */
static void run_one(struct hvb_rp_done *d, const char *exe)
{
    posix_spawn_file_actions_t fa;
    int rc, st;

    d->status = -1;
    hvb_outfile_remove(d->file);
    if ( posix_spawn_file_actions_init(&fa) )
    {
        snprintf(d->error, sizeof(d->error), "cannot spawn: out of memory");
        return;
    }
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, d->log,
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    d->started = wall_now();
    rc = posix_spawn(&d->pid, exe, &fa, NULL, d->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if ( rc )
    {
        d->ended = wall_now();
        snprintf(d->error, sizeof(d->error), "cannot spawn '%s': %s", exe,
                 strerror(rc));
        return;
    }
    while ( waitpid(d->pid, &st, 0) < 0 )
        if ( errno != EINTR )
        {
            st = -1;
            break;
        }
    d->ended = wall_now();
    if ( st != -1 && WIFEXITED(st) )
        d->status = WEXITSTATUS(st);
    else if ( st != -1 && WIFSIGNALED(st) )
        d->status = 128 + WTERMSIG(st);
}

/* Is @d's file this invocation's, written by @d's child?  Sets doc. */
static void check_results(struct hvb_rp_done *d, const char *invocation)
{
    char err[768], why[128], tail[512];
    json_t *doc, *pid, *inv, *wr;

    if ( d->status != 0 )
    {
        if ( d->error[0] )
            return;
        last_line(d->log, tail, sizeof(tail));
        snprintf(d->error, sizeof(d->error), "exited with status %d (%s): %s",
                 d->status, d->log, tail[0] ? tail : "no output");
        return;
    }
    doc = hvb_results_load(d->file, err, sizeof(err));
    if ( doc == NULL )
    {
        snprintf(d->error, sizeof(d->error), "%s", err);
        return;
    }
    pid = hvb_rd_get(doc, HVB_RK_RUN, HVB_RK_PID);
    inv = hvb_rd_get(doc, HVB_RK_RUN, HVB_RK_INVOCATION);
    wr = hvb_rd_get(doc, HVB_RK_RUN, HVB_RK_WRITTEN);
    if ( !json_is_integer(pid) || json_integer_value(pid) != d->pid ||
         !json_is_string(inv) ||
         strcmp(json_string_value(inv), invocation) != 0 ||
         !json_is_number(wr) || json_number_value(wr) < d->started - 1 ||
         json_number_value(wr) > d->ended + 1 )
    {
        snprintf(d->error, sizeof(d->error),
                 "%s was not written by this run (pid %lld, invocation %s, "
                 "written at %.0f; expected pid %d, invocation %s, between "
                 "%.0f and %.0f): refused",
                 d->file, json_is_integer(pid) ? json_integer_value(pid) : -1,
                 json_is_string(inv) ? json_string_value(inv) : "none",
                 json_is_number(wr) ? json_number_value(wr) : 0.0, (int)d->pid,
                 invocation, d->started, d->ended);
        json_decref(doc);
        return;
    }
    if ( !hvb_results_complete(doc, why, sizeof(why)) )
    {
        snprintf(d->error, sizeof(d->error), "%s is incomplete: %s", d->file,
                 why);
        json_decref(doc);
        return;
    }
    d->doc = doc;
}

/* Write @t's markdown and JSON into @dir.  0 or an exit code. */
static int write_tables(const char *dir, const struct hvb_rp_table *t)
{
    struct hvb_outfile o;
    char err[768], *path;
    json_t *doc = hvb_rp_json(t);
    int rc = 0;

    if ( doc == NULL )
        return hvb_failure("reproduce: out of memory");
    path = path_join(dir, HVB_RP_MD, "", "");
    if ( hvb_outfile_open(&o, path, "markdown", err, sizeof(err)) == 0 )
    {
        hvb_rp_markdown(o.f, t);
        if ( hvb_outfile_commit(&o, err, sizeof(err)) )
            rc = hvb_failure("%s", err);
    }
    else
        rc = hvb_failure("%s", err);
    free(path);
    path = path_join(dir, HVB_RP_JSON, "", "");
    if ( rc == 0 &&
         hvb_outfile_open(&o, path, "reproduce table", err, sizeof(err)) == 0 )
    {
        if ( json_dumpf(doc, o.f, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) ||
             fputc('\n', o.f) == EOF )
        {
            hvb_outfile_abort(&o);
            rc = hvb_failure("cannot write '%s'", path);
        }
        else if ( hvb_outfile_commit(&o, err, sizeof(err)) )
            rc = hvb_failure("%s", err);
    }
    else if ( rc == 0 )
        rc = hvb_failure("%s", err);
    free(path);
    json_decref(doc);
    return rc;
}

/* Make @dir (one level) and check that the table can be written. */
static int prepare_dir(const char *dir)
{
    enum hvb_outfile_kind kind;
    struct stat st;
    char err[768], *path;
    int rc;

    if ( stat(dir, &st) == 0 )
    {
        if ( !S_ISDIR(st.st_mode) )
            return hvb_usage_error("reproduce: --out '%s' is not a directory",
                                   dir);
    }
    else if ( mkdir(dir, 0777) )
        return hvb_usage_error("reproduce: cannot create directory '%s': %s",
                               dir, strerror(errno));
    path = path_join(dir, HVB_RP_JSON, "", "");
    rc = hvb_outfile_check(path, "reproduce table", &kind, err, sizeof(err));
    free(path);
    if ( rc == 0 && kind != HVB_OUTFILE_REPLACE )
        return hvb_usage_error("reproduce: '%s' cannot hold the table", dir);
    if ( rc )
        return hvb_usage_error("reproduce: %s", err);
    return 0;
}

static bool selected(const char *seed, const char *only)
{
    return only == NULL || strcmp(seed, only) == 0;
}

int hvb_cmd_reproduce(struct hvb_cmd_ctx *ctx)
{
    int argc = ctx->argc;
    char **argv = ctx->argv;
    struct hvb_optparse p = {
        .argc = argc, .argv = argv, .i = 1, .cmd = "reproduce"};
    const char *val, *out = NULL, *seed = NULL, *exe;
    bool quick = false, quiet = false;
    double min_time = NAN, est = 0;
    char invocation[96], min_time_s[32];
    struct hvb_rp_done *done;
    struct hvb_rp_figure *fig;
    struct hvb_rp_table t = {0};
    struct hvb_progress prog;
    size_t i, k, nd = 0, nf = 0;
    unsigned int rnd = 0;
    int id, rc, status = HVB_EXIT_OK;

    while ( (id = hvb_getopt(&p, reproduce_opts, &val)) != HVB_OPT_DONE )
    {
        switch ( id )
        {
        case HVB_OPT_ERROR:
            return HVB_EXIT_USAGE;
        case HVB_OPT_POSITIONAL:
            return hvb_usage_error("reproduce: unexpected argument '%s' (see "
                                   "'hvbench reproduce --help')",
                                   val);
        case O_QUICK:
            quick = true;
            break;
        case O_SEED:
            if ( hvb_rp_seed_find(val) == NULL )
                return hvb_usage_error("reproduce: unknown seed '%s' (seeds: "
                                       "000, 001, 002, 003, 004)",
                                       val);
            seed = val;
            break;
        case O_OUT:
            out = val;
            break;
        case O_MIN_TIME:
            if ( !hvb_parse_seconds("--min-time", val, 0.001, 60, &min_time) )
                return HVB_EXIT_USAGE;
            break;
        case O_QUIET:
            quiet = true;
            break;
        case O_HELP:
            hvb_cmd_doc_help(stdout, &hvb_doc_reproduce);
            return HVB_EXIT_OK;
        }
    }
    if ( out == NULL || *out == '\0' )
        return hvb_usage_error("reproduce needs --out DIR");
    rc = prepare_dir(out);
    if ( rc )
        return rc;
    if ( isnan(min_time) )
        min_time = quick ? RP_MIN_TIME_QUICK : RP_MIN_TIME_FULL;
    snprintf(min_time_s, sizeof(min_time_s), "%g", min_time);

    done = calloc(hvb_rp_nr_runs, sizeof(*done));
    fig = calloc(hvb_rp_nr_claims, sizeof(*fig));
    if ( done == NULL || fig == NULL )
        return hvb_failure("reproduce: out of memory");
    t.started = wall_now();
    if ( getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd) )
        rnd = (unsigned int)rand();
    snprintf(invocation, sizeof(invocation), "%d-%.0f-%08x", (int)getpid(),
             t.started * 1e9, rnd);
    if ( setenv(HVB_INVOCATION_ENV, invocation, 1) )
        return hvb_failure("reproduce: cannot set %s", HVB_INVOCATION_ENV);
    exe = getenv(HVB_RP_EXE_ENV);
    if ( exe == NULL || *exe == '\0' )
        exe = "/proc/self/exe";

    for ( i = 0; i < hvb_rp_nr_runs; i++ )
    {
        const struct hvb_rp_run *r = &hvb_rp_runs[i];
        struct hvb_rp_done *d = &done[nd];

        if ( !selected(r->seed, seed) )
            continue;
        d->run = r;
        d->file = path_join(out, r->seed, r->name, ".json");
        d->log = path_join(out, r->seed, r->name, ".log");
        d->argv =
            d->file && d->log ? run_argv(r, quick, min_time_s, d->file) : NULL;
        if ( d->argv == NULL )
            return hvb_failure("reproduce: out of memory");
        est += quick ? r->est_quick_s : r->est_full_s;
        nd++;
    }
    if ( !quiet )
        fprintf(stderr,
                "hvbench: reproduce: %zu runs (%s%s), expected about %.0f s "
                "on 2 vCPUs; results in %s/\n",
                nd, seed ? "seed " : "all seeds", seed ? seed : "", est, out);
    /*
     * The bar advances by each run's expected seconds (one step per
     * second), so that its ETA weighs a 60 s listing above a 3 s balloon.
     */
    hvb_progress_start(&prog, (size_t)est, quiet);
    for ( i = 0; i < nd; i++ )
    {
        struct hvb_rp_done *d = &done[i];
        unsigned int w = quick ? d->run->est_quick_s : d->run->est_full_s;
        char label[96];

        snprintf(label, sizeof(label), "%s-%s", d->run->seed, d->run->name);
        run_one(d, exe);
        check_results(d, invocation);
        for ( k = 0; k < w; k++ )
            hvb_progress_step(&prog, label);
        if ( d->doc == NULL )
        {
            hvb_progress_end(&prog);
            fprintf(stderr, "hvbench: reproduce: %s: %s\n", label, d->error);
        }
    }
    hvb_progress_end(&prog);

    for ( i = 0; i < hvb_rp_nr_claims; i++ )
    {
        if ( !selected(hvb_rp_claims[i].seed, seed) )
            continue;
        hvb_rp_figure(&hvb_rp_claims[i], done, nd, &fig[nf]);
        if ( fig[nf].state == HVB_RP_FAILED ||
             (fig[nf].state == HVB_RP_MEASURED && !fig[nf].direction &&
              fig[nf].resolved) )
            status = HVB_EXIT_FAIL;
        nf++;
    }
    t.invocation = invocation;
    t.pid = getpid();
    t.ended = wall_now();
    t.quick = quick;
    t.min_time_s = min_time;
    t.seed = seed;
    t.argc = argc;
    t.argv = argv;
    t.done = done;
    t.nr_done = nd;
    t.fig = fig;
    t.nr_fig = nf;
    t.exit_status = status;
    hvb_rp_markdown(stdout, &t);
    fflush(stdout);
    rc = write_tables(out, &t);
    if ( rc )
        return rc;
    if ( !quiet )
        fprintf(stderr,
                "hvbench: reproduce: table written to %s/%s and "
                "%s/%s\n",
                out, HVB_RP_MD, out, HVB_RP_JSON);
    for ( i = 0; i < nd; i++ )
        json_decref(done[i].doc);
    return status;
}
