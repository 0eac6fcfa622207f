/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The history's SQL layer (hvb/sqldb.h): which backend a spec names, and the
 * calls dispatched to it.  "postgresql://ci@db.example/hvbench" is
 * PostgreSQL (hdb_pg.c; the scheme in any case), a plain path a SQLite
 * file (hdb_sqlite.c), anything else (empty, "file:...?mode=memory",
 * "postgresql:/x") refused; messages name a URL as libpq reads it,
 * without its password.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <libpq-fe.h>

#include <hvb/sqldb.h>

bool hvb_sql_is_url(const char *spec)
{
    return strncasecmp(spec, "postgresql://", 13) == 0 ||
           strncasecmp(spec, "postgres://", 11) == 0;
}

/* @url with its scheme in lower case (libpq's reads only that) in @out. */
static void lower_scheme(const char *url, char *out, size_t len)
{
    size_t i;

    snprintf(out, len, "%s", url);
    for ( i = 0; out[i] != '\0' && out[i] != ':'; i++ )
        out[i] = (char)tolower((unsigned char)out[i]);
}

/* libpq's reading of @url's option @key, or NULL. */
static const char *opt(PQconninfoOption *o, const char *key)
{
    for ( ; o != NULL && o->keyword != NULL; o++ )
        if ( strcmp(o->keyword, key) == 0 )
            return o->val != NULL && *o->val ? o->val : NULL;
    return NULL;
}

/*
 * @url as libpq reads it, without its password: "postgresql://USER@HOST:
 * PORT/DB"; -EINVAL where libpq cannot read it, or reads a host or
 * database with an '@' in it (a password with '?', '/' or '@' not
 * percent-encoded: its tail would show as a name).
 */
static int redact(const char *url, char *out, size_t len)
{
    char *why = NULL, lower[4096];
    PQconninfoOption *o;
    const char *user, *host, *port, *db;
    int rc = 0;

    lower_scheme(url, lower, sizeof(lower));
    o = PQconninfoParse(lower, &why);
    PQfreemem(why); /* may quote the URL: never shown */
    user = opt(o, "user");
    host = opt(o, "host");
    port = opt(o, "port");
    db = opt(o, "dbname");
    if ( o == NULL || (host && strchr(host, '@')) || (db && strchr(db, '@')) ||
         (port && strchr(port, '@')) )
    {
        snprintf(out, len, "postgresql://(a URL libpq cannot read)");
        rc = -EINVAL;
    }
    else
        snprintf(out, len, "postgresql://%s%s%s%s%s/%s", user ? user : "",
                 user ? "@" : "", host ? host : "", port ? ":" : "",
                 port ? port : "", db ? db : "");
    PQconninfoFree(o);
    return rc;
}

int hvb_sql_spec_check(const char *spec, char *err, size_t len)
{
    char name[512];
    size_t n =
        strspn(spec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789+.-");

    if ( *spec == '\0' )
        snprintf(err, len, "--db is empty: name a file or a postgresql:// URL");
    else if ( hvb_sql_is_url(spec) )
    {
        if ( redact(spec, name, sizeof(name)) == 0 )
            return 0;
        snprintf(err, len,
                 "--db: a postgresql:// URL that libpq cannot read as meant "
                 "(percent-encode a password's '?', '/' or '@': %%3F, %%2F, "
                 "%%40)");
    }
    else if ( n > 0 && spec[n] == ':' && isalpha((unsigned char)spec[0]) )
        snprintf(err, len,
                 "--db: '%.*s:' is no database: a SQLite file is a path "
                 "(./%.*s:... if that is its name), PostgreSQL a "
                 "postgresql:// URL",
                 (int)(n > 40 ? 40 : n), spec, (int)(n > 40 ? 40 : n), spec);
    else
        return 0;
    return -EINVAL;
}

int hvb_sql_open(struct hvb_sql **c, const char *spec, char *name, size_t nlen,
                 char *err, size_t len)
{
    char why[1024], url[4096];
    int rc;

    *c = NULL;
    if ( (rc = hvb_sql_spec_check(spec, err, len)) != 0 )
        return rc;
    if ( !hvb_sql_is_url(spec) )
    {
        snprintf(name, nlen, "%s", spec);
        return hvb_sqlite_open(c, spec, err, len);
    }
    redact(spec, name, nlen);
    lower_scheme(spec, url, sizeof(url));
    if ( (rc = hvb_pg_open(c, url, why, sizeof(why))) != 0 )
        snprintf(err, len, "%s: %s", name, why);
    return rc;
}

void hvb_sql_close(struct hvb_sql *c)
{
    if ( c != NULL )
        c->ops->close(c);
}

enum hvb_sql_dialect hvb_sql_dialect(struct hvb_sql *c)
{
    return c->ops->dialect;
}

const char *hvb_sql_errmsg(struct hvb_sql *c)
{
    return c->ops->errmsg(c);
}

int hvb_sql_exec(struct hvb_sql *c, const char *sql)
{
    return c->ops->exec(c, sql);
}

int hvb_sql_begin(struct hvb_sql *c)
{
    return c->ops->begin(c);
}

int hvb_sql_commit(struct hvb_sql *c)
{
    return c->ops->exec(c, "COMMIT");
}

void hvb_sql_rollback(struct hvb_sql *c)
{
    c->ops->exec(c, "ROLLBACK");
}

long long hvb_sql_last_id(struct hvb_sql *c)
{
    return c->ops->last_id(c);
}

long long hvb_sql_changes(struct hvb_sql *c)
{
    return c->ops->changes(c);
}

int hvb_sql_version(struct hvb_sql *c)
{
    return c->ops->version(c);
}

int hvb_sql_set_version(struct hvb_sql *c, int v)
{
    return c->ops->set_version(c, v);
}

struct hvb_sql_stmt *hvb_sql_prepare(struct hvb_sql *c, const char *sql)
{
    return c->ops->prepare(c, sql);
}

void hvb_sql_bind_text(struct hvb_sql_stmt *st, int i, const char *s)
{
    st->c->ops->bind(st, i, s ? HVB_SQL_TEXT : HVB_SQL_NULL, s, 0, 0);
}

void hvb_sql_bind_int64(struct hvb_sql_stmt *st, int i, long long v)
{
    st->c->ops->bind(st, i, HVB_SQL_INT, "", v, 0);
}

void hvb_sql_bind_double(struct hvb_sql_stmt *st, int i, double v)
{
    st->c->ops->bind(st, i, HVB_SQL_FLOAT, "", 0, v);
}

void hvb_sql_bind_null(struct hvb_sql_stmt *st, int i)
{
    st->c->ops->bind(st, i, HVB_SQL_NULL, NULL, 0, 0);
}

int hvb_sql_step(struct hvb_sql_stmt *st)
{
    return st->c->ops->step(st);
}

void hvb_sql_reset(struct hvb_sql_stmt *st)
{
    st->c->ops->reset(st);
}

enum hvb_sql_type hvb_sql_type(struct hvb_sql_stmt *st, int col)
{
    return st->c->ops->type(st, col);
}

bool hvb_sql_is_null(struct hvb_sql_stmt *st, int col)
{
    return st->c->ops->type(st, col) == HVB_SQL_NULL;
}

const char *hvb_sql_text(struct hvb_sql_stmt *st, int col)
{
    return st->c->ops->text(st, col);
}

long long hvb_sql_int64(struct hvb_sql_stmt *st, int col)
{
    return st->c->ops->int64(st, col);
}

double hvb_sql_double(struct hvb_sql_stmt *st, int col)
{
    return st->c->ops->dbl(st, col);
}

void hvb_sql_finalize(struct hvb_sql_stmt *st)
{
    if ( st != NULL )
        st->c->ops->finalize(st);
}
