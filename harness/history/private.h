/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the history room's files share: the database (history_db.c) and
 * the points a results or review file gives (history_record.c).
 */
#ifndef HVB_HISTORY_PRIVATE_H
#define HVB_HISTORY_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <hvb/cmdline.h>
#include <hvb/history.h>
#include <hvb/hreview.h>

#include <hvb/sqldb.h>

#define HVB_HISTORY_SCHEMA 3 /* the schema version of a current database */

struct hvb_hdb {
    struct hvb_sql *db;
    char path[4096]; /* what messages call it: a URL without its password */
};

/*
 * Open (create, migrate) the history at @spec: a path or a
 * postgresql:// URL, or NULL for $HVBENCH_DB, else $XDG_DATA_HOME/hvbench/history.db, else
 * ~/.local/share/hvbench/history.db.  0 or -errno with @err.
 */
int hvb_hdb_open(struct hvb_hdb *h, const char *spec, char *err, size_t len);
void hvb_hdb_close(struct hvb_hdb *h);
/* The time now, as the history records it (2026-12-02T06:00:00Z). */
void hvb_hdb_now(char out[32]);

/* One run to record: where it comes from, and its points. */
struct hvb_hrun {
    const char *kind;   /* "results" or "review" */
    const char *source; /* the file */
    const char *commit, *base_commit, *branch, *machine;
    const char *content; /* hex SHA-256 of the file's bytes, or NULL */
    bool dirty;
    json_t *points; /* [{"cell", "metric", "series", "value", "ci": [lo,
                       hi] or null, "unit"}] */
};

/*
 * Points of results or review document @doc (from @path) into @r (its
 * commit and kind too).  0, or -EINVAL with @err: neither kind.
 */
int hvb_hrun_from(struct hvb_hrun *r, json_t *doc, const char *path, char *err,
                  size_t len);

/*
 * The document in @path (a symlink named by the user followed) and the
 * SHA-256 of its bytes in @sha (hex), for hvb_hrun_from(); NULL with
 * @err ("PATH: No such file or directory", "PATH: line 3: ...").
 */
json_t *hvb_hrun_load(const char *path, char sha[65], char *err, size_t len);

/*
 * Record @r in one transaction: its run id, or -errno with @err;
 * -EEXIST when a run of the same content (r->content) is recorded
 * already, @err then "already recorded as run N".
 */
long long hvb_hdb_record(struct hvb_hdb *h, const struct hvb_hrun *r, char *err,
                         size_t len);

/* Record the review in @dir (its review.json) into @h: its run id, or -1. */
long long hvb_hreview_record(struct hvb_hdb *h, const char *dir,
                             const char *branch, const char *machine);

/*
 * history_chain.c: one point of a series, in the order recorded, and
 * the moves of its reference.  hvb_hchain() sets @chained (the value on
 * the first reference's scale; @lo and @hi scaled alike), @keep (false
 * for an overlap's anchor, a repeat of a point already in) and @segment
 * (a move without an overlap starts the next), and returns how many
 * moves there were (at most @max into @moves).
 */
struct hvb_hpoint {
    long long run;
    const char *commit, *base;
    double value, lo, hi, chained;
    size_t segment;
    bool keep;
    bool parent; /* measured against the previous point's commit */
    bool stray;  /* against a base that is no reference: left out */
};
struct hvb_hmove {
    size_t at;                       /* the first point against @to */
    const char *from, *to, *overlap; /* overlap: NULL for a break */
    double factor; /* @to's points times this: @from's scale; NAN */
};
size_t hvb_hchain(struct hvb_hpoint *p, size_t n, char *const *refs,
                  struct hvb_hmove *moves, size_t max);

/* detect's settings (detect, publish); publish's selection. */
struct hvb_detect_opts {
    double pvalue;
    size_t min_seg, window;
    const char *machine, *branch; /* only these runs, where not NULL */
};

/*
 * history_series.c: every run's commit and base, read once (indexed by
 * run id), and a series' change points found segment by segment of its
 * chained values (@p as hvb_hchain() or hvb_hunchained() left it): how
 * many (at most @max into @out), or -errno.
 */
struct hvb_hruns {
    char **commit, **base;
    size_t n;
    char **refs; /* every pinned reference's commit, NULL-ended */
};
int hvb_hruns_load(struct hvb_hdb *h, struct hvb_hruns *r);
/* Every pinned reference's commit (table refs), NULL-ended; NULL: ENOMEM. */
char **hvb_hrefs_load(struct hvb_hdb *h);
void hvb_hrefs_free(char **refs);
void hvb_hruns_free(struct hvb_hruns *r);
const char *hvb_hruns_commit(const struct hvb_hruns *r, long long id);
const char *hvb_hruns_base(const struct hvb_hruns *r, long long id);
struct hvb_hfound {
    size_t at; /* the index into the series of the first point after */
    struct hvb_change c;
};
long hvb_hchanges(const struct hvb_hpoint *p, size_t n,
                  const struct hvb_detect_opts *o, struct hvb_hfound *out,
                  size_t max);
/* An absolute series: its values as they are, one segment. */
void hvb_hunchained(struct hvb_hpoint *p, size_t n);

/* history_publish.c: the site of @h into @out. */
int hvb_history_publish(struct hvb_hdb *h, const char *out,
                        const struct hvb_detect_opts *o, char *err, size_t len);

/*
 * history_changes.c: change points as the history keeps them, so that
 * they can be triaged.  A change is known by its series and the run of
 * its first point after; noting it again finds the same id.
 */
struct hvb_hchange {
    const char *cell, *metric, *series;
    long long run;
    double before, after, p;
};
/* Its id (a new one the first time), or -errno with @err. */
long long hvb_hchange_note(struct hvb_hdb *h, const struct hvb_hchange *c,
                           char *err, size_t len);
/*
 * Its label ("real", "noise", "expected") into @out, "" if none; with
 * @note, its --note (malloc'd) or NULL.
 */
void hvb_hchange_label(struct hvb_hdb *h, long long id, char *out, size_t len,
                       char **note);
/* "history triage [ID LABEL [--note TEXT]]" (@argv[0] "triage"). */
int hvb_history_triage(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_history_triage;
/* "history reference [set REV ...]" (@argv[0] "reference"). */
int hvb_history_reference(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_history_reference;
/* The pinned reference's full hash into @out: 0, or -ENOENT if none. */
int hvb_href_current(struct hvb_hdb *h, char *out, size_t len);
/* Pin @commit (moved with @overlap's review, run @run; or NULL, -1). */
int hvb_href_pin(struct hvb_hdb *h, const char *commit, const char *overlap,
                 long long run, char *err, size_t len);

/* history_backfill.c: "history backfill ..." (@argv[0] "backfill"). */
int hvb_history_backfill(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_history_backfill;

#endif /* HVB_HISTORY_PRIVATE_H */
