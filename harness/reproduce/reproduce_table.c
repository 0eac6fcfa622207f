/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reproduce table (hvb/reproduce.h), as markdown and as JSON: one row
 * per claim (seed | the claim with its figures and units | the same
 * figure here | ratio of ratios | direction | within 2x | how measured),
 * then one row per run with its provenance (pid, exit status, times, the
 * results file and what it says of its writer).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <hvb/reproduce.h>
#include <hvb/results_read.h>

static void fmt_num(char *buf, size_t len, double v)
{
    if ( isnan(v) )
        snprintf(buf, len, "-");
    else if ( fabs(v) >= 100 )
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.3g", v);
}

static void fmt_utc(char *buf, size_t len, double t)
{
    time_t s = (time_t)t;
    struct tm tm;

    gmtime_r(&s, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "2.28x" or "45-450x". */
static void fmt_seed_ratio(char *buf, size_t len, const struct hvb_rp_claim *c)
{
    char lo[24], hi[24];

    fmt_num(lo, sizeof(lo), c->seed_lo);
    fmt_num(hi, sizeof(hi), c->seed_hi);
    if ( c->seed_lo == c->seed_hi )
        snprintf(buf, len, "%sx", lo);
    else
        snprintf(buf, len, "%s-%sx", lo, hi);
}

/* Files are named relative to DIR, where the table is. */
static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

static const char *state_name(enum hvb_rp_state s)
{
    return s == HVB_RP_MEASURED       ? "measured"
           : s == HVB_RP_UNMEASURABLE ? "not-reproducible"
                                      : "failed";
}

/* Markdown cell text: '|' and newlines would break the row. */
static void md(FILE *f, const char *s)
{
    for ( ; *s; s++ )
        if ( *s == '|' )
            fputs("\\|", f);
        else if ( *s == '\n' )
            fputc(' ', f);
        else
            fputc(*s, f);
}

/* "yes", "**NO**", or "unclear (...)" when the CI contains 1. */
static const char *direction_word(const struct hvb_rp_figure *g)
{
    if ( !g->resolved )
        return g->direction ? "unclear (CI spans 1; point: yes)"
                            : "unclear (CI spans 1; point: no)";
    return g->direction ? "yes" : "**NO**";
}

static void md_measured(FILE *f, const struct hvb_rp_figure *g)
{
    const struct hvb_rp_claim *c = g->claim;
    char n[32], d[32], r[32], lo[32], hi[32];

    if ( g->state == HVB_RP_UNMEASURABLE )
    {
        fputs("**not reproducible here**: ", f);
        md(f, c->unmeasurable);
        return;
    }
    if ( g->state == HVB_RP_FAILED )
    {
        fputs("**failed**: ", f);
        md(f, g->error);
        return;
    }
    fmt_num(n, sizeof(n), g->num);
    fmt_num(d, sizeof(d), g->den);
    fmt_num(r, sizeof(r), g->ratio);
    fprintf(f, "%s / %s %s = **%sx**", n, d, c->unit, r);
    if ( !isnan(g->ci_lo) )
    {
        fmt_num(lo, sizeof(lo), g->ci_lo);
        fmt_num(hi, sizeof(hi), g->ci_hi);
        fprintf(f, " [%s, %s]", lo, hi);
    }
    fputs(g->paired ? " (paired rounds)" : " (medians)", f);
}

/*
 * The last column: how it was measured, the "also" ratio of this
 * invocation's runs, then the figures of earlier runs, named so.
 */
static void md_how(FILE *f, const struct hvb_rp_figure *g)
{
    const struct hvb_rp_claim *c = g->claim;
    const struct hvb_rp_extra *x = c->extra;
    char a[32], b[32], r[32];

    md(f, c->how ? c->how : "-");
    if ( x != NULL && x->also != NULL )
    {
        fmt_num(a, sizeof(a), g->also_num);
        fmt_num(b, sizeof(b), g->also_den);
        fmt_num(r, sizeof(r), g->also_num / g->also_den);
        fputs(". This invocation: ", f);
        md(f, x->also);
        fprintf(f, " %s / %s = **%s**", a, b, r);
    }
    if ( x != NULL && x->earlier != NULL )
    {
        fputs(". *Earlier, not this invocation's:* ", f);
        md(f, x->earlier);
    }
}

void hvb_rp_markdown(FILE *f, const struct hvb_rp_table *t)
{
    char buf[64], ror[32];
    size_t i;

    fputs("# hvbench reproduce: each seed's claim beside the same figure "
          "measured here\n\n",
          f);
    fmt_utc(buf, sizeof(buf), t->started);
    fprintf(f,
            "Invocation `%s` (pid %d), %s, %s, %.0f s; every figure "
            "measured here, and every ratio of the last column said to be "
            "this invocation's, comes from a results file written by a run "
            "of this invocation (runs table); the last column's earlier "
            "figures name their commit and machine.\n\n",
            t->invocation, (int)t->pid, buf, t->quick ? "--quick" : "full",
            t->ended - t->started);
    fputs("| seed | the claim (its figures and units) -> ratio | the same "
          "figure measured here | ratio of ratios | direction matches | "
          "within 2x | how it was measured |\n"
          "|---|---|---|---|---|---|---|\n",
          f);
    for ( i = 0; i < t->nr_fig; i++ )
    {
        const struct hvb_rp_figure *g = &t->fig[i];
        const struct hvb_rp_claim *c = g->claim;

        fprintf(f, "| %s | ", c->seed);
        md(f, c->quote);
        fmt_seed_ratio(buf, sizeof(buf), c);
        fprintf(f, " -> **%s** (", buf);
        md(f, c->figure);
        fputs(") | ", f);
        md_measured(f, g);
        fmt_num(ror, sizeof(ror), g->ror);
        if ( g->state == HVB_RP_MEASURED )
            fprintf(f, " | %s | %s | %s | ", ror, direction_word(g),
                    g->within_2x ? "yes" : "no");
        else
            fputs(" | - | n/a | n/a | ", f);
        md_how(f, g);
        fputs(" |\n", f);
    }
    fputs("\n| run | pid | exit | started (UTC) | s | results file: its "
          "writer | command |\n|---|---|---|---|---|---|---|\n",
          f);
    for ( i = 0; i < t->nr_done; i++ )
    {
        const struct hvb_rp_done *d = &t->done[i];
        char **a;

        fmt_utc(buf, sizeof(buf), d->started);
        fprintf(f, "| %s-%s | %d | %d | %s | %.1f | ", d->run->seed,
                d->run->name, (int)d->pid, d->status, buf,
                d->ended - d->started);
        if ( d->doc != NULL )
            fprintf(f, "`%s`: pid %d, this invocation", base(d->file),
                    (int)json_integer_value(
                        hvb_rd_get(d->doc, HVB_RK_RUN, HVB_RK_PID)));
        else
            md(f, d->error);
        fputs(" | `", f);
        for ( a = d->argv; a && *a; a++ )
            fprintf(f, "%s%s", a == d->argv ? "" : " ", *a);
        fputs("` |\n", f);
    }
    fputc('\n', f);
}

static json_t *num_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *figure_json(const struct hvb_rp_figure *g)
{
    const struct hvb_rp_claim *c = g->claim;
    const struct hvb_rp_extra *x = c->extra;
    json_t *o = json_object(), *m;

    json_object_set_new(o, "seed", json_string(c->seed));
    json_object_set_new(o, "claim", json_string(c->quote));
    json_object_set_new(o, "figure", json_string(c->figure));
    json_object_set_new(o, "seed_ratio",
                        json_pack("[f,f]", c->seed_lo, c->seed_hi));
    json_object_set_new(o, "how", c->how ? json_string(c->how) : json_null());
    json_object_set_new(
        o, "earlier", x && x->earlier ? json_string(x->earlier) : json_null());
    if ( x != NULL && x->also != NULL )
        json_object_set_new(o, "also",
                            json_pack("{ss so so so}", "what", x->also, "num",
                                      num_or_null(g->also_num), "den",
                                      num_or_null(g->also_den), "ratio",
                                      num_or_null(g->also_num / g->also_den)));
    json_object_set_new(o, "status", json_string(state_name(g->state)));
    if ( g->state == HVB_RP_UNMEASURABLE )
        json_object_set_new(o, "reason", json_string(c->unmeasurable));
    else if ( g->state == HVB_RP_FAILED )
        json_object_set_new(o, "reason", json_string(g->error));
    if ( g->state != HVB_RP_UNMEASURABLE )
    {
        m = json_pack("{s:[s,s,s],s:[s,s,s],s:s}", "num", c->num.run,
                      c->num.cell, c->num.metric, "den", c->den.run,
                      c->den.cell, c->den.metric, "unit", c->unit);
        json_object_set_new(m, "num_value", num_or_null(g->num));
        json_object_set_new(m, "den_value", num_or_null(g->den));
        json_object_set_new(m, "ratio", num_or_null(g->ratio));
        json_object_set_new(m, "ci95",
                            isnan(g->ci_lo)
                                ? json_null()
                                : json_pack("[f,f]", g->ci_lo, g->ci_hi));
        json_object_set_new(m, "method",
                            json_string(g->paired ? "paired" : "medians"));
        json_object_set_new(o, "measured", m);
    }
    json_object_set_new(o, "ratio_of_ratios", num_or_null(g->ror));
    json_object_set_new(o, "direction_matches",
                        g->state == HVB_RP_MEASURED ? json_boolean(g->direction)
                                                    : json_null());
    json_object_set_new(o, "direction_resolved",
                        g->state == HVB_RP_MEASURED ? json_boolean(g->resolved)
                                                    : json_null());
    json_object_set_new(o, "within_2x",
                        g->state == HVB_RP_MEASURED ? json_boolean(g->within_2x)
                                                    : json_null());
    return o;
}

static json_t *run_json(const struct hvb_rp_done *d)
{
    json_t *o = json_object(), *cmd = json_array(), *w;
    char **a;

    for ( a = d->argv; a && *a; a++ )
        json_array_append_new(cmd, json_string(*a));
    json_object_set_new(o, "seed", json_string(d->run->seed));
    json_object_set_new(o, "name", json_string(d->run->name));
    json_object_set_new(o, "file", json_string(base(d->file)));
    json_object_set_new(o, "log", json_string(base(d->log)));
    json_object_set_new(o, "command", cmd);
    json_object_set_new(o, "pid", json_integer(d->pid));
    json_object_set_new(o, "exit_status", json_integer(d->status));
    json_object_set_new(o, "started_unix_s", json_real(d->started));
    json_object_set_new(o, "ended_unix_s", json_real(d->ended));
    if ( d->doc != NULL )
    {
        w = json_object();
        json_object_set(w, "pid", hvb_rd_get(d->doc, HVB_RK_RUN, HVB_RK_PID));
        json_object_set(w, "invocation",
                        hvb_rd_get(d->doc, HVB_RK_RUN, HVB_RK_INVOCATION));
        json_object_set(w, "written_unix_s",
                        hvb_rd_get(d->doc, HVB_RK_RUN, HVB_RK_WRITTEN));
        json_object_set_new(o, "results", w);
        json_object_set_new(o, "error", json_null());
    }
    else
    {
        json_object_set_new(o, "results", json_null());
        json_object_set_new(o, "error", json_string(d->error));
    }
    return o;
}

json_t *hvb_rp_json(const struct hvb_rp_table *t)
{
    json_t *o = json_object(), *inv, *cmd = json_array(),
           *claims = json_array(), *runs = json_array(), *sum;
    size_t i, measured = 0, mismatch = 0, failed = 0, unmeasurable = 0,
              within = 0, unclear = 0;
    int k;

    if ( o == NULL )
        return NULL;
    for ( k = 0; k < t->argc; k++ )
        json_array_append_new(cmd, json_string(t->argv[k]));
    inv = json_pack("{s:s,s:i,s:f,s:f,s:b,s:f,s:o}", "id", t->invocation, "pid",
                    (int)t->pid, "started_unix_s", t->started, "ended_unix_s",
                    t->ended, "quick", t->quick, "min_time_s", t->min_time_s,
                    "command_line", cmd);
    json_object_set_new(inv, "seed",
                        t->seed ? json_string(t->seed) : json_null());
    for ( i = 0; i < t->nr_fig; i++ )
    {
        const struct hvb_rp_figure *g = &t->fig[i];

        json_array_append_new(claims, figure_json(g));
        if ( g->state == HVB_RP_MEASURED )
        {
            measured++;
            mismatch += !g->direction && g->resolved;
            unclear += !g->resolved;
            within += g->within_2x;
        }
        else if ( g->state == HVB_RP_FAILED )
            failed++;
        else
            unmeasurable++;
    }
    for ( i = 0; i < t->nr_done; i++ )
        json_array_append_new(runs, run_json(&t->done[i]));
    sum = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:i}", "claims",
                    (json_int_t)t->nr_fig, "measured", (json_int_t)measured,
                    "direction_mismatches", (json_int_t)mismatch, "within_2x",
                    (json_int_t)within, "unclear", (json_int_t)unclear,
                    "failed", (json_int_t)failed, "not_reproducible",
                    (json_int_t)unmeasurable, "exit_status", t->exit_status);
    json_object_set_new(o, "hvbench_reproduce", json_integer(1));
    json_object_set_new(o, "invocation", inv);
    json_object_set_new(o, "claims", claims);
    json_object_set_new(o, "runs", runs);
    json_object_set_new(o, "summary", sum);
    return o;
}
