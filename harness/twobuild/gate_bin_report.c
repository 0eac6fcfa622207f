/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gate --base-bin's verdicts said: per cell its verdict, the pairs it
 * took and each pair's median ratio on stdout, the gate's report
 * (hvb_gate_report(): the table, --markdown), and --json (docs/schema.md).
 * E.g. "  lookup/domlookup=rcu-ref/threads:1: 12000 ops/thread per
 * sample; same after 8 pair(s); median new/base per pair: 1.0012 0.9987
 * ...".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/cmdline.h>
#include <hvb/compare.h>
#include <hvb/gate.h>
#include <hvb/outfile.h>
#include <hvb/stats.h>
#include "private.h"

/* The last look's comparison @c with every cell's final row in it. */
static void final_rows(struct gate_bin *g, struct hvb_cmp *c)
{
    size_t i;

    memset(c->nr, 0, sizeof(c->nr));
    for ( i = 0; i < c->nr_rows && i < g->nr_cells; i++ )
    {
        c->rows[i] = g->final[i];
        c->nr[c->rows[i].verdict]++;
    }
}

/* Per cell, the median ratio of each process pair: the layout luck. */
static void print_pairs(struct gate_bin *g, const struct hvb_cmp *c)
{
    size_t i, j;
    unsigned int p;

    printf("two builds paired: base %s, new %s; %u to %u process pair(s) "
           "(looks after %u, then every %u: %u taken of at most %u, each "
           "at alpha %.2g/%u = %.3g) x %u round(s) per cell, samples in AB "
           "BA order%s\n",
           g->run_args[0] ? g->run_args[0][3] : g->w[0].bin,
           g->run_args[1] ? g->run_args[1][3] : g->w[1].bin, g->pairs,
           g->max_pairs, g->pairs, g->look_every, g->looks, g->max_looks,
           GATE_ALPHA, g->max_looks, g->alpha, g->rounds,
           g->sim ? ", under callgrind" : "");
    if ( g->run_args[0] )
        printf("the base predates the worker: each sample of either build is "
               "a whole 'run' process of it (worker --run-bin; the same for "
               "both, so that neither is the warmer), so the spread is "
               "wider%s\n",
               json_is_true(json_object_get(g->hello[0], "by_time"))
                   ? "; it predates --iterations too: its samples run as "
                     "long as the count took at calibration"
                   : "");
    for ( i = 0; i < g->nr_cells; i++ )
    {
        const struct hvb_cmp_row *r = &g->final[i];
        long more = hvb_cmp_more_pairs(r, c->threshold);
        json_t *x = g->time[0][i], *y = g->time[1][i];

        printf("  %s: %lld ops/thread per sample; %s after %u pair(s)",
               json_string_value(json_array_get(g->names, i)),
               (long long)g->iters[i], hvb_cmp_verdict_word(c, r->verdict),
               g->npairs[i]);
        if ( more > 0 )
            printf(" (about %ld more would decide it)", more);
        else if ( more < 0 )
            printf(" (no count of pairs more is likely to decide it)");
        if ( g->sim || strcmp(c->key, "time") != 0 )
        {
            putchar('\n');
            continue;
        }
        printf("; median new/base per pair:");
        for ( p = 0; p < g->npairs[i]; p++ )
        {
            double q[MAX_ROUNDS];
            size_t n = 0;

            for ( j = p * g->rounds; j < (p + 1) * g->rounds; j++ )
            {
                double a = json_number_value(json_array_get(x, j));

                if ( a > 0 )
                    q[n++] = json_number_value(json_array_get(y, j)) / a;
            }
            printf(" %.4f", n ? hvb_median(q, n) : NAN);
        }
        putchar('\n');
    }
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* The overall verdict of @c, as a cell's. */
static const char *overall(const struct hvb_cmp *c)
{
    return c->nr[HVB_REGRESSED]  ? "regressed"
           : c->nr[HVB_UNSTABLE] ? "unknown"
           : c->nr[HVB_IMPROVED] ? "improved"
                                 : "same";
}

/* --json's document (docs/schema.md) after @seconds, "exit" to be set. */
static json_t *json_doc(struct gate_bin *g, const struct hvb_cmp *c,
                        double seconds)
{
    json_t *cells = json_array(), *o;
    char method[512];
    size_t i;

    snprintf(method, sizeof(method),
             "one vote per process pair: each pair's median of its per-round "
             "ratios new/base, their Hodges-Lehmann estimate, percentile "
             "bootstrap CI over the pairs (under 4 pairs: the median of all "
             "rounds, pairs then rounds); looks after %u pairs, then "
             "every %u, to %u: at most %u looks, each at alpha %g/%u "
             "(Bonferroni); same: CI inside [1-t, 1+t]; regressed/improved: "
             "CI wholly above/below it and a Benjamini-Hochberg discovery at "
             "q = alpha/%u among the cells' bootstrap p of a change beyond "
             "t; else unknown",
             g->pairs, g->look_every, g->max_pairs, g->max_looks, GATE_ALPHA,
             g->max_looks, g->max_looks);
    for ( i = 0; i < g->nr_cells; i++ )
    {
        const struct hvb_cmp_row *r = &g->final[i];
        long more = hvb_cmp_more_pairs(r, c->threshold);
        char why[256];
        const char *w = hvb_cmp_why(c, r, why, sizeof(why));

        json_array_append_new(
            cells,
            json_pack("{sO ss so s[oo] si si sI so so so so so}", "name",
                      json_array_get(g->names, i), "verdict",
                      hvb_cmp_verdict_word(c, r->verdict), "ratio",
                      num(r->ratio), "ci", num(r->lo), num(r->hi), "pairs",
                      (int)g->npairs[i], "rounds", (int)g->rounds, "iterations",
                      (json_int_t)g->iters[i], "more_pairs",
                      more >= 0 ? json_integer(more) : json_null(), "p",
                      num(r->p), "p_beyond", num(r->p_beyond), "base",
                      num(r->base), "new", num(r->new_)));
        if ( w != NULL )
            json_object_set_new(json_array_get(cells, i), "why",
                                json_string(w));
    }
    o = json_pack("{s{ss ss sf sf si si si si si sf sf so} sO sO so ss}",
                  "gate", "metric", c->metric, "unit", c->unit, "threshold",
                  c->threshold, "alpha", GATE_ALPHA, "pairs_min", (int)g->pairs,
                  "pairs_max", (int)g->max_pairs, "look_every",
                  (int)g->look_every, "looks", (int)g->looks, "looks_max",
                  (int)g->max_looks, "alpha_look", g->alpha, "seconds", seconds,
                  "budget",
                  g->budget_s > 0 ? json_real(g->budget_s) : json_null(),
                  "base", json_object_get(g->hello[0], "hvbench"), "new",
                  json_object_get(g->hello[1], "hvbench"), "cells", cells,
                  "verdict", overall(c));
    json_object_set_new(json_object_get(o, "gate"), "method",
                        json_string(method));
    return o;
}

/* Write @o to --json (hvb/outfile.h); 0 or HVB_EXIT_USAGE. */
static int write_json(struct gate_bin *g, json_t *o)
{
    struct hvb_outfile f;

    if ( hvb_outfile_open(&f, g->json_path, "json", g->err, sizeof(g->err)) )
        return hvb_usage_error("%s", g->err);
    if ( json_dumpf(o, f.f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ||
         fputc('\n', f.f) == EOF )
    {
        hvb_outfile_abort(&f);
        return hvb_usage_error("cannot write json to '%s'", g->json_path);
    }
    if ( hvb_outfile_commit(&f, g->err, sizeof(g->err)) )
        return hvb_usage_error("%s", g->err);
    return 0;
}

int hvb_gate_bin_report(struct gate_bin *g, struct hvb_cmp *c, double seconds)
{
    json_t *o;
    int status, rc;

    final_rows(g, c);
    o = json_doc(g, c, seconds);
    print_pairs(g, c);
    status = hvb_gate_report(c, g->hello[0], g->hello[1], g->md_path,
                             g->allow_unstable);
    if ( g->json_path != NULL )
    {
        if ( o == NULL )
            return hvb_failure("out of memory");
        json_object_set_new(o, "exit", json_integer(status));
        rc = write_json(g, o);
        if ( rc )
            status = rc;
    }
    json_decref(o);
    return status;
}
