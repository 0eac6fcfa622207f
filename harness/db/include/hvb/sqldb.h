/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Room db: the history's SQL layer, one API over SQLite (hdb_sqlite.c,
 * the embedded default) and PostgreSQL (hdb_pg.c, a team's shared store),
 * shaped like SQLite's own so that callers write their SQL once, with
 * `?` or `?N` placeholders (rewritten to `$N` for PostgreSQL), and
 * convert mechanically:
 *
 *   struct hvb_sql_stmt *st = hvb_sql_prepare(c, "SELECT value FROM "
 *                                                "points WHERE cell = ?");
 *   hvb_sql_bind_text(st, 1, "lookup/x");
 *   while ( hvb_sql_step(st) == HVB_SQL_ROW )
 *       use(hvb_sql_double(st, 0));
 *   hvb_sql_finalize(st);
 *
 * Parameters and columns are numbered as SQLite does: binds from 1,
 * columns from 0.  A text column's pointer lives until the next step.
 * Errors: hvb_sql_errmsg(c), one line.
 */
#ifndef HVB_SQLDB_H
#define HVB_SQLDB_H

#include <stdbool.h>
#include <stddef.h>

enum hvb_sql_dialect {
    HVB_SQL_SQLITE,
    HVB_SQL_PG
};
enum hvb_sql_type {
    HVB_SQL_NULL,
    HVB_SQL_INT,
    HVB_SQL_FLOAT,
    HVB_SQL_TEXT
};
#define HVB_SQL_ROW  1 /* hvb_sql_step: a row is there */
#define HVB_SQL_DONE 0 /* no more rows (or a statement without) */

struct hvb_sql;
struct hvb_sql_stmt;

/* What a backend gives; hdb.c dispatches to it. */
struct hvb_sql_ops {
    enum hvb_sql_dialect dialect;
    void (*close)(struct hvb_sql *c);
    const char *(*errmsg)(struct hvb_sql *c);
    int (*exec)(struct hvb_sql *c, const char *sql);
    int (*begin)(struct hvb_sql *c);
    long long (*last_id)(struct hvb_sql *c);
    long long (*changes)(struct hvb_sql *c);
    int (*version)(struct hvb_sql *c);
    int (*set_version)(struct hvb_sql *c, int v);
    struct hvb_sql_stmt *(*prepare)(struct hvb_sql *c, const char *sql);
    /* @type HVB_SQL_NULL, or which of @s, @iv, @dv is the value. */
    void (*bind)(struct hvb_sql_stmt *st, int i, enum hvb_sql_type type,
                 const char *s, long long iv, double dv);
    int (*step)(struct hvb_sql_stmt *st);
    void (*reset)(struct hvb_sql_stmt *st);
    enum hvb_sql_type (*type)(struct hvb_sql_stmt *st, int col);
    const char *(*text)(struct hvb_sql_stmt *st, int col);
    long long (*int64)(struct hvb_sql_stmt *st, int col);
    double (*dbl)(struct hvb_sql_stmt *st, int col);
    void (*finalize)(struct hvb_sql_stmt *st);
};

/* A backend's connection and statement begin with these. */
struct hvb_sql {
    const struct hvb_sql_ops *ops;
};
struct hvb_sql_stmt {
    struct hvb_sql *c;
};

/*
 * Open @spec: a postgresql:// or postgres:// URL (libpq's, its
 * environment and ~/.pgpass apply), else a SQLite file (created; its
 * directory must be there).  @name gets what to call it in messages (a URL without its
 * password).  0, or -errno with a one-line @err.
 */
int hvb_sql_open(struct hvb_sql **c, const char *spec, char *name, size_t nlen,
                 char *err, size_t len);
int hvb_sqlite_open(struct hvb_sql **c, const char *path, char *err,
                    size_t len);
int hvb_pg_open(struct hvb_sql **c, const char *url, char *err, size_t len);
/* Is @spec a postgresql:// (or postgres://) URL, the scheme in any case? */
bool hvb_sql_is_url(const char *spec);
/*
 * Is @spec a database: a plain path (SQLite) or a postgresql:// URL
 * libpq reads?  0, or -EINVAL with a one-line @err that shows no
 * password.
 */
int hvb_sql_spec_check(const char *spec, char *err, size_t len);
void hvb_sql_close(struct hvb_sql *c);
enum hvb_sql_dialect hvb_sql_dialect(struct hvb_sql *c);
const char *hvb_sql_errmsg(struct hvb_sql *c);

/* SQL of one or more statements without results: 0 or -EIO. */
int hvb_sql_exec(struct hvb_sql *c, const char *sql);
/*
 * A write transaction that excludes every other writer from its start
 * (SQLite BEGIN IMMEDIATE; PostgreSQL BEGIN and a transaction-scoped
 * advisory lock): 0 or -EIO.
 */
int hvb_sql_begin(struct hvb_sql *c);
int hvb_sql_commit(struct hvb_sql *c);
void hvb_sql_rollback(struct hvb_sql *c);
/* The id of the row the last INSERT made (its table's identity). */
long long hvb_sql_last_id(struct hvb_sql *c);
/* The rows the last INSERT, UPDATE or DELETE changed. */
long long hvb_sql_changes(struct hvb_sql *c);
/* The schema version (SQLite user_version, PostgreSQL schema_version). */
int hvb_sql_version(struct hvb_sql *c);
int hvb_sql_set_version(struct hvb_sql *c, int v);

struct hvb_sql_stmt *hvb_sql_prepare(struct hvb_sql *c, const char *sql);
void hvb_sql_bind_text(struct hvb_sql_stmt *st, int i, const char *s);
void hvb_sql_bind_int64(struct hvb_sql_stmt *st, int i, long long v);
void hvb_sql_bind_double(struct hvb_sql_stmt *st, int i, double v);
void hvb_sql_bind_null(struct hvb_sql_stmt *st, int i);
/* HVB_SQL_ROW, HVB_SQL_DONE, or -EIO. */
int hvb_sql_step(struct hvb_sql_stmt *st);
/* Ready to step again from the start, its bindings kept. */
void hvb_sql_reset(struct hvb_sql_stmt *st);
enum hvb_sql_type hvb_sql_type(struct hvb_sql_stmt *st, int col);
bool hvb_sql_is_null(struct hvb_sql_stmt *st, int col);
const char *hvb_sql_text(struct hvb_sql_stmt *st, int col); /* NULL: NULL */
long long hvb_sql_int64(struct hvb_sql_stmt *st, int col);
double hvb_sql_double(struct hvb_sql_stmt *st, int col);
void hvb_sql_finalize(struct hvb_sql_stmt *st);

#endif /* HVB_SQLDB_H */
