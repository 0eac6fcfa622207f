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
#include <sqlite3.h>

#define HVB_HISTORY_SCHEMA 1 /* PRAGMA user_version of a current file */

struct hvb_hdb {
    sqlite3 *db;
    char path[4096];
};

/*
 * Open (create, migrate) the history at @spec: a path, or NULL for
 * $HVBENCH_DB, else $XDG_DATA_HOME/hvbench/history.db, else
 * ~/.local/share/hvbench/history.db.  0 or -errno with @err.
 */
int hvb_hdb_open(struct hvb_hdb *h, const char *spec, char *err, size_t len);
void hvb_hdb_close(struct hvb_hdb *h);

/* One run to record: where it comes from, and its points. */
struct hvb_hrun {
    const char *kind;   /* "results" or "review" */
    const char *source; /* the file */
    const char *commit, *base_commit, *branch, *machine;
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

/* Record @r in one transaction: its run id, or -errno with @err. */
long long hvb_hdb_record(struct hvb_hdb *h, const struct hvb_hrun *r, char *err,
                         size_t len);

/*
 * A review history runs (bisect's steps, backfill's commits): "self
 * review BASE HEAD --repo R --metric M ... -- LINE", history_review.c.
 */
struct hvb_hreview {
    const char *metric, *threshold, *max_pairs, *cache;
    unsigned int jobs;
    char repo[4096], self[4096];
    char **line; /* WORKLOAD [run options] */
    int nr_line;
};

/*
 * Its argv (malloc'd) into @out: metric default sim_instructions, with
 * @pairs as --max-pairs if set, explained (--explain changed) or not.
 */
char **hvb_hreview_argv(const struct hvb_hreview *r, const char *base,
                        const char *head, const char *out, const char *pairs,
                        bool explain);

/* Run it, both outputs into @logp: its exit status, or -1. */
int hvb_hreview_run(char **av, const char *logp);

/* history_publish.c: the site of @h into @out (detect's settings @o). */
struct hvb_publish_opts {
    double pvalue;
    size_t min_seg, window;
};
int hvb_history_publish(struct hvb_hdb *h, const char *out,
                        const struct hvb_publish_opts *o, char *err,
                        size_t len);

/* history_backfill.c: "history backfill ..." (@argv[0] "backfill"). */
int hvb_history_backfill(int argc, char **argv);

#endif /* HVB_HISTORY_PRIVATE_H */
