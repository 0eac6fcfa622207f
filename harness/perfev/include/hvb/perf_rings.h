/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_event_open ring buffers for this process, one per CPU, drained by
 * a reader thread, one of the harness's own (hvb/own_threads.h).  The
 * in-process sampler (hvb/sampler.h) and the context-switch recorder
 * (hvb/switches.h) are its users: each passes its attribute and gets its
 * records, one at a time, through a callback.
 *
 * Where permitted (root, or perf_event_paranoid <= 0), the events are
 * CPU-wide (pid -1) and the reader keeps the records of this process,
 * of its children (FORK records) and theirs, less its own threads'.
 * Otherwise they are this process's (pid 0 with inherit: the threads it
 * starts later are followed; the kernel refuses to mmap an inherited
 * per-task event opened for every CPU at once, so, as perf record does,
 * one event per CPU).  Per-task events cost every context switch of a
 * followed thread: the kernel switches the thread's event context, and
 * a cpu-clock event's timer, out and in.  A 300-VM boot-storm over the
 * xenstore wire (about 3,300 switches per VM) ran 48% slower under
 * per-task cpu-clock sampling, 2% slower under CPU-wide sampling (perf
 * record without and with -a).  HVBENCH_PERF_PER_TASK=1 asks for the
 * per-task events, to compare.
 */
#ifndef HVB_PERF_RINGS_H
#define HVB_PERF_RINGS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hvb_perf_rings;

/*
 * Called by the reader for every record of the tasks followed but
 * PERF_RECORD_LOST (counted): @body is the record after its header,
 * @words its length in 8-byte words; a CPU-wide PERF_RECORD_SWITCH_CPU_WIDE
 * comes as a PERF_RECORD_SWITCH.  Calls never overlap.
 */
typedef void hvb_perf_record_fn(void *ctx, const struct perf_event_header *h,
                                const uint64_t *body, size_t words);

/*
 * hvb_perf_rings_open - start the reader, then open @a (disabled) on
 * every online CPU with a ring of @data_pages (a power of two) pages
 * each.  0, or -errno with a one-line reason in @err naming @what and
 * the CPU (a hint where perf_event_paranoid forbids it).
 */
int hvb_perf_rings_open(struct hvb_perf_rings **out, struct perf_event_attr *a,
                        size_t data_pages, hvb_perf_record_fn *fn, void *ctx,
                        const char *what, char *err, size_t len);
/* Enable every CPU's event.  0 or -errno. */
int hvb_perf_rings_enable(struct hvb_perf_rings *r);
/* Disable, stop the reader and drain what is left. */
void hvb_perf_rings_stop(struct hvb_perf_rings *r);
/* Records the kernel dropped (PERF_RECORD_LOST) so far. */
uint64_t hvb_perf_rings_lost(const struct hvb_perf_rings *r);
/*
 * A tracepoint's filter (PERF_EVENT_IOC_SET_FILTER, tracefs's syntax) on
 * every CPU's event: the kernel drops a record it rejects before it
 * takes the call chains.  0 or -errno.
 */
int hvb_perf_rings_filter(struct hvb_perf_rings *r, const char *filter);
/* Does HVBENCH_PERF_PER_TASK=1 ask for per-task events? */
bool hvb_perf_rings_per_task_asked(void);
/* Are the events CPU-wide (the records filtered here)? */
bool hvb_perf_rings_cpu_wide(const struct hvb_perf_rings *r);
/* CPU-wide: the records of other tasks left out so far. */
uint64_t hvb_perf_rings_foreign(const struct hvb_perf_rings *r);
void hvb_perf_rings_close(struct hvb_perf_rings *r);

#endif /* HVB_PERF_RINGS_H */
