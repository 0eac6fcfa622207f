/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench run --trace FILE": the timeline recorder (hv/trace.h) on for
 * the rounds, each cell's bodies wrapped to set the recorder's cell and
 * name the measured threads, then the events written as a Chrome Trace
 * Event Format file (Perfetto, chrome://tracing, speedscope, the Firefox
 * Profiler), atomically (hvb/outfile.h).
 *
 * Worked example: "hvbench run parallel-create --threads 4 --trace t.json"
 * writes
 *
 *   {"displayTimeUnit": "ns",
 *    "otherData": {"clock": "CLOCK_MONOTONIC", "origin_monotonic_ns": ...,
 *                  "events": 812, "overwritten": 0, "over_cap": 0, ...},
 *    "traceEvents": [
 *     {"ph": "M", "name": "process_name", "pid": 0, "tid": 0,
 *      "args": {"name": "parallel-create/seclock=global/..."}},
 *     {"ph": "M", "name": "thread_name", "pid": 0, "tid": 3,
 *      "args": {"name": "client 1"}},
 *     {"ph": "X", "name": "define", "cat": "api", "pid": 0, "tid": 3,
 *      "ts": 1523.042, "dur": 20117.881, "args": {"round": 0}},
 *     {"ph": "X", "name": "wait virSecurityManager", "cat": "lock", ...,
 *      "args": {"class": "virSecurityManager", "kind": "mutex",
 *               "site": "global.c:22", "wait_ns": 9876543}}, ...]}
 *
 * one process per cell (pid = the cell's index), one thread per thread
 * name, ts and dur in microseconds with nanosecond fractions, ts from
 * origin_monotonic_ns.  Past --trace-max-events the oldest events are
 * left out, as a full ring overwrites its oldest: both counts are in
 * otherData, in hvbench.trace of the results and in a warning.
 */
#define _GNU_SOURCE /* strverscmp */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hv/lock.h>
#include <hv/lockstat.h>
#include <hv/trace.h>
#include <hvb/cmdline.h>
#include <hvb/results_read.h>

#include "private.h"

struct trace_wrap {
    void (*body)(void *arg, struct hvb_engine_thread *et);
    void *arg;
    unsigned int cell;
};

static void traced_body(void *arg, struct hvb_engine_thread *et)
{
    struct trace_wrap *w = arg;

    hv_trace_set_cell(w->cell);
    hv_trace_name("thread %u", et->index);
    w->body(w->arg, et);
}

int hvb_trace_begin(struct hvb_trace_run *tr, struct hvb_engine_bench *b,
                    size_t n)
{
    size_t i;

    tr->w = calloc(n ? n : 1, sizeof(*tr->w));
    if ( tr->w == NULL )
        return hvb_failure("out of memory");
    for ( i = 0; i < n; i++ )
    {
        tr->w[i] = (struct trace_wrap){b[i].body, b[i].arg, (unsigned int)i};
        b[i].body = traced_body;
        b[i].arg = &tr->w[i];
    }
    if ( hv_trace_start(tr->lock_ns, tr->holds) )
        return hvb_failure("out of memory starting the trace");
    hvb_trace_set_origin(tr, hv_trace_origin_ns());
    return 0;
}

void hvb_trace_set_origin(struct hvb_trace_run *tr, uint64_t origin_ns)
{
    struct timespec rt;

    clock_gettime(CLOCK_REALTIME, &rt);
    tr->origin_ns = origin_ns;
    tr->origin_realtime_ns =
        (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
}

/* Oldest first; at one time the longer (the enclosing) first. */
static int ev_cmp(const void *a, const void *b)
{
    const struct hv_trace_event *x = a, *y = b;

    if ( x->t0 != y->t0 )
        return x->t0 < y->t0 ? -1 : 1;
    if ( x->dur != y->dur )
        return x->dur > y->dur ? -1 : 1;
    return 0;
}

static void put_str(FILE *f, const char *pre, const char *s)
{
    fputs(pre, f);
    for ( ; *s; s++ )
    {
        unsigned char c = (unsigned char)*s;

        if ( c == '"' || c == '\\' )
            fprintf(f, "\\%c", c);
        else if ( c < 0x20 )
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Microseconds with nanosecond fractions. */
static void put_us(FILE *f, const char *key, uint64_t ns)
{
    fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000,
            (unsigned int)(ns % 1000));
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

static void put_args(FILE *f, const struct hv_trace_event *e)
{
    const struct hv_lock_site *site = e->what;
    char buf[256];

    if ( e->type == HV_TRACE_LOCK_WAIT || e->type == HV_TRACE_LOCK_HOLD )
    {
        put_str(f, ",\"args\":{\"class\":\"", e->name);
        put_str(f, ",\"kind\":\"", hv_lock_kind_name(e->arg));
        if ( site != NULL )
        {
            snprintf(buf, sizeof(buf), "%s:%d", base_name(site->file),
                     site->line);
            put_str(f, ",\"site\":\"", buf);
            put_str(f, ",\"function\":\"", site->func);
        }
        fprintf(f, ",\"%s\":%" PRIu64 "}",
                e->type == HV_TRACE_LOCK_WAIT ? "wait_ns" : "hold_ns", e->dur);
    }
    else if ( e->what != NULL )
    {
        put_str(f, ",\"args\":{\"", e->what);
        fprintf(f, ":%" PRIu64 "}", e->arg);
    }
}

static void put_event(FILE *f, const struct hv_trace_event *e, uint64_t origin)
{
    const char *pre = e->type == HV_TRACE_LOCK_WAIT   ? "wait "
                      : e->type == HV_TRACE_LOCK_HOLD ? "hold "
                                                      : "";

    fprintf(f, ",\n{\"ph\":\"X\",\"name\":\"%s", pre);
    put_str(f, "", e->name);
    put_str(f, ",\"cat\":\"", e->cat);
    fprintf(f, ",\"pid\":%u,\"tid\":%u", e->cell, e->tid);
    put_us(f, "ts", e->t0 > origin ? e->t0 - origin : 0);
    put_us(f, "dur", e->dur);
    put_args(f, e);
    fputc('}', f);
}

/* The metadata: each cell's name, each (cell, tid)'s thread name. */
static void put_names(FILE *f, const struct hvb_matrix *m,
                      const struct hv_trace_event *ev, size_t n,
                      const uint16_t *orig)
{
    size_t row = HV_TRACE_NAMES_MAX + 1, i;
    unsigned char *seen = calloc(m->nr_cells * row, 1);

    for ( i = 0; i < m->nr_cells; i++ )
    {
        fprintf(f,
                "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%zu,"
                "\"tid\":0",
                i ? ",\n" : "", i);
        put_str(f, ",\"args\":{\"name\":\"", m->cells[i].name);
        fputs("}}", f);
    }
    for ( i = 0; i < n; i++ )
    {
        const struct hv_trace_event *e = &ev[i];

        if ( e->cell >= m->nr_cells ||
             (seen && seen[e->cell * row + e->tid]++ > 0) )
            continue;
        fprintf(f,
                ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,"
                "\"tid\":%u",
                e->cell, e->tid);
        put_str(f, ",\"args\":{\"name\":\"",
                e->tid ? hv_trace_thread_name(orig[e->tid - 1]) : "(unnamed)");
        fputs("}}", f);
    }
    free(seen);
}

void hvb_trace_put_head(FILE *f, const struct hvb_trace_run *tr, size_t n,
                        const char *generator, const char *key,
                        unsigned int val, bool holds, bool sites)
{
    fprintf(f,
            "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{"
            "\"generator\":\"%s\","
            "\"clock\":\"CLOCK_MONOTONIC\",\"origin_monotonic_ns\":%" PRIu64
            ",\"origin_realtime_ns\":%" PRIu64 ",\"events\":%zu,"
            "\"overwritten\":%" PRIu64 ",\"over_cap\":%" PRIu64
            ",\"max_events\":%" PRIu64 ",\"%s\":%u,"
            "\"lock_threshold_ns\":%" PRIu64 ",\"lock_holds\":%s,"
            "\"lock_sites\":%s},\n"
            "\"traceEvents\":[\n",
            generator, tr->origin_ns, tr->origin_realtime_ns, n,
            tr->overwritten, tr->over_cap, tr->max_events, key, val,
            tr->lock_ns, holds ? "true" : "false", sites ? "true" : "false");
}

static void put_file(FILE *f, const struct hvb_trace_run *tr,
                     const struct hvb_matrix *m,
                     const struct hv_trace_event *ev, size_t n,
                     const uint16_t *orig)
{
    size_t i;

    hvb_trace_put_head(f, tr, n, "hvbench run --trace",
                       "ring_events_per_thread", HV_TRACE_RING,
                       tr->holds && hv_lockstat_available(),
                       hv_lockstat_available());
    put_names(f, m, ev, n, orig);
    for ( i = 0; i < n; i++ )
        put_event(f, &ev[i], tr->origin_ns);
    fputs("\n]}\n", f);
}

static int tid_cmp(const void *a, const void *b)
{
    return strverscmp(hv_trace_thread_name(*(const uint16_t *)a),
                      hv_trace_thread_name(*(const uint16_t *)b));
}

/*
 * The tids of @ev renumbered in the order of their names ("client 2"
 * before "client 10", "poller" before "xenstored"), as viewers order
 * threads by tid.  Returns the recorder's tid of each new tid - 1
 * (malloc'd), or NULL: out of memory.
 */
static uint16_t *renumber(struct hv_trace_event *ev, size_t n)
{
    uint16_t *rank = calloc(HV_TRACE_NAMES_MAX + 1, sizeof(*rank)),
             *tids = calloc(HV_TRACE_NAMES_MAX + 1, sizeof(*tids));
    size_t i, nr = 0;

    if ( rank == NULL || tids == NULL )
    {
        free(rank);
        free(tids);
        return NULL;
    }
    for ( i = 0; i < n; i++ )
        if ( ev[i].tid != 0 && rank[ev[i].tid]++ == 0 )
            tids[nr++] = ev[i].tid;
    qsort(tids, nr, sizeof(*tids), tid_cmp);
    for ( i = 0; i < nr; i++ )
        rank[tids[i]] = (uint16_t)(i + 1);
    for ( i = 0; i < n; i++ )
        if ( ev[i].tid != 0 )
            ev[i].tid = rank[ev[i].tid];
    free(rank);
    return tids;
}

/* What did not make it into the file, on stderr. */
static void say_lost(const struct hvb_trace_run *tr,
                     const struct hv_trace_stats *st, size_t n)
{
    if ( st->lost )
        fprintf(stderr,
                "hvbench: warning: trace: %" PRIu64 " events lost: a "
                "thread's ring (%u events) wrapped and overwrote its oldest\n",
                st->lost, HV_TRACE_RING);
    if ( tr->over_cap )
        fprintf(stderr,
                "hvbench: warning: trace: the oldest %" PRIu64 " of %zu events "
                "not written (--trace-max-events %" PRIu64 ")\n",
                tr->over_cap, n, tr->max_events);
    if ( st->names_full )
        fprintf(stderr,
                "hvbench: warning: trace: more than %u thread names: the "
                "rest are '(unnamed)'\n",
                HV_TRACE_NAMES_MAX);
}

/* Stop recording, write the file; 0 or an exit status, having said why. */
int hvb_trace_end(struct hvb_trace_run *tr, const struct hvb_matrix *m)
{
    struct hv_trace_event *ev = NULL;
    struct hv_trace_stats st;
    struct hvb_outfile of;
    uint16_t *orig = NULL;
    char err[512] = "";
    size_t n, skip = 0;
    long got;
    int rc;

    hv_trace_stop();
    got = hv_trace_collect(&ev, &st);
    if ( got < 0 )
        return hvb_failure("out of memory collecting the trace");
    n = (size_t)got;
    qsort(ev, n, sizeof(*ev), ev_cmp);
    if ( n > tr->max_events )
        skip = n - tr->max_events;
    tr->overwritten = st.lost;
    tr->over_cap = skip;
    tr->written = n - skip;
    say_lost(tr, &st, n);
    rc = (orig = renumber(ev + skip, n - skip)) == NULL
             ? -ENOMEM
             : hvb_outfile_open(&of, tr->path, "trace", err, sizeof(err));
    if ( rc == 0 )
    {
        put_file(of.f, tr, m, ev + skip, n - skip, orig);
        rc = hvb_outfile_commit(&of, err, sizeof(err));
    }
    free(ev);
    free(orig);
    if ( rc )
        return hvb_failure("%s", err[0] ? err : strerror(-rc));
    return 0;
}

void hvb_trace_annotate(const struct hvb_trace_run *tr, json_t *root)
{
    json_t *hv = json_object_get(root, HVB_RK_HVBENCH);

    json_object_set_new(
        hv, "trace",
        json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "file",
                  tr->path, "clock", "CLOCK_MONOTONIC", "origin_monotonic_ns",
                  (json_int_t)tr->origin_ns, "origin_realtime_ns",
                  (json_int_t)tr->origin_realtime_ns, "events",
                  (json_int_t)tr->written, "overwritten",
                  (json_int_t)tr->overwritten, "over_cap",
                  (json_int_t)tr->over_cap, "max_events",
                  (json_int_t)tr->max_events, "lock_threshold_ns",
                  (json_int_t)tr->lock_ns, "lock_holds",
                  tr->holds && hv_lockstat_available()));
}

void hvb_trace_free(struct hvb_trace_run *tr)
{
    free(tr->w);
    tr->w = NULL;
    json_decref(tr->merged_events);
    json_decref(tr->merged_names);
    tr->merged_events = tr->merged_names = NULL;
}
