/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Change points as the history keeps them, and their triage.  detect and
 * publish note every change point they find in the table changes, known
 * by its series and the run of its first point after the change: the
 * same change found again keeps its id, so that a label given to it
 * stays.  "history triage ID real|noise|expected" labels one; the site
 * shows each benchmark's precision from the labels: the share of the
 * labelled change points that were real or expected, i.e. not noise.
 *
 * E.g. detect prints "#3 lookup/...  time  ratio  at run 61 ...";
 * "history triage 3 noise --note 'the CI VM moved hosts'" labels it;
 * with 4 labelled changes of that benchmark, 3 real and 1 noise, its page
 * says "precision 75% (3 of 4 labelled)".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/cmdline.h>

#include "private.h"

static const char *const labels[] = {"real", "noise", "expected", NULL};

long long hvb_hchange_note(struct hvb_hdb *h, const struct hvb_hchange *c,
                           char *err, size_t len)
{
    struct hvb_sql_stmt *st;
    char now[32];
    long long id = -EIO;

    hvb_hdb_now(now);
    if ( (st = hvb_sql_prepare(
              h->db,
              "INSERT INTO changes (cell, metric, series, run_id, "
              "mean_before, mean_after, p, found_at) VALUES (?, ?, ?, ?, ?, "
              "?, ?, ?) ON CONFLICT (cell, metric, series, run_id) DO UPDATE "
              "SET mean_before = excluded.mean_before, mean_after = "
              "excluded.mean_after, p = excluded.p RETURNING id")) == NULL )
    {
        snprintf(err, len, "%s: %s", h->path, hvb_sql_errmsg(h->db));
        return -EIO;
    }
    hvb_sql_bind_text(st, 1, c->cell);
    hvb_sql_bind_text(st, 2, c->metric);
    hvb_sql_bind_text(st, 3, c->series);
    hvb_sql_bind_int64(st, 4, c->run);
    hvb_sql_bind_double(st, 5, c->before);
    hvb_sql_bind_double(st, 6, c->after);
    hvb_sql_bind_double(st, 7, c->p);
    hvb_sql_bind_text(st, 8, now);
    if ( hvb_sql_step(st) == HVB_SQL_ROW )
        id = hvb_sql_int64(st, 0);
    else
        snprintf(err, len, "%s: noting a change point: %s", h->path,
                 hvb_sql_errmsg(h->db));
    hvb_sql_finalize(st);
    return id;
}

void hvb_hchange_label(struct hvb_hdb *h, long long id, char *out, size_t len,
                       char **note)
{
    struct hvb_sql_stmt *st;

    *out = '\0';
    if ( note != NULL )
        *note = NULL;
    if ( (st = hvb_sql_prepare(
              h->db, "SELECT label, note FROM changes WHERE id = ?")) == NULL )
        return;
    hvb_sql_bind_int64(st, 1, id);
    if ( hvb_sql_step(st) == HVB_SQL_ROW && hvb_sql_text(st, 0) )
        snprintf(out, len, "%s", hvb_sql_text(st, 0));
    if ( note != NULL && hvb_sql_text(st, 1) != NULL )
        *note = strdup(hvb_sql_text(st, 1));
    hvb_sql_finalize(st);
}

struct triage {
    const char *db, *note;
};

#define T struct triage
static const struct hvb_optdef triage_opts[] = {
    HVB_OPT_STR("note", 0, "TEXT", T, note,
                "why (kept with the label, shown on the site)"),
    HVB_OPT_STR("db", 0, "PATH|URL", T, db,
                "the history, a file or a PostgreSQL URL (as record's)"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef T

const struct hvb_cmd_doc hvb_doc_history_triage = {
    .usage = "history triage [ID real|noise|expected [--note TEXT]]\n"
             "                       [--db PATH|URL]",
    .text = "Label change point ID (as detect and the site number them):\n"
            "real (a change the code made), noise (none was made) or\n"
            "expected (a change made on purpose).  Without ID: every change\n"
            "point kept, with its label.  The site shows each benchmark's\n"
            "precision: the labelled change points that were not noise.",
    .opts = triage_opts,
    .notes = "exit status: 0 done, 2 usage, an unknown ID or an unreadable "
             "database",
};

static int list(struct hvb_hdb *h)
{
    struct hvb_sql_stmt *st;
    int n = 0;

    if ( (st = hvb_sql_prepare(
              h->db,
              "SELECT c.id, c.cell, c.metric, c.series, c.run_id, "
              "r.commit_hash, c.mean_before, c.mean_after, c.label, c.note "
              "FROM changes "
              "c JOIN runs r ON r.id = c.run_id ORDER BY c.id")) == NULL )
        return hvb_failure("history triage: %s", hvb_sql_errmsg(h->db));
    while ( hvb_sql_step(st) == HVB_SQL_ROW )
    {
        const char *label = hvb_sql_text(st, 8);
        const char *note = hvb_sql_text(st, 9);
        const char *commit = hvb_sql_text(st, 5);
        double b = hvb_sql_double(st, 6), a = hvb_sql_double(st, 7);

        printf("#%lld  %s  %s  %s  at run %lld (commit %.12s): %.6g -> %.6g "
               "(%+.2f%%)  %s%s%s\n",
               (long long)hvb_sql_int64(st, 0), hvb_sql_text(st, 1),
               hvb_sql_text(st, 2), hvb_sql_text(st, 3),
               (long long)hvb_sql_int64(st, 4), commit ? commit : "unknown", b,
               a, b != 0 ? 100 * (a / b - 1) : 0, label ? label : "unlabelled",
               note ? ": " : "", note ? note : "");
        n++;
    }
    hvb_sql_finalize(st);
    printf("%d change point(s) kept\n", n);
    return 0;
}

static int label(struct hvb_hdb *h, const char *ids, const char *lab,
                 const char *note)
{
    struct hvb_sql_stmt *st;
    char *end, now[32];
    long long id = strtoll(ids, &end, 10);
    int k, changed;

    if ( *ids == '#' )
        id = strtoll(ids + 1, &end, 10);
    if ( *end || id <= 0 )
        return hvb_usage_error("history triage: '%s' is not a change point "
                               "id (detect and 'history triage' print them)",
                               ids);
    for ( k = 0; labels[k] && strcmp(labels[k], lab); k++ )
        ;
    if ( labels[k] == NULL )
        return hvb_usage_error("history triage: label '%s': real, noise or "
                               "expected",
                               lab);
    hvb_hdb_now(now);
    if ( (st = hvb_sql_prepare(h->db,
                               "UPDATE changes SET label = ?, labelled_at = ?, "
                               "note = ? WHERE id = ?")) == NULL )
        return hvb_failure("history triage: %s", hvb_sql_errmsg(h->db));
    hvb_sql_bind_text(st, 1, lab);
    hvb_sql_bind_text(st, 2, now);
    if ( note )
        hvb_sql_bind_text(st, 3, note);
    else
        hvb_sql_bind_null(st, 3);
    hvb_sql_bind_int64(st, 4, id);
    k = hvb_sql_step(st);
    hvb_sql_finalize(st);
    if ( k != HVB_SQL_DONE )
        return hvb_failure("history triage: %s", hvb_sql_errmsg(h->db));
    changed = hvb_sql_changes(h->db);
    if ( changed == 0 )
        return hvb_usage_error("history triage: no change point #%lld "
                               "('history triage' lists them)",
                               id);
    printf("change point #%lld: %s\n", id, lab);
    return 0;
}

int hvb_history_triage(struct hvb_cmd_ctx *ctx)
{
    struct triage t = {0};
    struct hvb_optparse p = {.argc = ctx->argc,
                             .argv = ctx->argv,
                             .i = 1,
                             .cmd = "history triage",
                             .doc = &hvb_doc_history_triage};
    const char *val, *pos[2];
    char err[1024];
    struct hvb_hdb h;
    int id, n = 0, status;

    while ( (id = hvb_opt_parse(&p, triage_opts, &t, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        if ( n == 2 )
            return hvb_usage_error("history triage: unexpected '%s'", val);
        pos[n++] = val;
    }
    if ( n == 1 )
        return hvb_usage_error("history triage %s needs a label: real, noise "
                               "or expected",
                               pos[0]);
    if ( n == 0 && t.note )
        return hvb_usage_error("history triage: --note goes with ID LABEL");
    if ( hvb_hdb_open(&h, t.db, err, sizeof(err)) )
        return hvb_usage_error("history: %s", err);
    status = n == 0 ? list(&h) : label(&h, pos[0], pos[1], t.note);
    hvb_hdb_close(&h);
    return status;
}
