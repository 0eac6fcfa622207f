/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The review's lock table delta: the cells of a line that take model
 * locks, run under "lockstat" by both builds in alternating rounds (AB
 * BA), each lock matched across the builds by class, kind and the
 * function that takes it (line numbers move between builds), its figures
 * per operation averaged over the rounds, and the locks ranked by the
 * change of their wait per op.
 *
 * Example: lookup with --threads 2 and rwlock-ref, head's read side
 * holding the lock longer, would read
 *   domlist_lock (read) rwlock_ref_lock  acq/op 1 -> 1, contended 45% ->
 *   60%, wait 58 -> 90 ns/op
 * with each build's range over the rounds beside the mean.  A base built
 * before lockstat had per-op figures gives wait per acquisition instead,
 * and the table says so.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

#define TOP_LOCKS 10

struct locks_acc {
    json_t *cells; /* {"CELL": {"LOCK KEY": [side] {"FIGURE": [rounds]}}} */
};

static void push(json_t *o, const char *key, double v)
{
    json_t *a = json_object_get(o, key);

    if ( a == NULL )
    {
        a = json_array();
        json_object_set_new(o, key, a);
    }
    json_array_append_new(a, json_real(v));
}

/* One lockstat row's figures into @side: per op where the run has them. */
static void add_row(json_t *side, json_t *row)
{
    double acq = json_number_value(json_object_get(row, "acquisitions"));
    double cont = json_number_value(json_object_get(row, "contended"));
    double wait = json_number_value(json_object_get(row, "wait_ns_total"));
    json_t *w = json_object_get(row, "wait_ns_per_op");

    push(side, "contended_pct", acq > 0 ? 100.0 * cont / acq : 0);
    push(side, "wait_ns_per_acq", acq > 0 ? wait / acq : 0);
    if ( json_is_number(w) )
    {
        push(side, "wait_ns_per_op", json_number_value(w));
        push(side, "acquisitions_per_op",
             json_number_value(json_object_get(row, "acquisitions_per_op")));
        push(side, "hold_ns_per_op",
             json_number_value(json_object_get(row, "hold_ns_per_op")));
    }
}

static int merge_round(void *ctx, unsigned int k, unsigned int r,
                       const char *out, char *err, size_t len)
{
    struct locks_acc *la = ctx;
    json_t *doc, *cell, *row, *cells = hvb_review_cells(out, &doc, err, len);
    size_t i, j;
    char key[512];

    (void)r;
    if ( doc == NULL )
        return -EINVAL;
    json_array_foreach(cells, i, cell)
    {
        const char *name = json_string_value(json_object_get(cell, "name"));
        json_t *locks, *sides;

        json_array_foreach(json_object_get(cell, "lockstat"), j, row)
        {
            if ( name == NULL )
                break;
            locks = json_object_get(la->cells, name);
            if ( locks == NULL )
            {
                locks = json_object();
                json_object_set_new(la->cells, name, locks);
            }
            snprintf(key, sizeof(key), "%s (%s) %s",
                     json_string_value(json_object_get(row, "class")),
                     json_string_value(json_object_get(row, "kind")),
                     json_string_value(json_object_get(row, "function")));
            sides = json_object_get(locks, key);
            if ( sides == NULL )
            {
                sides = json_pack("[{}, {}]");
                json_object_set_new(locks, key, sides);
            }
            add_row(json_array_get(sides, k), row);
        }
    }
    json_decref(doc);
    return 0;
}

static double mean(json_t *a)
{
    double s = 0;
    size_t i;
    json_t *v;

    json_array_foreach(a, i, v)
        s += json_number_value(v);
    return json_array_size(a) ? s / (double)json_array_size(a) : NAN;
}

static int by_delta(const void *x, const void *y)
{
    double a =
        fabs(json_number_value(json_object_get(*(json_t *const *)x, "delta")));
    double b =
        fabs(json_number_value(json_object_get(*(json_t *const *)y, "delta")));

    return a < b ? 1 : a > b ? -1 : 0;
}

/* Cell @locks's table: per lock both sides' means and rounds, ranked. */
static json_t *table(json_t *locks, bool *per_op)
{
    json_t **tab = calloc(json_object_size(locks) + 1, sizeof(*tab));
    json_t *rows = json_array(), *sides, *b, *h;
    const char *key, *unit;
    size_t n = 0, i;

    *per_op = true;
    json_object_foreach(locks, key, sides)
        if ( json_object_get(json_array_get(sides, 0), "wait_ns_per_op") ==
                 NULL ||
             json_object_get(json_array_get(sides, 1), "wait_ns_per_op") ==
                 NULL )
            *per_op = false;
    unit = *per_op ? "wait_ns_per_op" : "wait_ns_per_acq";
    json_object_foreach(locks, key, sides)
    {
        double wb, wh;

        if ( tab == NULL )
            break;
        b = json_array_get(sides, 0);
        h = json_array_get(sides, 1);
        wb = mean(json_object_get(b, unit));
        wh = mean(json_object_get(h, unit));
        tab[n] =
            json_pack("{s:s, s:O, s:O}", "lock", key, "base", b, "head", h);
        if ( tab[n] == NULL )
            continue;
        json_object_set_new(tab[n++], "delta",
                            isnan(wb) || isnan(wh) ? json_null()
                                                   : json_real(wh - wb));
    }
    if ( tab != NULL )
        qsort(tab, n, sizeof(*tab), by_delta);
    for ( i = 0; i < n; i++ )
    {
        if ( i < TOP_LOCKS )
            json_array_append(rows, tab[i]);
        json_decref(tab[i]);
    }
    free(tab);
    return rows;
}

int hvb_review_locks(struct review *rv, size_t l, char *err, size_t len)
{
    char *extra[] = {"--repetitions",          "1",  "--min-time",
                     (char *)rv->o.flame_time, "-q", NULL};
    struct locks_acc la = {json_object()};
    json_t *locks;
    const char *name;
    bool per_op;
    int rc;

    rc = hvb_review_alternate(rv, l, "locks", "lockstat", extra,
                              rv->o.lock_rounds, merge_round, &la, err, len);
    json_object_foreach(la.cells, name, locks)
    {
        if ( rc )
            break;
        json_t *rows = table(locks, &per_op);

        json_object_set_new(
            rv->locks, name,
            json_pack("{s:i, s:s, s:o}", "rounds", rv->o.lock_rounds, "by",
                      per_op ? "wait_ns_per_op" : "wait_ns_per_acq", "rows",
                      rows));
    }
    json_decref(la.cells);
    return rc;
}
