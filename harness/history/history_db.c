/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The history's database: one SQLite file (Debian's libsqlite3), its
 * schema versioned by PRAGMA user_version and brought up to date by the
 * migrations below on open, in WAL mode so that readers never wait for a
 * writer.  Every record is one IMMEDIATE transaction: two CI jobs
 * recording at once take turns (busy timeout 60 s), and a recorder
 * killed with -9 mid-record leaves nothing of that record (SQLite rolls
 * the WAL's uncommitted frames back at the next open).
 *
 * E.g. a results file of 2 cells with time and 6 counters each makes one
 * row of runs and 14 of points; "history export" reads them back in
 * insertion order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hvb/fsutil.h>

#include "private.h"

#define BUSY_TIMEOUT_MS 60000

/* Migration N takes a file from user_version N to N + 1. */
static const char *const migrations[] = {
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  recorded_at TEXT NOT NULL,"
    "  kind TEXT NOT NULL CHECK (kind IN ('results', 'review')),"
    "  source TEXT,"
    "  commit_hash TEXT,"
    "  base_commit TEXT,"
    "  dirty INTEGER NOT NULL DEFAULT 0,"
    "  branch TEXT,"
    "  machine TEXT);"
    "CREATE TABLE points ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  cell TEXT NOT NULL,"
    "  metric TEXT NOT NULL,"
    "  series TEXT NOT NULL CHECK (series IN ('absolute', 'ratio')),"
    "  value REAL NOT NULL,"
    "  ci_lo REAL,"
    "  ci_hi REAL,"
    "  unit TEXT);"
    /* Covering detect's one scan: series by series, in run order. */
    "CREATE INDEX points_series ON points(cell, metric, series, run_id, "
    "value);",
    /* 2: change points kept for triage; the pinned reference's moves. */
    "CREATE TABLE changes ("
    "  id INTEGER PRIMARY KEY,"
    "  cell TEXT NOT NULL,"
    "  metric TEXT NOT NULL,"
    "  series TEXT NOT NULL,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  mean_before REAL,"
    "  mean_after REAL,"
    "  p REAL,"
    "  found_at TEXT NOT NULL,"
    "  label TEXT CHECK (label IN ('real', 'noise', 'expected')),"
    "  labelled_at TEXT,"
    "  note TEXT,"
    "  UNIQUE (cell, metric, series, run_id));"
    "CREATE TABLE refs ("
    "  id INTEGER PRIMARY KEY,"
    "  commit_hash TEXT NOT NULL,"
    "  set_at TEXT NOT NULL,"
    "  overlap_commit TEXT,"
    "  overlap_run INTEGER REFERENCES runs(id) ON DELETE SET NULL);",
};
#define NR_MIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))

_Static_assert(NR_MIGRATIONS == HVB_HISTORY_SCHEMA,
               "a migration per schema version");

static int db_error(struct hvb_hdb *h, const char *what, char *err, size_t len)
{
    snprintf(err, len, "%s: %s: %s", h->path, what, sqlite3_errmsg(h->db));
    return -EIO;
}

static int exec(struct hvb_hdb *h, const char *sql, char *err, size_t len)
{
    return sqlite3_exec(h->db, sql, NULL, NULL, NULL) == SQLITE_OK
               ? 0
               : db_error(h, sql, err, len);
}

static int user_version(struct hvb_hdb *h)
{
    sqlite3_stmt *st;
    int v = -1;

    if ( sqlite3_prepare_v2(h->db, "PRAGMA user_version", -1, &st, NULL) ==
         SQLITE_OK )
    {
        if ( sqlite3_step(st) == SQLITE_ROW )
            v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

/* Bring the file to HVB_HISTORY_SCHEMA, in one transaction. */
static int migrate(struct hvb_hdb *h, char *err, size_t len)
{
    char sql[64];
    int v, rc;

    if ( (rc = exec(h, "BEGIN IMMEDIATE", err, len)) != 0 )
        return rc;
    v = user_version(h);
    if ( v < 0 || v > HVB_HISTORY_SCHEMA )
    {
        exec(h, "ROLLBACK", err, len);
        snprintf(err, len,
                 "%s: schema version %d, but this hvbench knows up to %d "
                 "(a newer hvbench made it)",
                 h->path, v, HVB_HISTORY_SCHEMA);
        return -EINVAL;
    }
    for ( ; v < HVB_HISTORY_SCHEMA && rc == 0; v++ )
        rc = exec(h, migrations[v], err, len);
    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
    if ( rc == 0 )
        rc = exec(h, sql, err, len);
    if ( rc == 0 )
        return exec(h, "COMMIT", err, len);
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/*
 * WAL mode, kept in the file once set.  Setting it takes the file's
 * exclusive lock without the busy handler: two first opens at once see
 * "database is locked", so it is tried again for the busy timeout.
 */
static int wal(struct hvb_hdb *h, char *err, size_t len)
{
    int tries = BUSY_TIMEOUT_MS / 10, rc;

    while ( (rc = sqlite3_exec(h->db, "PRAGMA journal_mode = WAL", NULL, NULL,
                               NULL)) == SQLITE_BUSY &&
            tries-- > 0 )
        usleep(10000);
    return rc == SQLITE_OK ? 0
                           : db_error(h, "PRAGMA journal_mode = WAL", err, len);
}

static void default_path(char *out, size_t len)
{
    const char *e = getenv("HVBENCH_DB"), *x = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");

    if ( e != NULL && *e )
        snprintf(out, len, "%s", e);
    else if ( x != NULL && *x )
        snprintf(out, len, "%s/hvbench/history.db", x);
    else
        snprintf(out, len, "%s/.local/share/hvbench/history.db",
                 home && *home ? home : ".");
}

int hvb_hdb_open(struct hvb_hdb *h, const char *spec, char *err, size_t len)
{
    char dir[4096], *slash;
    int rc;

    memset(h, 0, sizeof(*h));
    if ( spec != NULL && (strncmp(spec, "postgresql://", 13) == 0 ||
                          strncmp(spec, "postgres://", 11) == 0) )
    {
        snprintf(err, len,
                 "%s: PostgreSQL is not supported yet; give a file (SQLite)",
                 spec);
        return -ENOTSUP;
    }
    if ( spec != NULL )
        snprintf(h->path, sizeof(h->path), "%s", spec);
    else
        default_path(h->path, sizeof(h->path));
    snprintf(dir, sizeof(dir), "%s", h->path);
    slash = strrchr(dir, '/');
    if ( slash != NULL && slash != dir )
    {
        *slash = '\0';
        if ( (rc = hvb_mkdirs(dir)) != 0 )
        {
            snprintf(err, len, "%s: %s", dir, strerror(-rc));
            return rc;
        }
    }
    if ( sqlite3_open_v2(h->path, &h->db,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                         NULL) != SQLITE_OK )
    {
        rc = db_error(h, "open", err, len);
        hvb_hdb_close(h);
        return rc;
    }
    sqlite3_busy_timeout(h->db, BUSY_TIMEOUT_MS);
    rc = wal(h, err, len);
    if ( rc == 0 )
        rc = exec(h, "PRAGMA foreign_keys = ON", err, len);
    /* A history of 10^6 points read at once: keep it in memory. */
    if ( rc == 0 )
        rc = exec(h, "PRAGMA cache_size = -65536", err, len);
    if ( rc == 0 )
        rc = exec(h, "PRAGMA mmap_size = 268435456", err, len);
    if ( rc == 0 )
        rc = migrate(h, err, len);
    if ( rc )
        hvb_hdb_close(h);
    return rc;
}

void hvb_hdb_close(struct hvb_hdb *h)
{
    if ( h->db != NULL )
        sqlite3_close(h->db);
    h->db = NULL;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if ( s != NULL )
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_num(sqlite3_stmt *st, int i, json_t *v)
{
    if ( json_is_number(v) )
        sqlite3_bind_double(st, i, json_number_value(v));
    else
        sqlite3_bind_null(st, i);
}

/* The points of run @id; 0 or -EIO. */
static int insert_points(struct hvb_hdb *h, long long id,
                         const struct hvb_hrun *r, char *err, size_t len)
{
    const char *pause = getenv("HVB_HISTORY_TEST_PAUSE");
    sqlite3_stmt *st;
    json_t *p;
    size_t i;
    int rc = 0;

    if ( sqlite3_prepare_v2(h->db,
                            "INSERT INTO points (run_id, cell, metric, series,"
                            " value, ci_lo, ci_hi, unit) VALUES "
                            "(?, ?, ?, ?, ?, ?, ?, ?)",
                            -1, &st, NULL) != SQLITE_OK )
        return db_error(h, "insert", err, len);
    json_array_foreach(r->points, i, p)
    {
        json_t *ci = json_object_get(p, "ci");

        sqlite3_bind_int64(st, 1, id);
        bind_text(st, 2, json_string_value(json_object_get(p, "cell")));
        bind_text(st, 3, json_string_value(json_object_get(p, "metric")));
        bind_text(st, 4, json_string_value(json_object_get(p, "series")));
        bind_num(st, 5, json_object_get(p, "value"));
        bind_num(st, 6, json_array_get(ci, 0));
        bind_num(st, 7, json_array_get(ci, 1));
        bind_text(st, 8, json_string_value(json_object_get(p, "unit")));
        if ( sqlite3_step(st) != SQLITE_DONE )
        {
            rc = db_error(h, "insert point", err, len);
            break;
        }
        sqlite3_reset(st);
        /* The kill -9 test's window inside the transaction (tests only). */
        if ( pause != NULL )
            usleep((useconds_t)(atof(pause) * 1e6));
    }
    sqlite3_finalize(st);
    return rc;
}

void hvb_hdb_now(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;

    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
}

long long hvb_hdb_record(struct hvb_hdb *h, const struct hvb_hrun *r, char *err,
                         size_t len)
{
    char now[32];
    sqlite3_stmt *st;
    long long id = -1;
    int rc;

    hvb_hdb_now(now);
    if ( (rc = exec(h, "BEGIN IMMEDIATE", err, len)) != 0 )
        return rc;
    if ( sqlite3_prepare_v2(h->db,
                            "INSERT INTO runs (recorded_at, kind, source, "
                            "commit_hash, base_commit, dirty, branch, machine)"
                            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            -1, &st, NULL) != SQLITE_OK )
        rc = db_error(h, "insert run", err, len);
    else
    {
        bind_text(st, 1, now);
        bind_text(st, 2, r->kind);
        bind_text(st, 3, r->source);
        bind_text(st, 4, r->commit);
        bind_text(st, 5, r->base_commit);
        sqlite3_bind_int(st, 6, r->dirty);
        bind_text(st, 7, r->branch);
        bind_text(st, 8, r->machine);
        if ( sqlite3_step(st) != SQLITE_DONE )
            rc = db_error(h, "insert run", err, len);
        sqlite3_finalize(st);
    }
    if ( rc == 0 )
    {
        id = sqlite3_last_insert_rowid(h->db);
        rc = insert_points(h, id, r, err, len);
    }
    if ( rc == 0 )
        rc = exec(h, "COMMIT", err, len);
    if ( rc )
    {
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return id;
}
