/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench history publish OUT": the history as a static site, no
 * server.  This file writes OUT/data.json (every series with its points
 * in commit order where the repository knows every commit of it
 * (history_order.c), its change points, as detect finds them on that
 * order, and its reference moves; the commits' subjects and dates; the
 * reference's pins) and has profile/render/history_site.py draw
 * OUT/index.html (every benchmark; the open regressions: series whose
 * last change is one nobody has triaged), one page per benchmark in
 * OUT/bench/ (each point linked to the file it was recorded from, the
 * moves "history reference set" made marked) and OUT/atom.xml.
 *
 * E.g. data.json's series
 *   {"cell": "lookup/domlookup=rcu-ref/threads:1", "metric": "time",
 *    "series": "ratio", "order": "commits", "points": [{"run": 1,
 *    "commit": "ab12...", "at": "2026-12-02T00:00:00Z", "value": 1.002,
 *    "ci": [0.99, 1.01], "source": ".../review.json"}, ...], "changes":
 *    [{"index": 60, "before": 1.0, "after": 1.02, "p": 1e-9, "kind":
 *    "regression", "label": null}], "moves": [...]}
 * beside "commits": {"ab12...": {"rank": 0, "date": "2026-12-01T...",
 * "subject": "..."}} and "references": [{"commit", "set_at",
 * "overlap"}], oldest first.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/fsutil.h>
#include <hvb/history.h>
#include <hvb/render.h>

#include "private.h"

#define MAX_CP    4096
#define MAX_MOVES 4096

static json_t *text_or_null(struct hvb_sql_stmt *st, int c)
{
    const char *t = hvb_sql_text(st, c);

    return t ? json_string(t) : json_null();
}

static json_t *num_or_null(struct hvb_sql_stmt *st, int c)
{
    return hvb_sql_is_null(st, c) ? json_null()
                                  : json_real(hvb_sql_double(st, c));
}

/* @s's points as history_chain.c takes them (strings borrowed). */
static struct hvb_hpoint *points_of(json_t *s, size_t *n)
{
    json_t *pts = json_object_get(s, "points"), *p, *ci;
    struct hvb_hpoint *hp;
    size_t i;

    *n = json_array_size(pts);
    if ( (hp = calloc(*n + 1, sizeof(*hp))) == NULL )
        return NULL;
    json_array_foreach(pts, i, p)
    {
        ci = json_object_get(p, "ci");
        hp[i].run = json_integer_value(json_object_get(p, "run"));
        hp[i].commit = json_string_value(json_object_get(p, "commit"));
        hp[i].base = json_string_value(json_object_get(p, "base"));
        hp[i].value = json_number_value(json_object_get(p, "value"));
        hp[i].lo = json_is_number(json_array_get(ci, 0))
                       ? json_number_value(json_array_get(ci, 0))
                       : NAN;
        hp[i].hi = json_is_number(json_array_get(ci, 1))
                       ? json_number_value(json_array_get(ci, 1))
                       : NAN;
    }
    return hp;
}

static json_t *num_or_nan(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

/* A ratio series' chained values and reference moves into @s. */
static void chain(json_t *s, struct hvb_hpoint *hp, size_t n, char *const *refs)
{
    static struct hvb_hmove mv[MAX_MOVES];
    size_t nm = hvb_hchain(hp, n, refs, mv, MAX_MOVES), i;
    json_t *moves = json_array(), *pts = json_object_get(s, "points");

    for ( i = 0; i < n; i++ )
        json_object_set_new(
            json_array_get(pts, i), "chained",
            json_pack("{s:o, s:[o, o], s:b, s:b, s:I}", "value",
                      num_or_nan(hp[i].chained), "ci", num_or_nan(hp[i].lo),
                      num_or_nan(hp[i].hi), "anchor",
                      !hp[i].keep && !hp[i].stray, "stray", hp[i].stray,
                      "segment", (json_int_t)hp[i].segment));
    for ( i = 0; i < nm && i < MAX_MOVES; i++ )
        json_array_append_new(
            moves, json_pack("{s:I, s:s?, s:s?, s:s?, s:o}", "index",
                             (json_int_t)mv[i].at, "from", mv[i].from, "to",
                             mv[i].to, "overlap", mv[i].overlap, "factor",
                             num_or_nan(mv[i].factor)));
    json_object_set_new(s, "moves", moves);
}

/*
 * How many of @s's kept change points have each label, into it: of its
 * machine's runs only (another machine's labels are its series').
 */
static void triage_counts(struct hvb_hdb *h, json_t *s)
{
    json_t *t =
        json_pack("{s:i, s:i, s:i}", "real", 0, "noise", 0, "expected", 0);
    struct hvb_sql_stmt *st;

    if ( (st = hvb_sql_prepare(
              h->db,
              "SELECT c.label, count(*) FROM changes c JOIN runs r ON r.id = "
              "c.run_id WHERE c.cell = ? AND c.metric = ? AND c.series = ? "
              "AND coalesce(r.machine, '') = ? AND c.label IS NOT NULL "
              "GROUP BY c.label")) != NULL )
    {
        hvb_sql_bind_text(st, 4,
                          json_string_value(json_object_get(s, "machine")));
        hvb_sql_bind_text(st, 1, json_string_value(json_object_get(s, "cell")));
        hvb_sql_bind_text(st, 2,
                          json_string_value(json_object_get(s, "metric")));
        hvb_sql_bind_text(st, 3,
                          json_string_value(json_object_get(s, "series")));
        while ( hvb_sql_step(st) == HVB_SQL_ROW )
            json_object_set_new(t, hvb_sql_text(st, 0),
                                json_integer((int)hvb_sql_int64(st, 1)));
        hvb_sql_finalize(st);
    }
    json_object_set_new(s, "triage", t);
}

/*
 * Series @s's points in commit order where @commits knows them all, then
 * its change points, as detect finds them (ids kept), into it.
 */
static int changes(struct hvb_hdb *h, json_t *s,
                   const struct hvb_detect_opts *o, char *const *refs,
                   json_t *commits)
{
    static struct hvb_hfound f[MAX_CP];
    const char *series = json_string_value(json_object_get(s, "series"));
    json_t *a = json_array();
    size_t n;
    struct hvb_hpoint *hp;
    long k, nc;
    char err[1024], label[32];

    hvb_hseries_order(s, commits);
    hp = points_of(s, &n);

    if ( hp == NULL || a == NULL )
    {
        free(hp);
        json_decref(a);
        return -ENOMEM;
    }
    if ( series && strcmp(series, "ratio") == 0 )
        chain(s, hp, n, refs);
    else
        hvb_hunchained(hp, n);
    nc = hvb_hchanges(hp, n, o, f, MAX_CP);
    for ( k = 0; k < nc; k++ )
    {
        struct hvb_hchange c = {
            .cell = json_string_value(json_object_get(s, "cell")),
            .metric = json_string_value(json_object_get(s, "metric")),
            .series = series,
            .run = hp[f[k].at].run,
            .before = f[k].c.before,
            .after = f[k].c.after,
            .p = f[k].c.p};
        long long id = hvb_hchange_note(h, &c, err, sizeof(err));
        char *note = NULL;

        *label = '\0';
        if ( id > 0 )
            hvb_hchange_label(h, id, label, sizeof(label), &note);
        json_array_append_new(
            a, json_pack(
                   "{s:I, s:f, s:f, s:[o, o], s:f, s:s, s:I, s:s?, s:s?}",
                   "index", (json_int_t)f[k].at, "before", f[k].c.before,
                   "after", f[k].c.after, "diff_ci", num_or_nan(f[k].c.lo),
                   num_or_nan(f[k].c.hi), "p", f[k].c.p, "kind",
                   f[k].c.after > f[k].c.before ? "regression" : "improvement",
                   "id", (json_int_t)id, "label", *label ? label : NULL, "note",
                   note));
        free(note);
    }
    free(hp);
    json_object_set_new(s, "changes", a);
    triage_counts(h, s);
    return nc < 0 ? (int)nc : 0;
}

/*
 * Is the row @st of series @cur?  Compared whole: a 1,600-byte copy of
 * the key merged two metrics of a long cell into one series.
 */
static bool same_series(json_t *cur, struct hvb_sql_stmt *st)
{
    static const char *const f[4] = {"cell", "metric", "series", "machine"};
    int j;

    for ( j = 0; j < 4; j++ )
    {
        const char *a = json_string_value(json_object_get(cur, f[j]));
        const char *b = hvb_sql_text(st, j < 3 ? j : 12);

        if ( (a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b)) )
            return false;
    }
    return true;
}

/* Every series of @h with its points (hvb_hseries_order()'s order). */
static json_t *all_series(struct hvb_hdb *h, const struct hvb_detect_opts *o,
                          json_t *commits)
{
    struct hvb_sql_stmt *st;
    json_t *list = json_array(), *cur = NULL;
    char **refs = hvb_hrefs_load(h);

    if ( refs == NULL )
    {
        json_decref(list);
        return NULL;
    }
    if ( (st = hvb_sql_prepare(
              h->db,
              "SELECT p.cell, p.metric, p.series, p.value, p.ci_lo, p.ci_hi, "
              "r.id, r.commit_hash, r.recorded_at, r.source, p.unit, "
              "r.base_commit, coalesce(r.machine, '') FROM points p JOIN "
              "runs r ON r.id = p.run_id WHERE (r.machine = ?1 OR ?1 IS "
              "NULL) AND (r.branch = ?2 OR ?2 IS NULL) ORDER BY p.cell, "
              "p.metric, p.series, coalesce(r.machine, ''), p.run_id")) ==
         NULL )
    {
        hvb_hrefs_free(refs);
        json_decref(list);
        return NULL;
    }
    if ( o->machine )
        hvb_sql_bind_text(st, 1, o->machine);
    if ( o->branch )
        hvb_sql_bind_text(st, 2, o->branch);
    while ( hvb_sql_step(st) == HVB_SQL_ROW )
    {
        json_t *pt;

        if ( cur == NULL || !same_series(cur, st) )
        {
            if ( cur != NULL && changes(h, cur, o, refs, commits) )
                break;
            cur = json_pack("{s:o, s:o, s:o, s:o, s:o, s:[]}", "cell",
                            text_or_null(st, 0), "metric", text_or_null(st, 1),
                            "series", text_or_null(st, 2), "machine",
                            text_or_null(st, 12), "unit", text_or_null(st, 10),
                            "points");
            json_array_append_new(list, cur);
        }
        pt = json_pack("{s:I, s:o, s:o, s:o, s:f, s:[o, o], s:o}", "run",
                       (json_int_t)hvb_sql_int64(st, 6), "commit",
                       text_or_null(st, 7), "base", text_or_null(st, 11), "at",
                       text_or_null(st, 8), "value", hvb_sql_double(st, 3),
                       "ci", num_or_null(st, 4), num_or_null(st, 5), "source",
                       text_or_null(st, 9));
        json_array_append_new(json_object_get(cur, "points"), pt);
    }
    hvb_sql_finalize(st);
    if ( cur != NULL && json_object_get(cur, "changes") == NULL )
        changes(h, cur, o, refs, commits);
    hvb_hrefs_free(refs);
    return list;
}

/*
 * The reference's pins, oldest first: the first pins it, each later one
 * is a move made by "history reference set" (or backfill's first pin).
 * The site draws a move only where its new reference is such a move.
 */
static json_t *references(struct hvb_hdb *h)
{
    struct hvb_sql_stmt *st = hvb_sql_prepare(
        h->db, "SELECT commit_hash, set_at, overlap_commit FROM refs ORDER "
               "BY id");
    json_t *a = json_array();

    while ( st != NULL && a != NULL && hvb_sql_step(st) == HVB_SQL_ROW )
        json_array_append_new(a, json_pack("{s:o, s:o, s:o}", "commit",
                                           text_or_null(st, 0), "set_at",
                                           text_or_null(st, 1), "overlap",
                                           text_or_null(st, 2)));
    if ( st == NULL )
    {
        json_decref(a);
        return NULL;
    }
    hvb_sql_finalize(st);
    return a;
}

/* data.json's document: the series, the commits, the pins, the method. */
static json_t *site_doc(struct hvb_hdb *h, const struct hvb_detect_opts *o,
                        char *err, size_t len)
{
    json_t *commits = hvb_hcommits_load(h, o->repo, err, len);
    json_t *series = commits ? all_series(h, o, commits) : NULL;
    json_t *refs = series ? references(h) : NULL;

    if ( refs == NULL )
    {
        if ( commits != NULL )
            snprintf(err, len, "%s: %s", h->path, hvb_sql_errmsg(h->db));
        json_decref(commits);
        json_decref(series);
        return NULL;
    }
    return json_pack("{s:i, s:s, s:s?, s:o, s:o, s:o, s:{s:f, s:i, s:i}}",
                     "schema", 2, "db", h->path, "repo", o->repo, "series",
                     series, "commits", commits, "references", refs, "method",
                     "pvalue", o->pvalue, "min_segment", (int)o->min_seg,
                     "window", (int)o->window);
}

int hvb_history_publish(struct hvb_hdb *h, const char *out,
                        const struct hvb_detect_opts *o, char *err, size_t len)
{
    char path[4200];
    char *args[] = {path, (char *)out, NULL};
    bool tx = hvb_sql_begin(h->db) == 0; /* one for every note */
    json_t *doc = site_doc(h, o, err, len);
    char *text;
    int rc = hvb_mkdirs(out);

    if ( doc == NULL )
    {
        if ( tx )
            hvb_sql_rollback(h->db);
        return -EIO;
    }
    if ( tx && hvb_sql_commit(h->db) )
        fprintf(stderr,
                "hvbench: history publish: warning: change points not kept: "
                "%s\n",
                hvb_sql_errmsg(h->db));
    if ( rc )
    {
        json_decref(doc);
        snprintf(err, len, "%s: %s", out, strerror(-rc));
        return rc;
    }
    snprintf(path, sizeof(path), "%s/data.json", out);
    text = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS |
                               JSON_REAL_PRECISION(12));
    json_decref(doc);
    /* Replaced, never written through a symlink planted in OUT. */
    rc = text ? hvb_replace_file(path, text, strlen(text), 0644) : -ENOMEM;
    free(text);
    if ( rc )
    {
        snprintf(err, len, "cannot write %s: %s", path, strerror(-rc));
        return rc;
    }
    rc = hvb_render_run("history_site.py", args);
    if ( rc == HVB_EXIT_USAGE )
        return -EPERM; /* refused OUT (a symlink at bench/): it said why */
    if ( rc )
    {
        snprintf(err, len, "drawing the site from %s failed (exit %d)", path,
                 rc);
        return -EIO;
    }
    return 0;
}
