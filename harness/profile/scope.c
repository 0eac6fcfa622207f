/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which tasks "hvbench profile"'s events watch (hvb/perf_rings.h), for
 * results.json and stderr.  E.g. as root a wall view says
 *
 *   "events": "cpu-wide", "other_tasks_records": 5120
 *
 * (its sampler's and its switch recorder's records of other processes,
 * left out), and as a user whom perf_event_paranoid keeps to its own
 * tasks, "events": "per-task", with a warning that every context switch
 * of the cell's threads then costs more.
 */
#include <inttypes.h>
#include <stdio.h>

#include <hvb/perf_rings.h>
#include <hvb/scope.h>

/* false if neither is open; else whether all are CPU-wide. */
static bool scope(const struct hvb_sampler *s, const struct hvb_switches *sw,
                  bool *wide, uint64_t *foreign)
{
    uint64_t n = 0;
    bool any = false;

    *wide = true;
    *foreign = 0;
    if ( s != NULL )
    {
        *wide &= hvb_sampler_cpu_wide(s, &n);
        *foreign += n;
        any = true;
    }
    if ( sw != NULL )
    {
        *wide &= hvb_switches_cpu_wide(sw, &n);
        *foreign += n;
        any = true;
    }
    return any;
}

json_t *hvb_profile_scope_json(const struct hvb_sampler *s,
                               const struct hvb_switches *sw)
{
    uint64_t foreign;
    bool wide;

    if ( !scope(s, sw, &wide, &foreign) )
        return json_object();
    return json_pack("{s:s, s:I}", "events", wide ? "cpu-wide" : "per-task",
                     "other_tasks_records", (json_int_t)foreign);
}

void hvb_profile_scope_note(const struct hvb_sampler *s,
                            const struct hvb_switches *sw)
{
    uint64_t foreign;
    bool wide;

    if ( !scope(s, sw, &wide, &foreign) )
        return;
    if ( wide )
        fprintf(stderr,
                "hvbench: profile: events CPU-wide, %" PRIu64
                " record%s of other tasks left out\n",
                foreign, foreign == 1 ? "" : "s");
    else
        fprintf(stderr,
                "hvbench: warning: profile: events per task (%s): each "
                "context switch of the cell's threads costs more, and a "
                "workload that switches often runs slower\n",
                hvb_perf_rings_per_task_asked()
                    ? "HVBENCH_PERF_PER_TASK=1"
                    : "not permitted CPU-wide: see "
                      "/proc/sys/kernel/perf_event_paranoid");
}
