/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Comparing results (hvb/compare.h): two files' cells matched by name
 * (hvb_cmp_run()), or the variants of one file's groups against their
 * reference (hvb_cmp_paired()): a row's samples, noise flags and
 * verdict.  The metric is compare_metric.c's; the rule for two builds
 * paired in one run (gate --base-bin) is compare_builds.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/compare.h>
#include <hvb/noise.h>
#include <hvb/results_read.h>
#include <hvb/stats.h>
#include "private.h"

const char *hvb_verdict_name(enum hvb_verdict v)
{
    static const char *const n[] = {"unchanged", "improved", "regressed",
                                    "unstable"};

    return n[v];
}

const char *hvb_cmp_verdict_word(const struct hvb_cmp *c, enum hvb_verdict v)
{
    static const char *const n[] = {"same", "improved", "regressed", "unknown"};

    return c->builds ? n[v] : hvb_verdict_name(v);
}

/*
 * No per-op figure reaches 1e15 (11.6 days an op in ns): a sample beyond
 * it is a broken build's, not a measurement (1e308 read "improved").
 */
#define SAMPLE_MAX 1e15

/*
 * The metric's samples of cell object @c of side @side (0 base, 1 new),
 * malloc'd into @out, their number into @n.  The file's check
 * (hvb/results_read.h) has ruled out non-finite and negative ones; a
 * zero of a metric that cannot be zero (a time, a cycle count) is -EINVAL
 * with @err naming the file, the cell and the field.
 */
static int samples(const struct hvb_cmp *cmp, int side, json_t *c, double **out,
                   size_t *n, char *err, size_t len)
{
    bool time = strcmp(cmp->key, "time") == 0;
    json_t *a = time ? json_object_get(c, HVB_RK_SAMPLES)
                     : json_object_get(
                           json_object_get(json_object_get(c, HVB_RK_COUNTERS),
                                           cmp->key),
                           HVB_RK_CTR_SAMPLES);
    size_t i;
    json_t *v;

    const char *who = cmp->names[side] ?: side ? "NEW" : "BASE";
    const char *cell =
        json_string_value(json_object_get(c, HVB_RK_NAME)) ?: "?";

    *n = 0;
    *out = calloc(json_array_size(a) + 1, sizeof(**out));
    if ( *out == NULL )
    {
        snprintf(err, len, "out of memory");
        return -ENOMEM;
    }
    if ( json_array_size(a) == 0 )
    {
        /* A base without the counter printed nan, -100.00%, exit 3. */
        snprintf(err, len, "'%s': cell '%.200s' has no %s%s%s (the metric %s)",
                 who, cell, time ? HVB_RK_SAMPLES : "counter ",
                 time ? "" : cmp->key, time ? "" : " samples", cmp->metric);
        return -EINVAL;
    }
    json_array_foreach(a, i, v)
    {
        if ( !json_is_number(v) || !(fabs(json_number_value(v)) < SAMPLE_MAX) )
        {
            snprintf(err, len,
                     "'%s': cell '%.200s': %s%s%s[%zu] is %s: not a %s sample",
                     who, cell, time ? HVB_RK_SAMPLES : "counters.",
                     time ? "" : cmp->key, time ? "" : ".samples", i,
                     json_is_string(v)   ? "a string"
                     : json_is_null(v)   ? "null"
                     : json_is_number(v) ? "beyond 1e15"
                                         : "not a number",
                     cmp->metric);
            return -EINVAL;
        }
        if ( cmp->positive && !(json_number_value(v) > 0) )
        {
            snprintf(err, len,
                     "'%s': cell '%.200s': %s%s%s[%zu] is %g: a %s sample is "
                     "> 0",
                     who, cell, time ? HVB_RK_SAMPLES : "counters.",
                     time ? "" : cmp->key, time ? "" : ".samples", i,
                     json_number_value(v), cmp->metric);
            return -EINVAL;
        }
        (*out)[(*n)++] = json_number_value(v);
    }
    return 0;
}

/* samples() of @a (base side) and of @b (side @side_b), in that order. */
static int both(const struct hvb_cmp *cmp, int side_b, json_t *a, json_t *b,
                double **x, size_t *nx, double **y, size_t *ny, char *err,
                size_t len)
{
    int rc = samples(cmp, 0, a, x, nx, err, len);

    return rc ? rc : samples(cmp, side_b, b, y, ny, err, len);
}

static json_t *cell_named(json_t *doc, const char *name)
{
    json_t *cells =
        json_object_get(json_object_get(doc, HVB_RK_HVBENCH), HVB_RK_CELLS);
    json_t *c;
    size_t i;

    json_array_foreach(cells, i, c)
    {
        if ( strcmp(json_string_value(json_object_get(c, HVB_RK_NAME)) ?: "",
                    name) == 0 )
            return c;
    }
    return NULL;
}

/* run.processes of @doc: how many worker processes its samples pool. */
static unsigned int processes(json_t *doc)
{
    json_int_t k = json_integer_value(json_object_get(
        json_object_get(json_object_get(doc, HVB_RK_HVBENCH), HVB_RK_RUN),
        HVB_RK_PROCESSES));

    return k > 1 && k < 1000000 ? (unsigned int)k : 1;
}

/* The median of the numbers of JSON array @a (NAN if none). */
static double json_median(json_t *a)
{
    double *v = calloc(json_array_size(a) + 1, sizeof(*v)), m = NAN;
    size_t i, n = 0;
    json_t *x;

    json_array_foreach(a, i, x)
    {
        if ( v != NULL && json_is_number(x) )
            v[n++] = json_number_value(x);
    }
    if ( n > 0 )
        m = hvb_median(v, n);
    free(v);
    return m;
}

/*
 * Cell @c's cpu-share<90% from its samples, for a cell that records no
 * flags (gate --base-bin's): the median run delay per op over a tenth
 * of the median wall time per op of its threads (HVB_RK_THREADS, else
 * the name's "threads:N", else 1), else the median task-clock per op
 * under 90% of it, as the run flags it.
 */
static unsigned int share_noise(json_t *c)
{
    json_t *ctrs = json_object_get(c, HVB_RK_COUNTERS);
    json_t *dl = json_object_get(
        json_object_get(ctrs, "sched_run_delay_ns_per_op"), HVB_RK_CTR_SAMPLES);
    json_t *tc = json_object_get(
        json_object_get(ctrs, "sw_task_clock_ns_per_op"), HVB_RK_CTR_SAMPLES);
    const char *name = json_string_value(json_object_get(c, HVB_RK_NAME));
    const char *t = name ? strstr(name, "threads:") : NULL;
    json_int_t threads = json_integer_value(json_object_get(c, HVB_RK_THREADS));
    double task, wall;

    if ( tc == NULL && dl == NULL )
        return 0;
    if ( threads <= 0 && t != NULL )
        threads = strtol(t + strlen("threads:"), NULL, 10);
    wall = json_median(json_object_get(c, HVB_RK_SAMPLES)) *
           (double)(threads > 0 ? threads : 1);
    if ( dl != NULL )
        return json_median(dl) > (1 - HVB_CPU_SHARE_MIN) * wall
                   ? HVB_NOISE_DESCHED
                   : 0;
    task = json_median(tc);
    return task < HVB_CPU_SHARE_MIN * wall ? HVB_NOISE_DESCHED : 0;
}

/*
 * The flags of cell @c that a comparison cannot recompute from the
 * samples alone: the measured threads' CPU share (from task-clock), the
 * timer's cost, CPU scaling, as the results file recorded them, or the
 * CPU share from the samples of a cell that records none.  Machine
 * noise, so only for a metric that varies with the machine
 * (@cmp->same_code false).  cpu-share<90% makes a row of two files
 * or of two builds unstable (HVB_NOISE_UNSTABLE): a loaded machine's
 * answer; a row of paired rounds shows it (hvb_cmp_vetoes()).
 */
static unsigned int recorded_noise(const struct hvb_cmp *cmp, json_t *c)
{
    json_t *flags = json_object_get(c, HVB_RK_NOISE);

    if ( cmp->same_code )
        return 0;
    if ( flags == NULL )
        return share_noise(c);
    return hvb_noise_parse(flags) &
           (HVB_NOISE_DESCHED | HVB_NOISE_TIMER | HVB_NOISE_SCALING);
}

/* See private.h. */
void hvb_cmp_vetoes(const struct hvb_cmp *c, const struct hvb_cmp_row *r,
                    unsigned int *base, unsigned int *new_)
{
    if ( c->paired && !c->builds )
    {
        *base = 0;
        *new_ = r->new_noise & HVB_NOISE_FEW;
        return;
    }
    *base = r->base_noise & HVB_NOISE_UNSTABLE;
    *new_ = r->new_noise & HVB_NOISE_UNSTABLE;
}

static enum hvb_verdict verdict(const struct hvb_cmp *c,
                                const struct hvb_cmp_row *r)
{
    double t = c->threshold;
    unsigned int b, n;

    /* Statistics that are not numbers judge nothing (never "unchanged"). */
    if ( isnan(r->ratio) || isnan(r->lo) || isnan(r->hi) )
        return HVB_UNSTABLE;
    /* Noisy samples are never judged, however large the change. */
    hvb_cmp_vetoes(c, r, &b, &n);
    if ( b | n )
        return HVB_UNSTABLE;
    if ( r->lo > 1 + t )
        return HVB_REGRESSED;
    if ( r->hi < 1 - t )
        return HVB_IMPROVED;
    if ( r->hi > 1 + t )
        return HVB_UNSTABLE;
    return HVB_UNCHANGED;
}

static int compare_one(struct hvb_cmp *cmp, json_t *cb, json_t *cn,
                       struct hvb_cmp_row *r, char *err, size_t len)
{
    double *x = NULL, *y = NULL;
    size_t nx, ny;
    struct hvb_stats sx, sy;
    int rc;

    r->name = json_string_value(json_object_get(cb, HVB_RK_NAME));
    rc = both(cmp, 1, cb, cn, &x, &nx, &y, &ny, err, len);
    if ( rc )
        goto out;
    if ( hvb_stats_compute(x, nx, &sx) || hvb_stats_compute(y, ny, &sy) )
    {
        snprintf(err, len, "out of memory");
        rc = -ENOMEM;
        goto out;
    }
    r->base = sx.median;
    r->new_ = sy.median;
    r->n = nx < ny ? nx : ny;
    r->base_noise = hvb_noise_flags(&sx, -1, false) | recorded_noise(cmp, cb);
    r->new_noise = hvb_noise_flags(&sy, -1, false) | recorded_noise(cmp, cn);
    if ( !cmp->same_code )
    {
        r->base_noise |= cmp->processes[0] < 2 ? HVB_NOISE_ONEPROC : 0;
        r->new_noise |= cmp->processes[1] < 2 ? HVB_NOISE_ONEPROC : 0;
    }
    r->ratio = r->lo = r->hi = r->p = NAN;
    if ( nx == 0 || ny == 0 )
    {
        r->verdict = HVB_UNSTABLE;
        r->base_noise |= nx ? 0 : HVB_NOISE_FEW;
        r->new_noise |= ny ? 0 : HVB_NOISE_FEW;
        goto out;
    }
    if ( sx.median > 0 )
    {
        r->ratio = sy.median / sx.median;
        rc = hvb_bootstrap_ratio_ci_clustered(
            x, nx, cmp->processes[0], y, ny, cmp->processes[1],
            HVB_BOOTSTRAP_RESAMPLES, HVB_BOOTSTRAP_SEED, &r->lo, &r->hi);
        if ( rc )
            goto out;
    }
    else if ( sy.median == 0 )
        r->ratio = r->lo = r->hi = 1; /* 0 -> 0: unchanged */
    else
        r->ratio = r->lo = r->hi = INFINITY;
    r->p = hvb_mannwhitneyu(x, nx, y, ny, NULL);

    r->verdict = verdict(cmp, r);
out:
    free(x);
    free(y);
    return rc;
}

int hvb_cmp_run(json_t *base, json_t *new_, const char *metric, double t,
                struct hvb_cmp *out, char *err, size_t len)
{
    json_t *cells =
        json_object_get(json_object_get(base, HVB_RK_HVBENCH), HVB_RK_CELLS);
    json_t *ncells =
        json_object_get(json_object_get(new_, HVB_RK_HVBENCH), HVB_RK_CELLS);
    json_t *c;
    size_t i;
    int rc;

    rc = hvb_cmp_resolve(base, new_, metric, t, out, err, len);
    if ( rc )
        return rc;
    out->processes[0] = processes(base);
    out->processes[1] = processes(new_);
    out->rows = calloc(json_array_size(cells) + 1, sizeof(*out->rows));
    if ( out->rows == NULL )
        return -ENOMEM;
    json_array_foreach(cells, i, c)
    {
        const char *name = json_string_value(json_object_get(c, HVB_RK_NAME));
        json_t *cn = name ? cell_named(new_, name) : NULL;
        struct hvb_cmp_row *r = &out->rows[out->nr_rows];

        if ( cn == NULL )
        {
            out->only_base++;
            continue;
        }
        rc = compare_one(out, c, cn, r, err, len);
        if ( rc )
        {
            hvb_cmp_free(out);
            return rc;
        }
        out->nr[r->verdict]++;
        out->nr_rows++;
    }
    json_array_foreach(ncells, i, c)
    {
        if ( cell_named(base, json_string_value(json_object_get(c, HVB_RK_NAME))
                                  ?: "") == NULL )
            out->only_new++;
    }
    if ( out->nr_rows == 0 )
    {
        hvb_cmp_free(out);
        snprintf(err, len, "no benchmark in common between BASE and NEW");
        return -EINVAL;
    }
    return 0;
}

void hvb_cmp_free(struct hvb_cmp *c)
{
    free(c->rows);
    c->rows = NULL;
    c->nr_rows = 0;
}

/* Cell object of @doc with index @i, or NULL. */
static json_t *cell_at(json_t *doc, size_t i)
{
    return json_array_get(
        json_object_get(json_object_get(doc, HVB_RK_HVBENCH), HVB_RK_CELLS), i);
}

static int paired_one(struct hvb_cmp *cmp, json_t *ref, json_t *var,
                      struct hvb_cmp_row *r, char *err, size_t len)
{
    double *x = NULL, *y = NULL, *q = NULL, t = cmp->threshold;
    size_t nx, ny, n, i, nq = 0;
    struct hvb_stats sq;
    int rc;

    r->name = json_string_value(json_object_get(var, HVB_RK_NAME));
    rc = both(cmp, 0, ref, var, &x, &nx, &y, &ny, err, len);
    if ( rc )
        goto out;
    rc = -ENOMEM;
    n = nx < ny ? nx : ny;
    q = calloc(n + 1, sizeof(*q));
    if ( q == NULL )
    {
        snprintf(err, len, "out of memory");
        goto out;
    }
    /* Round k of the variant over round k of its reference. */
    for ( i = 0; i < n; i++ )
        if ( x[i] > 0 )
            q[nq++] = y[i] / x[i];
        else if ( y[i] == 0 )
            q[nq++] = 1;
    r->base = hvb_median(x, nx);
    r->new_ = hvb_median(y, ny);
    r->n = nq;
    r->ratio = r->lo = r->hi = NAN;
    if ( hvb_stats_compute(q, nq, &sq) )
        goto out;
    /*
     * The noise that matters here is the ratios': drift cancels.  What
     * the file recorded of the machine (a cell's CPU share) is each
     * side's.
     */
    r->base_noise = recorded_noise(cmp, ref);
    r->new_noise = hvb_noise_flags(&sq, -1, false) | recorded_noise(cmp, var);
    r->ratio = sq.median;
    if ( cmp->builds )
    {
        json_int_t k =
            json_integer_value(json_object_get(var, HVB_RK_PROCESSES));

        /* The ratios' flags apart: the two sides are the two builds. */
        r->ratio_noise = hvb_noise_flags(&sq, -1, false);
        r->new_noise = recorded_noise(cmp, var);
        r->pairs = k > 0 && k < 1000000 ? (unsigned int)k : cmp->processes[0];
        rc = nq ? hvb_cmp_builds_ci(cmp, r, q, nq, r->pairs) : 0;
        r->verdict = hvb_cmp_builds_verdict(r, t);
        goto out;
    }
    r->p = hvb_mannwhitneyu(x, nx, y, ny, NULL);
    /*
     * The ratios of one process (gate --base-bin: one process pair) share
     * its layout and placement luck, and, on a loaded machine, its share
     * of the CPUs: they are resampled by process first, then by round
     * (one process: plainly).  The plain bootstrap counted 120 ratios of
     * 12 pairs as 120 observations: an A/A with per-pair medians spread
     * by the load said +14.84% [+4.8%, +24.8%], "regressed".  Under
     * HVB_CI_MIN_N rounds the interval is their range, and says so.
     */
    rc = nq ? hvb_median_interval(q, nq, cmp->processes[0], &r->lo, &r->hi) : 0;
    r->range = rc == 1;
    rc = rc < 0 ? rc : 0;
    /*
     * Paired rounds are judged on the interval of the median ratio alone
     * (hvb_cmp_vetoes()): it carries the ratios' spread, and a disturbed
     * round moves a median little.
     */
    r->verdict = nq ? verdict(cmp, r) : HVB_UNSTABLE;
out:
    free(x);
    free(y);
    free(q);
    return rc;
}

/* See private.h. */
int hvb_cmp_paired_rows(json_t *doc, const char *metric, double t,
                        struct hvb_cmp *out, char *err, size_t len)
{
    json_t *c;
    size_t i, n;
    int rc;

    rc = hvb_cmp_resolve(doc, doc, metric, t, out, err, len);
    if ( rc )
        return rc;
    out->paired = true;
    out->processes[0] = out->processes[1] = processes(doc);
    n = json_array_size(
        json_object_get(json_object_get(doc, HVB_RK_HVBENCH), HVB_RK_CELLS));
    out->rows = calloc(n + 1, sizeof(*out->rows));
    if ( out->rows == NULL )
        return -ENOMEM;
    for ( i = 0; i < n; i++ )
    {
        json_int_t v;
        json_t *ref;

        c = cell_at(doc, i);
        v = json_integer_value(json_object_get(c, HVB_RK_VARIANT));
        if ( v <= 0 || (size_t)v > i )
            continue;
        ref = cell_at(doc, i - (size_t)v);
        rc = paired_one(out, ref, c, &out->rows[out->nr_rows], err, len);
        if ( rc )
        {
            hvb_cmp_free(out);
            return rc;
        }
        out->nr[out->rows[out->nr_rows].verdict]++;
        out->nr_rows++;
    }
    if ( out->nr_rows == 0 )
    {
        hvb_cmp_free(out);
        snprintf(err, len,
                 "one file: no group with two or more plugins to compare "
                 "(give BASE.json NEW.json, or run several plugins)");
        return -EINVAL;
    }
    return 0;
}

int hvb_cmp_paired(json_t *doc, const char *metric, double t,
                   struct hvb_cmp *out, char *err, size_t len)
{
    out->builds = false;
    out->alpha = 0.05;
    return hvb_cmp_paired_rows(doc, metric, t, out, err, len);
}
