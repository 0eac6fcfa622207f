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
 * Only the threads that run a cell's body count (their windows, given
 * by the caller): a background thread's sleeps are not a client's wait.
 * Weights are in ns per op: the cell's threads' time over their ops.
 */
#ifndef HVB_OFFCPU_H
#define HVB_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

#include <hvb/ksyms.h>
#include <hvb/sampler.h>
#include <hvb/symbols.h>

/* A measured thread @tid ran cell @cell's body from @t0 to @t1 (ns). */
struct hvb_twindow {
    uint64_t t0, t1, tid;
    size_t cell;
};

struct hvb_offcpu_span {
    uint64_t t_out, t_in; /* clipped to the window */
    size_t rec;           /* the switch out's record (offset) */
    size_t cell;
};

struct hvb_offcpu {
    const struct hvb_sample_buf *sw;
    struct hvb_twindow *win; /* by tid, then t0 */
    size_t nr_win;
    struct hvb_offcpu_span *spans;
    size_t nr_spans;
    uint64_t unpaired; /* switches out whose switch in was not seen */
};

/* A cell's totals, in ns of its measured threads. */
struct hvb_offcpu_total {
    uint64_t ops, wall_ns, on_ns, off_ns;
    uint64_t preempted_ns, modelled_ns; /* parts of off_ns */
    uint64_t spans, samples;
    size_t stacks;
};

/*
 * hvb_offcpu_build - pair @sw's switches per thread into spans inside
 * @w's windows (copied).  0 or -ENOMEM.
 */
int hvb_offcpu_build(struct hvb_offcpu *o, const struct hvb_sample_buf *sw,
                     const struct hvb_twindow *w, size_t nw);

/* The cell whose window of thread @tid holds @t, or SIZE_MAX. */
size_t hvb_offcpu_cell_of(const struct hvb_offcpu *o, uint64_t tid, uint64_t t);

/*
 * hvb_offcpu_write - cell @cell's stacks to @path (folded, atomically),
 * in ns per op over @ops: its off-CPU spans, and with @cpu (the wall
 * view) its threads' on-CPU samples, @period_ns each.  @t gets the
 * totals.  0 or -errno.
 */
int hvb_offcpu_write(const struct hvb_offcpu *o, size_t cell, uint64_t ops,
                     struct hvb_symbols *sym, const struct hvb_ksyms *ks,
                     const struct hvb_sample_buf *cpu, uint64_t period_ns,
                     const char *path, struct hvb_offcpu_total *t);

void hvb_offcpu_free(struct hvb_offcpu *o);

#endif /* HVB_OFFCPU_H */
