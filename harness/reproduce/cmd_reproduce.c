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
 *     and the time of the write (harness/output/results.c);
 *   - the file is read through hvb_results_load() (the readers' check)
 *     and refused unless it carries this invocation, the child's pid,
 *     a write time inside the child's life, and a complete run.
 *
 * E.g. a results file from yesterday copied into DIR under the right
 * name fails all three: "004-lookup: DIR/004-lookup.json was not written
 * by this run (pid 4711, invocation 4700-...; expected pid 5123, ...)".
 *
 * Interrupted (SIGINT, SIGTERM), reproduce stops its child and exits
 * 128 + the signal; the child, an ordinary run, keeps its finished
 * rounds in its file (complete: false).  The signals are blocked from
 * the start, so none is lost between a check and a wait: the parent
 * waits for each child in sigtimedwait(), forwards the first signal to
 * it, gives it RP_STOP_S to write and exit (a second signal, or the
 * time up: SIGKILL), and starts nothing after it.  The children start
 * with the signal mask reproduce found.
 *
 * --resume: every invocation appends its id to DIR/reproduce.invocations;
 * with --resume, a run whose file carries one of those ids (a finished
 * run, or one interrupted half-way) is spawned as "run ... --resume",
 * which keeps its rounds done and runs the rest, then writes the file
 * as this invocation's child (so the three checks above hold as ever);
 * any other file is removed and its run starts afresh.  E.g. SIGTERM
 * during 004-lookup's round 3 of 5: "interrupted (SIGTERM) in
 * 004-lookup: ... 'reproduce --resume' runs the rest", exit 143; then
 * "reproduce --resume --seed 004 --quick --out DIR" runs rounds 4 and 5
 * of 004-lookup only.
 *
 * Exit: 0 every measured claim's direction matches, 1 one does not or a
 * run failed, 2 bad input (unknown seed, bad DIR, an unwritable table),
 * 128 + signal interrupted.
 * A ratio whose paired 95% CI contains 1 is "unclear" (shown, counted,
 * not a mismatch: a difference the run did not resolve has no direction).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hvb/cmdline.h>
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
#define RP_STOP_S         10.0 /* for an interrupted child to write, exit */

static void reproduce_seeds(FILE *f)
{
    size_t i;

    fputs("seeds:\n", f);
    for ( i = 0; i < hvb_rp_nr_seeds; i++ )
        fprintf(f, "  %s  %s\n", hvb_rp_seeds[i].id, hvb_rp_seeds[i].title);
}

/*
 * One reproduce, as phases (hvb_cmd_reproduce() below): parse, start
 * (DIR, the invocation id), list (the runs of the seeds asked), measure
 * (spawn each, check its file), judge (each claim's figure), tables.
 */
struct rp {
    const char *out, *seed, *exe;
    bool quick, quiet, resume;
    double min_time, est;
    char invocation[96], min_time_s[32];
    struct hvb_rp_done *done;
    struct hvb_rp_figure *fig;
    size_t nd, nf;
    struct hvb_rp_table t;
};

static bool opt_seed(void *st, const char *opt, const char *val);

#define R struct rp
static const struct hvb_optdef reproduce_opts[] = {
    HVB_OPT_SET("quick", 0, R, quick,
                "fewer repetitions, shorter listings (at most 5 minutes on 2 "
                "vCPUs)"),
    HVB_OPT_CALL("seed", 0, "ID", opt_seed, "one seed only (the seeds above)"),
    HVB_OPT_SECONDS(
        "min-time", 0, "S", R, min_time, 0.001, 60,
        "--min-time of the calibrated (micro) runs (default " HVB_STR(
            RP_MIN_TIME_QUICK) " with --quick, else " HVB_STR(RP_MIN_TIME_FULL) ")"),
    HVB_OPT_SET("resume", 0, R, resume,
                "keep what an earlier reproduce into DIR measured (finished "
                "runs, and the rounds done of an interrupted one): each such "
                "run goes on as 'run --resume'; other files in DIR are run "
                "afresh"),
    HVB_OPT_STR("out", 'o', "DIR", R, out, "the output directory (created)"),
    HVB_OPT_SET("quiet", 'q', R, quiet, "no progress bar"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef R

const struct hvb_cmd_doc hvb_doc_reproduce = {
    .usage = "reproduce [--quick] [--seed ID] [--min-time S] [--resume] "
             "--out DIR",
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
        "failed),\n2 usage or input error, 128 + signal interrupted (the run "
        "stopped,\nits rounds done kept: --resume); a ratio whose 95% CI "
        "contains 1 is\n'unclear' and fails nothing",
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
                       const char *min_time, const char *file, bool resume)
{
    size_t n = 0, cap = 11 + count_words(r->args) + count_words(r->quick) +
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
    if ( resume )
        v[n++] = strdup("--resume");
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

/* SIGINT, SIGTERM (and SIGCHLD, to wake the wait): blocked throughout. */
static sigset_t rp_sigs, rp_old_mask;

static void block_signals(void)
{
    sigemptyset(&rp_sigs);
    sigaddset(&rp_sigs, SIGINT);
    sigaddset(&rp_sigs, SIGTERM);
    sigaddset(&rp_sigs, SIGCHLD);
    sigprocmask(SIG_BLOCK, &rp_sigs, &rp_old_mask);
}

/* A SIGINT or SIGTERM waiting for us (taken), or 0. */
static int pending_signal(void)
{
    struct timespec zero = {0, 0};
    sigset_t it;
    int sig;

    sigemptyset(&it);
    sigaddset(&it, SIGINT);
    sigaddset(&it, SIGTERM);
    sig = sigtimedwait(&it, NULL, &zero);
    return sig > 0 ? sig : 0;
}

/*
 * Wait for @d's child; the first SIGINT/SIGTERM is forwarded to it
 * (into *@sig), and a child not gone RP_STOP_S later, or a second
 * signal, is killed.  Its wait status, or -1.
 */
static int wait_child(struct hvb_rp_done *d, int *sig)
{
    struct timespec tick = {0, 100 * 1000 * 1000};
    double kill_at = 0;
    int st, got;
    pid_t r;

    for ( ;; )
    {
        r = waitpid(d->pid, &st, WNOHANG);
        if ( r == d->pid )
            return st;
        if ( r < 0 && errno != EINTR )
            return -1;
        got = sigtimedwait(&rp_sigs, NULL, &tick);
        if ( (got == SIGINT || got == SIGTERM) && *sig == 0 )
        {
            *sig = got;
            kill(d->pid, got);
            kill_at = wall_now() + RP_STOP_S;
        }
        else if ( (got == SIGINT || got == SIGTERM) ||
                  (kill_at > 0 && wall_now() > kill_at) )
        {
            kill(d->pid, SIGKILL);
            kill_at = 0;
        }
    }
}

/*
 * Spawn @d's command with its output in its log (with the signal mask
 * reproduce found, SIGINT and SIGTERM at their defaults); wait for it.  A SIGINT/SIGTERM meanwhile: *@sig.
 */
static void run_one(struct hvb_rp_done *d, const char *exe, bool resume,
                    int *sig)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t def;
    int rc, st;

    d->status = -1;
    if ( !resume )
        hvb_outfile_remove(d->file);
    if ( posix_spawn_file_actions_init(&fa) )
    {
        snprintf(d->error, sizeof(d->error), "cannot spawn: out of memory");
        return;
    }
    if ( posix_spawnattr_init(&at) )
    {
        posix_spawn_file_actions_destroy(&fa);
        snprintf(d->error, sizeof(d->error), "cannot spawn: out of memory");
        return;
    }
    /* Its SIGINT and SIGTERM are its own, whatever reproduce inherited. */
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    posix_spawnattr_setsigmask(&at, &rp_old_mask);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setflags(&at,
                             POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, d->log,
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    d->started = wall_now();
    rc = posix_spawn(&d->pid, exe, &fa, &at, d->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if ( rc )
    {
        d->ended = wall_now();
        snprintf(d->error, sizeof(d->error), "cannot spawn '%s': %s", exe,
                 strerror(rc));
        return;
    }
    st = wait_child(d, sig);
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

static bool opt_seed(void *st, const char *opt, const char *val)
{
    struct rp *rp = st;

    (void)opt;
    if ( hvb_rp_seed_find(val) == NULL )
    {
        hvb_usage_error("reproduce: unknown seed '%s' (seeds: 000, 001, 002, "
                        "003, 004)",
                        val);
        return false;
    }
    rp->seed = val;
    return true;
}

/* The options into @rp: 0, an exit status, or -1 (--help: done). */
static int parse(struct rp *rp, int argc, char **argv)
{
    struct hvb_optparse p = {.argc = argc,
                             .argv = argv,
                             .i = 1,
                             .cmd = "reproduce",
                             .doc = &hvb_doc_reproduce};
    const char *val;
    int id;

    /* Every row is typed: it returns at the end, or at what no row is. */
    id = hvb_opt_parse(&p, reproduce_opts, rp, &val);
    if ( id == HVB_OPT_ERROR )
        return HVB_EXIT_USAGE;
    if ( id == HVB_OPT_HELP_SHOWN )
        return -1;
    if ( id == HVB_OPT_POSITIONAL )
        return hvb_usage_error("reproduce: unexpected argument '%s' (see "
                               "'hvbench reproduce --help')",
                               val);
    if ( rp->out == NULL || *rp->out == '\0' )
        return hvb_usage_error("reproduce needs --out DIR");
    return 0;
}

/* DIR ready, this invocation's id set and appended to its list.  Status. */
static int start(struct rp *rp)
{
    unsigned int rnd = 0;
    char *path;
    FILE *f;
    int rc;

    rc = prepare_dir(rp->out);
    if ( rc )
        return rc;
    if ( isnan(rp->min_time) )
        rp->min_time = rp->quick ? RP_MIN_TIME_QUICK : RP_MIN_TIME_FULL;
    snprintf(rp->min_time_s, sizeof(rp->min_time_s), "%g", rp->min_time);
    rp->done = calloc(hvb_rp_nr_runs, sizeof(*rp->done));
    rp->fig = calloc(hvb_rp_nr_claims, sizeof(*rp->fig));
    if ( rp->done == NULL || rp->fig == NULL )
        return hvb_failure("reproduce: out of memory");
    rp->t.started = wall_now();
    if ( getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd) )
        rnd = (unsigned int)rand();
    snprintf(rp->invocation, sizeof(rp->invocation), "%d-%.0f-%08x",
             (int)getpid(), rp->t.started * 1e9, rnd);
    if ( setenv(HVB_INVOCATION_ENV, rp->invocation, 1) )
        return hvb_failure("reproduce: cannot set %s", HVB_INVOCATION_ENV);
    rp->exe = getenv(HVB_RP_EXE_ENV);
    if ( rp->exe == NULL || *rp->exe == '\0' )
        rp->exe = "/proc/self/exe";
    /* What a later --resume may keep: files these invocations wrote. */
    path = path_join(rp->out, HVB_RP_INVOCATIONS, "", "");
    f = path ? fopen(path, "a") : NULL;
    if ( f == NULL || fprintf(f, "%s\n", rp->invocation) < 0 || fclose(f) )
        rc = hvb_usage_error("reproduce: cannot write '%s'", path ?: "?");
    free(path);
    return rc;
}

/*
 * --resume: is @file one that a reproduce into @dir wrote (its
 * invocation in DIR/reproduce.invocations), finished or interrupted?
 */
static bool resumable(const char *dir, const char *file)
{
    char err[512], line[128], *path;
    const char *inv;
    bool found = false;
    json_t *doc;
    FILE *f;

    if ( access(file, F_OK) != 0 )
        return false;
    doc = hvb_results_load(file, err, sizeof(err));
    inv = json_string_value(hvb_rd_get(doc, HVB_RK_RUN, HVB_RK_INVOCATION));
    path = path_join(dir, HVB_RP_INVOCATIONS, "", "");
    f = inv && path ? fopen(path, "r") : NULL;
    while ( f != NULL && !found && fgets(line, sizeof(line), f) != NULL )
    {
        line[strcspn(line, "\n")] = '\0';
        found = strcmp(line, inv) == 0;
    }
    if ( f != NULL )
        fclose(f);
    free(path);
    json_decref(doc);
    return found;
}

/* The runs of the seeds asked into rp->done.  Status. */
static int list_runs(struct rp *rp)
{
    size_t i;

    for ( i = 0; i < hvb_rp_nr_runs; i++ )
    {
        const struct hvb_rp_run *r = &hvb_rp_runs[i];
        struct hvb_rp_done *d = &rp->done[rp->nd];

        if ( !selected(r->seed, rp->seed) )
            continue;
        d->run = r;
        d->file = path_join(rp->out, r->seed, r->name, ".json");
        d->log = path_join(rp->out, r->seed, r->name, ".log");
        d->resume = rp->resume && d->file && resumable(rp->out, d->file);
        d->argv = d->file && d->log ? run_argv(r, rp->quick, rp->min_time_s,
                                               d->file, d->resume)
                                    : NULL;
        if ( d->argv == NULL )
            return hvb_failure("reproduce: out of memory");
        rp->est += rp->quick ? r->est_quick_s : r->est_full_s;
        rp->nd++;
    }
    return HVB_EXIT_OK;
}

/*
 * Each run in turn, its file checked.  0, or 128 + the signal that
 * interrupted it (said so; nothing run after it).
 */
static int measure(struct rp *rp)
{
    struct hvb_progress prog;
    size_t i, k;
    int sig = 0;

    if ( !rp->quiet )
        fprintf(stderr,
                "hvbench: reproduce: %zu runs (%s%s), expected about %.0f s "
                "on 2 vCPUs; results in %s/\n",
                rp->nd, rp->seed ? "seed " : "all seeds", rp->seed ?: "",
                rp->est, rp->out);
    /*
     * The bar advances by each run's expected seconds (one step per
     * second), so that its ETA weighs a 60 s listing above a 3 s balloon.
     */
    hvb_progress_start(&prog, (size_t)rp->est, rp->quiet);
    for ( i = 0; i < rp->nd && sig == 0; i++ )
    {
        struct hvb_rp_done *d = &rp->done[i];
        unsigned int w = rp->quick ? d->run->est_quick_s : d->run->est_full_s;
        char label[96];

        snprintf(label, sizeof(label), "%s-%s", d->run->seed, d->run->name);
        sig = pending_signal();
        if ( sig )
            break;
        run_one(d, rp->exe, d->resume, &sig);
        if ( sig )
        {
            hvb_progress_end(&prog);
            fprintf(stderr,
                    "hvbench: reproduce: interrupted (%s) in %s: stopped it "
                    "(exit status %d; its rounds done are in %s); %zu of %zu "
                    "runs done; the same command with --resume runs the "
                    "rest\n",
                    sig == SIGINT ? "SIGINT" : "SIGTERM", label, d->status,
                    d->file, i, rp->nd);
            return 128 + sig;
        }
        check_results(d, rp->invocation);
        for ( k = 0; k < w; k++ )
            hvb_progress_step(&prog, label);
        if ( d->doc == NULL )
        {
            hvb_progress_end(&prog);
            fprintf(stderr, "hvbench: reproduce: %s: %s\n", label, d->error);
        }
    }
    hvb_progress_end(&prog);
    if ( sig )
        fprintf(stderr,
                "hvbench: reproduce: interrupted (%s): %zu of %zu runs done; "
                "the same command with --resume runs the rest\n",
                sig == SIGINT ? "SIGINT" : "SIGTERM", i, rp->nd);
    return sig ? 128 + sig : 0;
}

/* Each claim of the seeds asked against the runs.  The exit status. */
static int judge(struct rp *rp)
{
    int status = HVB_EXIT_OK;
    size_t i;

    for ( i = 0; i < hvb_rp_nr_claims; i++ )
    {
        struct hvb_rp_figure *f = &rp->fig[rp->nf];

        if ( !selected(hvb_rp_claims[i].seed, rp->seed) )
            continue;
        hvb_rp_figure(&hvb_rp_claims[i], rp->done, rp->nd, f);
        if ( f->state == HVB_RP_FAILED ||
             (f->state == HVB_RP_MEASURED && !f->direction && f->resolved) )
            status = HVB_EXIT_FAIL;
        rp->nf++;
    }
    return status;
}

/* The table on stdout and into DIR.  0 or the write's exit status. */
static int tables(struct rp *rp, int argc, char **argv, int status)
{
    struct hvb_rp_table *t = &rp->t;
    int rc;

    t->invocation = rp->invocation;
    t->pid = getpid();
    t->ended = wall_now();
    t->quick = rp->quick;
    t->min_time_s = rp->min_time;
    t->seed = rp->seed;
    t->argc = argc;
    t->argv = argv;
    t->done = rp->done;
    t->nr_done = rp->nd;
    t->fig = rp->fig;
    t->nr_fig = rp->nf;
    t->exit_status = status;
    hvb_rp_markdown(stdout, t);
    fflush(stdout);
    rc = write_tables(rp->out, t);
    if ( rc == 0 && !rp->quiet )
        fprintf(stderr,
                "hvbench: reproduce: table written to %s/%s and "
                "%s/%s\n",
                rp->out, HVB_RP_MD, rp->out, HVB_RP_JSON);
    return rc;
}

int hvb_cmd_reproduce(struct hvb_cmd_ctx *ctx)
{
    int argc = ctx->argc;
    char **argv = ctx->argv;
    struct rp rp = {.min_time = NAN};
    size_t i;
    int status;

    status = parse(&rp, argc, argv);
    if ( status )
        return status < 0 ? HVB_EXIT_OK : status;
    block_signals();
    status = start(&rp);
    status = status ?: list_runs(&rp);
    status = status ?: measure(&rp);
    if ( status == HVB_EXIT_OK )
    {
        status = judge(&rp);
        status = tables(&rp, argc, argv, status) ?: status;
    }
    for ( i = 0; i < rp.nd; i++ )
        json_decref(rp.done[i].doc);
    if ( status < 128 )
        sigprocmask(SIG_SETMASK, &rp_old_mask, NULL);
    return status;
}
