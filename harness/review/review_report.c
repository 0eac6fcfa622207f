/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a review leaves (private.h): review.json (both commits by their
 * full hashes, the build options, every cell's verdict per metric and
 * its figures, the function rows), review.md (a comment for a pull
 * request or a mailing list), index.html (the same as one page), and
 * the table on stdout.  Cells are gathered across the gates by name:
 * one row per cell, one column per metric.
 *
 * E.g. one cell, two metrics:
 *   lookup/domlookup=rcu-ref/threads:1  time +1.2% [+0.8, +1.6]
 *   regressed | sim_instructions +3.2% [+3.2, +3.2] regressed
 * and under it the functions whose instructions per op changed most.
 * Flagged: time DIFFERENT while instructions SAME ("time moved,
 * instructions did not: code layout, cache or branch effects").
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/cmdline.h>
#include <hvb/outfile.h>

#include "private.h"

#define TOP_FUNCTIONS 10

static void lock_rows(FILE *f, json_t *lk, bool html);
static void flame_rows(FILE *f, json_t *fl, bool html);

/* The verdict of @cell (a gate's cell object). */
static const char *verdict(json_t *cell)
{
    const char *v = json_string_value(json_object_get(cell, "verdict"));

    return v ? v : "unknown";
}

/* Every cell's verdicts by metric: {"CELL": {"line", "by": {M: cell}}}. */
static json_t *by_cell(const struct review *rv, json_t **order)
{
    json_t *all = json_object(), *gate, *cell, *row;
    size_t g, i;

    *order = json_array();
    json_array_foreach(rv->gates, g, gate)
    {
        const char *m = json_string_value(
            json_object_get(json_object_get(gate, "gate"), "metric"));

        json_array_foreach(json_object_get(gate, "cells"), i, cell)
        {
            const char *name = json_string_value(json_object_get(cell, "name"));

            if ( name == NULL || m == NULL )
                continue;
            row = json_object_get(all, name);
            if ( row == NULL )
            {
                row = json_pack("{s:O, s:{}}", "line",
                                json_object_get(gate, "line"), "by");
                json_object_set_new(all, name, row);
                json_array_append_new(*order, json_string(name));
            }
            json_object_set(json_object_get(row, "by"), m, cell);
        }
    }
    return all;
}

/* The flags of a cell's verdicts @by that the numbers alone would hide. */
static json_t *flags(json_t *by)
{
    json_t *f = json_array(), *t = json_object_get(by, "time"),
           *s = json_object_get(by, "sim_instructions");
    bool td = t && (!strcmp(verdict(t), "regressed") ||
                    !strcmp(verdict(t), "improved"));
    bool sd = s && (!strcmp(verdict(s), "regressed") ||
                    !strcmp(verdict(s), "improved"));

    if ( td && s != NULL && !strcmp(verdict(s), "same") )
        json_array_append_new(f, json_string("time moved, instructions did "
                                             "not: code layout, cache or "
                                             "branch effects"));
    if ( sd && t != NULL && !strcmp(verdict(t), "same") )
        json_array_append_new(f, json_string("instructions moved, time did "
                                             "not"));
    return f;
}

/* "+1.23% [+0.80, +1.61]" of @cell into @buf. */
static const char *figure(json_t *cell, char *buf, size_t len)
{
    double r = json_number_value(json_object_get(cell, "ratio"));
    json_t *ci = json_object_get(cell, "ci");
    double lo = json_number_value(json_array_get(ci, 0));
    double hi = json_number_value(json_array_get(ci, 1));

    if ( !(r > 0) )
        snprintf(buf, len, "?");
    else
        snprintf(buf, len, "%+.2f%% [%+.2f, %+.2f]", (r - 1) * 100,
                 (lo - 1) * 100, (hi - 1) * 100);
    return buf;
}

/* The review's verdict and exit status over every cell. */
static const char *overall(json_t *cells, int *status)
{
    bool reg = false, unk = false, imp = false;
    json_t *row, *c;
    const char *name, *m;

    json_object_foreach(cells, name, row)
        json_object_foreach(json_object_get(row, "by"), m, c)
        {
            reg |= !strcmp(verdict(c), "regressed");
            unk |= !strcmp(verdict(c), "unknown");
            imp |= !strcmp(verdict(c), "improved");
        }
    *status = reg ? HVB_EXIT_REGRESSION : unk ? HVB_EXIT_UNSTABLE : 0;
    return reg ? "regressed" : unk ? "unknown" : imp ? "improved" : "same";
}

static json_t *side_json(const struct review *rv, int k)
{
    const struct hvb_build *b = &rv->builds[k];
    json_t *o = hvb_rev_json(&rv->revs[k]),
           *gate = json_array_get(rv->gates, 0);

    json_object_set_new(o, "build",
                        json_pack("{s:s, s:s, s:b, s:f}", "key", b->key, "dir",
                                  b->dir, "cached", b->cached, "build_s",
                                  b->build_s));
    json_object_set(o, "hvbench", json_object_get(gate, k ? "new" : "base"));
    return o;
}

static json_t *review_json(const struct review *rv, json_t *cells,
                           json_t *order, const char *v, int status)
{
    json_t *doc, *opts = json_array(), *lines = json_array(),
                 *ms = json_array(), *list = json_array(), *name;
    size_t i;

    for ( i = 0; i < rv->cache.nr_defs; i++ )
        json_array_append_new(opts, json_string(rv->cache.defs[i]));
    for ( i = 0; i < rv->nr_lines; i++ )
        json_array_append_new(lines, json_string(rv->lines[i].text));
    for ( i = 0; i < rv->nr_metrics; i++ )
        json_array_append_new(ms, json_string(rv->metrics[i]));
    json_array_foreach(order, i, name)
    {
        const char *n = json_string_value(name);
        json_t *row = json_object_get(cells, n);
        json_t *fn = json_object_get(rv->explain, n);

        json_array_append_new(
            list, json_pack("{s:s, s:O, s:O, s:o, s:O?, s:O?, s:O?, s:O?}",
                            "name", n, "line", json_object_get(row, "line"),
                            "verdicts", json_object_get(row, "by"), "flags",
                            flags(json_object_get(row, "by")), "functions", fn,
                            "callgrind_ir_per_op",
                            json_object_get(rv->explain_totals, n), "flame",
                            json_object_get(rv->flames, n), "locks",
                            json_object_get(rv->locks, n)));
    }
    doc = json_pack("{s:{s:i, s:o, s:o, s:o, s:o, s:o, s:{s:f, s:I}}, s:o, "
                    "s:O, s:s, s:i}",
                    "review", "schema", 1, "base", side_json(rv, 0), "head",
                    side_json(rv, 1), "options", opts, "suite", lines,
                    "metrics", ms, "fdr", "q", 0.05, "verdicts",
                    (json_int_t)rv->nr_verdicts, "cells", list, "gates",
                    rv->gates, "verdict", v, "exit", status);
    json_object_set(doc, "not_explained", rv->explain_skipped);
    json_object_set_new(doc, "paired_by",
                        json_string(rv->by_runs ? "runs" : "workers"));
    return doc;
}

/*
 * What to say when no function moved: the callgrind runs' totals, so that
 * a gate's change the explanation did not reproduce shows as such.
 */
static void no_fn_change(char *buf, size_t len, json_t *tot)
{
    double b = json_number_value(json_object_get(tot, "base_ir_per_op"));
    double h = json_number_value(json_object_get(tot, "head_ir_per_op"));

    if ( tot == NULL || !(b > 0) )
        snprintf(buf, len, "No function's instructions per op changed.");
    else
        snprintf(buf, len,
                 "No function's instructions per op changed by %g or more; "
                 "the callgrind runs counted %.2f (base) and %.2f (head) "
                 "Ir/op in all (%+.2f%%).",
                 HVB_REVIEW_MIN_DELTA_IR, b, h, 100.0 * (h / b - 1));
}

/* "min-max" of the per-round values @a ("-" when there are none). */
static const char *spread(json_t *a, char *buf, size_t len)
{
    double lo = INFINITY, hi = -INFINITY, v;
    size_t i;
    json_t *x;

    json_array_foreach(a, i, x)
    {
        v = json_number_value(x);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if ( json_array_size(a) == 0 )
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.3g-%.3g", lo, hi);
    return buf;
}

static double mean_of(json_t *a)
{
    double s = 0;
    size_t i;
    json_t *x;

    json_array_foreach(a, i, x)
        s += json_number_value(x);
    return json_array_size(a) ? s / (double)json_array_size(a) : 0;
}

/*
 * Where both sim_cycles and hardware cycles were gated (a PMU): how far
 * the estimate is from the counted cycles, per cell and build.
 */
/*
 * @s as a GitHub/GitLab markdown code span, the only place a commit
 * subject, a revision or a name from the user is safe in a comment: no
 * raw HTML, no mention, no link, no emphasis renders there.  The fence
 * is one backtick longer than the longest run in @s; control characters
 * and newlines become spaces; in a table (@cell) '|' is escaped as GFM
 * asks, also inside a code span.
 */
static void md_code(FILE *f, const char *s, bool cell)
{
    size_t run = 0, most = 0, i;
    const char *p;

    s = s ? s : "";
    for ( p = s; *p; p++ )
    {
        run = *p == '`' ? run + 1 : 0;
        most = run > most ? run : most;
    }
    for ( i = 0; i <= most; i++ )
        fputc('`', f);
    fputc(' ', f);
    for ( p = s; *p; p++ )
    {
        if ( cell && *p == '|' )
            fputc('\\', f);
        fputc((unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p, f);
    }
    fputc(' ', f);
    for ( i = 0; i <= most; i++ )
        fputc('`', f);
}

static void md_estimate(FILE *f, json_t *cells, json_t *order)
{
    json_t *name, *row, *sc, *hc;
    size_t i;
    bool any = false;

    json_array_foreach(order, i, name)
    {
        row = json_object_get(json_object_get(cells, json_string_value(name)),
                              "by");
        sc = json_object_get(row, "sim_cycles");
        hc = json_object_get(row, "cycles");
        if ( sc == NULL || hc == NULL ||
             !(json_number_value(json_object_get(hc, "base")) > 0) ||
             !(json_number_value(json_object_get(hc, "new")) > 0) )
            continue;
        if ( !any )
            fputs("\nsim_cycles (the estimate) over hardware cycles:\n\n"
                  "| cell | base | head |\n|---|---:|---:|\n",
                  f);
        any = true;
        fputs("| ", f);
        md_code(f, json_string_value(name), true);
        fprintf(f, " | %.3f | %.3f |\n",
                json_number_value(json_object_get(sc, "base")) /
                    json_number_value(json_object_get(hc, "base")),
                json_number_value(json_object_get(sc, "new")) /
                    json_number_value(json_object_get(hc, "new")));
    }
}

/* One function table (markdown) of @fns, the TOP_FUNCTIONS first. */
static void md_functions(FILE *f, json_t *fns, json_t *tot)
{
    char none[256];

    json_t *r;
    size_t i;

    if ( json_object_get(fns, "error") != NULL )
    {
        fprintf(f, "\nNo instruction diff: %s\n",
                json_string_value(json_object_get(fns, "error")));
        return;
    }
    if ( json_array_size(fns) == 0 )
    {
        no_fn_change(none, sizeof(none), tot);
        fprintf(f, "\n%s\n", none);
        return;
    }
    fputs("\n| function | file | base Ir/op | head Ir/op | change |\n"
          "|---|---|---:|---:|---:|\n",
          f);
    json_array_foreach(fns, i, r)
    {
        double b = json_number_value(json_object_get(r, "base_ir_per_op"));
        double h = json_number_value(json_object_get(r, "head_ir_per_op"));

        if ( i == TOP_FUNCTIONS )
            break;
        fputs("| ", f);
        md_code(f, json_string_value(json_object_get(r, "function")), true);
        fputs(" | ", f);
        md_code(f, json_string_value(json_object_get(r, "file")), true);
        fprintf(f, " | %.2f | %.2f | %+.2f |\n", b, h, h - b);
    }
    hvb_review_md_lines(f, fns, HVB_REVIEW_LINE_FNS);
}

static void md_side(FILE *f, const struct review *rv, int k)
{
    const struct hvb_rev *r = &rv->revs[k];

    fprintf(f, "- %s: `%s` (", k ? "head" : "base", r->commit);
    md_code(f, r->spec, false);
    fprintf(f, ")%s: ", r->dirty ? ", **uncommitted changes included**" : "");
    md_code(f, r->subject, false);
    fputc('\n', f);
}

static void markdown(FILE *f, const struct review *rv, json_t *cells,
                     json_t *order, const char *v)
{
    char fig[96], logs[4200];
    json_t *name, *row, *c, *fl, *why;
    const char *key;
    size_t i, m, j;

    fprintf(f, "## hvbench review: %s\n\n", v);
    md_side(f, rv, 0);
    md_side(f, rv, 1);
    fprintf(f, "\n| cell |");
    for ( m = 0; m < rv->nr_metrics; m++ )
        fprintf(f, " %s |", rv->metrics[m]);
    fprintf(f, "\n|---|");
    for ( m = 0; m < rv->nr_metrics; m++ )
        fputs("---|", f);
    fputc('\n', f);
    json_array_foreach(order, i, name)
    {
        row = json_object_get(cells, json_string_value(name));
        fputs("| ", f);
        md_code(f, json_string_value(name), true);
        fputs(" |", f);
        for ( m = 0; m < rv->nr_metrics; m++ )
        {
            c = json_object_get(json_object_get(row, "by"), rv->metrics[m]);
            if ( c == NULL )
                fputs(" - |", f);
            else
                fprintf(f, " %s%s%s %s |",
                        strcmp(verdict(c), "same") ? "**" : "", verdict(c),
                        strcmp(verdict(c), "same") ? "**" : "",
                        figure(c, fig, sizeof(fig)));
        }
        fputc('\n', f);
    }
    fputs("\nNEW/BASE per cell: the two builds' ratio over paired rounds, "
          "one vote per process pair (the Hodges-Lehmann estimate of the "
          "pairs' median ratios; sim_ metrics, one pair: the median of its "
          "rounds), and its CI at each look's level (5% over all the looks "
          "together); SAME inside the threshold, regressed/improved outside "
          "it, unknown when the budget ended first (docs/gating.md).\n",
          f);
    md_estimate(f, cells, order);
    json_array_foreach(order, i, name)
    {
        const char *n = json_string_value(name);
        json_t *fns = json_object_get(rv->explain, n);
        json_t *fg = json_object_get(rv->flames, n);
        json_t *lk = json_object_get(rv->locks, n);

        row = json_object_get(cells, n);
        fl = flags(json_object_get(row, "by"));
        if ( fns == NULL && fg == NULL && lk == NULL &&
             json_array_size(fl) == 0 )
        {
            json_decref(fl);
            continue;
        }
        fputs("\n### ", f);
        md_code(f, n, false);
        fputc('\n', f);
        json_array_foreach(fl, j, c)
            fprintf(f, "\n> %s\n", json_string_value(c));
        json_decref(fl);
        if ( fg != NULL )
            flame_rows(f, fg, false);
        if ( lk != NULL )
            lock_rows(f, lk, false);
        if ( fns != NULL )
            md_functions(f, fns, json_object_get(rv->explain_totals, n));
    }
    json_object_foreach(rv->explain_skipped, key, why)
    {
        fputs("\nNo instruction diff for ", f);
        md_code(f, key, false);
        fprintf(f, ": %s.\n", json_string_value(why));
    }
    if ( rv->by_runs )
        fputs("\nA build predates the two-build worker: both builds were "
              "paired by whole run processes, one per sample (gate "
              "--base-runs), so the CIs are wider.\n",
              f);
    fprintf(f,
            "\nBuilt with %zu CMake option(s) (review.json has them); "
            "gate logs in ",
            rv->cache.nr_defs);
    snprintf(logs, sizeof(logs), "%s/gates/", rv->o.out);
    md_code(f, logs, false);
    fputs(".\n", f);
}

/* @s with <, >, & escaped. */
static void html_text(FILE *f, const char *s)
{
    for ( ; s != NULL && *s != '\0'; s++ )
        if ( *s == '<' )
            fputs("&lt;", f);
        else if ( *s == '>' )
            fputs("&gt;", f);
        else if ( *s == '&' )
            fputs("&amp;", f);
        else
            fputc(*s, f);
}

static const char *verdict_class(const char *v)
{
    return !strcmp(v, "regressed")  ? "reg"
           : !strcmp(v, "improved") ? "imp"
           : !strcmp(v, "same")     ? "same"
                                    : "unk";
}

static void html_side(FILE *f, const struct review *rv, int k)
{
    const struct hvb_rev *r = &rv->revs[k];

    fprintf(f, "<tr><th>%s</th><td><code>%s</code>%s</td><td>",
            k ? "head" : "base", r->commit,
            r->dirty ? " + uncommitted changes" : "");
    html_text(f, r->spec);
    fputs("</td><td>", f);
    html_text(f, r->subject);
    fprintf(f, "</td><td>%s</td></tr>\n",
            rv->builds[k].cached ? "found in the cache" : "built");
}

static void html_functions(FILE *f, json_t *fns, json_t *tot)
{
    char none[256];

    json_t *r;
    size_t i;

    if ( !json_is_array(fns) || json_array_size(fns) == 0 )
    {
        no_fn_change(none, sizeof(none), tot);
        fputs("<p>", f);
        html_text(f, none);
        fputs("</p>\n", f);
        return;
    }
    fputs("<table><tr><th>function</th><th>file</th><th>base Ir/op</th>"
          "<th>head Ir/op</th><th>change</th></tr>\n",
          f);
    json_array_foreach(fns, i, r)
    {
        double b = json_number_value(json_object_get(r, "base_ir_per_op"));
        double h = json_number_value(json_object_get(r, "head_ir_per_op"));

        fputs("<tr><td><code>", f);
        html_text(f, json_string_value(json_object_get(r, "function")));
        fputs("</code></td><td>", f);
        html_text(f, json_string_value(json_object_get(r, "file")));
        fprintf(f,
                "</td><td>%.2f</td><td>%.2f</td><td class=\"%s\">%+.2f"
                "</td></tr>\n",
                b, h, h > b ? "reg" : "imp", h - b);
    }
    fputs("</table>\n", f);
    hvb_review_html_lines(f, fns, TOP_FUNCTIONS);
}

/* "mean (min-max)" of figure @key of lock side @side, or "-". */
static const char *lock_fig(json_t *side, const char *key, char *buf,
                            size_t len)
{
    char r[64];
    json_t *a = json_object_get(side, key);

    if ( json_array_size(a) == 0 )
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.3g (%s)", mean_of(a), spread(a, r, sizeof(r)));
    return buf;
}

/* A cell's lock table delta, as markdown (@html false) or HTML rows. */
static void lock_rows(FILE *f, json_t *lk, bool html)
{
    const char *by = json_string_value(json_object_get(lk, "by"));
    const char *unit =
        strcmp(by, "wait_ns_per_op") ? "wait ns/acquisition" : "wait ns/op";
    char a[96], b[96], c[96], d[96], e[96], g[96];
    json_t *r;
    size_t i;

    fprintf(f,
            html ? "<p>Lock table delta, %d alternating rounds per build "
                   "(lockstat; each build's mean, its rounds' range):</p>\n"
                   "<table><tr><th>lock (kind) taken in</th><th>acq/op base"
                   "</th><th>head</th><th>contended %% base</th><th>head</th>"
                   "<th>%s base</th><th>head</th></tr>\n"
                 : "\nLock table delta, %d alternating rounds per build "
                   "(lockstat; each build's mean, its rounds' range):\n\n"
                   "| lock (kind) taken in | acq/op base | head | contended %% "
                   "base | head | %s base | head |\n"
                   "|---|---:|---:|---:|---:|---:|---:|\n",
            (int)json_integer_value(json_object_get(lk, "rounds")), unit);
    json_array_foreach(json_object_get(lk, "rows"), i, r)
    {
        json_t *x = json_object_get(r, "base"), *y = json_object_get(r, "head");

        lock_fig(x, "acquisitions_per_op", a, sizeof(a));
        lock_fig(y, "acquisitions_per_op", b, sizeof(b));
        lock_fig(x, "contended_pct", c, sizeof(c));
        lock_fig(y, "contended_pct", d, sizeof(d));
        lock_fig(x, by, e, sizeof(e));
        lock_fig(y, by, g, sizeof(g));
        if ( html )
        {
            fputs("<tr><td><code>", f);
            html_text(f, json_string_value(json_object_get(r, "lock")));
            fprintf(f,
                    "</code></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                    "<td>%s</td><td>%s</td></tr>\n",
                    a, b, c, d, e, g);
        }
        else
        {
            fputs("| ", f);
            md_code(f, json_string_value(json_object_get(r, "lock")), true);
            fprintf(f, " | %s | %s | %s | %s | %s | %s |\n", a, b, c, d, e, g);
        }
    }
    if ( html )
        fputs("</table>\n", f);
}

/*
 * The flame graphs of a cell: links (in HTML the "after" graph inline),
 * then the self-time table, as markdown (@html false) or HTML.
 */
static void flame_rows(FILE *f, json_t *fl, bool html)
{
    char b[64], h[64], fn[512];
    json_t *cpu = json_object_get(fl, "cpu_ns_per_op"), *r;
    const char *after = json_string_value(json_object_get(fl, "after_svg"));
    const char *before = json_string_value(json_object_get(fl, "before_svg"));
    const char *table = json_string_value(json_object_get(fl, "table"));
    size_t i;

    fprintf(f,
            html ? "<p>Differential flame graph, %d interleaved rounds per "
                   "build (CPU ns/op %.4g -&gt; %.4g; red grew, blue shrank; "
                   "<a href=\"%s\">before</a> shows what vanished, "
                   "<a href=\"%s\">every function</a>):</p>\n<object "
                   "type=\"image/svg+xml\" data=\"%s\" "
                   "style=\"width:100%%\"></object>\n<table><tr><th>function"
                   "</th><th>self CPU ns/op base (rounds)</th><th>head "
                   "(rounds)</th><th>change</th></tr>\n"
                 : "\nDifferential flame graph, %d interleaved rounds per "
                   "build (CPU ns/op %.4g -> %.4g): [before](%s) (what "
                   "vanished), [every function](%s), [after](%s) (red "
                   "grew).\n\n| function | self CPU ns/op base (rounds) | "
                   "head (rounds) | change |\n|---|---:|---:|---:|\n",
            (int)json_integer_value(json_object_get(fl, "rounds")),
            mean_of(json_array_get(cpu, 0)), mean_of(json_array_get(cpu, 1)),
            before, table, after);
    json_array_foreach(json_object_get(fl, "self"), i, r)
    {
        double d = json_number_value(json_object_get(r, "self_delta"));

        if ( i == TOP_FUNCTIONS )
            break;
        spread(json_object_get(r, "self_base_rounds"), b, sizeof(b));
        spread(json_object_get(r, "self_head_rounds"), h, sizeof(h));
        snprintf(fn, sizeof(fn), "%s",
                 json_string_value(json_object_get(r, "function")));
        if ( html )
        {
            fputs("<tr><td><code>", f);
            html_text(f, fn);
            fprintf(f,
                    "</code></td><td>%.3g (%s)</td><td>%.3g (%s)</td>"
                    "<td class=\"%s\">%+.3g</td></tr>\n",
                    json_number_value(json_object_get(r, "self_base")), b,
                    json_number_value(json_object_get(r, "self_head")), h,
                    d > 0 ? "reg" : "imp", d);
        }
        else
        {
            fputs("| ", f);
            md_code(f, fn, true);
            fprintf(f, " | %.3g (%s) | %.3g (%s) | %+.3g |\n",
                    json_number_value(json_object_get(r, "self_base")), b,
                    json_number_value(json_object_get(r, "self_head")), h, d);
        }
    }
    if ( html )
        fputs("</table>\n", f);
}

/* index.html: both revisions, the verdict table, the explanations. */
static void html(FILE *f, const struct review *rv, json_t *cells, json_t *order,
                 const char *v)
{
    char fig[96];
    json_t *name, *row, *c, *fl;
    size_t i, m, j;

    fprintf(f,
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            "<title>hvbench review: %s</title>\n<style>body{font-family:"
            "sans-serif;max-width:80em;margin:2em auto}table{border-"
            "collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
            "padding:.2em .6em;text-align:left}.reg{background:#fdd}"
            ".imp{background:#ddf}.same{background:#efe}.unk{background:"
            "#eee}</style></head><body>\n<h1>hvbench review: %s</h1>\n"
            "<table>\n",
            v, v);
    html_side(f, rv, 0);
    html_side(f, rv, 1);
    fputs("</table>\n<table><tr><th>cell</th>", f);
    for ( m = 0; m < rv->nr_metrics; m++ )
        fprintf(f, "<th>%s: HEAD/BASE [95%% CI]</th>", rv->metrics[m]);
    fputs("</tr>\n", f);
    json_array_foreach(order, i, name)
    {
        row = json_object_get(cells, json_string_value(name));
        fputs("<tr><td><code>", f);
        html_text(f, json_string_value(name));
        fputs("</code></td>", f);
        for ( m = 0; m < rv->nr_metrics; m++ )
        {
            c = json_object_get(json_object_get(row, "by"), rv->metrics[m]);
            if ( c == NULL )
                fputs("<td>-</td>", f);
            else
                fprintf(f, "<td class=\"%s\">%s %s</td>",
                        verdict_class(verdict(c)), verdict(c),
                        figure(c, fig, sizeof(fig)));
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    json_array_foreach(order, i, name)
    {
        const char *n = json_string_value(name);
        json_t *fns = json_object_get(rv->explain, n);
        json_t *fg = json_object_get(rv->flames, n);
        json_t *lk = json_object_get(rv->locks, n);

        fl = flags(json_object_get(json_object_get(cells, n), "by"));
        if ( fns != NULL || fg != NULL || lk != NULL ||
             json_array_size(fl) > 0 )
        {
            fputs("<h2><code>", f);
            html_text(f, n);
            fputs("</code></h2>\n", f);
            json_array_foreach(fl, j, c)
            {
                fputs("<p><b>", f);
                html_text(f, json_string_value(c));
                fputs("</b></p>\n", f);
            }
            if ( fg != NULL )
                flame_rows(f, fg, true);
            if ( lk != NULL )
                lock_rows(f, lk, true);
            if ( fns != NULL )
                html_functions(f, fns, json_object_get(rv->explain_totals, n));
        }
        json_decref(fl);
    }
    fputs("<p>Options:", f);
    for ( i = 0; i < rv->cache.nr_defs; i++ )
    {
        fputs(" <code>", f);
        html_text(f, rv->cache.defs[i]);
        fputs("</code>", f);
    }
    fputs(".  Files: <a href=\"review.json\">review.json</a>, <a href=\""
          "review.md\">review.md</a>, <a href=\"gates/\">gates/</a>.</p>\n"
          "</body></html>\n",
          f);
}

/*
 * Write @path through hvb/outfile.h (atomically): @doc as JSON, or the
 * page of @rv, or @text.  0 or the exit status.
 */
static int write_file(const char *path, const char *what, const char *text,
                      json_t *doc, const struct review *rv, json_t *cells,
                      json_t *order, const char *v)
{
    struct hvb_outfile o;
    char err[768];

    if ( hvb_outfile_open(&o, path, what, err, sizeof(err)) )
        return hvb_usage_error("%s", err);
    if ( doc != NULL )
        json_dumpf(doc, o.f, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    else if ( rv != NULL )
        html(o.f, rv, cells, order, v);
    else
        fputs(text, o.f);
    if ( hvb_outfile_commit(&o, err, sizeof(err)) )
        return hvb_usage_error("%s", err);
    return 0;
}

static void console(const struct review *rv, json_t *cells, json_t *order,
                    const char *v, int status)
{
    char fig[96];
    json_t *name, *row, *c;
    size_t i, m;

    json_array_foreach(order, i, name)
    {
        row = json_object_get(cells, json_string_value(name));
        printf("%s\n", json_string_value(name));
        for ( m = 0; m < rv->nr_metrics; m++ )
        {
            c = json_object_get(json_object_get(row, "by"), rv->metrics[m]);
            if ( c != NULL )
                printf("  %-18s %-10s %s\n", rv->metrics[m], verdict(c),
                       figure(c, fig, sizeof(fig)));
        }
    }
    printf("review: %s (exit %d); %s/index.html, review.md, review.json\n", v,
           status, rv->o.out);
}

int hvb_review_report(struct review *rv)
{
    json_t *order, *cells = by_cell(rv, &order), *doc;
    char path[4200], *md = NULL;
    size_t mdlen = 0;
    const char *v;
    FILE *f;
    int status, rc;

    v = overall(cells, &status);
    f = open_memstream(&md, &mdlen);
    if ( f == NULL )
        return hvb_failure("out of memory");
    markdown(f, rv, cells, order, v);
    fclose(f);
    doc = review_json(rv, cells, order, v, status);
    snprintf(path, sizeof(path), "%s/review.json", rv->o.out);
    rc = write_file(path, "review", NULL, doc, NULL, NULL, NULL, NULL);
    snprintf(path, sizeof(path), "%s/review.md", rv->o.out);
    rc = rc ? rc
            : write_file(path, "markdown", md, NULL, NULL, NULL, NULL, NULL);
    if ( rc == 0 && rv->o.markdown != NULL )
        rc = write_file(rv->o.markdown, "markdown", md, NULL, NULL, NULL, NULL,
                        NULL);
    snprintf(path, sizeof(path), "%s/index.html", rv->o.out);
    rc = rc ? rc : write_file(path, "page", NULL, NULL, rv, cells, order, v);
    if ( rc == 0 )
        console(rv, cells, order, v, status);
    json_decref(doc);
    json_decref(cells);
    json_decref(order);
    free(md);
    return rc ? rc : status;
}
