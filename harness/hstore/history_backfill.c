/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench history backfill REV-RANGE [--reference REV] [--every N] --
 * WORKLOAD [run options]": a history filled from past commits.  Each
 * commit of the range (oldest first, or its first-parent line with
 * --first-parent; every Nth) is
 * reviewed against one pinned reference build (default: the range's
 * first commit), and its review.json recorded: the ratio series against
 * the same reference throughout, where the machine's drift cancels, and
 * the absolute figures beside it.  A commit that does not build is
 * skipped and said so.
 *
 * Example: "history backfill 4b6192e~8..4b6192e -- lookup --plugin
 * domlookup=rwlock-ref" builds the 8 commits (and the reference), each
 * once in the build cache, records 8 reviews; "history detect" then
 * looks for the step.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <hvb/builds.h>
#include <hvb/cmdline.h>
#include <hvb/fsutil.h>
#include <hvb/interrupt.h>

#include "private.h"

struct backfill {
    struct hvb_hreview r;
    const char *db, *reference, *out, *repo_opt, *branch, *machine;
    unsigned int every;
    bool first_parent, list_only;
};

#define F struct backfill
static const struct hvb_optdef backfill_opts[] = {
    HVB_OPT_STR("reference", 0, "REV", F, reference,
                "the build every commit is paired with (default the "
                "history's pinned reference, else the range's first commit, "
                "then pinned)"),
    HVB_OPT_SET("first-parent", 0, F, first_parent,
                "only the commits of the first-parent line (a merge, not "
                "the commits it brought in; default every commit of the "
                "range, oldest first)"),
    HVB_OPT_SET("list", 0, F, list_only,
                "print the commits it would review, one per line, and stop "
                "(no WORKLOAD needed)"),
    HVB_OPT_UINT("every", 0, "N", F, every, 1, 1000000,
                 "every Nth commit of the range (default 1)"),
    HVB_OPT_STR("metric", 'm', "M[,M...]", F, r.metric,
                "what is gated and recorded (default sim_instructions)"),
    HVB_OPT_STR("out", 'o', "DIR", F, out,
                "each commit's review (default hvbench-backfill)"),
    HVB_OPT_STR("cache", 0, "DIR", F, r.cache, "the build cache"),
    HVB_OPT_SECONDS("build-timeout", 0, "S", F, r.build_timeout_s, 1, 604800,
                    "each review: kill a build step running longer than S "
                    "seconds (review's default: 7200)"),
    HVB_OPT_STR("repo", 0, "DIR", F, repo_opt, "the repository"),
    HVB_OPT_STR("branch", 0, "NAME", F, branch, "recorded with the runs"),
    HVB_OPT_STR("machine", 0, "NAME", F, machine,
                "recorded with the runs (default the host name)"),
    HVB_OPT_STR("db", 0, "PATH|URL", F, db,
                "the history, a file or a PostgreSQL URL (as record's)"),
    HVB_OPT_UINT("jobs", 'j', "N", F, r.jobs, 1, 256, "build parallelism"),
    HVB_OPT_ALSO(hvb_hreview_fleet_opts),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef F

/* The fleet rows are struct hvb_hreview's: it must come first. */
_Static_assert(offsetof(struct backfill, r) == 0, "backfill: r first");

const struct hvb_cmd_doc hvb_doc_history_backfill = {
    .usage = "history backfill REV-RANGE [--reference REV] [--first-parent]\n"
             "                         [--every N] [--fleet slurm] -- "
             "WORKLOAD [run options]",
    .text = "Each commit of REV-RANGE (git rev-list --reverse --topo-order,\n"
            "or its first-parent line; every Nth) reviewed against one\n"
            "pinned reference build and recorded: a ratio series against\n"
            "the same reference throughout, and the absolute figures\n"
            "beside it.  --list prints the commits and stops.  With --fleet\n"
            "slurm the reviews are one job array, recorded in commit order\n"
            "once done.",
    .opts = backfill_opts,
};

/* The range's commits (every Nth) into @out, one per line; how many. */
static long range_commits(struct backfill *b, const char *range, char *out,
                          size_t cap)
{
    char err[1024];
    const char *args[] = {"rev-list",    "--reverse", "--topo-order",
                          (char *)range, NULL,        NULL};
    long n = 0;
    size_t i;

    if ( b->first_parent )
        args[3] = "--first-parent", args[4] = range;
    if ( hvb_git(b->r.repo, out, cap, err, sizeof(err), NULL, args) )
    {
        fprintf(stderr, "hvbench: history backfill: %s\n", err);
        return -1;
    }
    for ( i = 0; out[i]; i++ )
        n += out[i] == '\n';
    n += i > 0 && out[i - 1] != '\n';
    /* "backfill v1.0" is every ancestor of v1.0: said, not assumed. */
    if ( n > 1 && strstr(range, "..") == NULL && strchr(range, '^') == NULL )
        fprintf(stderr,
                "hvbench: history backfill: warning: '%s' is one revision: "
                "every one of its %ld ancestors is reviewed (A..B names a "
                "range; --list shows them first)\n",
                range, n);
    return n;
}

/* --list: every Nth commit of @list, as the backfill would take them. */
static void print_every(const struct backfill *b, const char *list)
{
    unsigned long k = 0;
    const char *c;
    size_t n;

    for ( c = list; *c; c += n + (c[n] == '\n') )
    {
        n = strcspn(c, "\n");
        if ( n && k++ % b->every == 0 )
            printf("%.*s\n", (int)n, c);
    }
}

/* Commit @c's review (exit @rc) recorded, or said skipped. */
static void account(struct backfill *b, struct hvb_hdb *h,
                    const struct hvb_hfleet_task *t, const char *c,
                    unsigned long *done, unsigned long *skipped)
{
    if ( (t->rc == 0 || t->rc == 1 || t->rc == 3) &&
         hvb_hreview_record(h, t->dir, b->branch, b->machine) >= 0 )
        (*done)++;
    else
    {
        (*skipped)++;
        fprintf(stderr,
                "hvbench: history backfill: %.12s skipped (review exit "
                "%d; log: %s)\n",
                c, t->rc, t->log);
    }
    fprintf(stderr, "hvbench: history backfill: %.12s (%lu recorded)\n", c,
            *done);
}

/* The reviews of @t (@n, of commits @cs): here one by one, or a job. */
static int review_all(struct backfill *b, struct hvb_hdb *h,
                      struct hvb_hfleet_task *t, char **cs, size_t n,
                      unsigned long *done, unsigned long *skipped)
{
    char script[4300];
    json_t *jobs;
    size_t i;
    int status;

    if ( b->r.fleet == NULL )
    {
        for ( i = 0; i < n && !hvb_interrupted(); i++ )
        {
            snprintf(t[i].log, sizeof(t[i].log), "%s.log", t[i].dir);
            t[i].rc = hvb_hreview_run(t[i].argv, t[i].log);
            if ( !hvb_interrupted() ) /* a review cut short: not recorded */
                account(b, h, &t[i], cs[i], done, skipped);
        }
        return 0;
    }
    snprintf(script, sizeof(script), "%s/fleet", b->out);
    if ( hvb_mkdirs(script) )
        return hvb_failure("history backfill: cannot create %s", script);
    snprintf(script, sizeof(script), "%s/fleet/backfill.sh", b->out);
    jobs = json_array();
    status = hvb_hfleet_run(&b->r, script, t, n, false, jobs);
    json_decref(jobs);
    for ( i = 0; i < n && status == 0; i++ )
        account(b, h, &t[i], cs[i], done, skipped);
    return status;
}

static int walk(struct backfill *b, struct hvb_hdb *h, char *list,
                const char *ref)
{
    char *c, *save = NULL, **cs = calloc(strlen(list) / 40 + 2, sizeof(*cs));
    struct hvb_hfleet_task *t = calloc(strlen(list) / 40 + 2, sizeof(*t));
    unsigned long k = 0, done = 0, skipped = 0;
    size_t n = 0, i;
    int status = cs && t ? 0 : hvb_failure("out of memory");

    for ( c = strtok_r(list, "\n", &save); c && status == 0;
          c = strtok_r(NULL, "\n", &save) )
    {
        if ( k++ % b->every )
            continue;
        cs[n] = c;
        snprintf(t[n].dir, sizeof(t[n].dir), "%s/%.12s", b->out, c);
        if ( hvb_mkdirs(t[n].dir) ||
             (t[n].argv = hvb_hreview_argv(&b->r, ref, c, t[n].dir, NULL,
                                           false)) == NULL )
            status =
                hvb_failure("history backfill: %s: cannot start", t[n].dir);
        n++;
    }
    status = status ?: review_all(b, h, t, cs, n, &done, &skipped);
    for ( i = 0; i < n; i++ )
        free(t[i].argv);
    free(t);
    free(cs);
    if ( status == 0 && hvb_interrupted() )
    {
        char kept[160];

        snprintf(kept, sizeof(kept),
                 "%lu commit(s) recorded before it are kept; the review "
                 "running was stopped",
                 done);
        status = hvb_interrupt_status("history backfill", kept);
    }
    if ( status )
        return status;
    printf("backfilled %lu commit(s) against %.12s; %lu skipped\n", done, ref,
           skipped);
    return done > 0 ? 0
                    : hvb_usage_error("history backfill: nothing "
                                      "recorded");
}

int hvb_history_backfill(struct hvb_cmd_ctx *ctx)
{
    struct backfill b = {.out = "hvbench-backfill", .every = 1};
    struct hvb_optparse p = {.argc = ctx->argc,
                             .argv = ctx->argv,
                             .i = 1,
                             .cmd = "history backfill",
                             .doc = &hvb_doc_history_backfill};
    char cwd[4096], err[1024], first[64], pinned[80], *list;
    const char *val, *range = NULL;
    struct hvb_rev ref;
    struct hvb_hdb h;
    int id, dd, status;
    ssize_t sl;
    size_t cap = 1u << 22;

    for ( dd = 1; dd < ctx->argc && strcmp(ctx->argv[dd], "--"); dd++ )
        ;
    p.argc = dd;
    while ( (id = hvb_opt_parse(&p, backfill_opts, &b, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        if ( range != NULL )
            return hvb_usage_error("history backfill takes one REV-RANGE");
        range = val;
    }
    if ( range == NULL || (dd + 1 >= ctx->argc && !b.list_only) )
        return hvb_usage_error("history backfill needs REV-RANGE -- WORKLOAD "
                               "[run options]");
    b.r.line = ctx->argv + dd + 1;
    b.r.nr_line = ctx->argc - dd - 1;
    if ( (status = hvb_hfleet_check(&b.r, "history backfill", &b.out)) >= 0 )
        return status;
    sl = readlink("/proc/self/exe", b.r.self, sizeof(b.r.self) - 1);
    b.r.self[sl > 0 ? sl : 0] = '\0';
    if ( getcwd(cwd, sizeof(cwd)) == NULL ||
         hvb_rev_repo(b.repo_opt ? b.repo_opt : cwd, b.r.repo, sizeof(b.r.repo),
                      err, sizeof(err)) )
        return hvb_usage_error("history backfill: %s", err);
    if ( (list = malloc(cap)) == NULL )
        return hvb_failure("out of memory");
    if ( range_commits(&b, range, list, cap) <= 0 )
    {
        free(list);
        return hvb_usage_error("history backfill: no commit in '%s'", range);
    }
    if ( b.list_only )
    {
        print_every(&b, list);
        free(list);
        return 0;
    }
    snprintf(first, sizeof(first), "%.*s", (int)strcspn(list, "\n"), list);
    if ( hvb_hdb_open(&h, b.db, err, sizeof(err)) )
    {
        free(list);
        return hvb_usage_error("history backfill: %s", err);
    }
    if ( hvb_href_current(&h, pinned, sizeof(pinned)) )
        *pinned = '\0';
    if ( hvb_rev_resolve(b.r.repo,
                         b.reference ? b.reference
                         : *pinned   ? pinned
                                     : first,
                         &ref, err, sizeof(err)) ||
         (*pinned == '\0' &&
          hvb_href_pin(&h, ref.commit, NULL, -1, err, sizeof(err))) )
    {
        hvb_hdb_close(&h);
        free(list);
        return hvb_usage_error("history backfill: %s", err);
    }
    if ( *pinned && strcmp(pinned, ref.commit) )
        fprintf(stderr,
                "hvbench: history backfill: warning: reviewing against "
                "%.12s, not the pinned reference %.12s: these ratios are on "
                "another scale (history reference set moves it with an "
                "overlap)\n",
                ref.commit, pinned);
    hvb_interrupt_catch(); /* the review running stopped with backfill */
    status = walk(&b, &h, list, ref.commit);
    hvb_hdb_close(&h);
    free(list);
    return status;
}
