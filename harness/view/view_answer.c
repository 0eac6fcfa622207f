/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The answer a reader looks for first (hvb/view.h): per cell that moved
 * or could not be told, one sentence, then one for the rest.  A moved
 * cell leads with time where time was decided, then the instruction
 * counts with the function(s) they moved in, from the callgrind rows:
 *
 *   lookup rcu-ref, 1 thread: 43.7% slower (5.76 -> 8.28 ns/op, 99% CI
 *   +38.9 to +51.3%); +56 instructions per op (+24.3%), all in
 *   rcu_ref_lock (plugins/domlookup/rcu-ref.c:31-40)
 *
 * "all in F" when F's change is at least 90% of the functions' total,
 * "most (+N) in F" from 50%, else the two largest and how many more.
 * A metric left unknown says why ("time not decided: workers
 * descheduled (cpu-share<90%): ...").  The rest: "6 cells unchanged".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/view.h>

static double fnum(json_t *o, const char *k)
{
    json_t *x = json_object_get(o, k);

    return json_is_number(x) ? json_number_value(x) : NAN;
}

/* "+56", "+0.5": a count per op. */
static void count(struct hv_strbuf *b, double d)
{
    if ( fabs(d) >= 10 )
        hv_strbuf_add(b, "%+.0f", d);
    else
        hv_strbuf_add(b, "%+.2g", d);
}

/* Where function row @r lives: "file:31-40", "file" or "". */
static void where(struct hv_strbuf *b, json_t *r)
{
    const char *file = json_string_value(json_object_get(r, "file"));
    const char *lines = json_string_value(json_object_get(r, "head_lines"));

    if ( file == NULL || *file == '\0' )
        return;
    hv_strbuf_add(b, " (%s%s%s)", file, lines ? ":" : "", lines ? lines : "");
}

static double fn_delta(json_t *r)
{
    return fnum(r, "head_ir_per_op") - fnum(r, "base_ir_per_op");
}

/* ", all in F (file:lines)" and the like, from the function rows. */
static void attribution(struct hv_strbuf *b, const struct hvb_view_cell *c)
{
    json_t *top = json_array_get(c->functions, 0), *r;
    double total = 0, d0 = fn_delta(top), share;
    size_t i, n = json_array_size(c->functions);

    if ( top == NULL || !isfinite(d0) )
        return;
    json_array_foreach(c->functions, i, r)
        total += isfinite(fn_delta(r)) ? fn_delta(r) : 0;
    share = total != 0 ? d0 / total : 0;
    if ( share >= 0.9 )
        hv_strbuf_add(b, ", all in %s",
                      json_string_value(json_object_get(top, "function")));
    else if ( share >= 0.5 )
    {
        hv_strbuf_add(b, ", most (");
        count(b, d0);
        hv_strbuf_add(b, ") in %s",
                      json_string_value(json_object_get(top, "function")));
    }
    else
    {
        hv_strbuf_add(b, ", in %s (",
                      json_string_value(json_object_get(top, "function")));
        count(b, d0);
        hv_strbuf_add(b, ")");
        if ( n > 1 )
        {
            r = json_array_get(c->functions, 1);
            hv_strbuf_add(b, ", %s (",
                          json_string_value(json_object_get(r, "function")));
            count(b, fn_delta(r));
            hv_strbuf_add(b, ")%s", n > 2 ? " and others" : "");
        }
        return;
    }
    where(b, top);
}

static bool is_time(const struct hvb_view_metric *m)
{
    return strcmp(m->name, "time") == 0;
}

/* One decided change of metric @m: the phrase for a reader. */
static void change(struct hv_strbuf *b, const struct hvb_view_metric *m,
                   const struct hvb_view_fig *g)
{
    double pct = (g->ratio - 1) * 100;
    const char *what = strstr(m->name, "instructions")      ? "instructions"
                       : strcmp(m->name, "sim_cycles") == 0 ? "simulated cycles"
                       : strstr(m->name, "cycles")          ? "cycles"
                                                            : NULL;

    if ( is_time(m) )
    {
        /* ns/op in the unit of the larger: "20.01 -> 16.14 ms/op". */
        const char *u = m->unit;
        double div = strcmp(u, "ns/op") == 0
                         ? hvb_view_per_op(fmax(g->base, g->head), &u)
                         : 1;
        char fb[32], fh[32];

        hv_strbuf_add(b, "%.1f%% %s (%s -> %s %s", fabs(pct),
                      pct > 0 ? "slower" : "faster",
                      hvb_view_num(g->base / div, fb, sizeof(fb)),
                      hvb_view_num(g->head / div, fh, sizeof(fh)), u);
        if ( isfinite(m->level) && isfinite(g->lo) && isfinite(g->hi) )
            hv_strbuf_add(b, ", %.0f%% CI %+.1f to %+.1f%%", m->level * 100,
                          (g->lo - 1) * 100, (g->hi - 1) * 100);
        hv_strbuf_add(b, ")");
    }
    else if ( what != NULL )
    {
        count(b, g->head - g->base);
        hv_strbuf_add(b, " %s per op (%+.1f%%)", what, pct);
    }
    else
        hv_strbuf_add(b, "%s %+.1f%% (%.3g -> %.3g %s)", m->name, pct, g->base,
                      g->head, m->unit);
}

static bool moved(const struct hvb_view_fig *g)
{
    return g->present && (g->verdict == HVB_VIEW_REGRESSED ||
                          g->verdict == HVB_VIEW_IMPROVED);
}

const char *hvb_view_sentence(const struct hvb_view *v,
                              const struct hvb_view_cell *c, char *buf,
                              size_t len)
{
    struct hv_strbuf b;
    int t = hvb_view_metric(v, "time");
    size_t m, parts = 0;

    hv_strbuf_init(&b, buf, len);
    hv_strbuf_add(&b, "%s: ", c->title);
    /* Time first where it was decided, then the others in order. */
    if ( t >= 0 && moved(&c->figs[t]) )
    {
        change(&b, &v->metrics[t], &c->figs[t]);
        parts++;
    }
    for ( m = 0; m < v->nr_metrics; m++ )
    {
        if ( (int)m == t || !moved(&c->figs[m]) )
            continue;
        hv_strbuf_add(&b, "%s", parts++ ? "; " : "");
        change(&b, &v->metrics[m], &c->figs[m]);
        if ( strstr(v->metrics[m].name, "instructions") )
            attribution(&b, c);
    }
    for ( m = 0; m < v->nr_metrics; m++ )
    {
        const struct hvb_view_fig *g = &c->figs[m];

        if ( !g->present || g->verdict != HVB_VIEW_UNKNOWN )
            continue;
        hv_strbuf_add(&b, "%s%s not decided%s%s", parts++ ? "; " : "",
                      v->metrics[m].name, g->why ? ": " : "",
                      g->why ? g->why : "");
    }
    if ( parts == 0 )
        buf[0] = '\0';
    return buf;
}

const char *hvb_view_change(const struct hvb_view_fig *g, char *buf, size_t len)
{
    if ( !g->present || !(g->ratio > 0) )
        snprintf(buf, len, "-");
    else if ( isfinite(g->lo) && isfinite(g->hi) && g->lo != g->hi )
        snprintf(buf, len, "%+.2f%% [%+.2f, %+.2f]", (g->ratio - 1) * 100,
                 (g->lo - 1) * 100, (g->hi - 1) * 100);
    else
        snprintf(buf, len, "%+.2f%%", (g->ratio - 1) * 100);
    return buf;
}

const char *hvb_view_rest(const struct hvb_view *v, char *buf, size_t len)
{
    char s[1024];
    size_t i, told = 0, rest;

    for ( i = 0; i < v->nr_cells; i++ )
        told += *hvb_view_sentence(v, &v->cells[i], s, sizeof(s)) != '\0';
    rest = v->nr_cells - told;
    if ( rest == 0 )
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%s%zu %scell%s unchanged.",
                 told == 0 && rest > 1 ? "All " : "", rest,
                 told ? "other " : "", rest == 1 ? "" : "s");
    return buf;
}

void hvb_view_answer(FILE *f, const struct hvb_view *v, const char *prefix)
{
    char s[1024];
    size_t i;

    for ( i = 0; i < v->nr_cells; i++ )
        if ( *hvb_view_sentence(v, &v->cells[i], s, sizeof(s)) != '\0' )
            fprintf(f, "%s%s\n", prefix, s);
    if ( *hvb_view_rest(v, s, sizeof(s)) != '\0' )
        fprintf(f, "%s%s\n", prefix, s);
}
