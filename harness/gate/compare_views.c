/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The views of a comparison (hvb/compare.h) that compare and gate print
 * (cmd_compare.c; gate --base-bin through hvb_gate_report()): the console
 * table, the markdown summary with both files' environments, and the
 * JSON rows.  E.g. a console row of the gate self-test (a +25% slowdown
 * on a loaded 2-vCPU VM), wrapped here:
 *
 *   lookup/domlookup=slowdown:work=6/threads:1   13.85   16.54   +14.92%
 *       [-11.6%, +51.8%]   0.307   unstable
 *       new cv>=10%, new min/max>=50%-from-mean
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <hv/strbuf.h>
#include <hvb/compare.h>
#include <hvb/gate.h>
#include <hvb/noise.h>
#include <hvb/results_read.h>
#include <hvb/ledger.h>

#include "private.h"

static void summary_line(FILE *f, const struct hvb_cmp *c)
{
    fprintf(f, "summary: %zu regressed, %zu improved, %zu %s, %zu %s",
            c->nr[HVB_REGRESSED], c->nr[HVB_IMPROVED], c->nr[HVB_UNCHANGED],
            hvb_cmp_verdict_word(c, HVB_UNCHANGED), c->nr[HVB_UNSTABLE],
            hvb_cmp_verdict_word(c, HVB_UNSTABLE));
    if ( c->only_base || c->only_new )
        fprintf(f, " (%zu only in BASE, %zu only in NEW)", c->only_base,
                c->only_new);
    fputc('\n', f);
}

/*
 * The name of @c's intervals for a column head: the rows' one label
 * ("95% CI", "range of 5 rounds"), or "interval" where they differ.
 */
static const char *interval_head(const struct hvb_cmp *c, char *buf, size_t len)
{
    char other[48];
    size_t i;

    snprintf(buf, len, "%.4g%% CI", (1 - (c->builds ? c->alpha : 0.05)) * 100);
    for ( i = 0; i < c->nr_rows; i++ )
    {
        hvb_cmp_interval(c, &c->rows[i], other, sizeof(other));
        if ( i == 0 )
            snprintf(buf, len, "%s", other);
        else if ( strcmp(buf, other) != 0 )
            return snprintf(buf, len, "interval"), buf;
    }
    return buf;
}

/* A line per row without a verdict: "unstable: NAME: why" (@prefix first). */
static void why_lines(FILE *f, const struct hvb_cmp *c, const char *prefix,
                      const char *quote)
{
    char why[320];
    size_t i;

    for ( i = 0; i < c->nr_rows; i++ )
        if ( hvb_cmp_why(c, &c->rows[i], why, sizeof(why)) != NULL )
            fprintf(f, "%s%s: %s%s%s: %s\n", prefix,
                    hvb_cmp_verdict_word(c, HVB_UNSTABLE), quote,
                    c->rows[i].name, quote, why);
}

void hvb_cmp_print_console(FILE *f, const struct hvb_cmp *c)
{
    int w = (int)strlen("benchmark");
    char noise[320], level[48];
    size_t i;

    for ( i = 0; i < c->nr_rows; i++ )
        if ( (int)strlen(c->rows[i].name) > w )
            w = (int)strlen(c->rows[i].name);
    interval_head(c, level, sizeof(level));
    fprintf(f, "metric: %s: %s; threshold %.2g%%%s\n", c->metric, c->source,
            c->threshold * 100,
            c->builds   ? "; two builds paired: per process pair the median of "
                          "its per-round ratios new/base, their Hodges-Lehmann "
                          "estimate, p of a ratio other than 1 (bootstrap)"
            : c->paired ? "; paired rounds: each variant against its group's "
                          "reference, the median of the per-round ratios, "
                          "noise of those ratios"
                        : "");
    if ( !c->paired )
        fprintf(f, "processes: base %u, new %u%s\n", c->processes[0],
                c->processes[1],
                c->processes[0] > 1 && c->processes[1] > 1
                    ? " (CI: two-stage bootstrap, processes then rounds)"
                : c->same_code
                    ? " (the metric depends on the code path only)"
                    : " (a file of one process cannot show the variance "
                      "between processes, so no verdict: one-process; "
                      "run both with --processes 3 or more, or gate one "
                      "file of paired rounds)");
    fprintf(f, "%-*s  %12s  %12s  %8s  %-17s  %8s  %-9s  %s\n", w, "benchmark",
            "base", "new", "change", level, "p", "verdict", "noise");
    for ( i = 0; i < c->nr_rows; i++ )
    {
        const struct hvb_cmp_row *r = &c->rows[i];
        char ci[48];

        /* Two builds: CIs to 0.01%, their edges beside a 0.5% threshold. */
        snprintf(ci, sizeof(ci),
                 c->builds ? "[%+.2f%%, %+.2f%%]" : "[%+.1f%%, %+.1f%%]",
                 (r->lo - 1) * 100, (r->hi - 1) * 100);
        hvb_cmp_noise_str(r, noise, sizeof(noise));
        fprintf(f, "%-*s  %12.4g  %12.4g  %+7.2f%%  %-17s  %7.3g%s  %-9s  %s\n",
                w, r->name, r->base, r->new_, (r->ratio - 1) * 100, ci, r->p,
                r->p < 0.05 ? "*" : " ", hvb_cmp_verdict_word(c, r->verdict),
                noise);
    }
    if ( !c->builds )
        why_lines(f, c, "", "");
    summary_line(f, c);
}

static const char *verdict_icon(enum hvb_verdict v)
{
    static const char *const icons[] = {"✅", "⚡", "❌", "⚠️"};

    return icons[v];
}

static void environments(FILE *f, json_t *b, json_t *n)
{
    char x[256], y[256];
    size_t i;
    bool differ = false;

    fprintf(f, "\n### Environments\n\n| | base | new |\n|---|---|---|\n");
    for ( i = 0; i < hvb_ledger_nr_rows; i++ )
    {
        const struct hvb_ledger_row *r = &hvb_ledger_rows[i];

        if ( !(r->views & HVB_LEDGER_COMPARE) )
            continue;
        hvb_ledger_text(b, r, x, sizeof(x));
        hvb_ledger_text(n, r, y, sizeof(y));
        fprintf(f, "| %s | %s | %s |\n", r->label, x, y);
        if ( (r->views & HVB_LEDGER_MUST_MATCH) && strcmp(x, y) != 0 )
            differ = true;
    }
    if ( differ )
        fprintf(f, "\n⚠️ Different runtime environments detected: the "
                   "comparison may reflect the machines, not the change.\n");
}

void hvb_cmp_print_markdown(FILE *f, const struct hvb_cmp *c, json_t *b,
                            json_t *n, int status)
{
    char noise[320], level[48];
    bool any_noise = false;
    size_t i;

    /* @status: gate's exit status, or -1 for compare (no verdict). */
    if ( status < 0 )
        fprintf(f, "## hvbench compare\n\n");
    else
        fprintf(f, "## hvbench gate: %s%s\n\n",
                status == 0   ? "✅ pass"
                : status == 1 ? "❌ regression"
                : c->builds   ? "⚠️ unknown: more pairs needed"
                              : "⚠️ too unstable to judge",
                status == 0 && c->nr[HVB_UNSTABLE]
                    ? c->builds
                          ? " (unknown benchmarks not gated: --allow-unstable)"
                          : " (unstable benchmarks not gated: --allow-unstable)"
                    : "");
    fprintf(f,
            "%zu regressed, %zu improved, %zu %s, %zu %s; "
            "threshold %s%.2g%%.\n\n",
            c->nr[HVB_REGRESSED], c->nr[HVB_IMPROVED], c->nr[HVB_UNCHANGED],
            hvb_cmp_verdict_word(c, HVB_UNCHANGED), c->nr[HVB_UNSTABLE],
            hvb_cmp_verdict_word(c, HVB_UNSTABLE), c->builds ? "±" : "+",
            c->threshold * 100);
    if ( c->builds )
        fprintf(f,
                "**Metric:** `%s`: %s. Two builds paired in one run: per "
                "process pair the median of its per-round ratios new/base, "
                "ratio = their Hodges-Lehmann estimate (under 4 pairs: the "
                "median of all rounds), %.4g%% percentile bootstrap CI by "
                "process pair; p = bootstrap, of a ratio other than 1.\n\n",
                c->metric, c->source, (1 - c->alpha) * 100);
    else
        fprintf(f, "**Metric:** `%s`: %s. %s; p = Mann-Whitney U.\n\n",
                c->metric, c->source,
                c->paired ? "Paired rounds of one run: ratio = median of the "
                            "per-round ratios of each variant to its group's "
                            "reference (base), its interval a 95% percentile "
                            "bootstrap CI of that median, or with fewer than 6 "
                            "rounds the rounds' range (not a CI)"
                : c->processes[0] > 1 && c->processes[1] > 1
                    ? "Ratio = NEW / BASE of the medians, 95% percentile "
                      "bootstrap CI; both files pool worker processes, "
                      "resampled in two stages (processes, then rounds)"
                : c->same_code
                    ? "Ratio = NEW / BASE of the medians, 95% percentile "
                      "bootstrap CI"
                    : "Ratio = NEW / BASE of the medians, 95% percentile "
                      "bootstrap CI; a file of one process cannot show the "
                      "variance between processes, so its rows are not judged "
                      "(`one-process`: run both with `--processes 3` or more)");
    fprintf(f,
            "| | benchmark | base (%s) | new | change | %s | p |\n"
            "|---|---|---:|---:|---:|---|---:|\n",
            c->unit, interval_head(c, level, sizeof(level)));
    for ( i = 0; i < c->nr_rows; i++ )
    {
        const struct hvb_cmp_row *r = &c->rows[i];

        fprintf(f,
                "| %s | `%s` | %.4g | %.4g | %+.2f%% | [%+.2f%%, %+.2f%%] | "
                "%.3g |\n",
                verdict_icon(r->verdict), r->name, r->base, r->new_,
                (r->ratio - 1) * 100, (r->lo - 1) * 100, (r->hi - 1) * 100,
                r->p);
    }
    if ( c->nr[HVB_UNSTABLE] )
        fputc('\n', f);
    why_lines(f, c, "- ", "`");
    environments(f, b, n);
    for ( i = 0; i < c->nr_rows; i++ )
    {
        const struct hvb_cmp_row *r = &c->rows[i];

        hvb_cmp_noise_str(r, noise, sizeof(noise));
        if ( noise[0] == '\0' )
            continue;
        if ( !any_noise )
            fprintf(f, "\n### Noise warnings\n\n");
        any_noise = true;
        fprintf(f, "- `%s`: %s\n", r->name, noise);
    }
}

/* Row @r's reason for no verdict, or null. */
static json_t *why_json(const struct hvb_cmp *c, const struct hvb_cmp_row *r)
{
    char why[320];

    return hvb_cmp_why(c, r, why, sizeof(why)) ? json_string(why) : json_null();
}

/*
 * What row @r's ci95 is: {"kind": "range", "n": 5, "label": "range of 5
 * rounds"} or {"kind": "ci", "level": 0.95, "n": 9, "label": "95% CI"}.
 */
static json_t *interval_json(const struct hvb_cmp *c,
                             const struct hvb_cmp_row *r)
{
    char label[48];
    json_t *o = json_pack("{ss sI ss}", "kind", r->range ? "range" : "ci", "n",
                          (json_int_t)r->n, "label",
                          hvb_cmp_interval(c, r, label, sizeof(label)));

    if ( !r->range )
        json_object_set_new(o, "level",
                            json_real(1 - (c->builds ? c->alpha : 0.05)));
    return o;
}

json_t *hvb_cmp_json(const struct hvb_cmp *c)
{
    json_t *o = json_object(), *rows = json_array(), *s = json_object();
    size_t i;

    json_object_set_new(o, "metric", json_string(c->metric));
    json_object_set_new(o, "key", json_string(c->key));
    json_object_set_new(o, "source", json_string(c->source));
    json_object_set_new(o, "threshold", json_real(c->threshold));
    if ( !c->paired )
        json_object_set_new(
            o, "processes",
            json_pack("[ii]", (int)c->processes[0], (int)c->processes[1]));
    for ( i = 0; i < c->nr_rows; i++ )
    {
        const struct hvb_cmp_row *r = &c->rows[i];
        json_t *x = json_pack("{ss sf sf}", "name", r->name, "base", r->base,
                              "new", r->new_);

        json_object_set_new(
            x, "ratio", isfinite(r->ratio) ? json_real(r->ratio) : json_null());
        json_object_set_new(
            x, "ci95",
            json_pack("[oo]", isfinite(r->lo) ? json_real(r->lo) : json_null(),
                      isfinite(r->hi) ? json_real(r->hi) : json_null()));
        json_object_set_new(x, "mannwhitney_p",
                            isfinite(r->p) ? json_real(r->p) : json_null());
        json_object_set_new(x, "verdict",
                            json_string(hvb_verdict_name(r->verdict)));
        json_object_set_new(x, "why", why_json(c, r));
        json_object_set_new(x, "interval", interval_json(c, r));
        json_object_set_new(x, "base_noise", hvb_noise_json(r->base_noise));
        json_object_set_new(x, "new_noise", hvb_noise_json(r->new_noise));
        json_array_append_new(rows, x);
    }
    json_object_set_new(o, "benchmarks", rows);
    for ( i = 0; i < 4; i++ )
        json_object_set_new(s, hvb_verdict_name((enum hvb_verdict)i),
                            json_integer((json_int_t)c->nr[i]));
    json_object_set_new(o, "summary", s);
    return o;
}

void hvb_cmp_print_json(FILE *f, const struct hvb_cmp *c)
{
    json_t *o = hvb_cmp_json(c);

    json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputc('\n', f);
    json_decref(o);
}
