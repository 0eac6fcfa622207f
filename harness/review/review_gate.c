/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The verdicts of a review (private.h): every suite line gated on the
 * two builds paired, once per metric, by this hvbench's two-build gate
 * ("gate --base-bin BASE --new-bin HEAD --json FILE -- LINE"), which
 * adds process pairs until each cell is SAME, DIFFERENT or out of
 * budget (docs/gating.md).  The gate corrects for its own cells; the
 * review has the cells of every line and metric at once and corrects
 * across them (Benjamini-Hochberg at q = 0.05 on the gates' p_beyond,
 * the p-value of a change beyond the threshold): a DIFFERENT cell above
 * the cut becomes UNKNOWN.
 *
 * E.g. a suite of 3 lines, 7 cells, 2 metrics: 14 verdicts; one cell
 * regressed with p_beyond = 0.004 while the others are near 1: the cut
 * (0.004 <= 1 x 0.05 / 14) keeps it.  At p_beyond = 0.01 it is above
 * 0.05 / 14 = 0.0036 and becomes "unknown (FDR)", not "regressed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hv/compiler.h>
#include <hv/strbuf.h>
#include <hvb/cmdline.h>
#include <hvb/exec.h>
#include <hvb/interrupt.h>
#include <hvb/fsutil.h>
#include <hvb/stats.h>

#include "private.h"

#define GATE_TIMEOUT_S 7200.0
#define FDR_Q          0.05

/* The words of the gate's options: a number each, as the gate reads it. */
struct gate_words {
    char w[5][40];
};

/* "@opt @v@unit" into @av when @v is set (not 0): how many words. */
static size_t pass(char **av, const char *opt, char *buf, const char *unit,
                   double v)
{
    if ( v == 0 )
        return 0;
    snprintf(buf, sizeof(((struct gate_words *)0)->w[0]), "%.17g%s", v, unit);
    av[0] = (char *)opt;
    av[1] = buf;
    return 2;
}

/* The gate's argv for line @l, metric @m of @rv (malloc'd). */
static char **gate_argv(const struct review *rv, size_t l, const char *m,
                        const char *json, struct gate_words *gw)
{
    const struct review_line *ln = &rv->lines[l];
    char **av = calloc(ln->nr + 24, sizeof(*av));
    size_t n = 0, i;

    if ( av == NULL )
        return NULL;
    av[n++] = (char *)rv->self;
    av[n++] = "gate";
    av[n++] = "--base-bin";
    av[n++] = (char *)rv->builds[0].bin;
    av[n++] = "--new-bin";
    av[n++] = (char *)rv->builds[1].bin;
    av[n++] = "--json";
    av[n++] = (char *)json;
    av[n++] = "--metric";
    av[n++] = (char *)m;
    if ( rv->by_runs )
        av[n++] = "--base-runs";
    n += pass(av + n, "--max-regression", gw->w[0], "%", rv->o.threshold * 100);
    n += pass(av + n, "--pairs", gw->w[1], "", rv->o.pairs);
    n += pass(av + n, "--max-pairs", gw->w[2], "", rv->o.max_pairs);
    n += pass(av + n, "--rounds", gw->w[3], "", rv->o.rounds);
    n += pass(av + n, "--sample-time", gw->w[4], "", rv->o.sample_time);
    av[n++] = "--";
    for ( i = 0; i < ln->nr; i++ )
        av[n++] = ln->words[i];
    av[n] = NULL;
    return av;
}

/* Does the log @path say @what? */
static bool log_says(const char *path, const char *what)
{
    char *text = hvb_slurp(path, NULL);
    bool yes = text != NULL && strstr(text, what) != NULL;

    free(text);
    return yes;
}

/*
 * The metrics gated in one run: the blocking ones first, and callgrind's
 * sim_ counts of one pass together (one run counts them all).
 */
struct gate_group {
    char *ms[REVIEW_MAX_METRICS];
    size_t n;
    enum review_step kind;
};

static bool is_sim(const char *m)
{
    return strncmp(m, "sim_", 4) == 0;
}

/* @g[...] of @rv's metrics, in the order they run: how many. */
static size_t gate_groups(const struct review *rv, struct gate_group *g)
{
    bool taken[REVIEW_MAX_METRICS] = {false};
    size_t ng = 0, pass, m, k;

    for ( pass = 0; pass < 2; pass++ )
        for ( m = 0; m < rv->nr_metrics; m++ )
        {
            if ( taken[m] || rv->blocking[m] != (pass == 0) )
                continue;
            g[ng] = (struct gate_group){
                .kind = is_sim(rv->metrics[m]) ? STEP_SIM : STEP_TIMED};
            for ( k = m; k < rv->nr_metrics; k++ )
                if ( !taken[k] && rv->blocking[k] == rv->blocking[m] &&
                     (k == m ||
                      (g[ng].kind == STEP_SIM && is_sim(rv->metrics[k]))) )
                {
                    taken[k] = true;
                    g[ng].ms[g[ng].n++] = rv->metrics[k];
                }
            ng++;
        }
    return ng;
}

/* @g's metrics joined by @sep into @buf. */
static const char *joined(const struct gate_group *g, const char *sep,
                          char *buf, size_t len)
{
    struct hv_strbuf b;
    size_t i;

    hv_strbuf_init(&b, buf, len);
    for ( i = 0; i < g->n; i++ )
        hv_strbuf_join(&b, sep, "%s", g->ms[i]);
    return buf;
}

/* @g less sim_cycles: how many are left. */
static size_t without_cycles(struct gate_group *g)
{
    size_t i, n = 0;

    for ( i = 0; i < g->n; i++ )
        if ( strcmp(g->ms[i], "sim_cycles") )
            g->ms[n++] = g->ms[i];
    return g->n = n;
}

/* Gate line @l in @g's metrics: their JSON into rv->gates; 0 or status. */
static int gate_one(struct review *rv, size_t l, struct gate_group *g)
{
    char pat[4200], json[4200], logp[4200], ms[256], name[256];
    struct gate_words gw;
    char **av;
    struct hvb_exec c = {.timeout_s = GATE_TIMEOUT_S};
    json_t *doc;
    json_error_t je;
    size_t i;
    int fd, rc;

    snprintf(pat, sizeof(pat), "%s/gates/%zu-%s.json", rv->o.out, l + 1,
             g->n > 1 ? "%m" : g->ms[0]);
    snprintf(logp, sizeof(logp), "%s/gates/%zu-%s.log", rv->o.out, l + 1,
             joined(g, "+", name, sizeof(name)));
    av = gate_argv(rv, l, joined(g, ",", ms, sizeof(ms)), pat, &gw);
    fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if ( av == NULL || fd < 0 )
    {
        free(av);
        if ( fd >= 0 )
            close(fd);
        return hvb_failure("review: %s: %s", logp, strerror(errno));
    }
    for ( i = 0; i < g->n; i++ )
    {
        snprintf(json, sizeof(json), "%s/gates/%zu-%s.json", rv->o.out, l + 1,
                 g->ms[i]);
        unlink(json);
    }
    c.argv = av;
    c.log_fd = fd;
    rc = hvb_exec_run(&c);
    close(fd);
    hvb_exec_free(&c);
    free(av);
    for ( i = 0; i < g->n; i++ )
    {
        snprintf(json, sizeof(json), "%s/gates/%zu-%s.json", rv->o.out, l + 1,
                 g->ms[i]);
        doc = json_load_file(json, 0, &je);
        if ( doc == NULL && rv->o.metrics == NULL &&
             log_says(logp, "has no sim_cycles_per_op") )
        {
            /* A base older than the cache simulation: said, not fatal. */
            fprintf(stderr,
                    "hvbench: review: note: no sim_cycles for '%s': a build "
                    "predates the cache simulation (log: %s)\n",
                    rv->lines[l].text, logp);
            return without_cycles(g) ? gate_one(rv, l, g) : 0;
        }
        if ( doc == NULL && hvb_interrupted() )
            return HVB_EXIT_FAIL; /* said by the caller */
        if ( doc == NULL )
            return hvb_usage_error(
                "review: the gate of '%s' (%s) wrote no verdicts "
                "(exit %d; log: %s)",
                rv->lines[l].text, g->ms[i], rc, logp);
        json_object_set_new(doc, "line", json_string(rv->lines[l].text));
        json_object_set_new(doc, "log", json_string(logp));
        json_array_append_new(rv->gates, doc);
    }
    return 0;
}

static bool is_different(json_t *cell)
{
    const char *v = json_string_value(json_object_get(cell, "verdict"));

    return v != NULL &&
           (strcmp(v, "regressed") == 0 || strcmp(v, "improved") == 0);
}

size_t hvb_review_fdr(json_t *gates, double q)
{
    size_t n = 0, i, g;
    json_t *gate, *cell, **v;
    double *p, cut;

    json_array_foreach(gates, g, gate)
        n += json_array_size(json_object_get(gate, "cells"));
    v = calloc(n + 1, sizeof(*v));
    p = calloc(n + 1, sizeof(*p));
    if ( v == NULL || p == NULL )
        goto out;
    n = 0;
    json_array_foreach(gates, g, gate)
        json_array_foreach(json_object_get(gate, "cells"), i, cell)
        {
            json_t *pv = json_object_get(cell, "p_beyond");

            v[n] = cell;
            p[n++] = json_is_number(pv) ? json_number_value(pv) : 1.0;
        }
    cut = hvb_bh_cut(p, n, q);
    for ( i = 0; i < n; i++ )
    {
        if ( !is_different(v[i]) || p[i] <= cut )
            continue;
        json_object_set_new(v[i], "verdict_gate",
                            json_incref(json_object_get(v[i], "verdict")));
        json_object_set_new(v[i], "verdict", json_string("unknown"));
        json_object_set_new(v[i], "why",
                            json_string("not significant across the suite "
                                        "(FDR)"));
    }
out:
    free(v);
    free(p);
    return n;
}

/*
 * The seconds left, before unit @u of the @nu units (line u %% lines in
 * group u / lines): the gates not run, each line's cells as planned or
 * gated (else the mean of those known), and the explanation of the cells moved so
 * far, each by its model scaled by what its kind took so far.
 */
static double left_s(const struct review *rv, const struct gate_group *g,
                     size_t u, size_t nu)
{
    char buf[8192];
    struct hv_strbuf b;
    size_t l, n, known = 0, cells = 0;
    double left = 0, mean;

    for ( l = 0; l < rv->nr_lines; l++ )
        if ( (n = hvb_review_line_cells(rv, l)) > 0 )
            known++, cells += n;
    mean = known ? (double)cells / (double)known : 1;
    for ( ; u < nu; u++ )
    {
        const struct gate_group *gg = &g[u / rv->nr_lines];
        size_t c = hvb_review_line_cells(rv, u % rv->nr_lines);

        left += hvb_review_eta_scaled(
            rv, gg->kind,
            hvb_review_eta_model(rv, gg->kind, c ? c : (size_t)(mean + 0.5)));
    }
    for ( l = 0; l < rv->nr_lines && rv->o.explain != EXPLAIN_NONE; l++ )
    {
        hv_strbuf_init(&b, buf, sizeof(buf));
        n = hvb_review_moved(rv, l, &b);
        left += hvb_review_eta_scaled(
            rv, STEP_EXPLAIN, hvb_review_eta_model(rv, STEP_EXPLAIN, n));
    }
    return left;
}

/*
 * The blocking metrics first, every line in each, then the others: a
 * verdict that decides the exit status never waits for one that does
 * not.
 */
int hvb_review_gates(struct review *rv)
{
    struct gate_group g[REVIEW_MAX_METRICS];
    size_t ng = gate_groups(rv, g), nu = ng * rv->nr_lines, u, l;
    char ms[256];
    double t, model;
    int rc;

    rv->gates = json_array();
    hvb_review_eta_plan(rv);
    for ( u = 0; u < nu; u++ )
    {
        struct gate_group *gg = &g[u / rv->nr_lines];

        l = u % rv->nr_lines;
        if ( !rv->o.quiet )
        {
            fprintf(stderr, "hvbench: review: [%zu/%zu] gate %s (%s)", u + 1,
                    nu, rv->lines[l].text, joined(gg, ", ", ms, sizeof(ms)));
            if ( u > 0 )
                fprintf(stderr, ", about %.0f s left", left_s(rv, g, u, nu));
            fputc('\n', stderr);
        }
        t = hv_now_ns() * 1e-9;
        rc = hvb_interrupted() ? HVB_EXIT_FAIL : gate_one(rv, l, gg);
        model =
            hvb_review_eta_model(rv, gg->kind, hvb_review_line_cells(rv, l));
        hvb_review_eta_took(rv, gg->kind, model, hv_now_ns() * 1e-9 - t);
        if ( rc )
            return rc;
    }
    rv->nr_verdicts = hvb_review_fdr(rv->gates, FDR_Q);
    return 0;
}
