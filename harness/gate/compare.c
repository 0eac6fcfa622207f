/* SPDX-License-Identifier: GPL-2.0-only */
/* Comparing two results files; see hvb/compare.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/compare.h>
#include <hvb/meter.h>
#include <hvb/noise.h>
#include <hvb/results_read.h>
#include <hvb/stats.h>

/*
 * @same_code: a property of the code path, not of where the process
 * landed (memory layout, ASLR, CPU placement), so two files of one
 * process each can be compared; for the others that variance between
 * processes is what a single process cannot show (hvb/noise.h's
 * "one-process").
 */
static const struct metric {
    const char *name, *key, *unit, *source;
    double threshold;
    bool same_code;
    bool positive; /* a sample of 0 is not a measurement */
} metrics[] = {
    {"time", "time", "ns/op", "wall-clock time per op (real_time)", 0.05, false,
     true},
    {"tsc_cycles", "tsc_cycles_per_op", "TSC cycles/op",
     "TSC cycles per op (invariant TSC ticks, not core cycles)", 0.05, false,
     true},
    {"cycles", "cycles_per_op", "cycles/op",
     "hardware core cycles per op (perf_event_open)", 0.05, false, true},
    {"instructions", "instructions_per_op", "instructions/op",
     "hardware instructions retired per op (perf_event_open)", 0.005, true,
     true},
    {"sim_instructions", "sim_instructions_per_op", "Ir/op",
     "instructions per op counted by callgrind (deterministic)", 0.005, true,
     true},
    /*
     * Callgrind's cache simulation with the caches pinned (hvb/meter.h):
     * as deterministic as its Ir, so the same 0.5%.
     */
    {"sim_cycles", "sim_cycles_per_op", "est. cycles/op",
     "estimated cycles per op from callgrind's cache simulation: L1 hits + "
     "5 x LL hits + 35 x RAM (deterministic)",
     0.005, true, true},
    {"alloc_bytes", "alloc_bytes_per_op", "bytes/op",
     "bytes allocated per op (jemalloc per-thread counters)", 0.05, true,
     false},
    /*
     * Allocation calls are a property of the code path, not of the
     * machine: two runs of the same code agree to well under 0.1% (the
     * rest is amortised per-batch work), so 0.5% catches one allocation
     * more in 200 per op, as for the instruction counts.
     */
    {"allocs", "allocs_per_op", "allocs/op",
     "allocation calls per op (jemalloc hooks, untimed counting pass)", 0.005,
     true, false},
};

const char *hvb_cmp_metric_names(void)
{
    static char list[160];
    struct hv_strbuf b;
    size_t i;

    if ( list[0] == '\0' )
    {
        hv_strbuf_init(&b, list, sizeof(list));
        for ( i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++ )
            hv_strbuf_join(&b, ", ", "%s", metrics[i].name);
    }
    return list;
}

static const struct metric *find_metric(const char *name)
{
    size_t i;

    for ( i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++ )
        if ( strcmp(metrics[i].name, name) == 0 )
            return &metrics[i];
    return NULL;
}

#define COUNTER_THRESHOLD 0.05 /* a counter metric's default */

/* Could @metric name a counter (M of M_per_op)? */
static bool counter_name(const char *metric)
{
    size_t n = strspn(metric, "abcdefghijklmnopqrstuvwxyz0123456789_");

    return n > 0 && metric[n] == '\0' && n + 8 < HVB_CMP_KEY_MAX;
}

double hvb_cmp_default_threshold(const char *metric)
{
    const struct metric *m = find_metric(metric);

    return m ? m->threshold : counter_name(metric) ? COUNTER_THRESHOLD : -1;
}

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

/* The file's probe of counter @key, or NULL. */
static json_t *probe_entry(json_t *doc, const char *key)
{
    return json_object_get(
        json_object_get(json_object_get(json_object_get(doc, HVB_RK_HVBENCH),
                                        HVB_RK_COUNTERS),
                        HVB_PK_COUNTERS),
        key);
}

/* Does a cell of the file have counter @key?  @why: the probe's reason. */
static bool has_counter(json_t *doc, const char *key, const char **why)
{
    json_t *c = probe_entry(doc, key);
    json_t *cells =
        json_object_get(json_object_get(doc, HVB_RK_HVBENCH), HVB_RK_CELLS);
    json_t *cell;
    size_t i;

    *why = json_string_value(json_object_get(c, HVB_PK_REASON));
    json_array_foreach(cells, i, cell)
    {
        if ( json_object_get(json_object_get(cell, HVB_RK_COUNTERS), key) )
            return true;
    }
    return false;
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
                     cmp->names[side]
                         ?: side ? "NEW"
                                 : "BASE",
                     json_string_value(json_object_get(c, HVB_RK_NAME)) ?: "?",
                     time ? HVB_RK_SAMPLES : "counters.", time ? "" : cmp->key,
                     time ? "" : ".samples", i, json_number_value(v),
                     cmp->metric);
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
 * flags (gate --base-bin's): the median task-clock per op against the
 * median wall time per op of its threads (HVB_RK_THREADS, else the
 * name's "threads:N", else 1), as the run flags it.
 */
static unsigned int share_noise(json_t *c)
{
    json_t *tc =
        json_object_get(json_object_get(json_object_get(c, HVB_RK_COUNTERS),
                                        "sw_task_clock_ns_per_op"),
                        HVB_RK_CTR_SAMPLES);
    const char *name = json_string_value(json_object_get(c, HVB_RK_NAME));
    const char *t = name ? strstr(name, "threads:") : NULL;
    json_int_t threads = json_integer_value(json_object_get(c, HVB_RK_THREADS));
    double task, wall;

    if ( tc == NULL )
        return 0;
    if ( threads <= 0 && t != NULL )
        threads = strtol(t + strlen("threads:"), NULL, 10);
    task = json_median(tc);
    wall = json_median(json_object_get(c, HVB_RK_SAMPLES)) *
           (double)(threads > 0 ? threads : 1);
    return task < HVB_CPU_SHARE_MIN * wall ? HVB_NOISE_DESCHED : 0;
}

/*
 * The flags of cell @c that a comparison cannot recompute from the
 * samples alone: the measured threads' CPU share (from task-clock), the
 * timer's cost, CPU scaling, as the results file recorded them, or the
 * CPU share from the samples of a cell that records none.  Machine
 * noise, so only for a metric that varies with the machine
 * (@cmp->same_code false).  cpu-share<90% makes a row unstable
 * (HVB_NOISE_UNSTABLE), paired or not: a loaded machine's answer.
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

static enum hvb_verdict verdict(const struct hvb_cmp_row *r, double t)
{
    /* Statistics that are not numbers judge nothing (never "unchanged"). */
    if ( isnan(r->ratio) || isnan(r->lo) || isnan(r->hi) )
        return HVB_UNSTABLE;
    /* Noisy samples are never judged, however large the change. */
    if ( (r->base_noise | r->new_noise) & HVB_NOISE_UNSTABLE )
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
    double *x = NULL, *y = NULL, t = cmp->threshold;
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

    r->verdict = verdict(r, t);
out:
    free(x);
    free(y);
    return rc;
}

/*
 * Metric @metric not in the table: the counter @metric_per_op (or
 * @metric itself if it ends so), its source as @doc's probe says.
 */
static void counter_metric(json_t *doc, const char *metric, struct hvb_cmp *out)
{
    size_t n = strlen(metric), suffix = strlen("_per_op");
    bool has_suffix = n > suffix && !strcmp(metric + n - suffix, "_per_op");
    json_t *p;
    const char *ev, *src;

    snprintf(out->key_buf, sizeof(out->key_buf), "%s%s", metric,
             has_suffix ? "" : "_per_op");
    snprintf(out->unit_buf, sizeof(out->unit_buf), "%.*s/op",
             (int)(has_suffix ? n - suffix : n), metric);
    p = probe_entry(doc, out->key_buf);
    ev = json_string_value(json_object_get(p, HVB_PK_EVENT));
    src = json_string_value(json_object_get(p, HVB_PK_SOURCE));
    if ( ev != NULL )
        snprintf(out->source_buf, sizeof(out->source_buf),
                 "perf_event_open %s per op (libpfm4-encoded, scaled for "
                 "multiplexing)",
                 ev);
    else
        snprintf(out->source_buf, sizeof(out->source_buf), "counter %s%s%s",
                 out->key_buf, src ? ": " : "", src ?: "");
    out->metric = metric;
    out->key = out->key_buf;
    out->unit = out->unit_buf;
    out->source = out->source_buf;
}

/* Resolve @metric for @base and @new_ (may be the same document). */
static int resolve(json_t *base, json_t *new_, const char *metric, double t,
                   struct hvb_cmp *out, char *err, size_t len)
{
    const struct metric *m = find_metric(metric);
    const char *why_b = NULL, *why_n = NULL;
    const char *names[2] = {out->names[0], out->names[1]};
    const char *sides[2] = {"BASE", "NEW"};
    bool builds = out->builds;
    double alpha = out->alpha;

    memset(out, 0, sizeof(*out));
    out->names[0] = names[0];
    out->names[1] = names[1];
    out->builds = builds;
    out->alpha = alpha;
    if ( builds )
    {
        sides[0] = "the base build";
        sides[1] = "the new build";
    }
    if ( m == NULL && !counter_name(metric) )
    {
        snprintf(err, len,
                 "unknown metric '%s' (%s, or M for a counter M_per_op)",
                 metric, hvb_cmp_metric_names());
        return -EINVAL;
    }
    if ( m == NULL )
        counter_metric(base, metric, out);
    else
    {
        out->metric = m->name;
        out->key = m->key;
        out->unit = m->unit;
        out->source = m->source;
    }
    out->threshold = t >= 0 ? t : m ? m->threshold : COUNTER_THRESHOLD;
    out->same_code = m != NULL && m->same_code;
    out->positive = m != NULL && m->positive;
    if ( m != NULL && strcmp(m->name, "cycles") == 0 &&
         !(has_counter(base, "cycles_per_op", &why_b) &&
           has_counter(new_, "cycles_per_op", &why_n)) )
    {
        /* "cycles": hardware where both have them, else TSC, said so. */
        out->key = "tsc_cycles_per_op";
        out->unit = "TSC cycles/op";
        out->source = builds ? "TSC cycles per op: hardware cycles are not "
                               "in both builds' samples (no PMU), so "
                               "invariant TSC ticks stand in"
                             : "TSC cycles per op: hardware cycles are not in "
                               "both files (no PMU), so invariant TSC ticks "
                               "stand in";
    }
    if ( strcmp(out->key, "time") != 0 )
    {
        if ( !has_counter(base, out->key, &why_b) ||
             !has_counter(new_, out->key, &why_n) )
        {
            bool in_base = has_counter(base, out->key, &why_b);

            const char *why = in_base ? why_n : why_b;
            bool probed = probe_entry(in_base ? new_ : base, out->key);

            if ( why == NULL && m == NULL && !probed )
                snprintf(err, len,
                         "metric %s: %s has no %s (no such counter; "
                         "metrics: %s, or M for a counter M_per_op of both "
                         "%s)",
                         out->metric, sides[in_base], out->key,
                         hvb_cmp_metric_names(), builds ? "builds" : "files");
            else
                snprintf(err, len, "metric %s: %s has no %s (%s)", out->metric,
                         sides[in_base], out->key, why ?: "not in its cells");
            return -EINVAL;
        }
    }
    return 0;
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

    rc = resolve(base, new_, metric, t, out, err, len);
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

/*
 * Two builds paired (gate --base-bin, hvb_cmp_builds()): a sequential
 * SAME / DIFFERENT / UNKNOWN rule, after Chromium Pinpoint's.  The gate
 * adds process pairs to the cells still undecided and looks again; each
 * look judges every cell on the bootstrap distribution of its ratio
 * new/base, B resamples sorted into d[0..B).  The ratio is one vote per
 * process pair: each pair's median ratio over its rounds, and the
 * Hodges-Lehmann estimate of those medians (the median of their pairwise
 * averages), resampled by pair (hvb_bootstrap_hl_draws_clustered()).
 * With under HL_MIN_PAIRS pairs (the deterministic sim_ metrics' one
 * pair) it is the median of all rounds, resampled by pair, then by round.
 * Why one vote per pair: on the 2-vCPU VM an A/A gate of 16 pairs had 15
 * pair medians within +-1.1% and one at 1.195; the two-stage bootstrap
 * of the pooled median drew that pair two or three times into many
 * resamples and gave [-0.39%, +2.74%].  Offline on 64 recorded A/A pairs
 * (1 ms x 100 rounds, subsets of 16, 99%): half-width 0.66% pooled,
 * 0.50% Hodges-Lehmann; a +1% change cleared t = 0.5% in 28% and 75%
 * of them.
 *
 *   CI    [d at alpha/2, d at 1 - alpha/2]: alpha is the gate's 0.05
 *         over the looks it may take (Bonferroni: 5 looks -> 0.01, a
 *         99% CI), so looking again and again does not raise the chance
 *         of a wrong verdict past 0.05
 *   p     two-sided, of a ratio other than 1: 2 (min(#d <= 1, #d >= 1)
 *         + 1) / (B + 1)
 *   p_beyond  of a change beyond the threshold: the smaller of 2 (#d <=
 *         1 + t + 1) / (B + 1) and 2 (#d >= 1 - t + 1) / (B + 1)
 *
 * A cell is "same" when its CI lies inside [1 - t, 1 + t], "regressed"
 * ("improved") when it lies wholly above 1 + t (below 1 - t) and its
 * p_beyond is a Benjamini-Hochberg discovery at q = alpha among all the
 * cells' (so that of many cells, the false "regressed" ones stay a
 * fraction alpha of those found), else "unknown".  E.g. t = 0.5%, one
 * cell, alpha 0.01: d's 0.5% and 99.5% points at 1.0062 and 1.0148 ->
 * regressed (#d <= 1.005 is 0, p_beyond 2 / 5001); at 1.0031 and
 * 1.0170 -> unknown, and with the CI narrowing as 1/sqrt(pairs) around
 * the median 1.0102 it would take 12 x ((1.0102 - 1.0031) / (1.0102 -
 * 1.005))^2 ~ 22 pairs instead of 12 (hvb_cmp_more_pairs(): 10 more).
 * With so few resamples in a tail as 20 / alpha needs, B grows with the
 * looks (5000 at least).
 */
#define HL_MIN_PAIRS 4

static unsigned int builds_resamples(double alpha)
{
    double b = ceil(20 / alpha);

    return b > HVB_BOOTSTRAP_RESAMPLES ? (unsigned int)b
                                       : HVB_BOOTSTRAP_RESAMPLES;
}

/* 2 (@k + 1) / (@b + 1), at most 1: a two-sided bootstrap p-value. */
static double tail_p(size_t k, unsigned int b)
{
    double p = 2.0 * ((double)k + 1) / ((double)b + 1);

    return p < 1 ? p : 1;
}

/* The CI, p and p_beyond of @r from ratios @q[0..n) of @k pairs. */
static int builds_ci(const struct hvb_cmp *cmp, struct hvb_cmp_row *r,
                     const double *q, size_t n, unsigned int k)
{
    unsigned int b = builds_resamples(cmp->alpha), i;
    double *d = malloc(b * sizeof(*d)), t = cmp->threshold;
    size_t le1 = 0, ge1 = 0, le_hi = 0, ge_lo = 0;
    int rc;

    if ( d == NULL )
        return -ENOMEM;
    if ( k >= HL_MIN_PAIRS && n % k == 0 )
        rc = hvb_bootstrap_hl_draws_clustered(q, n, k, b, HVB_BOOTSTRAP_SEED, d,
                                              &r->ratio);
    else
        rc = hvb_bootstrap_median_draws_clustered(q, n, k, b,
                                                  HVB_BOOTSTRAP_SEED, d);
    if ( rc == 0 )
    {
        r->lo = hvb_quantile_sorted(d, b, cmp->alpha / 2);
        r->hi = hvb_quantile_sorted(d, b, 1 - cmp->alpha / 2);
        for ( i = 0; i < b; i++ )
        {
            le1 += d[i] <= 1;
            ge1 += d[i] >= 1;
            le_hi += d[i] <= 1 + t;
            ge_lo += d[i] >= 1 - t;
        }
        r->p = tail_p(le1 < ge1 ? le1 : ge1, b);
        r->p_beyond = tail_p(le_hi < ge_lo ? le_hi : ge_lo, b);
    }
    free(d);
    return rc;
}

/* The verdict of a row of hvb_cmp_builds(), before the FDR control. */
static enum hvb_verdict builds_verdict(const struct hvb_cmp_row *r, double t)
{
    if ( isnan(r->ratio) || isnan(r->lo) || isnan(r->hi) )
        return HVB_UNSTABLE;
    if ( (r->ratio_noise & HVB_NOISE_FEW) ||
         ((r->base_noise | r->new_noise) & HVB_NOISE_DESCHED) )
        return HVB_UNSTABLE;
    if ( r->lo > 1 + t )
        return HVB_REGRESSED;
    if ( r->hi < 1 - t )
        return HVB_IMPROVED;
    if ( r->lo >= 1 - t && r->hi <= 1 + t )
        return HVB_UNCHANGED;
    return HVB_UNSTABLE;
}

long hvb_cmp_more_pairs(const struct hvb_cmp_row *r, double t)
{
    double m = r->ratio, f, need;

    if ( r->verdict != HVB_UNSTABLE )
        return 0;
    if ( !isfinite(m) || !isfinite(r->lo) || !isfinite(r->hi) ||
         r->pairs == 0 || (r->ratio_noise & HVB_NOISE_FEW) ||
         ((r->base_noise | r->new_noise) & HVB_NOISE_DESCHED) )
        return -1;
    /* How much narrower the CI's side(s) facing the band's edge must be. */
    if ( m > 1 + t )
        f = (m - r->lo) / (m - 1 - t);
    else if ( m < 1 - t )
        f = (r->hi - m) / (1 - t - m);
    else if ( m == 1 + t || m == 1 - t )
        return -1;
    else
    {
        double up = (r->hi - m) / (1 + t - m), down = (m - r->lo) / (m - 1 + t);

        f = up > down ? up : down;
    }
    need = ceil((double)r->pairs * f * f) - (double)r->pairs;
    if ( !(need < 1e6) )
        return -1;
    return need >= 1 ? (long)need : 1;
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
        rc = nq ? builds_ci(cmp, r, q, nq, r->pairs) : 0;
        r->verdict = builds_verdict(r, t);
        goto out;
    }
    r->p = hvb_mannwhitneyu(x, nx, y, ny, NULL);
    rc = 0;
    /*
     * The ratios of one process (gate --base-bin: one process pair) share
     * its layout and placement luck, and, on a loaded machine, its share
     * of the CPUs: they are resampled by process first, then by round
     * (one process: plainly).  The plain bootstrap counted 120 ratios of
     * 12 pairs as 120 observations: an A/A with per-pair medians spread
     * by the load said +14.84% [+4.8%, +24.8%], "regressed".
     */
    if ( nq > 0 )
        rc = hvb_bootstrap_median_ci_clustered(
            q, nq, cmp->processes[0], HVB_BOOTSTRAP_RESAMPLES,
            HVB_BOOTSTRAP_SEED, &r->lo, &r->hi);
    /*
     * Paired rounds are judged on the CI of the median ratio alone (it
     * already carries the ratios' spread, and a disturbed round moves a
     * median little); the ratios' noise flags are reported, not fatal,
     * except too few rounds, and the cells' cpu-share<90% (the machine
     * busy with other work deschedules one sample of a round and not
     * the other: it does not cancel).
     */
    {
        unsigned int flags = r->new_noise;

        r->new_noise &= HVB_NOISE_FEW | HVB_NOISE_DESCHED;
        r->verdict = nq ? verdict(r, t) : HVB_UNSTABLE;
        r->new_noise = flags;
    }
out:
    free(x);
    free(y);
    free(q);
    return rc;
}

static int paired(json_t *doc, const char *metric, double t,
                  struct hvb_cmp *out, char *err, size_t len)
{
    json_t *c;
    size_t i, n;
    int rc;

    rc = resolve(doc, doc, metric, t, out, err, len);
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
    return paired(doc, metric, t, out, err, len);
}

/*
 * Benjamini-Hochberg at q = c->alpha over the m rows' p_beyond
 * (hvb_bh_cut()): a row judged regressed or improved whose p_beyond is
 * not a discovery is held back (unstable, r->held).  Of many cells, the
 * ones called regressed or improved wrongly stay a fraction alpha of
 * all so called; one cell alone is judged as without it.
 */
static void fdr(struct hvb_cmp *c)
{
    double *p = malloc((c->nr_rows + 1) * sizeof(*p)), cut = -1;
    size_t i;

    for ( i = 0; p != NULL && i < c->nr_rows; i++ )
        p[i] = c->rows[i].p_beyond;
    if ( p != NULL )
        cut = hvb_bh_cut(p, c->nr_rows, c->alpha);
    free(p);
    memset(c->nr, 0, sizeof(c->nr));
    for ( i = 0; i < c->nr_rows; i++ )
    {
        struct hvb_cmp_row *r = &c->rows[i];

        if ( (r->verdict == HVB_REGRESSED || r->verdict == HVB_IMPROVED) &&
             !(r->p_beyond <= cut) )
        {
            r->verdict = HVB_UNSTABLE;
            r->held = true;
        }
        c->nr[r->verdict]++;
    }
}

int hvb_cmp_builds(json_t *doc, const char *metric, double t, double alpha,
                   struct hvb_cmp *out, char *err, size_t len)
{
    int rc;

    if ( !(alpha > 0 && alpha < 1) )
    {
        snprintf(err, len, "alpha %g: not in (0, 1)", alpha);
        return -EINVAL;
    }
    out->builds = true;
    out->alpha = alpha;
    rc = paired(doc, metric, t, out, err, len);
    if ( rc == 0 )
        fdr(out);
    return rc;
}
