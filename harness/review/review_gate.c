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

/* Gate line @l in metric @m: its JSON into rv->gates; 0 or status. */
static int gate_one(struct review *rv, size_t l, const char *m, size_t k)
{
    char json[4200], logp[4200];
    struct gate_words gw;
    char **av;
    struct hvb_exec c = {.timeout_s = GATE_TIMEOUT_S};
    json_t *doc;
    json_error_t je;
    int fd, rc;

    snprintf(json, sizeof(json), "%s/gates/%zu-%s.json", rv->o.out, l + 1, m);
    snprintf(logp, sizeof(logp), "%s/gates/%zu-%s.log", rv->o.out, l + 1, m);
    av = gate_argv(rv, l, m, json, &gw);
    fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if ( av == NULL || fd < 0 )
    {
        free(av);
        if ( fd >= 0 )
            close(fd);
        return hvb_failure("review: %s: %s", logp, strerror(errno));
    }
    unlink(json);
    c.argv = av;
    c.log_fd = fd;
    rc = hvb_exec_run(&c);
    close(fd);
    hvb_exec_free(&c);
    free(av);
    doc = json_load_file(json, 0, &je);
    if ( doc == NULL && rv->o.metrics == NULL && strcmp(m, "sim_cycles") == 0 &&
         log_says(logp, "has no sim_cycles_per_op") )
    {
        /* A base older than the cache simulation: said, not fatal. */
        fprintf(stderr,
                "hvbench: review: note: no sim_cycles for '%s': a build "
                "predates the cache simulation (log: %s)\n",
                rv->lines[l].text, logp);
        return 0;
    }
    if ( doc == NULL && hvb_interrupted() )
        return HVB_EXIT_FAIL; /* said by the caller */
    if ( doc == NULL )
        return hvb_usage_error(
            "review: the gate of '%s' (%s) wrote no verdicts "
            "(exit %d; log: %s)",
            rv->lines[l].text, m, rc, logp);
    json_object_set_new(doc, "line", json_string(rv->lines[l].text));
    json_object_set_new(doc, "log", json_string(logp));
    json_array_append_new(rv->gates, doc);
    (void)k;
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
 * The seconds left of the gates, from @spent[M] seconds over @done[M] gates of each metric so far: a
 * metric's gates take alike (callgrind's sim_ gates differ from time's
 * by several times), one not begun as the mean of all.
 */
static double left_s(const struct review *rv, const double *spent,
                     const size_t *done)
{
    double all = 0, left = 0;
    size_t n = 0, m, todo;

    for ( m = 0; m < rv->nr_metrics; m++ )
    {
        all += spent[m];
        n += done[m];
    }
    for ( m = 0; m < rv->nr_metrics && n > 0; m++ )
    {
        todo = rv->nr_lines - done[m];
        left += (double)todo *
                (done[m] ? spent[m] / (double)done[m] : all / (double)n);
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
    size_t l, m, k = 0, total = rv->nr_lines * rv->nr_metrics, pass;
    double spent[REVIEW_MAX_METRICS] = {0}, t;
    size_t done[REVIEW_MAX_METRICS] = {0};
    int rc;

    rv->gates = json_array();
    for ( pass = 0; pass < 2; pass++ )
        for ( m = 0; m < rv->nr_metrics; m++ )
            for ( l = 0; l < rv->nr_lines; l++ )
            {
                if ( rv->blocking[m] != (pass == 0) )
                    break;
                if ( !rv->o.quiet )
                {
                    fprintf(stderr, "hvbench: review: [%zu/%zu] gate %s (%s)",
                            k + 1, total, rv->lines[l].text, rv->metrics[m]);
                    if ( k > 0 )
                        fprintf(stderr, ", about %.0f s left",
                                left_s(rv, spent, done));
                    fputc('\n', stderr);
                }
                t = hv_now_ns() * 1e-9;
                rc = hvb_interrupted() ? HVB_EXIT_FAIL
                                       : gate_one(rv, l, rv->metrics[m], k++);
                spent[m] += hv_now_ns() * 1e-9 - t;
                done[m]++;
                if ( rc )
                    return rc;
            }
    rv->nr_verdicts = hvb_review_fdr(rv->gates, FDR_Q);
    return 0;
}
