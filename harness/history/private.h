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

#include <hvb/cmdline.h>

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
    /* --fleet slurm: the reviews as job arrays (history_fleet.c) */
    const char *fleet, *partition;
    double slurm_timeout_s;
    char fleet_dir[4096]; /* absolute --out: scripts, logs/ */
    char cache_abs[4096]; /* --cache, absolute */
};

/*
 * The option rows of --fleet, --partition and --slurm-timeout, for a
 * command whose state begins with its struct hvb_hreview (HVB_OPT_ALSO).
 */
extern const struct hvb_optdef hvb_hreview_fleet_opts[];

/*
 * --fleet of @r checked, its --out @out (and the cache) made absolute
 * for the nodes: -1 to go on, or the exit status having said why.
 */
int hvb_hfleet_check(struct hvb_hreview *r, const char *cmd, const char **out);

/*
 * Its argv (malloc'd) into @out: metric default sim_instructions, with
 * @pairs as --max-pairs if set, explained (--explain changed) or not.
 */
char **hvb_hreview_argv(const struct hvb_hreview *r, const char *base,
                        const char *head, const char *out, const char *pairs,
                        bool explain);

/* Run it, both outputs into @logp: its exit status, or -1. */
int hvb_hreview_run(char **av, const char *logp);

/* One review of a job array: DIR its --out, DIR.log and DIR.status. */
struct hvb_hfleet_task {
    char **argv; /* hvb_hreview_argv()'s */
    char dir[4200], log[4300], status[4300];
    int rc;         /* its exit status; -1: it did not end by itself */
    double seconds; /* it ran */
};

/*
 * The reviews @t (@n) as one Slurm job array, script @script, followed
 * to their end; each t->rc and t->seconds set, the job ids appended to
 * @jobs.  0, or the exit status having said why (sbatch, squeue).
 */
int hvb_hfleet_run(const struct hvb_hreview *r, const char *script,
                   struct hvb_hfleet_task *t, size_t n, bool quiet,
                   json_t *jobs);

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
