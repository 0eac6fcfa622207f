/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench run --trace FILE --processes N": each child process records
 * its own timeline into a temporary file (run_processes.c passes it
 * --trace PATH); the parent takes each child's events as the child ends
 * and writes one file at the end, a process per (child, cell), every
 * child's times moved onto the parent's origin (one CLOCK_MONOTONIC for
 * all of them).
 *
 * Worked example: --processes 2 on a matrix of 2 cells.  Child 1's
 * cell 1 becomes pid 1, named "CELL (process 1 of 2)"; child 2's cell 0
 * pid 2, cell 1 pid 3.  A child that started 4 s after the parent's
 * origin has its events' ts moved by 4,000,000 us.  The children run
 * one after another, so the merged events stay in time order; past
 * --trace-max-events the oldest (the first children's) are left out,
 * as a single run leaves its oldest out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/cmdline.h>
#include <hvb/outfile.h>

#include "private.h"

/* Times: microseconds with nanosecond fractions, as trace_file.c writes. */
#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

static uint64_t count_of(json_t *od, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(od, key));

    return v > 0 ? (uint64_t)v : 0;
}

/* @e's pid (a cell of child @k) as the merged file's, and ts moved by @us. */
static int move_event(json_t *e, size_t nr_cells, unsigned int k, double us)
{
    json_t *pid = json_object_get(e, "pid"), *ts = json_object_get(e, "ts");
    json_int_t cell = json_integer_value(pid);

    if ( !json_is_integer(pid) || cell < 0 || (size_t)cell >= nr_cells )
        return -EINVAL;
    json_integer_set(pid, (json_int_t)(k * nr_cells + (size_t)cell));
    if ( ts != NULL && !json_is_number(ts) )
        return -EINVAL;
    if ( ts != NULL )
        json_object_set_new(e, "ts", json_real(json_number_value(ts) + us));
    return 0;
}

/* The child's events and thread names, moved; 0 or -errno with @err. */
static int take_events(struct hvb_trace_run *tr, json_t *evs, size_t nr_cells,
                       unsigned int k, double us, char *err, size_t len)
{
    json_t *e;
    size_t i;

    json_array_foreach(evs, i, e)
    {
        const char *ph = json_string_value(json_object_get(e, "ph")),
                   *name = json_string_value(json_object_get(e, "name"));
        json_t *to = tr->merged_events;

        if ( ph == NULL || name == NULL )
            goto bad;
        if ( strcmp(ph, "M") == 0 && strcmp(name, "process_name") == 0 )
            continue; /* named again, with the child's number */
        if ( strcmp(ph, "M") == 0 )
            to = tr->merged_names;
        else if ( strcmp(ph, "X") != 0 )
            goto bad;
        if ( move_event(e, nr_cells, k, us) || json_array_append(to, e) )
            goto bad;
    }
    return 0;
bad:
    snprintf(err, len, "its trace: event %zu is not one hvbench writes", i);
    return -EINVAL;
}

int hvb_trace_take(struct hvb_trace_run *tr, const struct hvb_matrix *m,
                   const char *path, unsigned int k, char *err, size_t len)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je), *od, *evs;
    uint64_t origin;
    int rc;

    if ( doc == NULL )
    {
        snprintf(err, len, "its trace %s: %s", path, je.text);
        return -EINVAL;
    }
    if ( tr->merged_events == NULL )
    {
        tr->merged_events = json_array();
        tr->merged_names = json_array();
    }
    od = json_object_get(doc, "otherData");
    evs = json_object_get(doc, "traceEvents");
    origin = count_of(od, "origin_monotonic_ns");
    rc = 0;
    if ( tr->merged_events == NULL || tr->merged_names == NULL )
    {
        snprintf(err, len, "out of memory");
        rc = -ENOMEM;
    }
    else if ( !json_is_array(evs) || origin == 0 )
    {
        snprintf(err, len, "its trace %s: not hvbench's", path);
        rc = -EINVAL;
    }
    if ( rc == 0 )
        rc = take_events(tr, evs, m->nr_cells, k,
                         ((double)origin - (double)tr->origin_ns) / 1e3, err,
                         len);
    if ( rc == 0 )
    {
        tr->overwritten += count_of(od, "overwritten");
        tr->over_cap += count_of(od, "over_cap");
        tr->lock_sites = json_is_true(json_object_get(od, "lock_sites"));
        tr->holds_timed = json_is_true(json_object_get(od, "lock_holds"));
        tr->children++;
    }
    json_decref(doc);
    return rc;
}

static void put_json(FILE *f, json_t *v, bool *first)
{
    fputs(*first ? "" : ",\n", f);
    json_dumpf(v, f, DUMP_FLAGS);
    *first = false;
}

static void put_merged(FILE *f, const struct hvb_trace_run *tr,
                       const struct hvb_matrix *m, size_t skip)
{
    size_t n = json_array_size(tr->merged_events), i, c;
    bool first = true;
    char name[512];
    json_t *e;

    hvb_trace_put_head(f, tr, n - skip, "hvbench run --trace --processes",
                       "processes", tr->children, tr->holds_timed,
                       tr->lock_sites);
    for ( i = 0; i < tr->children; i++ )
        for ( c = 0; c < m->nr_cells; c++ )
        {
            snprintf(name, sizeof(name), "%s (process %zu of %u)",
                     m->cells[c].name, i + 1, tr->children);
            e = json_pack("{s:s, s:s, s:I, s:i, s:{s:s}}", "ph", "M", "name",
                          "process_name", "pid",
                          (json_int_t)(i * m->nr_cells + c), "tid", 0, "args",
                          "name", name);
            if ( e != NULL )
                put_json(f, e, &first);
            json_decref(e);
        }
    json_array_foreach(tr->merged_names, i, e)
        put_json(f, e, &first);
    for ( i = skip; i < n; i++ )
        put_json(f, json_array_get(tr->merged_events, i), &first);
    fputs("\n]}\n", f);
}

int hvb_trace_merge_end(struct hvb_trace_run *tr, const struct hvb_matrix *m)
{
    size_t n = json_array_size(tr->merged_events), skip = 0;
    struct hvb_outfile of;
    char err[512] = "";
    int rc;

    if ( n > tr->max_events )
        skip = n - tr->max_events;
    tr->over_cap += skip;
    tr->written = n - skip;
    if ( skip )
        fprintf(stderr,
                "hvbench: warning: trace: the oldest %zu of %zu events of "
                "the %u processes not written (--trace-max-events %" PRIu64
                ")\n",
                skip, n, tr->children, tr->max_events);
    rc = hvb_outfile_open(&of, tr->path, "trace", err, sizeof(err));
    if ( rc == 0 )
    {
        put_merged(of.f, tr, m, skip);
        rc = hvb_outfile_commit(&of, err, sizeof(err));
    }
    if ( rc )
        return hvb_failure("%s", err[0] ? err : strerror(-rc));
    return 0;
}
