/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metrics of compare and gate (hvb/compare.h): the table's, and any
 * counter M_per_op of both files; hvb_cmp_resolve() picks one for two
 * documents and names what a side lacks.  E.g. "--metric cycles" on
 * files of a machine without a PMU compares tsc_cycles_per_op and says
 * so in the source line; "--metric cache_misses" compares the counter
 * cache_misses_per_op ("cache_misses/op"), its source from the probe.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/compare.h>
#include <hvb/meter.h>
#include <hvb/results_read.h>
#include "private.h"

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

/* See private.h. */
int hvb_cmp_resolve(json_t *base, json_t *new_, const char *metric, double t,
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
