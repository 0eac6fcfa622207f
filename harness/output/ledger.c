/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The environment ledger's rows as the views show them (hvb/ledger.h): the
 * markdown of compare and gate (both files' environments, base | new),
 * compare --hosts (one column per host) and, through "hvbench report
 * --ledger", report.py's Hosts table.  One table, so a ledger key is
 * labelled once.  E.g. the row {"vCPUs", "environment", "vcpus_online"}
 * of a run on a 2-vCPU VM reads "2" from hvbench.environment.vcpus_online;
 * it is in every view and must match between base and new, or gate's
 * markdown warns that the machines differ.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include <hvb/results.h>
#include <hvb/results_read.h>

#include <hvb/ledger.h>

#define C HVB_LEDGER_COMPARE
#define M HVB_LEDGER_MUST_MATCH
#define H HVB_LEDGER_HOSTS

const struct hvb_ledger_row hvb_ledger_rows[] = {
    {"host", NULL, "host_name", H}, /* row 0: heads the columns */
    {"CPU model", "environment", "cpu_model", H},
    {"vCPUs", "environment", "vcpus_online", H | C | M},
    {"NUMA nodes", "environment", "numa_nodes", H},
    {"hardware counters", HVB_RK_COUNTERS, NULL, H},
    {"kernel", "environment", "kernel", H | C | M},
    {"hypervisor", "environment", "hypervisor", H | C | M},
    {"clocksource", "environment", "clocksource", H | C | M},
    {"governor", "environment", "governor", H | C | M},
    {"microcode", "environment", "microcode", H},
    {"ASLR", "environment", "aslr", C | M},
    {"load (1 min) before", "environment", "load_avg_before", C},
    {"git commit", "git", "commit", H | C},
    {"dirty tree", "git", "dirty", C},
    {"compiler", "build", "compiler", H | C | M},
    {"flags", "build", "cflags", H | C | M},
    {"benchmark library", "build", "benchmark_library_build_type", C | M},
};
const size_t hvb_ledger_nr_rows =
    sizeof(hvb_ledger_rows) / sizeof(hvb_ledger_rows[0]);

#undef C
#undef M
#undef H

const char *hvb_ledger_text(json_t *doc, const struct hvb_ledger_row *r,
                            char *buf, size_t len)
{
    json_t *v;

    if ( r->obj == NULL )
        v = json_object_get(json_object_get(doc, HVB_RK_CONTEXT), r->key);
    else if ( r->key == NULL ) /* the probe: are cycles counted? */
    {
        v = json_object_get(
            json_object_get(
                json_object_get(hvb_rd_get(doc, HVB_RK_COUNTERS, NULL),
                                HVB_RK_COUNTERS),
                "cycles_per_op"),
            "available");
        snprintf(buf, len, "%s", json_is_true(v) ? "yes (PMU)" : "no");
        return buf;
    }
    else
        v = hvb_rd_get(doc, r->obj, r->key);
    if ( json_is_array(v) && json_array_size(v) > 0 ) /* a load average */
        snprintf(buf, len, "%.2f", json_number_value(json_array_get(v, 0)));
    else if ( json_is_string(v) )
        snprintf(buf, len, "%s", json_string_value(v));
    else if ( json_is_integer(v) )
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if ( json_is_number(v) )
        snprintf(buf, len, "%g", json_number_value(v));
    else if ( json_is_boolean(v) )
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else
        snprintf(buf, len, "?");
    /* A table cell: no '|'. */
    for ( char *p = buf; *p; p++ )
        if ( *p == '|' )
            *p = '/';
    return buf;
}

char *hvb_ledger_json(unsigned int view)
{
    json_t *a = json_array();
    char *s;
    size_t i;

    for ( i = 0; a != NULL && i < hvb_ledger_nr_rows; i++ )
    {
        const struct hvb_ledger_row *r = &hvb_ledger_rows[i];

        if ( (r->views & view) &&
             json_array_append_new(a, json_pack("{s:s, s:s?, s:s?}", "label",
                                                r->label, "object", r->obj,
                                                "key", r->key)) )
        {
            json_decref(a);
            return NULL;
        }
    }
    s = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return s;
}
