/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The history's SQLite backend (hvb/sqldb.h; Debian's libsqlite3), the only
 * file that calls sqlite3_*: a file in WAL mode so that readers never
 * wait for a writer, a write transaction is BEGIN IMMEDIATE (two CI jobs
 * recording at once take turns, busy timeout 60 s), the schema version
 * is PRAGMA user_version.  A recorder killed with -9 mid-record leaves
 * nothing: SQLite rolls the WAL's uncommitted frames back at the next
 * open.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <unistd.h>

#include <sqlite3.h>

#include <hvb/sqldb.h>

#define BUSY_TIMEOUT_MS 60000

struct lite {
    struct hvb_sql c;
    sqlite3 *db;
};

struct lite_stmt {
    struct hvb_sql_stmt s;
    sqlite3_stmt *st;
};

#define DB(c) (((struct lite *)(c))->db)
#define ST(s) (((struct lite_stmt *)(s))->st)

static void lite_close(struct hvb_sql *c)
{
    sqlite3_close(DB(c));
    free(c);
}

static const char *lite_errmsg(struct hvb_sql *c)
{
    return sqlite3_errmsg(DB(c));
}

static int lite_exec(struct hvb_sql *c, const char *sql)
{
    return sqlite3_exec(DB(c), sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
}

static int lite_begin(struct hvb_sql *c)
{
    return lite_exec(c, "BEGIN IMMEDIATE");
}

static long long lite_last_id(struct hvb_sql *c)
{
    return sqlite3_last_insert_rowid(DB(c));
}

static long long lite_changes(struct hvb_sql *c)
{
    return sqlite3_changes(DB(c));
}

static int lite_version(struct hvb_sql *c)
{
    sqlite3_stmt *st;
    int v = -1;

    if ( sqlite3_prepare_v2(DB(c), "PRAGMA user_version", -1, &st, NULL) ==
         SQLITE_OK )
    {
        if ( sqlite3_step(st) == SQLITE_ROW )
            v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

static int lite_set_version(struct hvb_sql *c, int v)
{
    char sql[64];

    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
    return lite_exec(c, sql);
}

static struct hvb_sql_stmt *lite_prepare(struct hvb_sql *c, const char *sql)
{
    struct lite_stmt *s = calloc(1, sizeof(*s));

    if ( s == NULL )
        return NULL;
    if ( sqlite3_prepare_v2(DB(c), sql, -1, &s->st, NULL) != SQLITE_OK )
    {
        free(s);
        return NULL;
    }
    s->s.c = c;
    return &s->s;
}

static void lite_bind(struct hvb_sql_stmt *s, int i, enum hvb_sql_type type,
                      const char *t, long long iv, double dv)
{
    if ( type == HVB_SQL_TEXT )
        sqlite3_bind_text(ST(s), i, t, -1, SQLITE_TRANSIENT);
    else if ( type == HVB_SQL_INT )
        sqlite3_bind_int64(ST(s), i, iv);
    else if ( type == HVB_SQL_FLOAT )
        sqlite3_bind_double(ST(s), i, dv);
    else
        sqlite3_bind_null(ST(s), i);
}

static int lite_step(struct hvb_sql_stmt *s)
{
    int rc = sqlite3_step(ST(s));

    return rc == SQLITE_ROW    ? HVB_SQL_ROW
           : rc == SQLITE_DONE ? HVB_SQL_DONE
                               : -EIO;
}

static void lite_reset(struct hvb_sql_stmt *s)
{
    sqlite3_reset(ST(s));
}

static enum hvb_sql_type lite_type(struct hvb_sql_stmt *s, int col)
{
    switch ( sqlite3_column_type(ST(s), col) )
    {
    case SQLITE_NULL:
        return HVB_SQL_NULL;
    case SQLITE_INTEGER:
        return HVB_SQL_INT;
    case SQLITE_FLOAT:
        return HVB_SQL_FLOAT;
    default:
        return HVB_SQL_TEXT;
    }
}

static const char *lite_text(struct hvb_sql_stmt *s, int col)
{
    return (const char *)sqlite3_column_text(ST(s), col);
}

static long long lite_int64(struct hvb_sql_stmt *s, int col)
{
    return sqlite3_column_int64(ST(s), col);
}

static double lite_dbl(struct hvb_sql_stmt *s, int col)
{
    return sqlite3_column_double(ST(s), col);
}

static void lite_finalize(struct hvb_sql_stmt *s)
{
    sqlite3_finalize(ST(s));
    free(s);
}

static const struct hvb_sql_ops lite_ops = {
    .dialect = HVB_SQL_SQLITE,
    .close = lite_close,
    .errmsg = lite_errmsg,
    .exec = lite_exec,
    .begin = lite_begin,
    .last_id = lite_last_id,
    .changes = lite_changes,
    .version = lite_version,
    .set_version = lite_set_version,
    .prepare = lite_prepare,
    .bind = lite_bind,
    .step = lite_step,
    .reset = lite_reset,
    .type = lite_type,
    .text = lite_text,
    .int64 = lite_int64,
    .dbl = lite_dbl,
    .finalize = lite_finalize,
};

/*
 * WAL mode, kept in the file once set.  Setting it takes the file's
 * exclusive lock without the busy handler: two first opens at once see
 * "database is locked", so it is tried again for the busy timeout.
 */
static int wal(struct hvb_sql *c)
{
    int tries = BUSY_TIMEOUT_MS / 10, rc;

    while ( (rc = sqlite3_exec(DB(c), "PRAGMA journal_mode = WAL", NULL, NULL,
                               NULL)) == SQLITE_BUSY &&
            tries-- > 0 )
        usleep(10000);
    return rc == SQLITE_OK ? 0 : -EIO;
}

/*
 * A read-only history in a directory we cannot write either: a WAL
 * database is read through its -shm index, which cannot be made there
 * (every read failed "attempt to write a readonly database").  Then it
 * is opened immutable, a snapshot: "file:PATH?immutable=1" into @uri
 * (%, ? and # escaped), true.  False where the -shm can be (or is) had.
 */
static bool readonly_uri(const char *path, char *uri, size_t len)
{
    char dir[PATH_MAX], shm[PATH_MAX + 8];
    const char *slash = strrchr(path, '/');
    size_t n = 0;

    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
             slash ? (slash == path ? "/" : path) : ".");
    snprintf(shm, sizeof(shm), "%s-shm", path);
    if ( access(dir, W_OK) == 0 || access(shm, R_OK) == 0 )
        return false;
    n = (size_t)snprintf(uri, len, "file:");
    for ( ; *path && n + 4 < len; path++ )
        n += strchr("%?#", *path)
                 ? (size_t)snprintf(uri + n, len - n, "%%%02X",
                                    (unsigned char)*path)
                 : (size_t)snprintf(uri + n, len - n, "%c", *path);
    snprintf(uri + n, len - n, "?immutable=1");
    return true;
}

int hvb_sqlite_open(struct hvb_sql **out, const char *path, char *err,
                    size_t len)
{
    struct lite *l;
    const char *what = "open";
    /* A history others may read but not write: read it as it is. */
    bool ro = access(path, F_OK) == 0 && access(path, W_OK) != 0;
    char uri[PATH_MAX * 3 + 32];
    int rc;

    if ( (l = calloc(1, sizeof(*l))) == NULL )
        return -ENOMEM;
    l->c.ops = &lite_ops;
    if ( ro && readonly_uri(path, uri, sizeof(uri)) )
        rc =
            sqlite3_open_v2(uri, &l->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                            NULL) == SQLITE_OK
                ? 0
                : -EIO;
    else
        rc = sqlite3_open_v2(path, &l->db,
                             ro ? SQLITE_OPEN_READONLY
                                : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                             NULL) == SQLITE_OK
                 ? 0
                 : -EIO;
    if ( rc == 0 && ro )
        sqlite3_busy_timeout(l->db, BUSY_TIMEOUT_MS);
    else if ( rc == 0 )
    {
        sqlite3_busy_timeout(l->db, BUSY_TIMEOUT_MS);
        what = "PRAGMA journal_mode = WAL";
        rc = wal(&l->c);
    }
    if ( rc == 0 && (rc = lite_exec(&l->c, "PRAGMA foreign_keys = ON")) )
        what = "PRAGMA foreign_keys";
    /* A history of 10^6 points read at once: keep it in memory. */
    if ( rc == 0 && (rc = lite_exec(&l->c, "PRAGMA cache_size = -65536")) )
        what = "PRAGMA cache_size";
    if ( rc == 0 && (rc = lite_exec(&l->c, "PRAGMA mmap_size = 268435456")) )
        what = "PRAGMA mmap_size";
    if ( rc )
    {
        snprintf(err, len, "%s: %s: %s", path, what, sqlite3_errmsg(l->db));
        lite_close(&l->c);
        return rc;
    }
    *out = &l->c;
    return 0;
}
