/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench bisect GOOD BAD --fleet slurm -k K": the k-ary search.  Each
 * round gates K commits of the interval left at once, as one Slurm job
 * array (harness/hstore/history_fleet.c), each task the sequential
 * search's step ("review GOOD MID --explain none"); the round keeps the
 * one interval between the last SAME and the first that DIFFERS.  About
 * log_(K+1) N rounds instead of log_2 N steps, for K tasks a round.
 *
 * The rules are the sequential search's: BAD must differ (it is gated in
 * the first round, beside the first K midpoints); a commit that does not
 * build is skipped ("git bisect skip"), the next round spreading its
 * points over the others; an UNKNOWN step is asked again with four times
 * the pairs, the unknown steps of a round together as a smaller array,
 * and one still unknown inside the interval stops the search (exit 3),
 * never a guess.  (An unknown step outside the interval, below a SAME or
 * above a DIFFERS, decides nothing and is left.)
 *
 * Worked example: 64 commits after GOOD, the 40th slows rcu_ref_lock,
 * K = 3.  Round 1: BAD (64), and 3 points spreading the 63 before it:
 * 16, 32, 48: same, same, differs.  Round 2: 15 commits between 32 and
 * 48: 36, 40, 44: same, differs, differs.  Round 3: 37, 38, 39, all
 * same: the 40th, in 3 rounds (10 reviews) where the binary search
 * takes 7 steps (7 reviews).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <hv/compiler.h>
#include <hvb/cmdline.h>
#include <hvb/fsutil.h>

#include "private.h"

#define UNTRIED (-2)

/*
 * Up to @k untried commits strictly between @lo and @hi, spread evenly
 * over those (the j-th of k at the floor(j (m + 1) / (k + 1))-th of the
 * m untried), into @pts; how many.  With k = 1 the middle, as the
 * binary search's pick().
 */
static size_t spread(long lo, long hi, const int *v, size_t k, long *pts)
{
    size_t m = 0, n, j, c = 0;
    long i;

    for ( i = lo + 1; i < hi; i++ )
        m += v[i] == UNTRIED;
    n = m < k ? m : k;
    for ( i = lo + 1, j = 1; i < hi && j <= n; i++ )
        if ( v[i] == UNTRIED && ++c == j * (m + 1) / (n + 1) )
            pts[j++ - 1] = i;
    return n;
}

/* The interval the verdicts @v (of @n commits) leave: (*@lo, *@hi). */
static void narrow(const int *v, long n, long *lo, long *hi)
{
    for ( *hi = 0; *hi < n - 1 && v[*hi] != V_DIFFERS; (*hi)++ )
        ;
    for ( *lo = *hi - 1; *lo >= 0 && v[*lo] != V_SAME; (*lo)-- )
        ;
}

/* Commits @pts (@np) gated at once, @pairs each; verdicts into @v. */
static int batch(struct bisect *b, const char *good, const long *pts, size_t np,
                 const char *pairs, int *v, json_t *jobs)
{
    struct hvb_hfleet_task *t = calloc(np + 1, sizeof(*t));
    char script[4300];
    json_t *doc;
    size_t i;
    int status = 0;

    if ( t == NULL )
        return hvb_failure("out of memory");
    for ( i = 0; i < np && status == 0; i++ )
    {
        snprintf(t[i].dir, sizeof(t[i].dir), "%s/steps/%.12s%s", b->out,
                 b->commits[pts[i]], pairs != b->r.max_pairs ? "-more" : "");
        if ( hvb_mkdirs(t[i].dir) ||
             (t[i].argv = hvb_hreview_argv(&b->r, good, b->commits[pts[i]],
                                           t[i].dir, pairs, false)) == NULL )
            status = hvb_failure("bisect: %s: cannot start", t[i].dir);
    }
    snprintf(script, sizeof(script), "%s/fleet", b->out);
    if ( status == 0 && hvb_mkdirs(script) )
        status = hvb_failure("bisect: cannot create %s", script);
    snprintf(script, sizeof(script), "%s/fleet/round-%zu%s.sh", b->out,
             json_array_size(b->rounds) + 1,
             pairs != b->r.max_pairs ? "-more" : "");
    status = status ?: hvb_hfleet_run(&b->r, script, t, np, b->quiet, jobs);
    for ( i = 0; i < np && status == 0; i++ )
    {
        doc = NULL;
        v[pts[i]] = t[i].rc < 0
                        ? -1
                        : bisect_verdict(t[i].dir, t[i].rc, t[i].log, &doc);
        bisect_record(b, (size_t)pts[i], v[pts[i]], t[i].seconds, t[i].dir,
                      doc);
        json_decref(doc);
    }
    for ( i = 0; i < np; i++ )
        free(t[i].argv);
    free(t);
    return status;
}

/*
 * One round: @pts (@np) gated, then those unknown that still matter
 * (BAD, or inside the interval the others leave) again with more pairs.
 * Its record into b->rounds.  Exit status (2: Slurm failed).
 */
static int round_(struct bisect *b, const char *good, const long *pts,
                  size_t np, int *v)
{
    json_t *jobs = json_array(), *cs = json_array(), *vs = json_array();
    long *again = calloc(np + 1, sizeof(*again)), lo, hi, bad = (long)b->n - 1;
    size_t na = 0, i;
    char more[32];
    double t0 = (double)hv_now_ns() * 1e-9;
    int status = again ? batch(b, good, pts, np, b->r.max_pairs, v, jobs)
                       : hvb_failure("out of memory");

    narrow(v, (long)b->n, &lo, &hi);
    for ( i = 0; i < np && status == 0; i++ )
        if ( v[pts[i]] == V_UNKNOWN &&
             (pts[i] == bad || (pts[i] > lo && pts[i] < hi)) )
            again[na++] = pts[i];
    snprintf(more, sizeof(more), "%llu", bisect_more_pairs(b->r.max_pairs));
    if ( na > 0 && !b->quiet )
        fprintf(stderr, "hvbench: bisect: %zu unknown: again with %s pairs\n",
                na, more);
    if ( na > 0 )
        status = batch(b, good, again, na, more, v, jobs);
    for ( i = 0; i < np; i++ )
    {
        json_array_append_new(cs, json_string(b->commits[pts[i]]));
        json_array_append_new(vs, json_string(bisect_vname(v[pts[i]])));
    }
    json_array_append_new(
        b->rounds, json_pack("{s:i, s:o, s:o, s:f, s:o}", "round",
                             (int)json_array_size(b->rounds) + 1, "commits", cs,
                             "verdicts", vs, "seconds",
                             (double)hv_now_ns() * 1e-9 - t0, "jobs", jobs));
    free(again);
    return status;
}

int bisect_kary(struct bisect *b, const char *good, long *lo, long *hi,
                bool *differs)
{
    long n = (long)b->n, *pts = calloc(b->k + 2, sizeof(*pts)), i;
    int *v = calloc(b->n + 1, sizeof(*v)), status = 0;
    size_t np;

    *lo = -1;
    *hi = n - 1;
    *differs = false;
    if ( pts == NULL || v == NULL )
        status = hvb_failure("out of memory");
    for ( i = 0; i < n && status == 0; i++ )
        v[i] = UNTRIED;
    /* Round 1: BAD, and K points before it. */
    np = status ? 0 : spread(-1, n - 1, v, b->k, pts);
    pts[np++] = n - 1;
    status = status ?: round_(b, good, pts, np, v);
    status = status ?: bisect_bad(b, v[n - 1]);
    *differs = status == 0 && v[n - 1] == V_DIFFERS;
    while ( *differs && status == 0 )
    {
        narrow(v, n, lo, hi);
        for ( i = *lo + 1; i < *hi && status == 0; i++ )
            if ( v[i] == V_UNKNOWN || v[i] == -1 )
                status = 3; /* unknown even with more pairs, or an error */
        if ( status || *hi - *lo <= 1 ||
             (np = spread(*lo, *hi, v, b->k, pts)) == 0 )
            break; /* found, stuck, or only commits that do not build */
        status = round_(b, good, pts, np, v);
    }
    free(pts);
    free(v);
    return status;
}
