/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pinned reference of a history's ratio series, and its moves.  CI
 * reviews every commit against one reference build ("review $(hvbench
 * history reference --commit) HEAD"), so that the ratio series share a
 * scale.  A reference cannot stay forever (the build toolchain moves, a
 * very old base stops building); "history reference set NEW -- WORKLOAD"
 * moves it with one overlap review: the newest commit recorded against
 * the old reference is reviewed against NEW and recorded, and
 * history_chain.c brings the later points onto the old scale by that
 * overlap's factor.
 *
 * E.g. the series 1.00 1.01 1.02 against R1 (commits X1 X2 X3), then
 * "reference set R2": X3 reviewed against R2 gives 0.51, a factor of
 * 2.0; X4 against R2 at 0.52 is then 1.04 on R1's scale, and detect and
 * the site see one series.  "--no-overlap" moves it without one: the
 * series breaks there, and nothing is compared across the break.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvb/builds.h>
#include <hvb/cmdline.h>
#include <hvb/fsutil.h>

#include "private.h"

struct reference {
    struct hvb_hreview r;
    const char *db, *overlap, *out, *repo_opt, *branch, *machine;
    bool no_overlap, commit_only;
};

#define R struct reference
static const struct hvb_optdef reference_opts[] = {
    HVB_OPT_SET("commit", 0, R, commit_only,
                "print only the pinned reference's full hash (exit 1 when "
                "none is pinned), for scripts"),
    HVB_OPT_STR("overlap", 0, "REV", R, overlap,
                "set: the commit reviewed against both references (default "
                "the newest commit recorded against the old one)"),
    HVB_OPT_SET("no-overlap", 0, R, no_overlap,
                "set: move without an overlap review: the ratio series "
                "break there"),
    HVB_OPT_STR("metric", 'm', "M[,M...]", R, r.metric,
                "set: what the overlap review gates and records (default "
                "sim_instructions; give the series' metrics)"),
    HVB_OPT_STR("out", 'o', "DIR", R, out,
                "set: the overlap review (default hvbench-reference)"),
    HVB_OPT_STR("cache", 0, "DIR", R, r.cache, "set: the build cache"),
    HVB_OPT_SECONDS("build-timeout", 0, "S", R, r.build_timeout_s, 1, 604800,
                    "set: kill a build step of the overlap review running "
                    "longer than S seconds (review's default: 7200)"),
    HVB_OPT_STR("repo", 0, "DIR", R, repo_opt, "set: the repository"),
    HVB_OPT_STR("branch", 0, "NAME", R, branch,
                "set: recorded with the overlap run"),
    HVB_OPT_STR("machine", 0, "NAME", R, machine,
                "set: recorded with the overlap run (default the host name)"),
    HVB_OPT_UINT("jobs", 'j', "N", R, r.jobs, 1, 256, "set: build parallelism"),
    HVB_OPT_STR("db", 0, "PATH|URL", R, db,
                "the history, a file or a PostgreSQL URL (as record's)"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef R

const struct hvb_cmd_doc hvb_doc_history_reference = {
    .usage = "history reference [--commit] [--db PATH|URL]\n"
             "history reference set REV [--overlap REV | --no-overlap]\n"
             "                                 [--metric M] -- WORKLOAD "
             "[run options]",
    .text =
        "The pinned reference the ratio series are reviewed against, and\n"
        "its moves.  'set REV' moves it to REV: the newest commit\n"
        "recorded against the old reference (or --overlap's) is reviewed\n"
        "against REV and recorded, and detect, export's chained values and\n"
        "the site bring the later points onto the old reference's scale\n"
        "by that overlap's factor.  The first 'set' just pins REV.",
    .opts = reference_opts,
    .notes = "exit status: 0 done, 1 --commit with none pinned, 2 usage, a "
             "revision or build error, or an unreadable database",
};

static int first_text(struct hvb_hdb *h, const char *sql, const char *arg,
                      char *out, size_t len)
{
    struct hvb_sql_stmt *st;
    int rc = -ENOENT;

    *out = '\0';
    if ( (st = hvb_sql_prepare(h->db, sql)) == NULL )
        return -EIO;
    if ( arg )
        hvb_sql_bind_text(st, 1, arg);
    if ( hvb_sql_step(st) == HVB_SQL_ROW && hvb_sql_text(st, 0) )
    {
        snprintf(out, len, "%s", hvb_sql_text(st, 0));
        rc = 0;
    }
    hvb_sql_finalize(st);
    return rc;
}

int hvb_href_current(struct hvb_hdb *h, char *out, size_t len)
{
    return first_text(h,
                      "SELECT commit_hash FROM refs ORDER BY id DESC LIMIT 1",
                      NULL, out, len);
}

int hvb_href_pin(struct hvb_hdb *h, const char *commit, const char *overlap,
                 long long run, char *err, size_t len)
{
    struct hvb_sql_stmt *st;
    char now[32];
    int rc;

    hvb_hdb_now(now);
    if ( (st = hvb_sql_prepare(
              h->db, "INSERT INTO refs (commit_hash, set_at, "
                     "overlap_commit, overlap_run) VALUES (?, ?, ?, ?)")) ==
         NULL )
    {
        snprintf(err, len, "%s: %s", h->path, hvb_sql_errmsg(h->db));
        return -EIO;
    }
    hvb_sql_bind_text(st, 1, commit);
    hvb_sql_bind_text(st, 2, now);
    if ( overlap )
        hvb_sql_bind_text(st, 3, overlap);
    if ( run > 0 )
        hvb_sql_bind_int64(st, 4, run);
    rc = hvb_sql_step(st) == HVB_SQL_DONE ? 0 : -EIO;
    if ( rc )
        snprintf(err, len, "%s: %s", h->path, hvb_sql_errmsg(h->db));
    hvb_sql_finalize(st);
    return rc;
}

/* "history reference": the pins, oldest first. */
static int show(struct hvb_hdb *h, bool commit_only)
{
    char cur[80];
    struct hvb_sql_stmt *st;
    int n = 0;

    if ( commit_only )
    {
        if ( hvb_href_current(h, cur, sizeof(cur)) )
            return 1;
        printf("%s\n", cur);
        return 0;
    }
    if ( (st = hvb_sql_prepare(
              h->db, "SELECT id, commit_hash, set_at, overlap_commit, "
                     "overlap_run FROM refs ORDER BY id")) == NULL )
        return hvb_failure("history reference: %s", hvb_sql_errmsg(h->db));
    while ( hvb_sql_step(st) == HVB_SQL_ROW )
    {
        const char *ov = hvb_sql_text(st, 3);

        printf("%s %.12s since %s", n ? "then" : "pinned", hvb_sql_text(st, 1),
               hvb_sql_text(st, 2));
        if ( n && ov )
            printf(", overlap %.12s (run %lld)", ov,
                   (long long)hvb_sql_int64(st, 4));
        else if ( n )
            printf(", no overlap: the ratio series break here");
        putchar('\n');
        n++;
    }
    hvb_sql_finalize(st);
    if ( n == 0 )
        printf("no reference pinned ('history reference set REV', or "
               "backfill, pins one)\n");
    return 0;
}

/* The overlap review of @x against @to, recorded: its run id, or -1. */
static long long overlap_review(struct reference *o, struct hvb_hdb *h,
                                const char *to, const char *x)
{
    char logp[4200];
    char **av = hvb_hreview_argv(&o->r, to, x, o->out, NULL, false);
    long long id;
    int rc;

    snprintf(logp, sizeof(logp), "%s.log", o->out);
    if ( av == NULL || hvb_mkdirs(o->out) )
    {
        free(av);
        return -1;
    }
    fprintf(stderr,
            "hvbench: history reference: reviewing %.12s against "
            "%.12s (log: %s)\n",
            x, to, logp);
    rc = hvb_hreview_run(av, logp);
    free(av);
    if ( rc != 0 && rc != 1 && rc != 3 )
    {
        fprintf(stderr,
                "hvbench: history reference: the overlap review "
                "failed (exit %d; log: %s)\n",
                rc, logp);
        return -1;
    }
    id = hvb_hreview_record(h, o->out, o->branch, o->machine);
    return id;
}

/* "history reference set REV ...". */
static int set(struct reference *o, struct hvb_hdb *h, const char *spec)
{
    char old[80], ov[80], err[1024];
    struct hvb_rev to, x;
    long long run = -1;

    if ( hvb_rev_resolve(o->r.repo, spec, &to, err, sizeof(err)) )
        return hvb_usage_error("history reference: %s", err);
    if ( hvb_href_current(h, old, sizeof(old)) != 0 )
        first_text(h,
                   "SELECT base_commit FROM runs WHERE kind = 'review' AND "
                   "base_commit IS NOT NULL ORDER BY id DESC LIMIT 1",
                   NULL, old, sizeof(old));
    if ( *old && strcmp(old, to.commit) == 0 )
    {
        printf("the reference is %.12s already\n", to.commit);
        return 0;
    }
    if ( *old && !o->no_overlap )
    {
        if ( o->overlap )
        {
            if ( hvb_rev_resolve(o->r.repo, o->overlap, &x, err, sizeof(err)) )
                return hvb_usage_error("history reference: %s", err);
            snprintf(ov, sizeof(ov), "%s", x.commit);
        }
        else if ( first_text(h,
                             "SELECT commit_hash FROM runs WHERE kind = "
                             "'review' AND base_commit = ? AND commit_hash IS "
                             "NOT NULL ORDER BY id DESC LIMIT 1",
                             old, ov, sizeof(ov)) )
            *ov = '\0';
        if ( *ov && o->r.nr_line == 0 )
            return hvb_usage_error(
                "history reference set: the overlap review needs -- "
                "WORKLOAD [run options] (the series' workload), or "
                "--no-overlap");
        if ( *ov && (run = overlap_review(o, h, to.commit, ov)) < 0 )
            return hvb_usage_error("history reference set: no overlap "
                                   "recorded; the reference stays %.12s",
                                   old);
    }
    if ( hvb_href_pin(h, to.commit, run > 0 ? ov : NULL, run, err,
                      sizeof(err)) )
        return hvb_failure("history reference: %s", err);
    if ( run > 0 )
        printf("reference %.12s -> %.12s, overlap %.12s recorded as run "
               "%lld\n",
               old, to.commit, ov, run);
    else if ( *old )
        printf("reference %.12s -> %.12s without an overlap: the ratio series "
               "break here\n",
               old, to.commit);
    else
        printf("reference pinned at %.12s\n", to.commit);
    return 0;
}

int hvb_history_reference(struct hvb_cmd_ctx *ctx)
{
    struct reference o = {.out = "hvbench-reference"};
    struct hvb_optparse p = {.argc = ctx->argc,
                             .argv = ctx->argv,
                             .i = 1,
                             .cmd = "history reference",
                             .doc = &hvb_doc_history_reference};
    const char *val, *pos[2];
    char cwd[4096], err[1024] = "cannot read the working directory";
    struct hvb_hdb h;
    int id, dd, n = 0, status;
    ssize_t sl;

    for ( dd = 1; dd < ctx->argc && strcmp(ctx->argv[dd], "--"); dd++ )
        ;
    p.argc = dd;
    while ( (id = hvb_opt_parse(&p, reference_opts, &o, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        if ( n == 2 )
            return hvb_usage_error("history reference: unexpected '%s'", val);
        pos[n++] = val;
    }
    if ( n > 0 && (strcmp(pos[0], "set") || n != 2) )
        return hvb_usage_error("history reference takes nothing, or set REV");
    if ( o.no_overlap && o.overlap != NULL )
        return hvb_usage_error("history reference set: --overlap and "
                               "--no-overlap contradict each other");
    o.r.line = dd + 1 < ctx->argc ? ctx->argv + dd + 1 : NULL;
    o.r.nr_line = dd + 1 < ctx->argc ? ctx->argc - dd - 1 : 0;
    sl = readlink("/proc/self/exe", o.r.self, sizeof(o.r.self) - 1);
    o.r.self[sl > 0 ? sl : 0] = '\0';
    if ( n == 2 && (getcwd(cwd, sizeof(cwd)) == NULL ||
                    hvb_rev_repo(o.repo_opt ? o.repo_opt : cwd, o.r.repo,
                                 sizeof(o.r.repo), err, sizeof(err))) )
        return hvb_usage_error("history reference: %s", err);
    if ( hvb_hdb_open(&h, o.db, err, sizeof(err)) )
        return hvb_usage_error("history: %s", err);
    status = n == 0 ? show(&h, o.commit_only) : set(&o, &h, pos[1]);
    hvb_hdb_close(&h);
    return status;
}
