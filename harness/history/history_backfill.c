/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench history backfill REV-RANGE [--reference REV] [--every N] --
 * WORKLOAD [run options]": a history filled from past commits.  Each
 * commit of the range (first-parent, oldest first, every Nth) is
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
#include <hvb/history.h>

#include "private.h"

struct backfill {
    struct hvb_hreview r;
    const char *db, *reference, *out, *repo_opt, *branch, *machine;
    unsigned int every;
};

#define F struct backfill
static const struct hvb_optdef backfill_opts[] = {
    HVB_OPT_STR("reference", 0, "REV", F, reference,
                "the build every commit is paired with (default the "
                "history's pinned reference, else the range's first commit, "
                "then pinned)"),
    HVB_OPT_UINT("every", 0, "N", F, every, 1, 1000000,
                 "every Nth commit of the range (default 1)"),
    HVB_OPT_STR("metric", 'm', "M[,M...]", F, r.metric,
                "what is gated and recorded (default sim_instructions)"),
    HVB_OPT_STR("out", 'o', "DIR", F, out,
                "each commit's review (default hvbench-backfill)"),
    HVB_OPT_STR("cache", 0, "DIR", F, r.cache, "the build cache"),
    HVB_OPT_STR("repo", 0, "DIR", F, repo_opt, "the repository"),
    HVB_OPT_STR("branch", 0, "NAME", F, branch, "recorded with the runs"),
    HVB_OPT_STR("machine", 0, "NAME", F, machine,
                "recorded with the runs (default the host name)"),
    HVB_OPT_STR("db", 0, "PATH|URL", F, db,
                "the history, a file or a PostgreSQL URL (as record's)"),
    HVB_OPT_UINT("jobs", 'j', "N", F, r.jobs, 1, 256, "build parallelism"),
    HVB_OPT_HELP(0),
    HVB_OPT_END,
};
#undef F

const struct hvb_cmd_doc hvb_doc_history_backfill = {
    .usage = "history backfill REV-RANGE [--reference REV] [--every N] -- "
             "WORKLOAD [run options]",
    .text = "Each commit of REV-RANGE (git rev-list --first-parent, oldest\n"
            "first, every Nth) reviewed against one pinned reference build\n"
            "and recorded: a ratio series against the same reference\n"
            "throughout, and the absolute figures beside it.",
    .opts = backfill_opts,
};

/* The range's commits (every Nth) into @out, one per line; how many. */
static long range_commits(struct backfill *b, const char *range, char *out,
                          size_t cap)
{
    char err[1024];
    const char *args[] = {"rev-list", "--first-parent", "--reverse",
                          (char *)range, NULL};
    long n = 0;
    size_t i;

    if ( hvb_git(b->r.repo, out, cap, err, sizeof(err), NULL, args) )
    {
        fprintf(stderr, "hvbench: history backfill: %s\n", err);
        return -1;
    }
    for ( i = 0; out[i]; i++ )
        n += out[i] == '\n';
    return n + (i > 0);
}

static int walk(struct backfill *b, struct hvb_hdb *h, char *list,
                const char *ref)
{
    char dir[4200], logp[4300], *c, *save = NULL;
    unsigned long k = 0, done = 0, skipped = 0;
    char **av;
    int rc;

    for ( c = strtok_r(list, "\n", &save); c; c = strtok_r(NULL, "\n", &save) )
    {
        if ( k++ % b->every )
            continue;
        snprintf(dir, sizeof(dir), "%s/%.12s", b->out, c);
        snprintf(logp, sizeof(logp), "%s.log", dir);
        if ( hvb_mkdirs(dir) ||
             (av = hvb_hreview_argv(&b->r, ref, c, dir, NULL, false)) == NULL )
            return hvb_failure("history backfill: %s: cannot start", dir);
        rc = hvb_hreview_run(av, logp);
        free(av);
        if ( (rc == 0 || rc == 1 || rc == 3) &&
             hvb_hreview_record(h, dir, b->branch, b->machine) >= 0 )
            done++;
        else
        {
            skipped++;
            fprintf(stderr,
                    "hvbench: history backfill: %.12s skipped (review exit "
                    "%d; log: %s)\n",
                    c, rc, logp);
        }
        fprintf(stderr, "hvbench: history backfill: %.12s (%lu recorded)\n", c,
                done);
    }
    printf("backfilled %lu commit(s) against %.12s; %lu skipped\n", done, ref,
           skipped);
    return done > 0 ? 0
                    : hvb_usage_error("history backfill: nothing "
                                      "recorded");
}

int hvb_history_backfill(int argc, char **argv)
{
    struct backfill b = {.out = "hvbench-backfill", .every = 1};
    struct hvb_optparse p = {.argc = argc,
                             .argv = argv,
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

    for ( dd = 1; dd < argc && strcmp(argv[dd], "--"); dd++ )
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
    if ( range == NULL || dd + 1 >= argc )
        return hvb_usage_error("history backfill needs REV-RANGE -- WORKLOAD "
                               "[run options]");
    b.r.line = argv + dd + 1;
    b.r.nr_line = argc - dd - 1;
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
    status = walk(&b, &h, list, ref.commit);
    hvb_hdb_close(&h);
    free(list);
    return status;
}
