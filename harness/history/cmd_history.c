/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench history SUB": the rows of history's sub-commands, a memory
 * across runs (issue 22).  record keeps results and review files in the
 * database (history_db.c), detect finds change points per series
 * (changes/detect.c), publish writes the site (history_publish.c).
 *
 * E.g. in CI, after each review of HEAD against a pinned base:
 *   hvbench history record .git/hvbench-review/review.json --branch main
 *   hvbench history detect 'lookup*' --series ratio --fail-on regression
 */
#define _GNU_SOURCE /* nftw */
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hvb/builds.h>
#include <hvb/cmdline.h>
#include <hvb/history.h>
#include <hvb/outfile.h>
#include <hvb/tabular.h>

#include "private.h"

#define DEFAULT_PVALUE  "0.001"
#define DEFAULT_MIN_SEG 5
#define DEFAULT_WINDOW  50
#define MAX_CHANGES     4096

struct hist {
    const char *db, *branch, *machine, *out, *metric, *series, *pvalue;
    const char *repo;
    int format, fail_on;
    unsigned int min_seg, window;
};

static const char *const formats[] = {"json", "csv", NULL};
static const char *const fail_ons[] = {"never", "regression", "change", NULL};

#define H struct hist
static const struct hvb_optdef db_opts[] = {
    HVB_OPT_STR("db", 0, "PATH|URL", H, db,
                "the history: a SQLite file, or a PostgreSQL URL "
                "(postgresql://USER@HOST/DB; libpq's PG* variables and "
                "~/.pgpass apply) (default $HVBENCH_DB, else "
                "$XDG_DATA_HOME/hvbench/history.db or "
                "~/.local/share/hvbench/history.db; created on first use)"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
static const struct hvb_optdef run_opts[] = {
    HVB_OPT_STR("branch", 0, "NAME", H, branch,
                "record, import: the branch the runs are of; export, "
                "detect, publish: only the runs of branch NAME"),
    HVB_OPT_STR("machine", 0, "NAME", H, machine,
                "record, import: the machine they ran on (default the "
                "file's context.host_name, else this host's name); "
                "export, detect, publish: only the runs of machine NAME "
                "(without it each machine's runs are series of their own)"),
    HVB_OPT_END,
};
static const struct hvb_optdef record_opts[] = {
    HVB_OPT_ALSO(run_opts),
    HVB_OPT_ALSO(db_opts),
    HVB_OPT_END,
};
static const struct hvb_optdef select_opts[] = {
    HVB_OPT_ALSO(run_opts),
    HVB_OPT_STR("metric", 'm', "M", H, metric,
                "export, detect: only metric M (time, sim_instructions, "
                "...)"),
    HVB_OPT_STR("series", 0, "absolute|ratio", H, series,
                "export, detect: only the absolute figures, or only the "
                "paired ratios of reviews"),
    HVB_OPT_ALSO(db_opts),
    HVB_OPT_END,
};
static const struct hvb_optdef export_opts[] = {
    HVB_OPT_CHOICE("format", 0, "json|csv", H, format, formats,
                   "export: the format (default json)"),
    HVB_OPT_STR("out", 'o', "FILE", H, out,
                "export: write there (atomically) instead of stdout"),
    HVB_OPT_ALSO(select_opts),
    HVB_OPT_END,
};
static const struct hvb_optdef detect_opts[] = {
    HVB_OPT_STR("repo", 0, "DIR", H, repo,
                "detect, publish: the repository of the recorded commits: "
                "each series in its topological order where it knows every "
                "commit of it (default the current directory's, if it is "
                "in one; else the order recorded)"),
    HVB_OPT_STR(
        "pvalue", 0, "P", H, pvalue,
        "detect: a change point must have Welch's p below P (default " DEFAULT_PVALUE
        ")"),
    HVB_OPT_UINT(
        "min-segment", 0, "N", H, min_seg, 2, 100000,
        "detect: points on either side of a change at least (default " HVB_STR(
            DEFAULT_MIN_SEG) "): a shorter spike is no change"),
    HVB_OPT_UINT("window", 0, "N", H, window, 4, 100000,
                 "detect: the candidates' windows (default " HVB_STR(
                     DEFAULT_WINDOW) " points)"),
    HVB_OPT_CHOICE(
        "fail-on", 0, "never|regression|change", H, fail_on, fail_ons,
        "detect: exit 1 when a regression (a figure that grew) or any "
        "change is found (default never)"),
    HVB_OPT_ALSO(select_opts),
    HVB_OPT_END,
};
#undef H

static const struct hvb_cmd_doc record_doc = {
    .usage = "history record FILE... [--branch NAME] [--machine NAME]\n"
             "                       [--db PATH|URL]",
    .text = "Keep results files (hvbench run --out) and review files\n"
            "(review.json: each cell's paired ratio with its CI) in the\n"
            "database, a transaction per file, under the commit, branch and\n"
            "machine.  A file whose content is recorded already is skipped.",
    .opts = record_opts,
};
static const struct hvb_cmd_doc import_doc = {
    .usage = "history import PATH... [--branch NAME] [--machine NAME]\n"
             "                       [--db PATH|URL]",
    .text = "Record every results or review file under PATHs as record\n"
            "would (directories walked in name order; other JSON files are\n"
            "counted and skipped).",
    .opts = record_opts,
};
static const struct hvb_cmd_doc export_doc = {
    .usage = "history export [--format json|csv] [--out FILE] [--metric M]\n"
             "                       [--series absolute|ratio] [--db PATH|URL]",
    .text = "Every point back, with its run's commit, branch and machine.",
    .opts = export_opts,
};
static const struct hvb_cmd_doc detect_doc = {
    .usage = "history detect [CELL-GLOB] [--metric M] [--series "
             "absolute|ratio]\n"
             "                       [--pvalue P] [--min-segment N] [--fail-on "
             "regression]\n"
             "                       [--repo DIR]",
    .text =
        "Change points in each series (cell, metric, absolute or ratio,\n"
        "in commit order: see --repo) by E-divisive means with Welch's t-test,\n"
        "as Apache Otava does; a figure that grew is a regression (time,\n"
        "instructions, cycles: lower is better).",
    .opts = detect_opts,
    .notes = "exit status: 0 success, 1 --fail-on found one, 2 usage or an "
             "unreadable database",
};
static const struct hvb_cmd_doc publish_doc = {
    .usage = "history publish OUT [--repo DIR] [--metric M] [--db PATH|URL]",
    .text = "The history as a static site in directory OUT: a page per\n"
            "benchmark with its points in commit order (each with its\n"
            "commit, value and CI on hover, linked to the file it was\n"
            "recorded from), its change points and reference moves; the\n"
            "open (untriaged) regressions; an Atom feed.",
    .opts = detect_opts,
};

const struct hvb_cmd_doc hvb_doc_history = {
    .text = "A memory across runs: results and review files in a database\n"
            "(SQLite, or a shared PostgreSQL), a series per cell, metric and\n"
            "kind (a run's figure, or a review's paired ratio), the change\n"
            "points found in them, and a static site.",
    .notes = "exit status: 0 success, 1 detect --fail-on found one, 2 usage\n"
             "or an unreadable file or database",
};

/*
 * "history record FILE...": each file recorded in a transaction of its
 * own; one that cannot be is said and the others are still recorded
 * (exit 2 at the end, naming how many were not).  A file whose content
 * is recorded already is said and skipped.
 */
static int record(struct hist *o, struct hvb_hdb *h, char **files, int n)
{
    char err[1024], sha[65];
    int i, status = 0, failed = 0;

    for ( i = 0; i < n && status != HVB_EXIT_FAIL; i++ )
    {
        struct hvb_hrun r = {
            .branch = o->branch, .content = sha, .machine = o->machine};
        json_t *doc = hvb_hrun_load(files[i], sha, err, sizeof(err));
        long long id = -EINVAL;

        if ( doc != NULL &&
             hvb_hrun_from(&r, doc, files[i], err, sizeof(err)) == 0 )
            id = hvb_hdb_record(h, &r, err, sizeof(err));
        if ( id == -EEXIST )
            printf("skipped %s: %s (the same content)\n", files[i], err);
        else if ( id == -EIO )
            status = hvb_failure("history record: %s", err);
        else if ( id < 0 )
            failed++, hvb_usage_error("history record: %s", err);
        else
            printf("recorded %s: run %lld, %zu points (%s, commit %.12s)\n",
                   files[i], id, json_array_size(r.points), r.kind,
                   r.commit ? r.commit : "unknown");
        json_decref(r.points);
        json_decref(doc);
    }
    if ( status == 0 && failed == 1 && n == 1 )
        status = HVB_EXIT_USAGE; /* said */
    else if ( status == 0 && failed )
        status = hvb_usage_error("history record: %d of %d file(s) not "
                                 "recorded (said above); the others were",
                                 failed, n);
    return status;
}

/* import's walk: every *.json under a directory, gathered. */
static json_t *found;

static int gather(const char *path, const struct stat *st, int type,
                  struct FTW *ftw)
{
    size_t n = strlen(path);

    (void)st;
    (void)ftw;
    if ( type == FTW_F && n > 5 && strcasecmp(path + n - 5, ".json") == 0 )
        json_array_append_new(found, json_string(path));
    return 0;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a),
                  json_string_value(*(json_t *const *)b));
}

/*
 * A path named to import into found: a directory walked (symlinks in it
 * not followed), a file (a symlink named followed) whatever its name.
 * 0, or exit 2 having said why it cannot be read.
 */
static int named(const char *path)
{
    struct stat st;

    if ( stat(path, &st) )
        return hvb_usage_error("history import: %s: %s", path, strerror(errno));
    if ( S_ISDIR(st.st_mode) )
    {
        if ( access(path, R_OK | X_OK) || nftw(path, gather, 16, FTW_PHYS) )
            return hvb_usage_error("history import: %s: cannot be read: %s",
                                   path, strerror(errno));
        return 0;
    }
    if ( !S_ISREG(st.st_mode) || access(path, R_OK) )
        return hvb_usage_error("history import: %s: %s", path,
                               S_ISREG(st.st_mode) ? strerror(errno)
                                                   : "not a file or directory");
    json_array_append_new(found, json_string(path));
    return 0;
}

/*
 * "history import PATH...": every results or review file in PATHs
 * (directories walked, in name order), each recorded as record would;
 * other JSON files are counted and skipped, not errors, and so is a
 * file whose content is recorded already: importing twice adds nothing.
 */
static int import(struct hist *o, struct hvb_hdb *h, char **paths, int n)
{
    char err[1024], sha[65];
    size_t i, done = 0, skipped = 0, points = 0, dup = 0, nr;
    json_t **v;
    int k, status = 0;

    found = json_array();
    for ( k = 0; k < n && status == 0; k++ )
        status = named(paths[k]);
    if ( status )
    {
        json_decref(found);
        return status;
    }
    nr = json_array_size(found);
    v = calloc(nr + 1, sizeof(*v));
    for ( i = 0; v != NULL && i < nr; i++ )
        v[i] = json_array_get(found, i);
    if ( v != NULL )
        qsort(v, nr, sizeof(*v), by_string);
    for ( i = 0; v != NULL && i < nr && status == 0; i++ )
    {
        const char *f = json_string_value(v[i]);
        struct hvb_hrun r = {
            .branch = o->branch, .content = sha, .machine = o->machine};
        json_t *doc = hvb_hrun_load(f, sha, err, sizeof(err));
        long long id;

        if ( doc == NULL || hvb_hrun_from(&r, doc, f, err, sizeof(err)) )
            skipped++;
        else if ( (id = hvb_hdb_record(h, &r, err, sizeof(err))) == -EEXIST )
            dup++;
        else if ( id < 0 )
            status = hvb_failure("history import: %s", err);
        else
        {
            done++;
            points += json_array_size(r.points);
        }
        json_decref(r.points);
        json_decref(doc);
    }
    free(v);
    json_decref(found);
    printf("imported %zu file(s), %zu points; skipped %zu JSON file(s) that "
           "are neither results nor reviews, %zu recorded already (the same "
           "content)\n",
           done, points, skipped, dup);
    return v == NULL && nr ? hvb_failure("out of memory") : status;
}

/* The selection's WHERE clause and its parameters bound from 1. */
static struct hvb_sql_stmt *select_points(struct hist *o, struct hvb_hdb *h,
                                          const char *cols, const char *order)
{
    char sql[1024];
    struct hvb_sql_stmt *st = NULL;
    int k = 1;

    snprintf(sql, sizeof(sql),
             "SELECT %s FROM points p JOIN runs r ON r.id = p.run_id WHERE "
             "(p.metric = ?1 OR ?1 IS NULL) AND (p.series = ?2 OR ?2 IS "
             "NULL) AND (r.machine = ?3 OR ?3 IS NULL) AND (r.branch = ?4 "
             "OR ?4 IS NULL) ORDER BY %s",
             cols, order);
    if ( (st = hvb_sql_prepare(h->db, sql)) == NULL )
        return NULL;
    if ( o->metric )
        hvb_sql_bind_text(st, k, o->metric);
    if ( o->series )
        hvb_sql_bind_text(st, k + 1, o->series);
    if ( o->machine )
        hvb_sql_bind_text(st, k + 2, o->machine);
    if ( o->branch )
        hvb_sql_bind_text(st, k + 3, o->branch);
    return st;
}

#define EXPORT_COLS                                                         \
    "r.id, r.recorded_at, r.kind, r.commit_hash, r.base_commit, r.branch, " \
    "r.machine, p.cell, p.metric, p.series, p.value, p.ci_lo, p.ci_hi, "    \
    "p.unit"

static int export(struct hist *o, struct hvb_hdb *h, char **pos, int n_pos)
{
    static const char *const names[] = {
        "run",    "recorded_at", "kind",  "commit", "base_commit",
        "branch", "machine",     "cell",  "metric", "series",
        "value",  "ci_lo",       "ci_hi", "unit"};
    struct hvb_sql_stmt *st = select_points(o, h, EXPORT_COLS, "r.id, p.id");
    struct hvb_outfile of = {.f = stdout};
    json_t *a = json_array();
    char err[1024];
    int c, n = (int)(sizeof(names) / sizeof(names[0]));

    if ( st == NULL )
        return hvb_failure("history export: %s", hvb_sql_errmsg(h->db));
    if ( o->out && hvb_outfile_open(&of, o->out, "history", err, sizeof(err)) )
        return hvb_usage_error("history export: %s", err);
    for ( c = 0; o->format == 1 && c < n; c++ )
        fprintf(of.f, "%s%s", c ? "," : "", names[c]);
    if ( o->format == 1 )
        fputc('\n', of.f);
    while ( hvb_sql_step(st) == HVB_SQL_ROW )
    {
        json_t *row = json_object();

        for ( c = 0; c < n; c++ )
        {
            enum hvb_sql_type t = hvb_sql_type(st, c);
            json_t *v = t == HVB_SQL_NULL  ? json_null()
                        : t == HVB_SQL_INT ? json_integer(hvb_sql_int64(st, c))
                        : t == HVB_SQL_FLOAT ? json_real(hvb_sql_double(st, c))
                                             : json_string(hvb_sql_text(st, c));

            if ( o->format == 1 )
            {
                fputs(c ? "," : "", of.f);
                if ( t == HVB_SQL_TEXT )
                    hvb_csv_field(of.f, json_string_value(v));
                else if ( t != HVB_SQL_NULL )
                    fprintf(of.f, "%.17g", json_number_value(v));
            }
            json_object_set_new(row, names[c], v);
        }
        if ( o->format == 1 )
            fputc('\n', of.f);
        json_array_append_new(a, row);
    }
    hvb_sql_finalize(st);
    if ( o->format == 0 )
        json_dumpf(a, of.f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)),
            fputc('\n', of.f);
    json_decref(a);
    if ( o->out && hvb_outfile_commit(&of, err, sizeof(err)) )
        return hvb_failure("history export: %s", err);
    return 0;
}

/* One series being read: its key and points in the order recorded. */
struct series {
    char *key[4]; /* cell, metric, series, machine: never cut (a 512-byte
                     copy made every point of a long cell its own series) */
    struct hvb_hpoint *p;
    size_t n, cap;
};

static int push(struct series *s, const struct hvb_hruns *runs, double v,
                long long run)
{
    if ( s->n == s->cap )
    {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct hvb_hpoint *np = realloc(s->p, cap * sizeof(*np));

        if ( np == NULL )
            return -ENOMEM;
        s->p = np;
        s->cap = cap;
    }
    s->p[s->n++] = (struct hvb_hpoint){.run = run,
                                       .commit = hvb_hruns_commit(runs, run),
                                       .base = hvb_hruns_base(runs, run),
                                       .value = v,
                                       .lo = NAN,
                                       .hi = NAN};
    return 0;
}

struct detect_state {
    struct hvb_detect_opts dopt;
    unsigned int nseries, changes, chained, breaks;
    long long machines; /* more than one: each line names its machine */
    char *const *refs;  /* the pinned references (hvb_hchain()) */
    json_t *commits;    /* hvb_hcommits_load()'s: the order */
    unsigned long strays;
    long regressions;
    bool note_failed;
};

/* How many machines the runs (of @branch, if not NULL) were made on. */
static long long machines(struct hvb_hdb *h, const char *branch)
{
    struct hvb_sql_stmt *st = hvb_sql_prepare(
        h->db, "SELECT count(DISTINCT coalesce(machine, '')) FROM runs "
               "WHERE branch = ?1 OR ?1 IS NULL");
    long long n = 1;

    if ( st == NULL )
        return 1;
    if ( branch )
        hvb_sql_bind_text(st, 1, branch);
    if ( hvb_sql_step(st) == HVB_SQL_ROW )
        n = hvb_sql_int64(st, 0);
    hvb_sql_finalize(st);
    return n;
}

/* Note change @f of @s: its id, or -1 (said once). */
static long long note(struct hvb_hdb *h, struct detect_state *d,
                      const struct series *s, const struct hvb_hfound *f)
{
    struct hvb_hchange c = {.cell = s->key[0],
                            .metric = s->key[1],
                            .series = s->key[2],
                            .run = s->p[f->at].run,
                            .before = f->c.before,
                            .after = f->c.after,
                            .p = f->c.p};
    char err[1024];
    long long id = hvb_hchange_note(h, &c, err, sizeof(err));

    if ( id < 0 && !d->note_failed )
        fprintf(stderr,
                "hvbench: history detect: warning: change points not kept "
                "(no ids to triage): %s\n",
                err);
    d->note_failed |= id < 0;
    return id;
}

/*
 * The repository of --repo (a usage error where it is none), else the
 * current directory's if any, into @top, and @repo = @top; 0 (@repo
 * NULL: none), or the exit status having said why.
 */
static int repo_of(const struct hist *o, const char *cmd, char top[4096],
                   const char **repo)
{
    char err[1024], cwd[4096];

    *repo = NULL;
    if ( o->repo && hvb_rev_repo(o->repo, top, 4096, err, sizeof(err)) )
        return hvb_usage_error("history %s: --repo %s: not a git repository",
                               cmd, o->repo);
    if ( o->repo || (getcwd(cwd, sizeof(cwd)) &&
                     hvb_rev_repo(cwd, top, 4096, err, sizeof(err)) == 0) )
        *repo = top;
    return 0;
}

/* The change points of @s, printed; 0 or -errno. */
static int detect_one(struct hvb_hdb *h, struct series *s,
                      struct detect_state *d)
{
    static struct hvb_hfound f[MAX_CHANGES];
    long n, i;
    char label[32];

    hvb_hpoints_order(s->p, s->n, d->commits);
    if ( strcmp(s->key[2], "ratio") == 0 &&
         hvb_hchain(s->p, s->n, d->refs, NULL, 0) )
    {
        d->chained++;
        d->breaks += (unsigned int)s->p[s->n - 1].segment;
    }
    else if ( strcmp(s->key[2], "ratio") )
        hvb_hunchained(s->p, s->n);
    for ( i = 0; i < (long)s->n; i++ )
        d->strays += s->p[i].stray;
    n = hvb_hchanges(s->p, s->n, &d->dopt, f, MAX_CHANGES);
    for ( i = 0; i < n; i++ )
    {
        const struct hvb_change *c = &f[i].c;
        const struct hvb_hpoint *at = &s->p[f[i].at], *prev = at - 1;
        double rel = c->before != 0 ? c->after / c->before - 1 : 0;
        long long id = note(h, d, s, &f[i]);

        d->regressions += c->after > c->before;
        d->changes++;
        *label = '\0';
        if ( id > 0 )
            hvb_hchange_label(h, id, label, sizeof(label), NULL);
        printf("%s  %s  %s  %s%s%sat run %lld (commit %.12s, after %.12s): "
               "%.6g -> %.6g (%+.2f%%, 95%% CI [%+.2f%%, %+.2f%%]), p %.2g  %s",
               s->key[0], s->key[1], s->key[2], d->machines > 1 ? "on " : "",
               d->machines > 1 ? s->key[3] : "", d->machines > 1 ? "  " : "",
               at->run, at->commit ? at->commit : "unknown",
               prev->commit ? prev->commit : "unknown", c->before, c->after,
               100 * rel, c->before != 0 ? 100 * c->lo / c->before : NAN,
               c->before != 0 ? 100 * c->hi / c->before : NAN, c->p,
               c->after > c->before ? "regression" : "improvement");
        if ( id > 0 )
            printf("  #%lld%s%s", id, *label ? " " : "", label);
        putchar('\n');
    }
    return n < 0 ? (int)n : 0;
}

static int detect(struct hist *o, struct hvb_hdb *h, char **pos, int n_pos)
{
    const char *glob = n_pos ? pos[0] : NULL;
    struct hvb_sql_stmt *st =
        select_points(o, h,
                      "p.cell, p.metric, p.series, p.value, p.run_id, "
                      "coalesce(r.machine, '')",
                      "coalesce(r.machine, ''), p.cell, p.metric, p.series, "
                      "p.run_id");
    struct detect_state d = {
        .dopt = {.min_seg = o->min_seg, .window = o->window}};
    struct series s = {0};
    struct hvb_hruns runs;
    bool more = true, tx;
    int f;
    char top[4096], err[1024];

    if ( !hvb_parse_real("--pvalue", o->pvalue ? o->pvalue : DEFAULT_PVALUE, 0,
                         1, &d.dopt.pvalue) )
        return HVB_EXIT_USAGE;
    if ( (f = repo_of(o, "detect", top, &d.dopt.repo)) )
        return f;
    if ( st == NULL || hvb_hruns_load(h, &runs) ||
         (d.commits = hvb_hcommits_load(h, d.dopt.repo, err, sizeof(err))) ==
             NULL )
        return hvb_failure("history detect: %s", hvb_sql_errmsg(h->db));
    d.refs = runs.refs;
    /* The change points noted in one transaction, not one each. */
    tx = hvb_sql_begin(h->db) == 0;
    d.machines = o->machine ? 1 : machines(h, o->branch);
    while ( more )
    {
        const char *k[4] = {NULL, NULL, NULL, NULL};
        int j;

        more = hvb_sql_step(st) == HVB_SQL_ROW;
        for ( j = 0; more && j < 4; j++ )
            k[j] = hvb_sql_text(st, j < 3 ? j : 5);
        if ( more && glob && fnmatch(glob, k[0], 0) != 0 )
            continue;
        if ( s.n > 0 &&
             (!more || strcmp(k[0], s.key[0]) || strcmp(k[1], s.key[1]) ||
              strcmp(k[2], s.key[2]) || strcmp(k[3], s.key[3])) )
        {
            d.nseries++;
            if ( detect_one(h, &s, &d) < 0 )
                break;
            s.n = 0;
        }
        for ( j = 0; more && j < 4; j++ )
            if ( s.key[j] == NULL || strcmp(s.key[j], k[j]) )
            {
                free(s.key[j]);
                if ( (s.key[j] = strdup(k[j])) == NULL )
                    return hvb_failure("out of memory");
            }
        if ( more &&
             push(&s, &runs, hvb_sql_double(st, 3), hvb_sql_int64(st, 4)) )
            return hvb_failure("out of memory");
    }
    hvb_sql_finalize(st);
    if ( tx && hvb_sql_commit(h->db) )
        fprintf(stderr,
                "hvbench: history detect: warning: change points not "
                "kept: %s\n",
                hvb_sql_errmsg(h->db));
    free(s.p);
    for ( f = 0; f < 4; f++ )
        free(s.key[f]);
    hvb_hruns_free(&runs);
    json_decref(d.commits);
    if ( d.strays )
        printf("%lu point(s) of reviews against a base that is no pinned "
               "reference left out (a move happens only by 'history "
               "reference set')\n",
               d.strays);
    if ( d.chained )
        printf("%u ratio series across moves of their reference: chained by "
               "the overlaps; %u move(s) without one, nothing compared across "
               "them\n",
               d.chained, d.breaks);
    printf("%u change point(s) in %u series, %ld regression(s) (E-divisive "
           "means, Welch p < %g, segments of %u points at least)\n",
           d.changes, d.nseries, d.regressions, d.dopt.pvalue, o->min_seg);
    return (o->fail_on == 1 && d.regressions > 0) ||
                   (o->fail_on == 2 && d.changes > 0)
               ? 1
               : 0;
}

static int publish(struct hist *o, struct hvb_hdb *h, char **pos, int n_pos)
{
    const char *out = pos[0];
    struct hvb_detect_opts po = {.machine = o->machine,
                                 .branch = o->branch,
                                 .min_seg = o->min_seg,
                                 .window = o->window};
    char err[1024], top[4096];
    int rc;

    if ( !hvb_parse_real("--pvalue", o->pvalue ? o->pvalue : DEFAULT_PVALUE, 0,
                         1, &po.pvalue) )
        return HVB_EXIT_USAGE;
    if ( (rc = repo_of(o, "publish", top, &po.repo)) )
        return rc;
    rc = hvb_history_publish(h, out, &po, err, sizeof(err));
    if ( rc == -EPERM )
        return HVB_EXIT_USAGE;
    if ( rc )
        return hvb_failure("history publish: %s", err);
    return 0;
}

/*
 * "history SUB [POS...] [options]" of the rows below that share struct
 * hist: @min to @max positionals (@needs names them), the database
 * opened, then @fn.
 */
static int sub_run(struct hvb_cmd_ctx *ctx, int min, int max, const char *needs,
                   int (*fn)(struct hist *o, struct hvb_hdb *h, char **pos,
                             int n))
{
    struct hist o = {.min_seg = DEFAULT_MIN_SEG, .window = DEFAULT_WINDOW};
    struct hvb_optparse p = {.argc = ctx->argc,
                             .argv = ctx->argv,
                             .i = 1,
                             .cmd = ctx->name,
                             .doc = ctx->cmd->doc};
    char *pos[256], err[1024];
    const char *val;
    int id, npos = 0, status;
    struct hvb_hdb h;

    while ( (id = hvb_opt_parse(&p, ctx->cmd->doc->opts, &o, &val)) !=
            HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        if ( npos == max )
            return hvb_usage_error("%s: unexpected '%s'", ctx->name, val);
        pos[npos++] = (char *)val;
    }
    if ( npos < min )
        return hvb_usage_error("%s needs %s", ctx->name, needs);
    if ( hvb_hdb_open(&h, o.db, err, sizeof(err)) )
        return hvb_usage_error("history: %s", err);
    status = fn(&o, &h, pos, npos);
    hvb_hdb_close(&h);
    return status;
}

/* cmd_record(ctx): "history record" by sub_run(ctx, 1, 256, ..., record). */
#define SUB(fn, min, max, needs)                  \
    static int cmd_##fn(struct hvb_cmd_ctx *ctx)  \
    {                                             \
        return sub_run(ctx, min, max, needs, fn); \
    }
SUB(record, 1, 256, "FILE...")
SUB(import, 1, 256, "PATH...")
SUB(export, 0, 0, NULL)
SUB(detect, 0, 1, NULL)
SUB(publish, 1, 1, "OUT (a directory)")
#undef SUB

/* History's sub-commands: one row and one function each. */
const struct hvb_cmd hvb_history_subs[] = {
    {"record", cmd_record, "keep results and review files", &record_doc, NULL,
     0},
    {"import", cmd_import, "record every such file under directories",
     &import_doc, NULL, 0},
    {"backfill", hvb_history_backfill,
     "review each commit of a range against one pinned reference",
     &hvb_doc_history_backfill, NULL, 0},
    {"reference", hvb_history_reference,
     "show the pinned reference, or move it with an overlap review",
     &hvb_doc_history_reference, NULL, 0},
    {"export", cmd_export, "every point back (JSON or CSV)", &export_doc, NULL,
     0},
    {"detect", cmd_detect, "change points in each series", &detect_doc, NULL,
     0},
    {"triage", hvb_history_triage,
     "label a change point real, noise or expected", &hvb_doc_history_triage,
     NULL, 0},
    {"publish", cmd_publish, "the history as a static site", &publish_doc, NULL,
     0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
