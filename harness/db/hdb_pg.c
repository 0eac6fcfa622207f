/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The history's PostgreSQL backend (hvb/sqldb.h; Debian's libpq), a team's
 * shared store: "--db postgresql://ci@db.example/hvbench" (libpq's URL;
 * its PG* environment and ~/.pgpass apply, PGPASSWORD too).
 *
 * - A statement is prepared on the server under a name of its own
 *   ("hvb3"), its `?` and `?N` placeholders rewritten to `$N` (SQLite's
 *   numbering: a bare `?` is one more than the largest so far), so that
 *   "x = ?1 OR ?1 IS NULL AND y = ?" is "x = $1 OR $1 IS NULL AND y = $2";
 *   quoted text is left alone.  Parameters go as text, their types
 *   inferred by the server from the SQL.
 * - A step runs it (the first) or moves to the next row of its result.
 * - A write transaction is BEGIN and pg_advisory_xact_lock(one key): two
 *   recorders (or first opens, migrating) take turns, as SQLite's BEGIN
 *   IMMEDIATE does; the lock goes with the transaction, also when the
 *   client dies (kill -9: the server rolls back and releases it).
 * - The schema version is the one row of table schema_version, created
 *   under that lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include <hvb/sqldb.h>

#define LOCK_KEY        0x68766268 /* "hvbh" */
#define CONNECT_TIMEOUT "10"       /* s, unless PGCONNECT_TIMEOUT says */

struct pg {
    struct hvb_sql c;
    PGconn *conn;
    unsigned int next_name;
    long long changes; /* by the last statement stepped */
    char err[1024];
};

struct pg_stmt {
    struct hvb_sql_stmt s;
    char name[32];
    int nparams, row;
    char **params;
    PGresult *res;
};

#define PG(c) ((struct pg *)(c))
#define PS(s) ((struct pg_stmt *)(s))

/* @msg as one line (libpq's are several, tab-indented) into @c's err. */
static void set_err(struct hvb_sql *c, const char *msg)
{
    char *e = PG(c)->err, *p;

    snprintf(e, sizeof(PG(c)->err), "%s", msg && *msg ? msg : "failed");
    for ( p = e; *p; p++ )
        if ( *p == '\n' || *p == '\t' || *p == '\r' )
            *p = ' ';
    while ( p > e && p[-1] == ' ' )
        *--p = '\0';
    for ( p = e; (p = strstr(p, "  ")) != NULL; )
        memmove(p, p + 1, strlen(p));
}

/* 0 if @r is a success (then cleared), else -EIO with the error set. */
static int result(struct hvb_sql *c, PGresult *r)
{
    ExecStatusType s = PQresultStatus(r);
    int rc = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? 0 : -EIO;

    if ( rc )
        set_err(c, r ? PQresultErrorMessage(r) : PQerrorMessage(PG(c)->conn));
    PQclear(r);
    return rc;
}

static void pg_close(struct hvb_sql *c)
{
    PQfinish(PG(c)->conn);
    free(c);
}

static const char *pg_errmsg(struct hvb_sql *c)
{
    return PG(c)->err;
}

static int pg_exec(struct hvb_sql *c, const char *sql)
{
    return result(c, PQexec(PG(c)->conn, sql));
}

static int pg_begin(struct hvb_sql *c)
{
    char sql[96];

    snprintf(sql, sizeof(sql), "BEGIN; SELECT pg_advisory_xact_lock(%d)",
             LOCK_KEY);
    return pg_exec(c, sql);
}

/* The first column of the first row of @sql as a number; -1 if none. */
static long long scalar(struct hvb_sql *c, const char *sql)
{
    PGresult *r = PQexec(PG(c)->conn, sql);
    long long v = -1;

    if ( PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 )
        v = PQgetisnull(r, 0, 0) ? 0 : strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    else
        set_err(c, PQresultErrorMessage(r));
    PQclear(r);
    return v;
}

static long long pg_last_id(struct hvb_sql *c)
{
    return scalar(c, "SELECT lastval()");
}

static long long pg_changes(struct hvb_sql *c)
{
    return PG(c)->changes;
}

static int pg_version(struct hvb_sql *c)
{
    if ( pg_exec(c, "CREATE TABLE IF NOT EXISTS schema_version ("
                    "version INTEGER NOT NULL)") )
        return -1;
    return (int)scalar(c, "SELECT max(version) FROM schema_version");
}

static int pg_set_version(struct hvb_sql *c, int v)
{
    char sql[128];

    snprintf(sql, sizeof(sql),
             "DELETE FROM schema_version; INSERT INTO schema_version "
             "VALUES (%d)",
             v);
    return pg_exec(c, sql);
}

/* @sql with $N for ?N and ?, into @out (3x its length); the count. */
static int placeholders(const char *sql, char *out)
{
    int max = 0, n;
    char quote = 0;

    for ( ; *sql; sql++ )
    {
        if ( quote ? *sql == quote : (*sql == '\'' || *sql == '"') )
            quote = quote ? 0 : *sql;
        if ( quote || *sql != '?' )
        {
            *out++ = *sql;
            continue;
        }
        if ( sql[1] >= '0' && sql[1] <= '9' )
            n = (int)strtol(sql + 1, (char **)&sql, 10), sql--;
        else
            n = max + 1;
        max = n > max ? n : max;
        out += sprintf(out, "$%d", n);
    }
    *out = '\0';
    return max;
}

static struct hvb_sql_stmt *pg_prepare(struct hvb_sql *c, const char *sql)
{
    struct pg_stmt *s = calloc(1, sizeof(*s));
    char *text = malloc(3 * strlen(sql) + 1);

    if ( s == NULL || text == NULL )
    {
        free(s);
        free(text);
        set_err(c, "out of memory");
        return NULL;
    }
    s->s.c = c;
    s->row = -1;
    s->nparams = placeholders(sql, text);
    s->params = calloc((size_t)s->nparams + 1, sizeof(*s->params));
    snprintf(s->name, sizeof(s->name), "hvb%u", PG(c)->next_name++);
    if ( s->params == NULL ||
         result(c, PQprepare(PG(c)->conn, s->name, text, s->nparams, NULL)) )
    {
        free(s->params);
        free(s);
        s = NULL;
    }
    free(text);
    return s ? &s->s : NULL;
}

static void pg_bind(struct hvb_sql_stmt *st, int i, enum hvb_sql_type type,
                    const char *t, long long iv, double dv)
{
    struct pg_stmt *s = PS(st);
    char buf[40];

    if ( i < 1 || i > s->nparams )
        return;
    free(s->params[i - 1]);
    s->params[i - 1] = NULL;
    if ( type == HVB_SQL_INT )
        snprintf(buf, sizeof(buf), "%lld", iv), t = buf;
    else if ( type == HVB_SQL_FLOAT )
        snprintf(buf, sizeof(buf), "%.17g", dv), t = buf;
    if ( type != HVB_SQL_NULL )
        s->params[i - 1] = strdup(t);
}

static int pg_step(struct hvb_sql_stmt *st)
{
    struct pg_stmt *s = PS(st);
    ExecStatusType rs;

    if ( s->res == NULL )
    {
        s->res = PQexecPrepared(PG(st->c)->conn, s->name, s->nparams,
                                (const char *const *)s->params, NULL, NULL, 0);
        rs = PQresultStatus(s->res);
        if ( rs != PGRES_TUPLES_OK && rs != PGRES_COMMAND_OK )
        {
            result(st->c, s->res);
            s->res = NULL;
            return -EIO;
        }
        PG(st->c)->changes = strtoll(PQcmdTuples(s->res), NULL, 10);
    }
    s->row++;
    return s->row < PQntuples(s->res) ? HVB_SQL_ROW : HVB_SQL_DONE;
}

static void pg_reset(struct hvb_sql_stmt *st)
{
    PQclear(PS(st)->res);
    PS(st)->res = NULL;
    PS(st)->row = -1;
}

static enum hvb_sql_type pg_type(struct hvb_sql_stmt *st, int col)
{
    struct pg_stmt *s = PS(st);

    if ( PQgetisnull(s->res, s->row, col) )
        return HVB_SQL_NULL;
    switch ( PQftype(s->res, col) )
    {
    case 20: /* int8 */
    case 21: /* int2 */
    case 23: /* int4 */
        return HVB_SQL_INT;
    case 700:  /* float4 */
    case 701:  /* float8 */
    case 1700: /* numeric */
        return HVB_SQL_FLOAT;
    default:
        return HVB_SQL_TEXT;
    }
}

static const char *pg_text(struct hvb_sql_stmt *st, int col)
{
    struct pg_stmt *s = PS(st);

    return PQgetisnull(s->res, s->row, col) ? NULL
                                            : PQgetvalue(s->res, s->row, col);
}

static long long pg_int(struct hvb_sql_stmt *st, int col)
{
    const char *t = pg_text(st, col);

    return t ? strtoll(t, NULL, 10) : 0;
}

static double pg_dbl(struct hvb_sql_stmt *st, int col)
{
    const char *t = pg_text(st, col);

    return t ? strtod(t, NULL) : 0;
}

static void pg_finalize(struct hvb_sql_stmt *st)
{
    struct pg_stmt *s = PS(st);
    char sql[64];
    int i;

    PQclear(s->res);
    snprintf(sql, sizeof(sql), "DEALLOCATE %s", s->name);
    PQclear(PQexec(PG(st->c)->conn, sql));
    for ( i = 0; i < s->nparams; i++ )
        free(s->params[i]);
    free(s->params);
    free(s);
}

static const struct hvb_sql_ops pg_ops = {
    .dialect = HVB_SQL_PG,
    .close = pg_close,
    .errmsg = pg_errmsg,
    .exec = pg_exec,
    .begin = pg_begin,
    .last_id = pg_last_id,
    .changes = pg_changes,
    .version = pg_version,
    .set_version = pg_set_version,
    .prepare = pg_prepare,
    .bind = pg_bind,
    .step = pg_step,
    .reset = pg_reset,
    .type = pg_type,
    .text = pg_text,
    .int64 = pg_int,
    .dbl = pg_dbl,
    .finalize = pg_finalize,
};

static void quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

int hvb_pg_open(struct hvb_sql **out, const char *url, char *err, size_t len)
{
    const char *keys[] = {"connect_timeout", "dbname", NULL};
    const char *vals[] = {CONNECT_TIMEOUT, url, NULL};
    struct pg *p = calloc(1, sizeof(*p));

    if ( p == NULL )
        return -ENOMEM;
    p->c.ops = &pg_ops;
    /* The URL's own connect_timeout, or $PGCONNECT_TIMEOUT, wins. */
    p->conn =
        PQconnectdbParams(getenv("PGCONNECT_TIMEOUT") ? keys + 1 : keys,
                          getenv("PGCONNECT_TIMEOUT") ? vals + 1 : vals, 1);
    if ( p->conn == NULL || PQstatus(p->conn) != CONNECTION_OK )
    {
        set_err(&p->c, p->conn ? PQerrorMessage(p->conn) : "out of memory");
        snprintf(err, len, "%s", p->err);
        pg_close(&p->c);
        return -ECONNREFUSED;
    }
    PQsetNoticeProcessor(p->conn, quiet, NULL);
    *out = &p->c;
    return 0;
}
