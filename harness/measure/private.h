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

#define HVB_HIDDEN __attribute__((visibility("hidden")))

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
    _Atomic unsigned int cg_dumps;
    double bracket_ns; /* start() + stop(): inside the timed window */
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

#endif /* HVB_MEASURE_PRIVATE_H */
