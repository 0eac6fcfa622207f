/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hstore room: the history's store and what fills it (issue 22).  It
 * opens (creates, migrates) the database over the SQL layer (room db),
 * reads the points a results or review file gives and records them in one
 * transaction, and runs the reviews that fill it from past commits:
 * "history backfill" and "history reference set" (their rows are
 * history's, hvb_history_subs[]; their code is here), and bisect's steps
 * (hvb/hreview.h).  The history room above reads the store: export,
 * detect, publish, triage.
 */
#ifndef HVB_HSTORE_H
#define HVB_HSTORE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <hvb/cmdline.h>
#include <hvb/sqldb.h>

struct hvb_hdb {
    struct hvb_sql *db;
    char path[4096]; /* what messages call it: a URL without its password */
};

/*
 * Open (create, migrate) the history at @spec: a path or a
 * postgresql:// URL, or NULL for $HVBENCH_DB, else
 * $XDG_DATA_HOME/hvbench/history.db, else
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

/* "history reference [set REV ...]" (@argv[0] "reference"). */
int hvb_history_reference(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_history_reference;

/* history_backfill.c: "history backfill ..." (@argv[0] "backfill"). */
int hvb_history_backfill(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_history_backfill;

#endif /* HVB_HSTORE_H */
