/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * detect's and the site's points in commit order.  The store keeps each
 * run's commit but not the graph, so detect and publish ask the
 * repository: one "git log --topo-order --reverse" of every recorded
 * commit (hex names only) walks them and their ancestors, parents before
 * children, and each recorded commit's line number there is its rank,
 * with its committer date and subject for the site's tooltips.  A series
 * whose every point has a rank is sorted by it (a commit's points among
 * themselves by run, so an overlap review stays after the point it
 * repeats); one with a commit the repository lacks (a results file of
 * another tree, a synthetic "X20") stays in the order recorded, and the
 * page says so.  Both sort the same way, so the change points detect
 * notes are the site's.
 *
 * E.g. X1 <- X2 <- X3 recorded as X3, X1, X2 (runs 1, 2, 3): the log
 * prints X1 X2 X3, ranks 0 1 2, and the series is X1 X2 X3 (runs 2, 3,
 * 1); with a fourth run of commit "X20" it stays X3 X1 X2 X20 (runs 1
 * to 4), "in the order recorded".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/exec.h>

#include "private.h"

#define LOG_TIMEOUT_S 120.0
#define LOG_MAX_OUT   (128u << 20) /* some 10^6 commits of history */
#define LOG_MAX_ARGS  16384 /* more commits: every ref's history instead */

/* A commit name git may be given: 7 to 64 hex digits, no option. */
static bool hex_name(const char *s)
{
    size_t n = s ? strspn(s, "0123456789abcdefABCDEF") : 0;

    return n >= 7 && n <= 64 && s[n] == '\0';
}

/*
 * git log's argv for the recorded commits (@want's keys), malloc'd; for
 * more than LOG_MAX_ARGS (past what an argv holds), "--all": every ref's
 * history, in which those on no ref are not found.
 */
static char **log_argv(const char *repo, json_t *want)
{
    static const char *const head[] = {"git",
                                       "-C",
                                       NULL,
                                       "log",
                                       "--topo-order",
                                       "--reverse",
                                       "--ignore-missing",
                                       "--format=%H%x1f%cI%x1f%s"};
    size_t nh = sizeof(head) / sizeof(head[0]), i = 0;
    char **av = calloc(nh + json_object_size(want) + 1, sizeof(*av));
    const char *k;
    json_t *v;

    if ( av == NULL )
        return NULL;
    for ( ; i < nh; i++ )
        av[i] = (char *)(head[i] ? head[i] : repo);
    if ( json_object_size(want) > LOG_MAX_ARGS )
        av[i++] = "--all";
    else
        json_object_foreach(want, k, v)
            av[i++] = (char *)k;
    return av;
}

/* @out's lines (HASH US DATE US SUBJECT) of @want's commits, ranked. */
static void parse_log(char *out, json_t *want, json_t *commits)
{
    char *line, *save = NULL, *date, *subject;
    json_int_t rank = 0;

    for ( line = strtok_r(out, "\n", &save); line;
          line = strtok_r(NULL, "\n", &save), rank++ )
    {
        if ( (date = strchr(line, '\x1f')) == NULL ||
             (subject = strchr(date + 1, '\x1f')) == NULL )
            continue;
        *date++ = '\0';
        *subject++ = '\0';
        if ( json_object_get(want, line) )
            json_object_set_new(commits, line,
                                json_pack("{s:I, s:s, s:s}", "rank", rank,
                                          "date", date, "subject", subject));
    }
}

/* Every recorded commit git may be asked about, as @want's keys. */
static int recorded(struct hvb_hdb *h, json_t *want)
{
    struct hvb_sql_stmt *st = hvb_sql_prepare(
        h->db, "SELECT DISTINCT commit_hash FROM runs WHERE commit_hash IS "
               "NOT NULL");

    if ( st == NULL )
        return -EIO;
    while ( hvb_sql_step(st) == HVB_SQL_ROW )
        if ( hex_name(hvb_sql_text(st, 0)) )
            json_object_set_new(want, hvb_sql_text(st, 0), json_true());
    hvb_sql_finalize(st);
    return 0;
}

json_t *hvb_hcommits_load(struct hvb_hdb *h, const char *repo, char *err,
                          size_t len)
{
    json_t *want = json_object(), *commits = json_object();
    struct hvb_exec c = {.path_search = true,
                         .capture_err = true,
                         .timeout_s = LOG_TIMEOUT_S,
                         .max_out = LOG_MAX_OUT};
    int rc = 0;

    if ( want == NULL || commits == NULL || recorded(h, want) )
    {
        snprintf(err, len, "%s: %s", h->path, hvb_sql_errmsg(h->db));
        rc = -EIO;
    }
    else if ( repo != NULL && json_object_size(want) > 0 )
    {
        c.argv = log_argv(repo, want);
        rc = c.argv ? hvb_exec_run(&c) : -ENOMEM;
        if ( rc == 0 )
            parse_log(c.out, want, commits);
        else
        {
            hvb_exec_error(&c, rc, err, len);
            fprintf(stderr,
                    "hvbench: history: warning: %s (in %s): the points "
                    "stay in the order recorded\n",
                    err, repo);
            rc = 0;
        }
        free((void *)c.argv);
        hvb_exec_free(&c);
    }
    json_decref(want);
    if ( rc )
    {
        json_decref(commits);
        return NULL;
    }
    return commits;
}

static int by_rank(const void *a, const void *b)
{
    const long long *x = a, *y = b; /* {rank, run, index} */

    if ( x[0] != y[0] )
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/*
 * The order that puts @n points (point i of commit @commit(i) and run
 * @run(i)) in commit order: keys {rank, run, index} sorted, malloc'd;
 * NULL where @commits lacks one of them (or out of memory).
 */
static long long (*commit_order(size_t n, json_t *commits,
                                const char *(*commit)(void *, size_t),
                                long long (*run)(void *, size_t), void *arg))[3]
{
    long long(*key)[3] = calloc(n + 1, sizeof(*key));
    json_t *c;
    size_t i;

    for ( i = 0; key != NULL && i < n; i++ )
    {
        const char *h = commit(arg, i);

        if ( (c = h ? json_object_get(commits, h) : NULL) == NULL )
        {
            free(key);
            return NULL;
        }
        key[i][0] = json_integer_value(json_object_get(c, "rank"));
        key[i][1] = run(arg, i);
        key[i][2] = (long long)i;
    }
    if ( key != NULL )
        qsort(key, n, sizeof(*key), by_rank);
    return key;
}

static const char *json_commit(void *a, size_t i)
{
    return json_string_value(json_object_get(json_array_get(a, i), "commit"));
}

static long long json_run(void *a, size_t i)
{
    return json_integer_value(json_object_get(json_array_get(a, i), "run"));
}

void hvb_hseries_order(json_t *s, json_t *commits)
{
    json_t *pts = json_object_get(s, "points"), *sorted;
    size_t n = json_array_size(pts), i;
    long long(*key)[3] = commit_order(n, commits, json_commit, json_run, pts);

    json_object_set_new(s, "order", json_string(key ? "commits" : "recorded"));
    if ( key != NULL && n > 1 && (sorted = json_array()) != NULL )
    {
        for ( i = 0; i < n; i++ )
            json_array_append(sorted, json_array_get(pts, key[i][2]));
        json_object_set_new(s, "points", sorted);
    }
    free(key);
}

static const char *hp_commit(void *a, size_t i)
{
    return ((const struct hvb_hpoint *)a)[i].commit;
}

static long long hp_run(void *a, size_t i)
{
    return ((const struct hvb_hpoint *)a)[i].run;
}

bool hvb_hpoints_order(struct hvb_hpoint *p, size_t n, json_t *commits)
{
    long long(*key)[3] = commit_order(n, commits, hp_commit, hp_run, p);
    struct hvb_hpoint *copy = key ? malloc((n + 1) * sizeof(*p)) : NULL;
    size_t i;

    if ( copy != NULL )
    {
        memcpy(copy, p, n * sizeof(*p));
        for ( i = 0; i < n; i++ )
            p[i] = copy[key[i][2]];
    }
    free(copy);
    free(key);
    return copy != NULL;
}
