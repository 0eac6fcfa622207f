/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The off-CPU and wall-clock views of "hvbench profile": a measured
 * thread's context switches (hvb/switches.h) paired into the intervals
 * it spent off CPU, each weighted by its length and named by the stack
 * it blocked in (user frames, then the kernel's with FlameGraph's "_[k]"
 * suffix, then a leaf saying why: "[off-cpu]" it slept, "[off-cpu:
 * preempted]" it was runnable but another thread had the CPU,
 * "[off-cpu: modelled sleep]" a sleep that models a cost, e.g.
 * hv_virt_sleep_us).  The wall view adds the thread's on-CPU samples
 * (hvb/sampler.h), each worth the sampling period, so that on + off is
 * the thread's wall time; what is left is printed as not accounted for.
 *
 * A cell's threads are those that run its body (inside their windows,
 * given by the caller) and every other thread of the process but the
 * harness's main one while the cell runs (the daemons, pools and VM
 * threads of a macro workload: a client's wait is often their work),
 * from their fork to their exit.  Weights are in ns per op: the cell's
 * threads' time over its ops.
 */
#ifndef HVB_OFFCPU_H
#define HVB_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

#include <hvb/ksyms.h>
#include <hvb/sampler.h>
#include <hvb/switches.h>
#include <hvb/symbols.h>

/* A measured thread @tid ran cell @cell's body from @t0 to @t1 (ns). */
struct hvb_twindow {
    uint64_t t0, t1, tid;
    size_t cell;
};

/*
 * twindow.c: sort windows by start; the cell whose window (sorted) holds
 * @t, or SIZE_MAX.
 */
void hvb_twindow_sort(struct hvb_twindow *w, size_t n);
size_t hvb_twindow_cell_at(const struct hvb_twindow *w, size_t n, uint64_t t);

/* A thread's role when it was never named: hvb_switch_log.names's index. */
#define HVB_ROLE_UNNAMED UINT32_MAX

/* Thread @tid named @role (or forked by @parent, or exec'd) at @t. */
struct hvb_offcpu_name {
    uint64_t tid, t;
    uint32_t role, parent;
    uint16_t kind; /* HVB_SWITCH_COMM, _EXEC or _FORK */
};

struct hvb_offcpu_span {
    uint64_t t_out, t_in; /* clipped to the cell */
    uint32_t chain;       /* the switch out's */
    uint32_t role;        /* the thread's */
    uint16_t kind;        /* enum hvb_switch_kind: why it left */
    bool exec;            /* after the thread's exec: not our frames */
    size_t cell;
};

/* A thread's time in a cell: its windows, or its life in the cell. */
struct hvb_offcpu_thread {
    uint64_t tid, wall_ns, on_ns, off_ns;
    uint64_t exec_t; /* when it exec'd; UINT64_MAX: never */
    size_t cell;
    bool measured;
};

struct hvb_offcpu {
    const struct hvb_switch_log *log;
    struct hvb_twindow *win; /* by tid, then t0 */
    size_t nr_win;
    struct hvb_twindow *iv; /* the cells' windows merged, by time */
    size_t nr_iv;
    uint64_t main_tid; /* the harness's; never a cell's */
    struct hvb_offcpu_span *spans;
    size_t nr_spans, cap_spans;
    struct hvb_offcpu_thread *threads;
    size_t nr_threads, cap_threads;
    uint64_t unpaired; /* switches out whose switch in was not seen */
    struct hvb_offcpu_name *names; /* the threads' names, by tid and time */
    size_t nr_names;
};

/* A cell's totals, in ns of its threads. */
struct hvb_offcpu_total {
    uint64_t ops, wall_ns, on_ns, off_ns;
    uint64_t preempted_ns, modelled_ns, idle_ns; /* parts of off_ns */
    uint64_t spans, samples;
    size_t stacks, threads, measured;
    double worst_unaccounted;    /* of a thread, on + off against its wall */
    double worst_sampling_error; /* its on-CPU share's, one standard error */
};

/*
 * hvb_offcpu_build - pair @log's switches per thread into spans of
 * the cells: a measured thread's inside its windows @w (copied), any
 * other thread's (not @main_tid) inside the time a cell ran (its
 * windows merged), clipped to its fork and exit.  0 or -ENOMEM.
 */
int hvb_offcpu_build(struct hvb_offcpu *o, const struct hvb_switch_log *log,
                     const struct hvb_twindow *w, size_t nw, uint64_t main_tid);

/*
 * hvb_offcpu_write - cell @cell's stacks to @path (folded, atomically),
 * in ns per op over @ops: its threads' off-CPU spans, and with @cpu (the
 * wall view) their on-CPU samples, @period_ns each.  @t gets the
 * totals.  0 or -errno.
 */
int hvb_offcpu_write(struct hvb_offcpu *o, size_t cell, uint64_t ops,
                     struct hvb_symbols *sym, const struct hvb_ksyms *ks,
                     const struct hvb_sample_buf *cpu, uint64_t period_ns,
                     const char *path, struct hvb_offcpu_total *t);

/*
 * Thread @tid's role at @t: its name then (its first if it had none
 * yet), else the name its parent had when it forked it (a thread is born
 * with its parent's): an index of the log's names or HVB_ROLE_UNNAMED.
 */
uint32_t hvb_offcpu_role(const struct hvb_offcpu *o, uint64_t tid, uint64_t t);

void hvb_offcpu_free(struct hvb_offcpu *o);

#endif /* HVB_OFFCPU_H */
