/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The history's SQL layer (hvb/sqldb.h): which backend a spec names, and the
 * calls dispatched to it.  "postgresql://ci@db.example/hvbench" is
 * PostgreSQL (hdb_pg.c), anything else a SQLite file (hdb_sqlite.c);
 * messages name a URL without its password.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hvb/sqldb.h>

bool hvb_sql_is_url(const char *spec)
{
    return strncmp(spec, "postgresql://", 13) == 0 ||
           strncmp(spec, "postgres://", 11) == 0;
}

/*
 * @url without its password: "postgresql://ci:pw@db/h?password=pw&x=1"
 * is "postgresql://ci@db/h?password=***&x=1".
 */
void hvb_sql_redact(const char *url, char *out, size_t len)
{
    const char *auth = strstr(url, "://"), *end, *at = NULL, *colon, *p;
    size_t o = 0;

    if ( auth == NULL || len == 0 )
    {
        snprintf(out, len, "%s", url);
        return;
    }
    auth += 3;
    end = auth + strcspn(auth, "/?");
    for ( p = auth; p < end; p++ )
        at = *p == '@' ? p : at;
    colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    for ( p = url; *p && o + 16 < len; p++ )
    {
        if ( p == colon )
            p = at; /* the password, left out */
        out[o++] = *p;
        if ( p >= end && (*p == '?' || *p == '&') &&
             strncmp(p + 1, "password=", 9) == 0 )
        {
            o += (size_t)snprintf(out + o, len - o, "password=***");
            p += 9 + strcspn(p + 10, "&");
        }
    }
    out[o] = '\0';
}

int hvb_sql_open(struct hvb_sql **c, const char *spec, char *name, size_t nlen,
                 char *err, size_t len)
{
    char why[1024];
    int rc;

    *c = NULL;
    if ( !hvb_sql_is_url(spec) )
    {
        snprintf(name, nlen, "%s", spec);
        return hvb_sqlite_open(c, spec, err, len);
    }
    hvb_sql_redact(spec, name, nlen);
    if ( (rc = hvb_pg_open(c, spec, why, sizeof(why))) != 0 )
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
