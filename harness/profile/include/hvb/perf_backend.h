/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The perf backend of 'hvbench profile': 'perf record -g' (frame-pointer
 * call chains, CLOCK_MONOTONIC sample times, user space only) attached
 * to this process, started disabled and switched on and off through its
 * control FIFOs, then 'perf script' read back into the in-process
 * sampler's sample format (hvb/sampler.h), addresses made absolute again
 * through /proc/self/maps, so both backends share attribution to cells
 * and symbolisation.
 */
#ifndef HVB_PERF_BACKEND_H
#define HVB_PERF_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <hvb/sampler.h>

struct hvb_perf;

/*
 * hvb_perf_start - start 'perf record' on this process, disabled, writing
 * DIR/perf.data (its messages in DIR/perf.log), and wait until it
 * answers.  0, or -1 with a one-line reason in @err (perf missing, not
 * permitted, ...).
 */
int hvb_perf_start(struct hvb_perf **out, const char *dir,
                   enum hvb_sample_event ev, unsigned int freq, char *err,
                   size_t len);
/* Switch sampling on (returns once perf acknowledged).  0 or -1. */
int hvb_perf_enable(struct hvb_perf *pf, char *err, size_t len);
/*
 * hvb_perf_stop - switch off, end perf record, read 'perf script' into
 * @buf (the caller frees buf->v) and the lost samples into @lost.
 */
int hvb_perf_stop(struct hvb_perf *pf, struct hvb_sample_buf *buf,
                  uint64_t *lost, char *err, size_t len);
const char *hvb_perf_event_name(const struct hvb_perf *pf);
/* Ends a perf still running; frees @pf. */
void hvb_perf_close(struct hvb_perf *pf);

#endif /* HVB_PERF_BACKEND_H */
