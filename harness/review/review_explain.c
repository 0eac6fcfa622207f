/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cells that moved, explained: for each suite line with a cell the
 * gates called regressed or improved (or every cell, --explain all), a
 * differential flame graph of the two builds (review_flame.c), a lock
 * table delta (review_locks.c) and the per-function and per-line
 * instruction diff from callgrind (hvb/irdiff.h).
 *
 * Only the moved cells run: each step gets "--cell NAME[,NAME...]" when
 * both builds' run takes it (older builds run the whole line, slower,
 * the same figures).  E.g. the default suite's first line has 5 cells;
 * a patch that slows rcu-ref alone profiles, lock-tables and callgrinds
 *   lookup --plugin domlookup=rwlock-ref,...,urcu-ref --cell
 *       lookup/domlookup=rcu-ref/threads:1
 * a fifth of the line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/compiler.h>
#include <hv/strbuf.h>
#include <hvb/irdiff.h>
#include <hvb/matrix.h>

#include "private.h"

/* Is every cell of line @l one thread (callgrind's condition)? */
static bool one_thread(const struct review_line *l)
{
    size_t i;

    for ( i = 0; i + 1 < l->nr; i++ )
        if ( (strcmp(l->words[i], "--threads") == 0 ||
              strcmp(l->words[i], "-t") == 0) &&
             strcmp(l->words[i + 1], "1") != 0 )
            return false;
    return true;
}

static bool moved(json_t *cell)
{
    const char *v = json_string_value(json_object_get(cell, "verdict"));

    /* Changed: DIFFERENT.  An unknown cell waits for --explain all. */
    return v && (strcmp(v, "regressed") == 0 || strcmp(v, "improved") == 0);
}

size_t hvb_review_line_cells(const struct review *rv, size_t l)
{
    json_t *gate;
    size_t g;

    json_array_foreach(rv->gates, g, gate)
        if ( strcmp(json_string_value(json_object_get(gate, "line")),
                    rv->lines[l].text) == 0 )
            return json_array_size(json_object_get(gate, "cells"));
    return rv->eta.cells ? rv->eta.cells[l] : 0;
}

size_t hvb_review_moved(const struct review *rv, size_t l, struct hv_strbuf *b)
{
    json_t *gate, *cell;
    size_t g, i, n = 0;

    json_array_foreach(rv->gates, g, gate)
    {
        if ( strcmp(json_string_value(json_object_get(gate, "line")),
                    rv->lines[l].text) )
            continue;
        json_array_foreach(json_object_get(gate, "cells"), i, cell)
        {
            const char *name = json_string_value(json_object_get(cell, "name"));

            if ( name == NULL || hvb_matrix_listed(b->s, name) ||
                 (rv->o.explain != EXPLAIN_ALL && !moved(cell)) )
                continue;
            hv_strbuf_join(b, ",", "%s", name);
            n++;
        }
    }
    return n;
}

/* The function rows of cell @i of line @l's callgrind runs @dirs. */
static void explain_cell(struct review *rv, char *const dirs[2], size_t i,
                         const char *name)
{
    char *srcs[2], err[1024];
    struct hvb_fn_delta *rows = NULL;
    double tot[2];
    json_t *a = json_array();
    int n, k;

    for ( k = 0; k < 2; k++ )
        if ( asprintf(&srcs[k], "%s/src", rv->builds[k].dir) < 0 )
            srcs[k] = NULL;
    n = srcs[0] && srcs[1]
            ? hvb_irdiff_functions(dirs, srcs, i, &rows, tot, err, sizeof(err))
            : -ENOMEM;
    for ( k = 0; k < n; k++ )
        json_array_append_new(a, json_pack("{s:s, s:s, s:f, s:f}", "function",
                                           rows[k].name, "file", rows[k].file,
                                           "base_ir_per_op", rows[k].base,
                                           "head_ir_per_op", rows[k].head));
    if ( n > 0 && hvb_irdiff_fn_lines(dirs, srcs, i, a, err, sizeof(err)) )
        fprintf(stderr, "hvbench: review: warning: %s\n", err);
    if ( n < 0 )
    {
        json_decref(a);
        a = json_pack("{s:s}", "error", err);
    }
    else
        json_object_set_new(rv->explain_totals, name,
                            json_pack("{s:f, s:f}", "base_ir_per_op", tot[0],
                                      "head_ir_per_op", tot[1]));
    json_object_set_new(rv->explain, name, a);
    free(rows);
    free(srcs[0]);
    free(srcs[1]);
}

/* Line @l's words, and "--cell CELLS" when only some run (malloc'd). */
static char **line_words(const struct review *rv, size_t l, size_t *nr)
{
    const struct review_line *ln = &rv->lines[l];
    char **w = calloc(ln->nr + 3, sizeof(*w));

    *nr = 0;
    if ( w == NULL )
        return NULL;
    memcpy(w, ln->words, ln->nr * sizeof(*w));
    *nr = ln->nr;
    if ( rv->cells != NULL )
    {
        w[(*nr)++] = "--cell";
        w[(*nr)++] = rv->cells;
    }
    return w;
}

/* What is explained of line @l: its moved cells, or the line. */
static const char *what_of(const struct review *rv, size_t l)
{
    return rv->cells ? rv->cells : rv->lines[l].text;
}

/* Line @l's per-function instruction diff, when it runs one thread. */
/*
 * Did every cell of line @l explained so far mostly wait (it got the
 * wall view)?  Under callgrind a waiting cell crawls: its threads run
 * one at a time, a busy holder's spin by the clock.
 */
static bool all_wait(const struct review *rv, size_t l)
{
    json_t *fl;
    const char *name;
    size_t n = 0;

    json_object_foreach(rv->flames, name, fl)
    {
        if ( (size_t)json_integer_value(json_object_get(fl, "line")) != l )
            continue;
        if ( json_number_value(json_object_get(fl, "on_cpu_share")) >=
                 REVIEW_ON_CPU_SHARE_MAX ||
             json_object_get(fl, "on_cpu_share") == NULL )
            return false;
        n++;
    }
    return n > 0;
}

static void explain_cg(struct review *rv, size_t l)
{
    char *dirs[2] = {NULL, NULL}, err[1024], **words;
    json_t *gate = NULL, *cell;
    size_t g, i, j = 0, nr;
    int k;

    if ( !one_thread(&rv->lines[l]) )
    {
        /* Said in the report, not silently skipped. */
        json_object_set_new(rv->explain_skipped, rv->lines[l].text,
                            json_string("more than one thread: callgrind "
                                        "runs one thread at a time (use "
                                        "--threads 1)"));
        return;
    }
    if ( all_wait(rv, l) )
    {
        json_object_set_new(rv->explain_skipped, rv->lines[l].text,
                            json_string("its threads mostly wait: an "
                                        "instruction count explains what "
                                        "runs (the wall and wait views "
                                        "explain the waits)"));
        return;
    }
    if ( !rv->o.quiet )
        fprintf(stderr, "hvbench: review: explaining %s (callgrind)\n",
                what_of(rv, l));
    words = line_words(rv, l, &nr);
    for ( k = 0; k < 2; k++ )
    {
        if ( words == NULL ||
             asprintf(&dirs[k], "%s/callgrind/%zu-%s", rv->o.out, l + 1,
                      k ? "head" : "base") < 0 )
            dirs[k] = NULL;
        if ( dirs[k] == NULL ||
             hvb_irdiff_callgrind(rv->builds[k].bin, words, nr, dirs[k], err,
                                  sizeof(err)) )
        {
            fprintf(stderr, "hvbench: review: warning: %s\n",
                    dirs[k] ? err : "out of memory");
            break;
        }
    }
    /* The cells of the line's first gate, in matrix order: those run. */
    json_array_foreach(rv->gates, g, gate)
        if ( strcmp(json_string_value(json_object_get(gate, "line")),
                    rv->lines[l].text) == 0 )
            break;
    json_array_foreach(json_object_get(gate, "cells"), i, cell)
    {
        const char *name = json_string_value(json_object_get(cell, "name"));

        if ( k < 2 || name == NULL ||
             (rv->cells != NULL && !hvb_matrix_listed(rv->cells, name)) )
            continue;
        explain_cell(rv, dirs, j++, name);
    }
    free(words);
    free(dirs[0]);
    free(dirs[1]);
}

/* One explanation of line @l in @rounds rounds by @fn, said as @what. */
static void explain_step(struct review *rv, size_t l, unsigned int rounds,
                         const char *what, const char *how,
                         int (*fn)(struct review *, size_t, char *, size_t))
{
    char err[1024];

    if ( rounds == 0 )
        return;
    if ( !rv->o.quiet )
        fprintf(stderr, "hvbench: review: %s %s (%u %s rounds per build)\n",
                what, what_of(rv, l), rounds, how);
    if ( fn(rv, l, err, sizeof(err)) )
        fprintf(stderr, "hvbench: review: warning: %s\n", err);
}

/* @fn of line @l (it says what it does), a failure a warning. */
static void warn(struct review *rv, size_t l,
                 int (*fn)(struct review *, size_t, char *, size_t))
{
    char err[1024];

    if ( fn(rv, l, err, sizeof(err)) )
        fprintf(stderr, "hvbench: review: warning: %s\n", err);
}

/* The seconds left to explain, from line @l on: @n[l] moved cells each. */
static double left_s(const struct review *rv, const size_t *n, size_t l)
{
    double left = 0;

    for ( ; l < rv->nr_lines; l++ )
        left += hvb_review_eta_scaled(
            rv, STEP_EXPLAIN, hvb_review_eta_model(rv, STEP_EXPLAIN, n[l]));
    return left;
}

/* Line @l's moved cells explained, "@cells" for --cell (NULL: all). */
static void explain_line(struct review *rv, size_t l, char *cells)
{
    rv->cells = cells;
    explain_step(rv, l, rv->o.flame_rounds, "profiling", "interleaved",
                 hvb_review_flame);
    if ( rv->o.flame_rounds > 0 )
        warn(rv, l, hvb_review_waits);
    explain_step(rv, l, rv->o.lock_rounds, "lock tables of", "alternating",
                 hvb_review_locks);
    explain_cg(rv, l);
    rv->cells = NULL;
}

void hvb_review_explain(struct review *rv)
{
    char cells[8192];
    struct hv_strbuf b;
    size_t l, *n = calloc(rv->nr_lines + 1, sizeof(*n));
    double t, model;

    rv->explain = json_object();
    rv->explain_totals = json_object();
    rv->explain_skipped = json_object();
    rv->flames = json_object();
    rv->locks = json_object();
    if ( n == NULL || rv->o.explain == EXPLAIN_NONE )
    {
        free(n);
        return;
    }
    for ( l = 0; l < rv->nr_lines; l++ )
    {
        hv_strbuf_init(&b, cells, sizeof(cells));
        n[l] = hvb_review_moved(rv, l, &b);
    }
    for ( l = 0; l < rv->nr_lines; l++ )
    {
        if ( n[l] == 0 )
            continue;
        hv_strbuf_init(&b, cells, sizeof(cells));
        hvb_review_moved(rv, l, &b);
        if ( !rv->o.quiet )
            fprintf(stderr,
                    "hvbench: review: explaining %zu cell(s) of %s, about "
                    "%.0f s left\n",
                    n[l], rv->lines[l].text, left_s(rv, n, l));
        t = hv_now_ns() * 1e-9;
        /* Every cell: the whole line (it is what older builds run too). */
        explain_line(rv, l,
                     rv->o.explain == EXPLAIN_ALL || !rv->cell_ok ||
                             hv_strbuf_cut(&b)
                         ? NULL
                         : cells);
        model = hvb_review_eta_model(rv, STEP_EXPLAIN, n[l]);
        hvb_review_eta_took(rv, STEP_EXPLAIN, model, hv_now_ns() * 1e-9 - t);
    }
    free(n);
}
