/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Several sim_ metrics from one gate: "--metric sim_instructions,
 * sim_cycles" runs the workers under callgrind once, and callgrind's
 * one run counts both (its instructions and its cache simulation's
 * estimate), so each metric is a look at the same samples and a report
 * of its own: the table and "gate:" line per metric on stdout, and per
 * metric --json/--markdown FILE with "%m" in FILE replaced by the
 * metric's name.  The exit status: 1 when any regressed, else 3 when
 * any is unknown, else 0.  Time is not a sim_ count: it is gated on its
 * own (its samples are timed, not counted; under callgrind they would
 * be valgrind's time).
 *
 * E.g. review's gate of one suite line:
 *   gate --base-bin A --new-bin B --metric sim_instructions,sim_cycles
 *        --json OUT/gates/1-%m.json -- lookup ...
 * writes OUT/gates/1-sim_instructions.json and 1-sim_cycles.json from
 * one pair of callgrind workers: half the time of two gates.
 */
#include <stdio.h>
#include <string.h>

#include <hvb/cmdline.h>
#include <hvb/compare.h>
#include <hvb/outfile.h>
#include "private.h"

/* @pattern with its "%m" replaced by @metric into @buf (NULL: NULL). */
static const char *for_metric(const char *pattern, const char *metric,
                              char *buf, size_t len)
{
    const char *m = pattern ? strstr(pattern, "%m") : NULL;

    if ( m == NULL )
        return pattern;
    snprintf(buf, len, "%.*s%s%s", (int)(m - pattern), pattern, metric, m + 2);
    return buf;
}

/* A --json or --markdown FILE of several metrics says where each goes. */
static int check_path(struct gate_bin *g, const char *opt, const char *path,
                      const char *kind)
{
    enum hvb_outfile_kind k;
    char one[4200];
    size_t i;

    if ( path == NULL )
        return 0;
    if ( g->nr_metrics > 1 && strstr(path, "%m") == NULL )
        return hvb_usage_error("--%s %s: with several metrics the file "
                               "names each one's: put %%m in it (%s-%%m.%s)",
                               opt, path, "verdicts", kind);
    for ( i = 0; i < g->nr_metrics; i++ )
        if ( hvb_outfile_check(
                 for_metric(path, g->metrics[i], one, sizeof(one)), kind, &k,
                 g->err, sizeof(g->err)) )
            return hvb_usage_error("%s", g->err);
    return 0;
}

int hvb_gate_bin_metrics(struct gate_bin *g)
{
    char *p, *save = NULL;
    size_t i;

    if ( snprintf(g->metric_buf, sizeof(g->metric_buf), "%s", g->metric) >=
         (int)sizeof(g->metric_buf) )
        return hvb_usage_error("bad value for --metric: too long");
    g->nr_metrics = 0;
    for ( p = strtok_r(g->metric_buf, ",", &save); p;
          p = strtok_r(NULL, ",", &save) )
    {
        if ( g->nr_metrics == GATE_MAX_METRICS )
            return hvb_usage_error("--metric: at most %d metrics",
                                   GATE_MAX_METRICS);
        if ( hvb_cmp_default_threshold(p) < 0 )
            return hvb_usage_error("bad value '%s' for --metric (%s, or M "
                                   "for a counter M_per_op)",
                                   p, hvb_cmp_metric_names());
        for ( i = 0; i < g->nr_metrics; i++ )
            if ( strcmp(g->metrics[i], p) == 0 )
                return hvb_usage_error("--metric: '%s' given twice", p);
        g->metrics[g->nr_metrics++] = p;
    }
    if ( g->nr_metrics == 0 )
        return hvb_usage_error("bad value '%s' for --metric (%s, or M for a "
                               "counter M_per_op)",
                               g->metric, hvb_cmp_metric_names());
    for ( i = 0; g->nr_metrics > 1 && i < g->nr_metrics; i++ )
        if ( strncmp(g->metrics[i], "sim_", 4) )
            return hvb_usage_error(
                "--metric %s: several metrics in one gate are callgrind's "
                "counts (sim_instructions, sim_cycles: one run counts "
                "them all); gate '%s' on its own",
                g->metric, g->metrics[i]);
    g->metric = g->metrics[0];
    g->thr_given = g->thr >= 0;
    return check_path(g, "json", g->json_path, "json") ||
                   check_path(g, "markdown", g->md_path, "markdown")
               ? HVB_EXIT_USAGE
               : 0;
}

/* The worse of two gate statuses: 2 (failed), 1, 3, 0. */
static int worse(int a, int b)
{
    static const int rank[] = {[0] = 0, [1] = 2, [2] = 3, [3] = 1};

    if ( a < 0 || a > 3 || b < 0 || b > 3 )
        return a > b ? a : b;
    return rank[a] >= rank[b] ? a : b;
}

int hvb_gate_bin_each(struct gate_bin *g, struct hvb_cmp *c, double seconds)
{
    const char *json = g->json_path, *md = g->md_path;
    char jbuf[4200], mbuf[4200];
    int status = 0, rc;
    size_t i;

    for ( i = 0; i < g->nr_metrics; i++ )
    {
        g->metric = g->metrics[i];
        g->json_path = for_metric(json, g->metric, jbuf, sizeof(jbuf));
        g->md_path = for_metric(md, g->metric, mbuf, sizeof(mbuf));
        if ( i > 0 )
        {
            /* The same samples, looked at in this metric. */
            if ( !g->thr_given )
                g->thr = hvb_cmp_default_threshold(g->metric);
            memset(g->decided, 0, g->nr_cells * sizeof(*g->decided));
            g->looks = 0;
            rc = hvb_gate_bin_look(g, c);
            if ( rc )
                return rc;
        }
        rc = hvb_gate_bin_report(g, c, seconds);
        if ( rc == HVB_EXIT_USAGE )
            return rc;
        status = worse(status, rc);
    }
    return status;
}
