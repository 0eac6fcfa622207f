/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a moved cell's time waits: the wall and wait differentials of
 * the two builds.  A CPU flame graph explains a cell whose threads run;
 * one whose threads mostly wait (a toolstack's clients queueing on a
 * lock, on a daemon's replies) it shows only the little that ran.  So
 * after the CPU rounds (review_flame.c), each cell of the line whose
 * measured threads were on CPU under half their wall time (their CPU
 * ns/op against wall ns/op x threads, both builds' rounds; every cell
 * with --wall-views all) is profiled again by both builds, in the same
 * interleaved rounds, with "profile --view wall" (on-CPU samples and
 * the kernel's off-CPU time of every thread of the cell, wall ns/op)
 * and "--view wait" (the model's lock waits by stack, with the lock
 * class as the leaf).  Each view is drawn as the CPU one is, on a scale
 * of its own, and its whole stacks are ranked by their change (their
 * time sits in leaves that many stacks share: "[off-cpu]").
 *
 * Example (tests/review/it-review.sh, wait part): head holds
 * lock-hold's mutex twice as long (lock=mutex hold_ns=200000).  The
 * waiter was on CPU 2% of its wall, so 4 rounds a build of each view:
 *   wall  ...; lh_thread; __pthread_mutex_lock; __lll_lock_wait;
 *         [syscall futex]; [off-cpu]     199 us/op -> 399 (+200)
 *   wait  ...; lh_thread; [wait] lock-hold  201 -> 401 (+200)
 * both beyond the rounds' spread: the first rows of their tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/matrix.h>
#include <hvb/view.h>

#include "private.h"

/* Stacks shown per view: in the comment, on the page. */
#define STACKS_MD   5
#define STACKS_HTML 10
#define ROLES_SHOWN 6 /* the threads by role, ranked */

static const struct wait_view {
    const char *name, *unit, *what;
    const char *const *keys; /* per-round totals kept from results.json */
} views[] = {
    {"wall", "wall ns/op",
     "on-CPU samples and off-CPU time of every thread of the cell",
     (const char *const[]){"wall_ns_per_op", "on_cpu_ns_per_op",
                           "off_cpu_ns_per_op", "preempted_ns_per_op",
                           "modelled_sleep_ns_per_op", "unaccounted_share",
                           NULL}},
    {"wait", "wait ns/op", "the model's lock waits by stack",
     (const char *const[]){"wait_ns_per_op", NULL}},
};

struct wait_acc {
    const struct wait_view *v;
    json_t *cells;  /* {"CELL": [side] {"rounds_folded": [...], KEY: []}} */
    size_t out_len; /* of OUT: the rounds' paths are kept relative to it */
};

/* Round @r of side @k of a view (its directory @dir) into the cells. */
static int merge_round(void *ctx, unsigned int k, unsigned int r,
                       const char *dir, char *err, size_t len)
{
    struct wait_acc *wa = ctx;
    char path[8800];
    json_t *doc, *cell, *cells, *run;
    double hz;
    size_t i, j;

    (void)r;
    snprintf(path, sizeof(path), "%s/results.json", dir);
    cells = hvb_review_cells(path, &doc, err, len);
    if ( doc == NULL )
        return -EINVAL;
    run = json_object_get(json_object_get(doc, "hvbench"), "profile");
    hz = json_number_value(json_object_get(run, "frequency_hz"));
    json_array_foreach(cells, i, cell)
    {
        const char *name = json_string_value(json_object_get(cell, "name"));
        json_t *prof = json_object_get(cell, "profile"), *sides, *s;
        const char *folded = json_string_value(json_object_get(prof, "folded"));
        const char *view = json_string_value(json_object_get(prof, "view"));
        double ops = json_number_value(json_object_get(prof, "ops"));

        if ( name == NULL || folded == NULL || view == NULL ||
             strcmp(view, wa->v->name) != 0 )
            continue;
        if ( (sides = json_object_get(wa->cells, name)) == NULL )
        {
            sides =
                json_pack("[{s:[]}, {s:[]}]", "rounds_folded", "rounds_folded");
            json_object_set_new(wa->cells, name, sides);
        }
        s = json_array_get(sides, k);
        for ( j = 0; wa->v->keys[j] != NULL; j++ )
        {
            json_t *a = json_object_get(s, wa->v->keys[j]);

            if ( a == NULL )
                json_object_set_new(s, wa->v->keys[j], a = json_array());
            json_array_append(a, json_object_get(prof, wa->v->keys[j]));
        }
        /*
         * The files are in ns/op; a round shows no change finer than one
         * on-CPU sample (the wall view's) or than nothing (the waits').
         */
        snprintf(path, sizeof(path), "%s/%s", dir + wa->out_len + 1, folded);
        json_array_append_new(
            json_object_get(s, "rounds_folded"),
            json_pack("{s:s, s:f, s:f}", "folded", path, "ns_per_sample", 1.0,
                      "grain", hz > 0 && ops > 0 ? 1e9 / hz / ops : 0.0));
    }
    json_decref(doc);
    return 0;
}

/* The mean of the numbers of arrays @a and @b together. */
static double mean2(json_t *a, json_t *b)
{
    size_t n = json_array_size(a) + json_array_size(b);

    return n ? (hvb_view_mean(a) * (double)json_array_size(a) +
                hvb_view_mean(b) * (double)json_array_size(b)) /
                   (double)n
             : 0;
}

/*
 * Line @l's cells whose threads mostly waited (all with --wall-views
 * all), into @b ("A,B"): how many.  Each gets its "on_cpu_share".
 */
static size_t waiting_cells(struct review *rv, size_t l, struct hv_strbuf *b)
{
    json_t *fl;
    const char *name;
    size_t n = 0;

    json_object_foreach(rv->flames, name, fl)
    {
        /* The measured threads': do they run or wait? */
        json_t *cpu = json_object_get(fl, "measured_cpu_ns_per_op");
        json_t *wall = json_object_get(fl, "wall_ns_per_op");
        json_int_t t = json_integer_value(json_object_get(fl, "threads"));
        double w = mean2(json_array_get(wall, 0), json_array_get(wall, 1)) *
                   (double)(t > 0 ? t : 1);
        double share =
            w > 0 ? mean2(json_array_get(cpu, 0), json_array_get(cpu, 1)) / w
                  : 1;

        if ( (size_t)json_integer_value(json_object_get(fl, "line")) != l )
            continue;
        json_object_set_new(fl, "on_cpu_share", json_real(share));
        if ( rv->o.wall_views == WALL_VIEWS_ALL ||
             (rv->o.wall_views == WALL_VIEWS_AUTO &&
              share < REVIEW_ON_CPU_SHARE_MAX) )
        {
            hv_strbuf_join(b, ",", "%s", name);
            n++;
        }
    }
    return n;
}

/* View @v's rounds of line @l's cells @cells into their entries. */
static int one_view(struct review *rv, size_t l, const struct wait_view *v,
                    const char *cells, char *err, size_t len)
{
    char *extra[] = {"--repetitions",          "1",  "--min-time",
                     (char *)rv->o.flame_time, "-q", "--view",
                     (char *)v->name,          NULL};
    struct wait_acc wa = {v, json_object(), strlen(rv->o.out)};
    char *saved = rv->cells;
    json_t *sides, *fl, *all = json_object();
    const char *name;
    int rc;

    rv->cells = rv->cell_ok ? (char *)cells : saved;
    rc = hvb_review_alternate(rv, l, v->name, "profile", extra,
                              rv->o.flame_rounds, merge_round, &wa, err, len);
    rv->cells = saved;
    json_object_foreach(wa.cells, name, sides)
    {
        json_t *s[2] = {json_array_get(sides, 0), json_array_get(sides, 1)};
        json_t *rf, *e;
        size_t j;

        fl = json_object_get(rv->flames, name);
        if ( rc || fl == NULL || !hvb_matrix_listed(cells, name) )
            continue;
        rf = json_pack("[O, O]", json_object_get(s[0], "rounds_folded"),
                       json_object_get(s[1], "rounds_folded"));
        e = hvb_review_draw_entry(v->name, name, rv->o.flame_rounds, rf);
        json_decref(rf);
        for ( j = 0; v->keys[j] != NULL; j++ )
            json_object_set_new(e, v->keys[j],
                                json_pack("[O, O]",
                                          json_object_get(s[0], v->keys[j]),
                                          json_object_get(s[1], v->keys[j])));
        json_object_set_new(fl, v->name, e);
    }
    json_decref(wa.cells);
    /* Every view entry of the review so far, on one scale. */
    json_object_foreach(rv->flames, name, fl)
        if ( json_object_get(json_object_get(fl, v->name), "prefix") )
            json_object_set(all, name, json_object_get(fl, v->name));
    if ( rc == 0 )
        rc = hvb_review_draw(rv, v->name, v->unit, true, all, err, len);
    json_decref(all);
    return rc;
}

int hvb_review_waits(struct review *rv, size_t l, char *err, size_t len)
{
    char cells[8192], e[1024];
    struct hv_strbuf b;
    const char *name;
    json_t *fl;
    size_t i;
    int rc = 0;

    hv_strbuf_init(&b, cells, sizeof(cells));
    /* Each cell's share is kept (callgrind skips the waiting ones). */
    if ( waiting_cells(rv, l, &b) == 0 || hv_strbuf_cut(&b) )
        return 0;
    if ( !rv->o.quiet )
        fprintf(stderr,
                "hvbench: review: where the time of %s waits: the wall and "
                "wait views (%u interleaved rounds per build)\n",
                cells, rv->o.flame_rounds);
    for ( i = 0; i < sizeof(views) / sizeof(views[0]); i++ )
    {
        if ( one_view(rv, l, &views[i], cells, e, sizeof(e)) == 0 )
            continue;
        /* A view that cannot run (no tracepoint, an older build): said. */
        json_object_foreach(rv->flames, name, fl)
            if ( hvb_matrix_listed(cells, name) &&
                 json_object_get(fl, views[i].name) == NULL )
                json_object_set_new(fl, views[i].name,
                                    json_pack("{s:s}", "error", e));
        snprintf(err, len, "the %s view: %s", views[i].name, e);
        rc = -EIO;
    }
    return rc;
}

/* One view of cell entry @fl: its totals, graphs and stacks. */
static void view_rows(FILE *f, json_t *fl, const struct wait_view *v, bool html)
{
    json_t *e = json_object_get(fl, v->name);
    json_t *tot = json_object_get(e, v->keys[0]);
    const char *err = json_string_value(json_object_get(e, "error"));
    const char *after = json_string_value(json_object_get(e, "after_svg"));
    double div;
    const char *u;

    if ( e == NULL )
        return;
    if ( err != NULL || after == NULL )
    {
        fprintf(f,
                html ? "<p>The %s view could not run: "
                     : "\nThe %s view "
                       "could not run: ",
                v->name);
        if ( html )
            hvb_view_html(f, err ? err : "no graph");
        else
            fputs(err ? err : "no graph", f);
        fputs(html ? "</p>\n" : ".\n", f);
        return;
    }
    div = hvb_view_per_op(mean2(json_array_get(tot, 0), json_array_get(tot, 1)),
                          &u);
    fprintf(f,
            html ? "<p><b>The %s view</b> (%s), %s: "
                 : "\n**The %s view** (%s), %s: ",
            v->name, v->what, u);
    hvb_view_rounds(f, json_array_get(tot, 0), div);
    fputs(html ? " &rarr; " : " -> ", f);
    hvb_view_rounds(f, json_array_get(tot, 1), div);
    fprintf(f,
            html ? "; <a href=\"%s\">before</a>, <a href=\"%s\">every "
                   "stack</a>.</p>\n<object type=\"image/svg+xml\" "
                   "data=\"%s\" style=\"width:100%%\"></object>\n"
                 : "; [after](%3$s), [before](%1$s), [every stack](%2$s).\n",
            json_string_value(json_object_get(e, "before_svg")),
            json_string_value(json_object_get(e, "table")), after);
    hvb_view_role_rows(f, json_object_get(e, "roles"), ROLES_SHOWN, html);
    hvb_view_stack_rows(f, json_object_get(e, "stacks"), v->name,
                        html ? STACKS_HTML : STACKS_MD, html);
}

void hvb_review_waits_rows(FILE *f, json_t *fl, bool html)
{
    double share = json_number_value(json_object_get(fl, "on_cpu_share"));
    size_t i;

    if ( json_object_get(fl, "wall") == NULL &&
         json_object_get(fl, "wait") == NULL )
        return;
    fprintf(f,
            html ? "<h3>Where the time waits</h3>\n<p>Its measured threads "
                   "ran on CPU %.0f%% of their wall time; both builds "
                   "profiled again in the same interleaved rounds, by the "
                   "stacks their threads waited in.</p>\n"
                 : "\n#### Where the time waits\n\nIts measured threads ran "
                   "on CPU %.0f%% of their wall time; both builds profiled "
                   "again in the same interleaved rounds, by the stacks "
                   "their threads waited in.\n",
            share * 100);
    for ( i = 0; i < sizeof(views) / sizeof(views[0]); i++ )
        view_rows(f, fl, &views[i], html);
}
