/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The review's differential flame graphs between the two builds.
 *
 * Two profiles taken one after the other drift: a machine that got
 * slower in between paints every frame from the root red (seen: +2.9 ns
 * on an untouched lock).  So both builds are profiled in the same
 * rounds, alternating (AB BA AB BA: one short "profile" process per build
 * and round), and each round's folded stacks are kept: a round's stack
 * counts are worth (the cell's CPU ns per op) / (its samples).  Stacks
 * are matched by function name (addresses differ between builds, as perf
 * diff matches them).  profile/render/flamegraph.py ("review") reads
 * every round of every cell of the review and draws each frame by the
 * change of its *self* CPU ns/op, grey when that change lies within the
 * rounds' spread (the rule and its worked example: render/flamediff.py),
 * on one scale for every graph of the review: so each line's call draws
 * again the graphs of the lines before it (a review has a handful of
 * lines, a drawing a fraction of a second).  It also ranks the functions
 * (rv->flames[CELL].self) and picks the three that changed most
 * (.top), which the page shows beside the graph.
 *
 * Example (tests/review/it-review.sh): head's rcu_ref_lock spins 64
 * times more; 4 rounds of 0.25 s per cell gave (self CPU ns/op)
 *   rcu_ref_lock   base 7.41-8.91  head 27.7-29.7   +21.1  coloured
 *   lookup_thread  base 0.41-0.99  head 0-0.62      -0.36  grey (spread)
 * on top of .self and .top, the scale 22 CPU ns/op, rcu_ref_lock alone
 * red in the "after" graph, its callers and "[benchmark engine]" grey.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/exec.h>
#include <hvb/folded.h>
#include <hvb/render.h>

#include <hvb/view.h>

#include "private.h"

/* How many of a cell's frames the page shows beside its graph. */
#define TOP_SHOWN 3

/*
 * A sample's weight: cpu-clock's period over the cell's ops, every
 * thread's CPU (a build that writes profile.ns_per_sample); else, and
 * for both builds where one of them does not write it, the measured
 * threads' CPU time over the samples (too small where other threads do
 * the work: boot-storm's clients and daemon under its joining thread).
 */
struct flame_acc {
    json_t *cells;  /* {"CELL": [side] {"rounds_folded": [{"folded",
                      "ns_per_sample", "measured"}], "cpu_ns_per_op",
                      "measured_cpu": [per round], "wall_ns_per_op": [per
                      round], "samples", "threads"}} */
    size_t out_len; /* of OUT: the rounds' paths are kept relative to it */
    unsigned int by_period, by_measured; /* rounds weighed either way */
};

/* Where one build weighs by the measured threads, both do. */
static void same_weights(struct flame_acc *fa)
{
    json_t *sides, *e;
    const char *name;
    size_t k, i;

    if ( fa->by_period == 0 || fa->by_measured == 0 )
        return;
    json_object_foreach(fa->cells, name, sides)
        for ( k = 0; k < 2; k++ )
        {
            json_t *s = json_array_get(sides, k);

            json_array_foreach(json_object_get(s, "rounds_folded"), i, e)
                json_object_set(e, "ns_per_sample",
                                json_object_get(e, "measured"));
            json_object_set(s, "cpu_ns_per_op",
                            json_object_get(s, "measured_cpu"));
        }
}

/* @o[@key] += @v (a number). */
static void add_to(json_t *o, const char *key, double v)
{
    json_t *x = json_object_get(o, key);

    json_object_set_new(o, key, json_real((x ? json_number_value(x) : 0) + v));
}

/* Round @r of side @k (its directory @dir, under OUT) into the cells. */
static int merge_round(void *ctx, unsigned int k, unsigned int r,
                       const char *dir, char *err, size_t len)
{
    struct flame_acc *fa = ctx;
    char path[8800];
    json_t *doc, *cell, *cells;
    size_t i;

    (void)r;
    snprintf(path, sizeof(path), "%s/results.json", dir);
    cells = hvb_review_cells(path, &doc, err, len);
    if ( doc == NULL )
        return -EINVAL;
    json_array_foreach(cells, i, cell)
    {
        const char *name = json_string_value(json_object_get(cell, "name"));
        json_t *prof = json_object_get(cell, "profile"), *sides, *s;
        double cpu = json_number_value(
            json_object_get(json_object_get(cell, "cpu_summary"), "median"));
        double wall = json_number_value(
            json_object_get(json_object_get(cell, "summary"), "median"));
        double samples = json_number_value(json_object_get(prof, "samples"));
        const char *folded = json_string_value(json_object_get(prof, "folded"));
        json_t *nps = json_object_get(prof, "ns_per_sample");
        double all = json_number_value(json_object_get(prof, "cpu_ns_per_op"));

        if ( name == NULL || folded == NULL )
            continue;
        sides = json_object_get(fa->cells, name);
        if ( sides == NULL )
        {
            sides = json_pack("[{s:[], s:[], s:[], s:[], s:f, s:O*}, "
                              "{s:[], s:[], s:[], s:[], s:f, s:O*}]",
                              "rounds_folded", "cpu_ns_per_op", "measured_cpu",
                              "wall_ns_per_op", "samples", 0.0, "threads",
                              json_object_get(cell, "threads"), "rounds_folded",
                              "cpu_ns_per_op", "measured_cpu", "wall_ns_per_op",
                              "samples", 0.0, "threads",
                              json_object_get(cell, "threads"));
            json_object_set_new(fa->cells, name, sides);
        }
        s = json_array_get(sides, k);
        json_array_append_new(json_object_get(s, "cpu_ns_per_op"),
                              json_real(nps ? all : cpu));
        json_array_append_new(json_object_get(s, "measured_cpu"),
                              json_real(cpu));
        *(nps ? &fa->by_period : &fa->by_measured) += 1;
        json_array_append_new(json_object_get(s, "wall_ns_per_op"),
                              json_real(wall));
        add_to(s, "samples", samples);
        /* A round without samples has no stacks to weigh. */
        snprintf(path, sizeof(path), "%s/%s", dir + fa->out_len + 1, folded);
        if ( samples > 0 )
            json_array_append_new(
                json_object_get(s, "rounds_folded"),
                json_pack("{s:s, s:f, s:f}", "folded", path, "ns_per_sample",
                          nps ? json_number_value(nps) : cpu / samples,
                          "measured", cpu / samples));
    }
    json_decref(doc);
    return 0;
}

json_t *hvb_review_draw_entry(const char *sub, const char *name,
                              unsigned int rounds, json_t *rounds_folded)
{
    char slug[512], p[600];

    hvb_folded_slug(name, slug, sizeof(slug));
    snprintf(p, sizeof(p), "%s/%s", sub, slug);
    return json_pack("{s:i, s:s+, s:s+, s:s+, s:s+, s:s+, s:s, s:O}", "rounds",
                     rounds, "after_svg", p, "-after.svg", "before_svg", p,
                     "-before.svg", "table", p, ".md", "base_folded", p,
                     "-base.folded", "head_folded", p, "-head.folded", "prefix",
                     p, "rounds_folded", rounds_folded);
}

/* Cell @name's entry of rv->flames from its rounds @sides, of line @l. */
static json_t *entry(const char *name, json_t *sides, unsigned int rounds,
                     size_t l)
{
    json_t *s[2] = {json_array_get(sides, 0), json_array_get(sides, 1)};
    json_t *rf = json_pack("[O, O]", json_object_get(s[0], "rounds_folded"),
                           json_object_get(s[1], "rounds_folded"));
    json_t *e = hvb_review_draw_entry("flame", name, rounds, rf);

    json_decref(rf);
    json_object_update_new(
        e, json_pack("{s:[O, O], s:[O, O], s:[O, O], s:[O, O], s:O*, s:I}",
                     "cpu_ns_per_op", json_object_get(s[0], "cpu_ns_per_op"),
                     json_object_get(s[1], "cpu_ns_per_op"),
                     "measured_cpu_ns_per_op",
                     json_object_get(s[0], "measured_cpu"),
                     json_object_get(s[1], "measured_cpu"), "wall_ns_per_op",
                     json_object_get(s[0], "wall_ns_per_op"),
                     json_object_get(s[1], "wall_ns_per_op"), "samples",
                     json_object_get(s[0], "samples"),
                     json_object_get(s[1], "samples"), "threads",
                     json_object_get(s[0], "threads"), "line", (json_int_t)l));
    return e;
}

int hvb_review_draw(struct review *rv, const char *sub, const char *unit,
                    bool stacks, json_t *cells, char *err, size_t len)
{
    char man[4300], res[4300], script[4200], logp[4300];
    char *av[] = {
        "/usr/bin/python3", script, "review", "--json", res, man, NULL};
    struct hvb_exec c = {.argv = av, .timeout_s = 600};
    json_t *doc, *got, *one, *fl;
    json_error_t je;
    const char *name;
    int rc;

    snprintf(man, sizeof(man), "%s/%s/graphs.json", rv->o.out, sub);
    snprintf(res, sizeof(res), "%s/%s/graphs-out.json", rv->o.out, sub);
    snprintf(logp, sizeof(logp), "%s/%s/graphs.log", rv->o.out, sub);
    snprintf(script, sizeof(script), "%s/flamegraph.py", hvb_render_dir());
    doc = json_pack("{s:s, s:s, s:b, s:O}", "unit", unit, "root", "..",
                    "stacks", stacks, "cells", cells);
    rc = json_dump_file(doc, man, JSON_INDENT(1));
    json_decref(doc);
    if ( rc )
    {
        snprintf(err, len, "%s: cannot write it", man);
        return -EIO;
    }
    if ( (rc = hvb_irdiff_exec_log(&c, logp, err, len)) != 0 )
        return rc;
    if ( (doc = json_load_file(res, 0, &je)) == NULL )
    {
        snprintf(err, len, "%s: %s", res, je.text);
        return -EIO;
    }
    got = json_object_get(doc, "cells");
    json_object_foreach(cells, name, fl)
    {
        one = json_object_get(got, name);
        json_object_set(fl, "scale_ns_per_op", json_object_get(doc, "scale"));
        json_object_set(fl, "self", json_object_get(one, "self"));
        json_object_set(fl, "top", json_object_get(one, "top"));
        json_object_set(fl, "coloured", json_object_get(one, "coloured"));
        if ( stacks )
        {
            json_object_set(fl, "stacks", json_object_get(one, "stacks"));
            json_object_set(fl, "roles", json_object_get(one, "roles"));
        }
    }
    json_decref(doc);
    return 0;
}

int hvb_review_flame(struct review *rv, size_t l, char *err, size_t len)
{
    char *extra[] = {"--repetitions",          "1",  "--min-time",
                     (char *)rv->o.flame_time, "-q", NULL};
    struct flame_acc fa = {json_object(), strlen(rv->o.out), 0, 0};
    json_t *sides;
    const char *name;
    int rc;

    rc = hvb_review_alternate(rv, l, "flame", "profile", extra,
                              rv->o.flame_rounds, merge_round, &fa, err, len);
    same_weights(&fa);
    json_object_foreach(fa.cells, name, sides)
        if ( rc == 0 )
            json_object_set_new(rv->flames, name,
                                entry(name, sides, rv->o.flame_rounds, l));
    json_decref(fa.cells);
    return rc ? rc
              : hvb_review_draw(rv, "flame", "CPU ns/op", false, rv->flames,
                                err, len);
}

/* One frame of .top: " 0.21 -> 56.1 (+55.9)", its kind where new or gone. */
static void top_figures(FILE *f, json_t *t, const char *arrow, double div)
{
    const char *kind = json_string_value(json_object_get(t, "kind"));
    bool gone =
        kind && (!strcmp(kind, "appeared") || !strcmp(kind, "vanished"));
    double ch = json_number_value(json_object_get(t, "change")) / div;
    char b[32], h[32], c[32];

    fprintf(f, " %s %s %s (%s%s%s%s%s)",
            hvb_view_num(json_number_value(json_object_get(t, "base")) / div, b,
                         sizeof(b)),
            arrow,
            hvb_view_num(json_number_value(json_object_get(t, "head")) / div, h,
                         sizeof(h)),
            ch > 0 ? "+" : "", hvb_view_num(ch, c, sizeof(c)), gone ? ", " : "",
            gone ? kind : "",
            json_is_true(json_object_get(t, "within_spread"))
                ? ", within the rounds' spread"
                : "");
}

/* The unit of a cell's top frames and colour scale: the largest figure's. */
static double top_unit(json_t *fl, const char **unit)
{
    double max = json_number_value(json_object_get(fl, "scale_ns_per_op"));
    json_t *t;
    size_t i;

    json_array_foreach(json_object_get(fl, "top"), i, t)
        max = fmax(max,
                   fmax(fabs(json_number_value(json_object_get(t, "base"))),
                        fabs(json_number_value(json_object_get(t, "head")))));
    return hvb_view_per_op(max, unit);
}

void hvb_review_flame_top_html(FILE *f, json_t *fl)
{
    json_t *top = json_object_get(fl, "top"), *t;
    const char *unit;
    double div = top_unit(fl, &unit);
    char sc[32];
    size_t i;

    if ( json_array_size(top) == 0 )
        return;
    fprintf(f,
            "<aside class=\"flame-top\" style=\"float:right;max-width:28em;"
            "margin:0 0 .5em 1em;padding:.3em .8em;border:1px solid #ccc;"
            "background:#fafafa\"><b>Changed most</b> (self CPU %s, base "
            "&rarr; head; colours: &plusmn;%s on every graph):<ol>",
            unit,
            hvb_view_num(
                json_number_value(json_object_get(fl, "scale_ns_per_op")) / div,
                sc, sizeof(sc)));
    json_array_foreach(top, i, t)
    {
        if ( i == TOP_SHOWN )
            break;
        fputs("<li><code>", f);
        hvb_view_html(f, json_string_value(json_object_get(t, "name")));
        fputs("</code>", f);
        top_figures(f, t, "&rarr;", div);
        fputs("</li>", f);
    }
    fputs("</ol></aside>\n", f);
}

void hvb_review_flame_top_md(FILE *f, json_t *fl)
{
    json_t *top = json_object_get(fl, "top"), *t;
    const char *n, *unit;
    double div = top_unit(fl, &unit);
    char sc[32];
    size_t i;

    if ( json_array_size(top) == 0 )
        return;
    fprintf(f, "\nChanged most (self CPU %s, base -> head):", unit);
    json_array_foreach(top, i, t)
    {
        if ( i == TOP_SHOWN )
            break;
        n = json_string_value(json_object_get(t, "name"));
        /* A name with a backtick in it is quoted by two. */
        fprintf(f, "%s %s%s%s", i ? ";" : "", n && strchr(n, '`') ? "`` " : "`",
                n ? n : "?", n && strchr(n, '`') ? " ``" : "`");
        top_figures(f, t, "->", div);
    }
    fprintf(f, ". Colours: +-%s %s on every graph of this review.\n",
            hvb_view_num(
                json_number_value(json_object_get(fl, "scale_ns_per_op")) / div,
                sc, sizeof(sc)),
            unit);
}
