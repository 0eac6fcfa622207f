/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The measure room (harness/measure/): what a measured thread counts
 * around its loop, and what this machine can count at all.  No engine,
 * no matrix: the run room (runner.c, rounds.c) calls in, nothing here
 * calls out.  Three concerns, one file each, all behind hvb/meter.h:
 *
 *   probe.c         once per process: which counters work here and why
 *                   not (TSC frequency, perf_event groups, --events,
 *                   jemalloc, callgrind), the bracket's own cost, the
 *                   probe line and its JSON
 *   meter.c         per thread and sample: begin/start/stop/end of the
 *                   bracket, the deltas as per-op counters
 *   count_allocs.c  the untimed counting pass: jemalloc's hooks count
 *                   allocation and free calls (allocs_per_op)
 *   simcount.c      --instrument callgrind: the pinned cache geometry,
 *                   each sample's dump read back (sim_instructions_per_op,
 *                   sim_cycles_per_op and the raw events)
 *
 * plus perfev.c (perf_event_open and libpfm4, hvb/perfev.h) and
 * counters.c (the fixed-size counter tables, hvb/counters.h).  E.g. on
 * a VM without a PMU: probe.c finds cycles missing ("no PMU") and times
 * the bracket (bracket_ns); for each sample meter.c opens the software
 * group at begin(), reads the TSC and the group at start() and stop(),
 * and end() adds tsc_cycles_per_op and sw_task_clock_ns_per_op to the
 * thread's table.
 *
 * This header is the room's own: what probe.c found, shared with the
 * bracket and the counting pass.
 */
#ifndef HVB_MEASURE_PRIVATE_H
#define HVB_MEASURE_PRIVATE_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hvb/meter.h>
#include <hvb/perfev.h>
#include <jansson.h>
#include <stdio.h>

#define HVB_HIDDEN __attribute__((visibility("hidden")))

/*
 * meter.c: this thread's run delay so far (ns) from its schedstat @fd
 * ("on-CPU run-delay slices"), or -1.
 */
int64_t hvb_meter_run_delay(int fd) HVB_HIDDEN;

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

/* What the probe found (probe.c); read by every meter. */
struct hvb_meter_cfg {
    bool probed;
    enum hvb_counters_mode mode;
    double tsc_hz;
    bool tsc, tsc_invariant;
    char tsc_why[160];
    unsigned int nr_sw, nr_hw;
    struct hvb_perfev_def sw[4], hw[HVB_PERFEV_MAX];
    char sw_why[200], hw_why[200];
    char sw_kernel_why[256]; /* why not the kernel-side software events */
    /*
     * The probe's software events, kept open on the probing thread for
     * the life of the process: while one event of a kind exists, the
     * kernel's static key for that kind stays on, so a bracket's open
     * and close of its own (every sample) no longer patch kernel text
     * and IPI every CPU (probe.c).
     */
    struct hvb_perfev_group sw_keep;
    /* --events: hw[nr_hw..nr_grp) are those in the group; "" there. */
    unsigned int nr_grp;
    struct hvb_perfev_list ev;
    char ev_why[HVB_PERFEV_EXTRA_MAX][240]; /* >= hw_why */
    mallctl_fn mallctl;
    char alloc_why[160];
    bool hooks;            /* jemalloc's hooks install: allocs_per_op */
    char count_why[200];   /* why not */
    void *hooks_handle;    /* installed, during a counting pass only */
    _Atomic bool counting; /* measured threads read their call counts */
    bool callgrind;
    char cg_dir[PATH_MAX];
    char cg_why[160];
    _Atomic unsigned int cg_dumps; /* dumps so far: the probe's, samples' */
    char cg_creator[64];           /* "callgrind-3.19.0", from the dump */
    bool sim;                      /* the pinned cache simulation runs */
    char sim_why[240];             /* why not */
    bool schedstat;                /* /proc/thread-self/schedstat reads */
    char schedstat_why[160];
    double bracket_ns; /* start() + stop(): inside the timed window */
    unsigned int gen;  /* probes so far: a thread's kept groups are of one */
};
extern struct hvb_meter_cfg hvb_meter_cfg HVB_HIDDEN;

/*
 * The calling thread's allocation and free calls while the counting
 * pass's hooks are installed (count_allocs.c).
 */
extern __thread uint64_t hvb_meter_tl_allocs HVB_HIDDEN
    __attribute__((tls_model("initial-exec")));
extern __thread uint64_t hvb_meter_tl_frees HVB_HIDDEN
    __attribute__((tls_model("initial-exec")));

/* Probe the counting pass (count_allocs.c); sets .hooks or .count_why. */
void hvb_meter_probe_hooks(bool count_allocs) HVB_HIDDEN;

/* Open hvb_meter_cfg.hw[0..n) as the bracket does (meter.c). */
int hvb_meter_open_group(struct hvb_perfev_group *g, unsigned int n, char *why,
                         size_t len) HVB_HIDDEN;

/* One counter of the probe's JSON: {available, source | reason}. */
json_t *hvb_meter_probe_entry(bool ok, const char *source,
                              const char *why) HVB_HIDDEN;

/*
 * Callgrind (simcount.c).  sim_probe(): under callgrind, dump once and
 * read what it simulates (sets .sim or .sim_why; .callgrind false if no
 * dump appears); sim_add(): the next sample's dump as counters;
 * sim_line(), sim_json(): the probe line's and the JSON's part.
 */
void hvb_meter_sim_probe(void) HVB_HIDDEN;
void hvb_meter_sim_add(struct hvb_ctr_table *ctrs) HVB_HIDDEN;
void hvb_meter_sim_line(FILE *f) HVB_HIDDEN;
void hvb_meter_sim_json(json_t *probe, json_t *counters) HVB_HIDDEN;

#endif /* HVB_MEASURE_PRIVATE_H */
