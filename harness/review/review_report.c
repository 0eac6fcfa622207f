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
#include <hvb/view.h>

#include "private.h"

#define TOP_FUNCTIONS 10
#define LINE_FNS      3 /* the functions of review.md with their lines */

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

/* review.json, its verdict and exit status set by the view's rule. */
static json_t *review_json(const struct review *rv, json_t *cells,
                           json_t *order)
{
    json_t *doc, *opts = json_array(), *lines = json_array(),
                 *ms = json_array(), *list = json_array(), *name,
                 *block = json_array();
    size_t i;

    for ( i = 0; i < rv->cache.nr_defs; i++ )
        json_array_append_new(opts, json_string(rv->cache.defs[i]));
    for ( i = 0; i < rv->nr_lines; i++ )
        json_array_append_new(lines, json_string(rv->lines[i].text));
    for ( i = 0; i < rv->nr_metrics; i++ )
    {
        json_array_append_new(ms, json_string(rv->metrics[i]));
        if ( rv->blocking[i] )
            json_array_append_new(block, json_string(rv->metrics[i]));
    }
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
    doc = json_pack("{s:{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:{s:f, "
                    "s:I}}, s:o, s:O}",
                    "review", "schema", 1, "base", side_json(rv, 0), "head",
                    side_json(rv, 1), "options", opts, "suite", lines,
                    "metrics", ms, "blocking", block, "out", rv->o.out, "fdr",
                    "q", 0.05, "verdicts", (json_int_t)rv->nr_verdicts, "cells",
                    list, "gates", rv->gates);
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
                 HVB_IRDIFF_MIN_DELTA_IR, b, h, 100.0 * (h / b - 1));
}

/*
 * Where both sim_cycles and hardware cycles were gated (a PMU): how far
 * the estimate is from the counted cycles, per cell and build.
 */
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
        hvb_view_md_code(f, json_string_value(name), true);
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
        hvb_view_md_code(f, json_string_value(json_object_get(r, "function")),
                         true);
        fputs(" | ", f);
        hvb_view_md_code(f, json_string_value(json_object_get(r, "file")),
                         true);
        fprintf(f, " | %.2f | %.2f | %+.2f |\n", b, h, h - b);
    }
    hvb_irdiff_md_lines(f, fns, LINE_FNS);
}

/*
 * Is cell @c of the view explained?  Only a cell that moved, or whose
 * flags say something, unless --explain all (docs/review.md).
 */
static bool explained(const struct review *rv, const struct hvb_view_cell *c)
{
    json_t *fns = json_object_get(rv->explain, c->name);
    json_t *fg = json_object_get(rv->flames, c->name);
    json_t *lk = json_object_get(rv->locks, c->name);

    if ( fns == NULL && fg == NULL && lk == NULL &&
         json_array_size(c->flags) == 0 )
        return false;
    return c->changed || json_array_size(c->flags) > 0 ||
           rv->o.explain == EXPLAIN_ALL;
}

/* review.md: the view's answer and table, then the cells explained. */
static void markdown(FILE *f, const struct review *rv, const struct hvb_view *v,
                     json_t *cells, json_t *order)
{
    char logs[4200];
    json_t *c, *why;
    const char *key;
    size_t i, j;

    hvb_view_markdown(f, v);
    md_estimate(f, cells, order);
    for ( i = 0; i < v->nr_cells; i++ )
    {
        const struct hvb_view_cell *vc = &v->cells[i];
        json_t *fns = json_object_get(rv->explain, vc->name);
        json_t *fg = json_object_get(rv->flames, vc->name);
        json_t *lk = json_object_get(rv->locks, vc->name);

        if ( !explained(rv, vc) )
            continue;
        fputs("\n### ", f);
        hvb_view_md_code(f, vc->name, false);
        fputc('\n', f);
        json_array_foreach(vc->flags, j, c)
            fprintf(f, "\n> %s\n", json_string_value(c));
        if ( fns != NULL )
            md_functions(f, fns, json_object_get(rv->explain_totals, vc->name));
        if ( fg != NULL )
            flame_rows(f, fg, false);
        if ( lk != NULL )
            hvb_view_lock_rows(f, lk, false);
    }
    json_object_foreach(rv->explain_skipped, key, why)
    {
        fputs("\nNo instruction diff for ", f);
        hvb_view_md_code(f, key, false);
        fprintf(f, ": %s.\n", json_string_value(why));
    }
    if ( rv->by_runs )
        fputs("\nA build predates the two-build worker: both builds were "
              "paired by whole run processes, one per sample (gate "
              "--base-runs), so the CIs are wider.\n",
              f);
    snprintf(logs, sizeof(logs), "%s/gates/", rv->o.out);
    fputs("\nGate logs in ", f);
    hvb_view_md_code(f, logs, false);
    fputs("; review.json has every figure.\n", f);
}

static const char *verdict_class(const char *v)
{
    return !strcmp(v, "regressed")  ? "reg"
           : !strcmp(v, "improved") ? "imp"
           : !strcmp(v, "same")     ? "same"
                                    : "unk";
}

/*
 * The colour of a cell's answer line: its verdict's, but grey (unknown)
 * for a cell the same where it blocks whose line says a metric was not
 * decided.
 */
static const char *answer_class(const struct hvb_view *v,
                                const struct hvb_view_cell *c)
{
    const char *k = verdict_class(hvb_view_verdict_word(c->verdict));
    size_t m;

    for ( m = 0; m < v->nr_metrics && !strcmp(k, "same"); m++ )
        if ( c->figs[m].present && c->figs[m].verdict == HVB_VIEW_UNKNOWN )
            return "unk";
    return k;
}

static void html_side(FILE *f, const struct review *rv, int k)
{
    const struct hvb_rev *r = &rv->revs[k];

    fprintf(f, "<tr><th>%s</th><td><code>%.12s</code>%s", k ? "head" : "base",
            r->commit, r->dirty ? " + uncommitted changes" : "");
    /* As given, unless it was the hash. */
    if ( strncmp(r->commit, r->spec, strlen(r->spec)) )
    {
        fputs(" (", f);
        hvb_view_html(f, r->spec);
        fputc(')', f);
    }
    fputs("</td><td>", f);
    hvb_view_html(f, r->subject);
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
        hvb_view_html(f, none);
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
        hvb_view_html(f, json_string_value(json_object_get(r, "function")));
        fputs("</code></td><td>", f);
        hvb_view_html(f, json_string_value(json_object_get(r, "file")));
        fprintf(f,
                "</td><td>%.2f</td><td>%.2f</td><td class=\"%s\">%+.2f"
                "</td></tr>\n",
                b, h, h > b ? "reg" : "imp", h - b);
    }
    fputs("</table>\n", f);
    hvb_irdiff_html_lines(f, fns, TOP_FUNCTIONS);
}

/*
 * The flame graphs of a cell: links (in HTML the "after" graph inline),
 * then the self-time table, as markdown (@html false) or HTML.
 */
static void flame_rows(FILE *f, json_t *fl, bool html)
{
    char b[64], h[64];
    json_t *cpu = json_object_get(fl, "cpu_ns_per_op"), *r;
    const char *after = json_string_value(json_object_get(fl, "after_svg"));
    const char *before = json_string_value(json_object_get(fl, "before_svg"));
    const char *table = json_string_value(json_object_get(fl, "table"));
    int rounds = (int)json_integer_value(json_object_get(fl, "rounds"));
    double ca = hvb_view_mean(json_array_get(cpu, 0)),
           cb = hvb_view_mean(json_array_get(cpu, 1));
    const char *u;
    double div = hvb_view_per_op(fmax(ca, cb), &u);
    char sa[32], sb[32];
    size_t i;

    hvb_view_num(ca / div, sa, sizeof(sa));
    hvb_view_num(cb / div, sb, sizeof(sb));
    /* Beside the graph: the three frames that changed most. */
    (html ? hvb_review_flame_top_html : hvb_review_flame_top_md)(f, fl);
    if ( !html )
    {
        /* The comment links the graphs; the page has the table. */
        fprintf(f,
                "Differential flame graph, %d interleaved rounds per build "
                "(CPU %s %s -> %s): [after](%s), [before](%s), "
                "[every function](%s).\n",
                rounds, u, sa, sb, after, before, table);
        hvb_review_waits_rows(f, fl, false);
        return;
    }
    fprintf(f,
            "<p>Differential flame graph, %d interleaved rounds per build "
            "(CPU %s %s -&gt; %s; a frame coloured by its own change "
            "where it lies beyond the rounds' spread, grey within it; "
            "<a href=\"%s\">before</a> shows what vanished, <a href=\"%s\">"
            "every function</a>):</p>\n<object type=\"image/svg+xml\" "
            "data=\"%s\" style=\"width:100%%\"></object>\n<table><tr><th>"
            "function</th><th>baseline %%</th><th>self CPU ns/op base "
            "(rounds)</th><th>head (rounds)</th><th>change</th></tr>\n",
            rounds, u, sa, sb, before, table, after);
    json_array_foreach(json_object_get(fl, "self"), i, r)
    {
        double d = json_number_value(json_object_get(r, "self_delta"));
        bool grey = json_is_true(json_object_get(r, "within_spread"));

        if ( i == TOP_FUNCTIONS )
            break;
        hvb_view_spread(json_object_get(r, "self_base_rounds"), b, sizeof(b));
        hvb_view_spread(json_object_get(r, "self_head_rounds"), h, sizeof(h));
        fputs("<tr><td><code>", f);
        hvb_view_html(f, json_string_value(json_object_get(r, "function")));
        fprintf(f,
                "</code></td><td class=\"n\">%.1f%%</td><td class=\"n\">"
                "%.3g (%s)</td><td class=\"n\">%.3g (%s)</td><td class=\"n "
                "%s\">%+.3g</td></tr>\n",
                json_number_value(json_object_get(r, "baseline_pct")),
                json_number_value(json_object_get(r, "self_base")), b,
                json_number_value(json_object_get(r, "self_head")), h,
                grey    ? "unk"
                : d > 0 ? "reg"
                        : "imp",
                d);
    }
    fputs("</table>\n", f);
    hvb_review_waits_rows(f, fl, true);
}

/* The page's head: the answer first, then both revisions. */
static void html_head(FILE *f, const struct review *rv,
                      const struct hvb_view *v)
{
    const char *w = hvb_view_verdict_word(v->verdict);
    char line[1024];
    size_t i;

    fprintf(
        f,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, "
        "initial-scale=1\"><title>hvbench review: %s</title>\n<style>"
        "body{font-family:sans-serif;max-width:80em;margin:2em auto;"
        "padding:0 1em;line-height:1.4}table{border-collapse:collapse;"
        "margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .6em;"
        "text-align:left}td.n{text-align:right;white-space:nowrap}"
        "td:first-child{white-space:nowrap}"
        ".reg{background:#fdd}.imp{background:#ddf}.same{background:"
        "#efe}.unk{background:#eee}.answer{font-size:1.1em}.answer li"
        "{margin:.3em 0}.how{color:#555;font-size:.9em}.wide{overflow-x:auto}"
        "</style></head>"
        "<body>\n<h1>hvbench review: %s</h1>\n<ul class=\"answer\">\n",
        w, w);
    for ( i = 0; i < v->nr_cells; i++ )
        if ( *hvb_view_sentence(v, &v->cells[i], line, sizeof(line)) )
        {
            fprintf(f, "<li class=\"%s\">", answer_class(v, &v->cells[i]));
            hvb_view_html(f, line);
            fputs("</li>\n", f);
        }
    if ( *hvb_view_rest(v, line, sizeof(line)) )
    {
        fputs("<li>", f);
        hvb_view_html(f, line);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n<p>", f);
    hvb_view_html(f, hvb_view_blocking(v, false, line, sizeof(line)));
    fputs("</p>\n<table>\n", f);
    html_side(f, rv, 0);
    html_side(f, rv, 1);
    fputs("</table>\n", f);
}

/* The verdict table: base -> head, the change and its CI, per metric. */
static void html_table(FILE *f, const struct hvb_view *v)
{
    char fig[96], nb[32], nh[32];
    size_t i, m;

    fputs("<div class=\"wide\"><table><tr><th>cell</th>", f);
    for ( m = 0; m < v->nr_metrics; m++ )
        fprintf(f, "<th>%s, %s%s</th>", v->metrics[m].name, v->metrics[m].unit,
                v->metrics[m].blocking ? "" : " (reported)");
    fputs("</tr>\n", f);
    for ( i = 0; i < v->nr_cells; i++ )
    {
        const struct hvb_view_cell *c = &v->cells[i];

        fputs("<tr><td title=\"", f);
        hvb_view_html(f, c->name);
        fputs("\">", f);
        hvb_view_html(f, c->title);
        fputs("</td>", f);
        for ( m = 0; m < v->nr_metrics; m++ )
        {
            const struct hvb_view_fig *g = &c->figs[m];
            const char *w = hvb_view_verdict_word(g->verdict);

            if ( !g->present )
            {
                fputs("<td>-</td>", f);
                continue;
            }
            fprintf(f, "<td class=\"n %s\"", verdict_class(w));
            if ( g->why != NULL )
            {
                fputs(" title=\"", f);
                hvb_view_html(f, g->why);
                fputc('"', f);
            }
            /* The change and its CI below the figures: narrow columns. */
            fprintf(f, ">%s %s &rarr; %s<br>%s</td>", w,
                    hvb_view_num(g->base, nb, sizeof(nb)),
                    hvb_view_num(g->head, nh, sizeof(nh)),
                    hvb_view_change(g, fig, sizeof(fig)));
        }
        fputs("</tr>\n", f);
    }
    fputs(
        "</table></div>\n<p class=\"how\">How to read this: each cell is base "
        "&rarr; head and the change, head over base, one vote per process "
        "pair of interleaved rounds, with its CI [low, high]; same inside the threshold, regressed or improved "
        "beyond it, unknown when the budget ended first (hover for why). "
        "See docs/running.md and docs/gating.md.</p>\n",
        f);
}

/* index.html: the answer, both revisions, the table, the explanations. */
static void html(FILE *f, const struct review *rv, const struct hvb_view *v)
{
    json_t *c;
    size_t i, j;

    html_head(f, rv, v);
    html_table(f, v);
    for ( i = 0; i < v->nr_cells; i++ )
    {
        const struct hvb_view_cell *vc = &v->cells[i];
        const char *n = vc->name;
        json_t *fns = json_object_get(rv->explain, n);
        json_t *fg = json_object_get(rv->flames, n);
        json_t *lk = json_object_get(rv->locks, n);

        if ( !explained(rv, vc) )
            continue;
        fputs("<h2><code>", f);
        hvb_view_html(f, n);
        fputs("</code></h2>\n", f);
        json_array_foreach(vc->flags, j, c)
        {
            fputs("<p><b>", f);
            hvb_view_html(f, json_string_value(c));
            fputs("</b></p>\n", f);
        }
        if ( fns != NULL )
            html_functions(f, fns, json_object_get(rv->explain_totals, n));
        if ( fg != NULL )
            flame_rows(f, fg, true);
        if ( lk != NULL )
            hvb_view_lock_rows(f, lk, true);
    }
    fputs("<p>Options:", f);
    for ( i = 0; i < rv->cache.nr_defs; i++ )
    {
        fputs(" <code>", f);
        hvb_view_html(f, rv->cache.defs[i]);
        fputs("</code>", f);
    }
    fputs(".  Files: <a href=\"review.json\">review.json</a>, <a href=\""
          "review.md\">review.md</a>, <a href=\"gates/\">gates/</a>.</p>\n"
          "</body></html>\n",
          f);
}

/* Write @text to @path through hvb/outfile.h (atomically): 0 or status. */
static int write_file(const char *path, const char *what, const char *text)
{
    struct hvb_outfile o;
    char err[768];

    if ( text == NULL )
        return hvb_failure("out of memory");
    if ( hvb_outfile_open(&o, path, what, err, sizeof(err)) )
        return hvb_usage_error("%s", err);
    fputs(text, o.f);
    if ( hvb_outfile_commit(&o, err, sizeof(err)) )
        return hvb_usage_error("%s", err);
    return 0;
}

enum {
    OUT_JSON,
    OUT_MD,
    OUT_MAIL,
    OUT_JUNIT,
    OUT_GITHUB,
    OUT_HTML,
    OUT_NR
};

/* Output @k of the review as text (malloc'd; NULL: out of memory). */
static char *render(int k, const struct review *rv, const struct hvb_view *v,
                    json_t *cells, json_t *order)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    if ( k == OUT_JSON )
        return json_dumps(v->doc, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    f = open_memstream(&text, &len);
    if ( f == NULL )
        return NULL;
    if ( k == OUT_MD )
        markdown(f, rv, v, cells, order);
    else if ( k == OUT_MAIL )
        hvb_view_mail(f, v);
    else if ( k == OUT_JUNIT )
        hvb_view_junit(f, v);
    else if ( k == OUT_GITHUB )
        hvb_view_annotations(f, v);
    else
        html(f, rv, v);
    if ( fclose(f) )
    {
        free(text);
        return NULL;
    }
    return text;
}

/* Every file of the review into its --out: 0 or the exit status. */
static int write_all(const struct review *rv, const struct hvb_view *v,
                     json_t *cells, json_t *order)
{
    static const char *const files[OUT_NR][2] = {
        [OUT_JSON] = {"review.json", "review"},
        [OUT_MD] = {"review.md", "markdown"},
        [OUT_MAIL] = {"review.txt", "text"},
        [OUT_JUNIT] = {"junit.xml", "junit"},
        [OUT_GITHUB] = {"github-annotations.txt", "annotations"},
        [OUT_HTML] = {"index.html", "page"},
    };
    char path[4200], *text;
    int k, rc = 0;

    for ( k = 0; k < OUT_NR && rc == 0; k++ )
    {
        text = render(k, rv, v, cells, order);
        snprintf(path, sizeof(path), "%s/%s", rv->o.out, files[k][0]);
        rc = write_file(path, files[k][1], text);
        if ( rc == 0 && k == OUT_MD && rv->o.markdown != NULL )
            rc = write_file(rv->o.markdown, "markdown", text);
        free(text);
    }
    return rc;
}

int hvb_review_report(struct review *rv)
{
    json_t *order, *cells = by_cell(rv, &order);
    json_t *doc = review_json(rv, cells, order);
    struct hvb_view v;
    char err[512];
    int rc, status = 0;

    rc = hvb_view_decode(doc, &v, err, sizeof(err));
    status = v.status;
    if ( rc == 0 )
    {
        json_object_set_new(doc, "verdict",
                            json_string(hvb_view_verdict_word(v.verdict)));
        json_object_set_new(doc, "exit", json_integer(v.status));
        rc = write_all(rv, &v, cells, order);
    }
    else
        rc = hvb_failure("review: %s", rc == -ENOMEM ? "out of memory" : err);
    if ( rc == 0 )
    {
        hvb_view_console(stdout, &v);
        printf("review: %s (exit %d); %s/index.html, review.md, review.txt, "
               "junit.xml, review.json\n",
               hvb_view_verdict_word(v.verdict), v.status, rv->o.out);
    }
    hvb_view_free(&v);
    json_decref(doc);
    json_decref(cells);
    json_decref(order);
    return rc ? rc : status;
}
