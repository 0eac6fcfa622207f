/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The review's differential flame graph between the two builds.
 *
 * Two profiles taken one after the other drift: a machine that got
 * slower in between paints every frame from the root red (seen: +2.9 ns
 * on an untouched lock).  So both builds are profiled in the same
 * rounds, alternating (AB BA AB BA: one short "profile" process per build
 * and round), and each build's rounds are merged per operation: a
 * round's stack counts are worth (the cell's CPU ns per op) / (its
 * samples), and a stack's merged value is the mean over the rounds.
 * Stacks are matched by function name (addresses differ between builds,
 * as perf diff matches them), and profile/render/flamegraph.py draws the
 * two widths (red grew, blue shrank, the vanished stacks in the "before"
 * graph) and ranks every function.  The table the report shows is by
 * self time: where the change is, not the callers it passes through.
 * Each build's self CPU ns per op of a function is given per round too,
 * so that a change smaller than the rounds' spread reads as such.
 *
 * Example (tests/review/it-review.sh): head's slowdown plugin does
 * 2000 more units of work per op; 4 rounds of 0.25 s per cell give
 *   slowdown_work   self  base 0.1-0.2  head 980-1003 CPU ns/op
 * on top of the table, and the "after" graph shows it red.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/exec.h>
#include <hvb/folded.h>
#include <hvb/render.h>

#include "private.h"

#define TOP_SELF 10

/* @o[@key] += @v (a number). */
static void add_to(json_t *o, const char *key, double v)
{
    json_t *x = json_object_get(o, key);

    json_object_set_new(o, key, json_real((x ? json_number_value(x) : 0) + v));
}

/*
 * Add one round's stacks of a cell (@folded, each sample worth @w CPU
 * ns/op, over @rounds rounds) to @stacks, and its self values per
 * function to round @r of @self ({"fn": [per round]}).
 */
static int merge_folded(const char *folded, double w, unsigned int rounds,
                        unsigned int r, json_t *stacks, json_t *self)
{
    FILE *f = fopen(folded, "r");
    char *line = NULL, *sp, *leaf;
    size_t cap = 0;
    ssize_t n;

    if ( f == NULL )
        return -errno;
    while ( (n = getline(&line, &cap, f)) > 0 )
    {
        json_t *a;
        double v;

        line[strcspn(line, "\n")] = '\0';
        sp = strrchr(line, ' ');
        if ( sp == NULL )
            continue;
        *sp = '\0';
        v = strtod(sp + 1, NULL) * w;
        add_to(stacks, line, v / rounds);
        leaf = strrchr(line, ';');
        leaf = leaf ? leaf + 1 : line;
        a = json_object_get(self, leaf);
        if ( a == NULL )
        {
            a = json_array();
            for ( unsigned int i = 0; i < rounds; i++ )
                json_array_append_new(a, json_real(0));
            json_object_set_new(self, leaf, a);
        }
        json_array_set_new(
            a, r, json_real(json_number_value(json_array_get(a, r)) + v));
    }
    free(line);
    fclose(f);
    return 0;
}

struct flame_acc {
    json_t *cells; /* {"CELL": [side] {"stacks", "self", "cpu_ns_per_op":
                      [per round], "samples"}} */
    unsigned int rounds;
};

/* Round @r of side @k (its directory @dir) into the cells. */
static int merge_round(void *ctx, unsigned int k, unsigned int r,
                       const char *dir, char *err, size_t len)
{
    struct flame_acc *fa = ctx;
    json_t *acc = fa->cells;
    unsigned int rounds = fa->rounds;
    char path[8800];
    json_t *doc, *cell, *cells;
    size_t i;
    int rc = 0;

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
        double samples = json_number_value(json_object_get(prof, "samples"));
        const char *folded = json_string_value(json_object_get(prof, "folded"));

        if ( name == NULL || folded == NULL )
            continue;
        sides = json_object_get(acc, name);
        if ( sides == NULL )
        {
            sides = json_pack("[{s:o, s:o, s:[], s:f}, {s:o, s:o, s:[], s:f}]",
                              "stacks", json_object(), "self", json_object(),
                              "cpu_ns_per_op", "samples", 0.0, "stacks",
                              json_object(), "self", json_object(),
                              "cpu_ns_per_op", "samples", 0.0);
            json_object_set_new(acc, name, sides);
        }
        s = json_array_get(sides, k);
        json_array_append_new(json_object_get(s, "cpu_ns_per_op"),
                              json_real(cpu));
        add_to(s, "samples", samples);
        snprintf(path, sizeof(path), "%s/%s", dir, folded);
        if ( samples > 0 &&
             (rc = merge_folded(path, cpu / samples, rounds, r,
                                json_object_get(s, "stacks"),
                                json_object_get(s, "self"))) != 0 )
        {
            snprintf(err, len, "%s: %s", path, strerror(-rc));
            break;
        }
    }
    json_decref(doc);
    return rc;
}

static int write_folded(const char *path, json_t *stacks)
{
    FILE *f = fopen(path, "w");
    const char *stack;
    json_t *v;

    if ( f == NULL )
        return -errno;
    json_object_foreach(stacks, stack, v)
        fprintf(f, "%s %.9g\n", stack, json_number_value(v));
    return fclose(f) ? -errno : 0;
}

static double self_sum(json_t *a)
{
    double s = 0;
    size_t i;
    json_t *v;

    json_array_foreach(a, i, v)
        s += json_number_value(v);
    return a ? s / (double)json_array_size(a) : 0;
}

static int by_self_delta(const void *x, const void *y)
{
    double a =
        json_number_value(json_object_get(*(json_t *const *)x, "self_delta"));
    double b =
        json_number_value(json_object_get(*(json_t *const *)y, "self_delta"));

    return fabs(a) < fabs(b) ? 1 : fabs(a) > fabs(b) ? -1 : 0;
}

/* The TOP_SELF functions of @sides by change of self CPU ns per op. */
static json_t *top_self(json_t *sides)
{
    json_t *self[2] = {json_object_get(json_array_get(sides, 0), "self"),
                       json_object_get(json_array_get(sides, 1), "self")};
    json_t *all = json_object(), *rows = json_array(), *v, **tab;
    const char *fn;
    size_t n = 0, i;
    int k;

    for ( k = 0; k < 2; k++ )
        json_object_foreach(self[k], fn, v)
            json_object_set(all, fn, json_null());
    tab = calloc(json_object_size(all) + 1, sizeof(*tab));
    json_object_foreach(all, fn, v)
    {
        json_t *b = json_object_get(self[0], fn),
               *h = json_object_get(self[1], fn);

        if ( tab == NULL )
            break;
        tab[n++] = json_pack("{s:s, s:f, s:f, s:f, s:O?, s:O?}", "function", fn,
                             "self_base", self_sum(b), "self_head", self_sum(h),
                             "self_delta", self_sum(h) - self_sum(b),
                             "self_base_rounds", b, "self_head_rounds", h);
    }
    if ( tab != NULL )
        qsort(tab, n, sizeof(*tab), by_self_delta);
    for ( i = 0; i < n; i++ )
    {
        if ( i < TOP_SELF )
            json_array_append(rows, tab[i]);
        json_decref(tab[i]);
    }
    free(tab);
    json_decref(all);
    return rows;
}

/* Draw cell @name's graphs from @sides into @dir; its report entry. */
static json_t *draw(const char *dir, const char *name, json_t *sides,
                    unsigned int rounds, char *err, size_t len)
{
    char slug[512], fa[4800], fb[4800], prefix[4800], js[4800], title[700],
        script[4200], logp[4800];
    char *av[] = {"/usr/bin/python3",
                  script,
                  "diff",
                  "--title",
                  title,
                  "--unit",
                  "CPU ns/op",
                  "--json",
                  js,
                  fa,
                  fb,
                  prefix,
                  NULL};
    struct hvb_exec c = {.argv = av, .timeout_s = 600};
    int k, rc = 0;

    hvb_folded_slug(name, slug, sizeof(slug));
    snprintf(fa, sizeof(fa), "%s/%s-base.folded", dir, slug);
    snprintf(fb, sizeof(fb), "%s/%s-head.folded", dir, slug);
    snprintf(prefix, sizeof(prefix), "%s/%s", dir, slug);
    snprintf(js, sizeof(js), "%s/%s.json", dir, slug);
    snprintf(logp, sizeof(logp), "%s/%s.log", dir, slug);
    snprintf(title, sizeof(title), "%s: base -> head", name);
    snprintf(script, sizeof(script), "%s/flamegraph.py", hvb_render_dir());
    for ( k = 0; k < 2 && rc == 0; k++ )
        rc = write_folded(k ? fb : fa,
                          json_object_get(json_array_get(sides, k), "stacks"));
    if ( rc )
        snprintf(err, len, "%s: %s", fa, strerror(-rc));
    else
        rc = hvb_review_exec_log(&c, logp, err, len);
    if ( rc )
        return NULL;
    return json_pack(
        "{s:i, s:s++, s:s++, s:s++, s:s++, s:s++, s:[O, O], s:[O, O], s:o}",
        "rounds", rounds, "after_svg", "flame/", slug, "-after.svg",
        "before_svg", "flame/", slug, "-before.svg", "table", "flame/", slug,
        ".md", "base_folded", "flame/", slug, "-base.folded", "head_folded",
        "flame/", slug, "-head.folded", "cpu_ns_per_op",
        json_object_get(json_array_get(sides, 0), "cpu_ns_per_op"),
        json_object_get(json_array_get(sides, 1), "cpu_ns_per_op"), "samples",
        json_object_get(json_array_get(sides, 0), "samples"),
        json_object_get(json_array_get(sides, 1), "samples"), "self",
        top_self(sides));
}

int hvb_review_flame(struct review *rv, size_t l, char *err, size_t len)
{
    char *extra[] = {"--repetitions",          "1",  "--min-time",
                     (char *)rv->o.flame_time, "-q", NULL};
    struct flame_acc fa = {json_object(), rv->o.flame_rounds};
    char dir[4200];
    json_t *sides, *one;
    const char *name;
    int rc;

    rc = hvb_review_alternate(rv, l, "flame", "profile", extra, fa.rounds,
                              merge_round, &fa, err, len);
    snprintf(dir, sizeof(dir), "%s/flame", rv->o.out);
    json_object_foreach(fa.cells, name, sides)
    {
        if ( rc )
            break;
        one = draw(dir, name, sides, fa.rounds, err, len);
        if ( one == NULL )
            rc = -EIO;
        else
            json_object_set_new(rv->flames, name, one);
    }
    json_decref(fa.cells);
    return rc;
}
