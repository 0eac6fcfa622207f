/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The in-process sampling profiler: perf_event_open on every online CPU
 * for this process (pid 0, inherit: the measured threads the engine
 * starts later are followed), frame-pointer call chains, CLOCK_MONOTONIC
 * sample times, mmap ring buffers drained by a reader thread started
 * before the events (so it is never sampled itself).  Lost samples are
 * counted from PERF_RECORD_LOST.
 */
#ifndef HVB_SAMPLER_H
#define HVB_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hvb_sample_event {
    HVB_EV_AUTO,      /* cycles where a PMU exists, else cpu-clock */
    HVB_EV_CPU_CLOCK, /* software cpu-clock */
    HVB_EV_CYCLES,    /* hardware cycles */
};

struct hvb_sampler;

/*
 * One sample: rec[0] time (ns, CLOCK_MONOTONIC), rec[1] tid, rec[2] nr,
 * rec[3] the user stack pointer (0: not recorded), rec[4..HVB_SAMPLE_HDR)
 * the HVB_SAMPLE_STACK words at that stack pointer, then rec[HVB_SAMPLE_HDR
 * ..+nr) the user call chain, leaf first.  The stack words let the
 * caller of a leaf that has not set up its frame be found
 * (hvb_symbols_leaf_caller()).
 */
#define HVB_SAMPLE_STACK 8
#define HVB_SAMPLE_HDR   (4 + HVB_SAMPLE_STACK)
struct hvb_sample_buf {
    uint64_t *v;
    size_t len, cap;
    size_t nr_samples;
};

/* Append one sample of @n words; false when out of memory. */
bool hvb_sample_buf_push(struct hvb_sample_buf *b, const uint64_t *v, size_t n);

/*
 * hvb_sampler_open - open (disabled) and start the reader.  @freq in Hz.
 * With @kernel, time in the kernel is sampled too (a sample there keeps
 * the user call chain that entered it): the wall view's on-CPU time must
 * count a syscall's; else user time alone.  0 or -errno with @err
 * ("cycles: no hardware PMU", ...).
 */
int hvb_sampler_open(struct hvb_sampler **out, enum hvb_sample_event ev,
                     unsigned int freq, bool kernel, char *err, size_t len);
int hvb_sampler_enable(struct hvb_sampler *s);
/* Disable, drain, stop the reader; the samples stay until close. */
int hvb_sampler_stop(struct hvb_sampler *s);
const struct hvb_sample_buf *hvb_sampler_samples(const struct hvb_sampler *s);
uint64_t hvb_sampler_lost(const struct hvb_sampler *s);
/*
 * Are its events CPU-wide (hvb/perf_rings.h)?  @foreign: the records of
 * other tasks left out.
 */
bool hvb_sampler_cpu_wide(const struct hvb_sampler *s, uint64_t *foreign);
const char *hvb_sampler_event_name(const struct hvb_sampler *s);
/*
 * The CPU time a sample stands for, in ns: cpu-clock's fixed period; 0
 * for cycles, sampled in frequency mode (its period varies).
 */
uint64_t hvb_sampler_period_ns(const struct hvb_sampler *s);
/* Whether a hardware PMU is there (what HVB_EV_AUTO samples). */
bool hvb_sampler_pmu_present(void);
void hvb_sampler_close(struct hvb_sampler *s);

#endif /* HVB_SAMPLER_H */
