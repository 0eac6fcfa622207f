/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the history room's files share: the series read from the store
 * (room hstore, below: hvb/hstore.h), chained across the reference's
 * moves (history_chain.c), their change points (history_series.c) and
 * how they were triaged (history_changes.c).
 */
#ifndef HVB_HISTORY_PRIVATE_H
#define HVB_HISTORY_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <hvb/cmdline.h>
#include <hvb/history.h>
#include <hvb/hstore.h>

#include <hvb/sqldb.h>

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
    const char *repo; /* publish: the repository of the commits, or NULL */
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

/*
 * history_order.c: the recorded commits @repo knows (NULL: none), as
 * {HASH: {"rank": its place in topological order, oldest 0, "date",
 * "subject"}}; NULL with @err where the store failed (git failing is a
 * warning: none known).
 */
json_t *hvb_hcommits_load(struct hvb_hdb *h, const char *repo, char *err,
                          size_t len);
/*
 * Series @s's points sorted by their commits' ranks where @commits has
 * every one (then s.order "commits"), else left as recorded ("recorded").
 */
void hvb_hseries_order(json_t *s, json_t *commits);
/* The same for detect's points: true if sorted, false if left as they are. */
bool hvb_hpoints_order(struct hvb_hpoint *p, size_t n, json_t *commits);

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
#endif /* HVB_HISTORY_PRIVATE_H */
