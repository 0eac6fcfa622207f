/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-op counters around the measured loop, and the capability probe
 * that decides, once per process, which of them this machine can give.
 *
 * A measured thread brackets its loop: hvb_meter_begin() before the
 * engine's start barrier (opens its perf_event groups), start() as the
 * engine's timer starts (first keep-running call), stop() as it stops
 * (the last one), end() adds the counts as per-op counters and closes.
 *
 *   tsc_cycles_per_op       rdtsc, thread 0's window (invariant TSC;
 *                           frequency measured at the probe)
 *   cycles_per_op, instructions_per_op   hardware, libpfm4-encoded
 *                           group, scaled for multiplexing
 *   <key>_per_op            each --events name (cache_misses_per_op,
 *                           branch_misses_per_op, llc_load_misses_per_op,
 *                           perf_count_sw_page_faults_per_op ...): the
 *                           name in [a-z0-9_], libpfm4-encoded, in the
 *                           same group as cycles and instructions (its
 *                           own group where those are missing)
 *   perf_coverage           thread 0's running/enabled of that group
 *   sw_task_clock_ns_per_op, sw_context_switches_per_op,
 *   sw_cpu_migrations_per_op, sw_page_faults_per_op   software group
 *   sched_run_delay_ns_per_op  the time the measured threads were
 *                           runnable but not running (on a run queue),
 *                           /proc/thread-self/schedstat's run_delay
 *                           (CONFIG_SCHED_INFO): descheduled by other
 *                           work, where a thread that blocks (a lock, a
 *                           reply) is not
 *   alloc_bytes_per_op, dealloc_bytes_per_op   jemalloc's per-thread
 *                           thread.allocatedp / thread.deallocatedp
 *   allocs_per_op, frees_per_op   allocation and free calls of the
 *                           measured threads, counted by jemalloc hooks
 *                           in an untimed counting pass only (between
 *                           hvb_meter_count_begin() and _end()): while a
 *                           hook is installed every malloc takes
 *                           jemalloc's slow path (~50 ns more a pair),
 *                           so no timed sample ever runs with one
 *   sim_instructions_per_op callgrind Ir (--instrument callgrind)
 *   sim_cycles_per_op       callgrind's cache simulation, pinned caches:
 *                           L1 hits + 5 x LL hits + 35 x RAM; with the
 *                           raw events sim_ir_per_op, sim_dr_per_op,
 *                           sim_dw_per_op, sim_i1mr_per_op,
 *                           sim_d1mr_per_op, sim_d1mw_per_op,
 *                           sim_ilmr_per_op, sim_dlmr_per_op,
 *                           sim_dlmw_per_op (simcount.c)
 *
 * A counter the probe found missing is never reported (no zeros): the
 * probe's reason goes to stderr once and to the results.  So does an
 * asked event that does not open here (no PMU, not permitted, a PMU
 * libpfm4 knows but this machine lacks), or that does not fit the group
 * (the PMU cannot schedule it with the others).
 */
#ifndef HVB_METER_H
#define HVB_METER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include <hvb/counters.h>
#include <hvb/perfev.h>

/* --counters: which per-op counters to collect (hvb/perfev.h). */
enum hvb_counters_mode {
    HVB_COUNTERS_AUTO, /* everything available; missing ones say why */
    HVB_COUNTERS_HW,   /* hardware cycles/instructions required (else exit 2) */
    HVB_COUNTERS_TSC,  /* TSC cycles, software events, allocation only */
    HVB_COUNTERS_NONE, /* time only */
};

struct hvb_meter {
    struct hvb_perfev_group sw, hw;
    struct hvb_perfev_read sw0, sw1, hw0, hw1;
    uint64_t tsc0, tsc1;
    uint64_t alloc0, alloc1, dealloc0, dealloc1;
    uint64_t *allocp, *deallocp; /* this thread's jemalloc counters */
    uint64_t allocs0, allocs1, frees0, frees1; /* counting pass only */
    int64_t delay0, delay1;                    /* run_delay, ns (-1: unread) */
    int schedstat; /* this thread's schedstat, or -1 */
    bool started, stopped;
    bool counting; /* started inside a counting pass */
};

/* Where allocs_per_op and frees_per_op come from (the probe's source). */
#define HVB_METER_COUNT_SOURCE \
    "jemalloc experimental.hooks, untimed counting pass"

/*
 * hvb_meter_probe - decide the counters for @mode, with the extra
 * @events (--events; NULL: none), and @callgrind (the process runs under
 * valgrind's callgrind with client requests, dumping to @cg_dir);
 * @count_allocs: the command will run counting passes for allocs_per_op.
 * -EINVAL with @err when @mode is "hw" and there are no hardware
 * counters; else 0.
 */
int hvb_meter_probe(enum hvb_counters_mode mode,
                    const struct hvb_perfev_list *events, bool callgrind,
                    bool count_allocs, const char *cg_dir, char *err,
                    size_t len);

/* The probe's one line ("counters: ...; unavailable: x (why)..."). */
void hvb_meter_probe_line(FILE *f);

/*
 * The probe as JSON (hvbench.counters of the results): {mode, tsc_hz, ...,
 * counters: {KEY_per_op: {available, source | reason[, event]}}}.  Its
 * keys, for readers (compare):
 */
#define HVB_PK_COUNTERS  "counters"
#define HVB_PK_AVAILABLE "available"
#define HVB_PK_SOURCE    "source"
#define HVB_PK_REASON    "reason"
#define HVB_PK_EVENT     "event"
json_t *hvb_meter_probe_json(void);

/*
 * What the counter bracket (start + stop) adds to every sample, in ns,
 * measured at the probe; 0 with --counters none.
 */
double hvb_meter_bracket_ns(void);

/*
 * The counting pass: can this process count allocation calls (jemalloc
 * with working hooks, counters asked, not under callgrind)?  begin()
 * installs the hooks (0, or -errno: then there is no pass), end()
 * removes them.  Meters started in between report allocs_per_op and
 * frees_per_op; their time is not a sample.
 */
bool hvb_meter_count_available(void);
int hvb_meter_count_begin(void);
void hvb_meter_count_end(void);

/* Simulated caches: I1, D1, LL. */
#define HVB_SIM_CACHES 3

/*
 * The valgrind options that turn callgrind's cache simulation on with
 * the pinned geometry ("--cache-sim=yes", "--I1=32768,8,64", ...),
 * NULL-terminated: --instrument callgrind runs valgrind with them.
 */
const char *const *hvb_meter_cg_options(void);

/*
 * Is @counter one of the raw callgrind events (sim_ir_per_op ...
 * sim_dlmw_per_op)?  The console leaves them to the results.
 */
bool hvb_meter_sim_raw(const char *counter);

void hvb_meter_begin(struct hvb_meter *mt);
void hvb_meter_start(struct hvb_meter *mt);
void hvb_meter_stop(struct hvb_meter *mt);
void hvb_meter_end(struct hvb_meter *mt, bool thread0,
                   struct hvb_ctr_table *ctrs);

#endif /* HVB_METER_H */
