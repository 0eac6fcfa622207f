/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A review document decoded into the view (hvb/view.h): every cell's
 * figures per metric, typed, and the verdict over the blocking metrics,
 * the one rule every renderer and the exit status follow:
 *
 *   regressed (exit 1)  a blocking metric of some cell regressed
 *   unknown (exit 3)    else a blocking metric of some cell is unknown
 *   improved / same     else (exit 0), whatever the other metrics say
 *
 * E.g. an A/A review, blocking sim_instructions and sim_cycles: both
 * "same" in every cell, time "unknown" in two (a busy machine): same,
 * exit 0, and the answer says that time was not decided and why.
 * A document without a "blocking" list (an older review.json) blocks
 * on every metric, as reviews did then.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/cmdline.h>
#include <hvb/view.h>

static const char *const words[] = {
    [HVB_VIEW_SAME] = "same",
    [HVB_VIEW_IMPROVED] = "improved",
    [HVB_VIEW_REGRESSED] = "regressed",
    [HVB_VIEW_UNKNOWN] = "unknown",
};

const char *hvb_view_verdict_word(enum hvb_view_verdict v)
{
    return words[v];
}

int hvb_view_metric(const struct hvb_view *v, const char *name)
{
    size_t i;

    for ( i = 0; i < v->nr_metrics; i++ )
        if ( strcmp(v->metrics[i].name, name) == 0 )
            return (int)i;
    return -1;
}

static double num(json_t *x)
{
    return json_is_number(x) ? json_number_value(x) : NAN;
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* @word as a verdict ("unchanged" and "unstable": compare's words). */
static int verdict_of(const char *word)
{
    size_t i;

    if ( word == NULL )
        return HVB_VIEW_UNKNOWN;
    if ( strcmp(word, "unchanged") == 0 )
        return HVB_VIEW_SAME;
    if ( strcmp(word, "unstable") == 0 )
        return HVB_VIEW_UNKNOWN;
    for ( i = 0; i < sizeof(words) / sizeof(*words); i++ )
        if ( strcmp(word, words[i]) == 0 )
            return (int)i;
    return -1;
}

/* The metrics, their units and levels from the gates, blocking marked. */
static int metrics(struct hvb_view *v, char *err, size_t len)
{
    json_t *r = json_object_get(v->doc, "review");
    json_t *ms = json_object_get(r, "metrics"),
           *bl = json_object_get(r, "blocking");
    json_t *m, *g, *b;
    size_t i, j, k;

    v->metrics = calloc(json_array_size(ms) + 1, sizeof(*v->metrics));
    if ( v->metrics == NULL )
        return -ENOMEM;
    json_array_foreach(ms, i, m)
    {
        struct hvb_view_metric *x = &v->metrics[v->nr_metrics++];

        x->name = json_string_value(m);
        if ( x->name == NULL )
        {
            snprintf(err, len, "review.metrics[%zu]: not a name", i);
            return -EINVAL;
        }
        x->blocking = !json_is_array(bl);
        json_array_foreach(bl, j, b)
            x->blocking |=
                json_is_string(b) && !strcmp(json_string_value(b), x->name);
        x->level = NAN;
        x->threshold = NAN;
        json_array_foreach(json_object_get(v->doc, "gates"), k, g)
        {
            json_t *gg = json_object_get(g, "gate");

            if ( str(gg, "metric") == NULL ||
                 strcmp(str(gg, "metric"), x->name) )
                continue;
            x->unit = str(gg, "unit");
            x->threshold = num(json_object_get(gg, "threshold"));
            x->level = 1 - num(json_object_get(gg, "alpha_look"));
            break;
        }
        x->unit = x->unit ? x->unit : "";
    }
    return 0;
}

static int fig(struct hvb_view_fig *g, json_t *c, const char *cell,
               const char *m, char *err, size_t len)
{
    json_t *ci = json_object_get(c, "ci");
    json_t *more = json_object_get(c, "more_pairs");
    int vd = verdict_of(str(c, "verdict"));

    if ( vd < 0 )
    {
        snprintf(err, len,
                 "cell %s, %s: verdict '%s' is none of same, "
                 "improved, regressed, unknown",
                 cell, m, str(c, "verdict"));
        return -EINVAL;
    }
    g->present = true;
    g->verdict = vd;
    g->base = num(json_object_get(c, "base"));
    g->head = num(json_object_get(c, "new"));
    g->ratio = num(json_object_get(c, "ratio"));
    g->lo = num(json_array_get(ci, 0));
    g->hi = num(json_array_get(ci, 1));
    g->pairs = (unsigned int)json_integer_value(json_object_get(c, "pairs"));
    g->more_pairs = json_is_integer(more)    ? (long)json_integer_value(more)
                    : vd == HVB_VIEW_UNKNOWN ? -1
                                             : 0;
    g->why = str(c, "why");
    return 0;
}

/* "lookup/domlookup=rcu-ref/threads:1" as "lookup rcu-ref, 1 thread". */
static void title(char *buf, size_t len, const char *name)
{
    const char *p = name, *e, *eq;
    size_t n = 0, parts = 0;

    buf[0] = '\0';
    while ( *p != '\0' && n + 1 < len )
    {
        e = strchr(p, '/');
        e = e ? e : p + strlen(p);
        eq = memchr(p, '=', (size_t)(e - p));
        if ( parts == 0 )
            n += snprintf(buf + n, len - n, "%.*s", (int)(e - p), p);
        else if ( strncmp(p, "threads:", 8) == 0 )
            n += snprintf(buf + n, len - n, ", %.*s thread%s", (int)(e - p - 8),
                          p + 8, (e - p == 9 && p[8] == '1') ? "" : "s");
        else if ( eq != NULL )
            n += snprintf(buf + n, len - n, "%s%.*s", parts == 1 ? " " : ", ",
                          (int)(e - eq - 1), eq + 1);
        else
            n += snprintf(buf + n, len - n, "%s%.*s", parts == 1 ? " " : ", ",
                          (int)(e - p), p);
        parts++;
        p = *e ? e + 1 : e;
    }
}

/* Cell @c's verdict over the blocking metrics, as decode's rule says. */
static enum hvb_view_verdict cell_verdict(const struct hvb_view *v,
                                          struct hvb_view_cell *c)
{
    bool reg = false, unk = false, imp = false;
    size_t m;

    for ( m = 0; m < v->nr_metrics; m++ )
    {
        const struct hvb_view_fig *g = &c->figs[m];

        if ( !g->present )
            continue;
        c->changed |=
            g->verdict == HVB_VIEW_REGRESSED || g->verdict == HVB_VIEW_IMPROVED;
        if ( !v->metrics[m].blocking )
            continue;
        reg |= g->verdict == HVB_VIEW_REGRESSED;
        unk |= g->verdict == HVB_VIEW_UNKNOWN;
        imp |= g->verdict == HVB_VIEW_IMPROVED;
    }
    return reg   ? HVB_VIEW_REGRESSED
           : unk ? HVB_VIEW_UNKNOWN
           : imp ? HVB_VIEW_IMPROVED
                 : HVB_VIEW_SAME;
}

static int cell(struct hvb_view *v, json_t *x, size_t i, char *err, size_t len)
{
    struct hvb_view_cell *c = &v->cells[i];
    json_t *by = json_object_get(x, "verdicts");
    size_t m;
    int rc;

    c->name = str(x, "name");
    if ( c->name == NULL )
    {
        snprintf(err, len, "cells[%zu]: no name", i);
        return -EINVAL;
    }
    c->line = str(x, "line");
    title(c->title, sizeof(c->title), c->name);
    c->figs = calloc(v->nr_metrics + 1, sizeof(*c->figs));
    if ( c->figs == NULL )
        return -ENOMEM;
    for ( m = 0; m < v->nr_metrics; m++ )
    {
        json_t *f = json_object_get(by, v->metrics[m].name);

        if ( f != NULL &&
             (rc = fig(&c->figs[m], f, c->name, v->metrics[m].name, err, len)) )
            return rc;
    }
    c->functions = json_object_get(x, "functions");
    c->totals = json_object_get(x, "callgrind_ir_per_op");
    c->flame = json_object_get(x, "flame");
    c->locks = json_object_get(x, "locks");
    c->flags = json_object_get(x, "flags");
    c->verdict = cell_verdict(v, c);
    return 0;
}

static void side(struct hvb_view_side *s, json_t *o)
{
    s->commit = str(o, "commit");
    s->spec = str(o, "spec");
    s->subject = str(o, "subject");
    s->dirty = json_is_true(json_object_get(o, "dirty"));
}

int hvb_view_decode(json_t *doc, struct hvb_view *v, char *err, size_t len)
{
    json_t *r = json_object_get(doc, "review"), *cells, *x;
    bool reg = false, unk = false, imp = false;
    size_t i;
    int rc;

    memset(v, 0, sizeof(*v));
    cells = json_object_get(doc, "cells");
    if ( !json_is_object(r) || !json_is_array(cells) )
    {
        snprintf(err, len, "not a review (no \"review\" or \"cells\")");
        return -EINVAL;
    }
    v->doc = json_incref(doc);
    side(&v->side[0], json_object_get(r, "base"));
    side(&v->side[1], json_object_get(r, "head"));
    v->out = str(r, "out");
    if ( (rc = metrics(v, err, len)) )
        return rc;
    v->cells = calloc(json_array_size(cells) + 1, sizeof(*v->cells));
    if ( v->cells == NULL )
        return -ENOMEM;
    json_array_foreach(cells, i, x)
    {
        v->nr_cells++; /* its figures freed by hvb_view_free() */
        if ( (rc = cell(v, x, i, err, len)) )
            return rc;
        v->nr_changed += v->cells[i].changed;
        reg |= v->cells[i].verdict == HVB_VIEW_REGRESSED;
        unk |= v->cells[i].verdict == HVB_VIEW_UNKNOWN;
        imp |= v->cells[i].verdict == HVB_VIEW_IMPROVED;
    }
    v->verdict = reg   ? HVB_VIEW_REGRESSED
                 : unk ? HVB_VIEW_UNKNOWN
                 : imp ? HVB_VIEW_IMPROVED
                       : HVB_VIEW_SAME;
    v->status = reg ? HVB_EXIT_REGRESSION : unk ? HVB_EXIT_UNSTABLE : 0;
    return 0;
}

void hvb_view_free(struct hvb_view *v)
{
    size_t i;

    for ( i = 0; i < v->nr_cells; i++ )
        free(v->cells[i].figs);
    free(v->cells);
    free(v->metrics);
    json_decref(v->doc);
    memset(v, 0, sizeof(*v));
}
