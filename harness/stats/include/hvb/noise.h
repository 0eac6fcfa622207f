/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Noise flags on a set of samples, raised as pyperf and hyperfine raise
 * them: CV >= 10%, min or max 50% or more away from the mean, samples
 * shorter than 1 ms, outliers by modified z-score, CPU frequency scaling
 * on, fewer than 3 samples.
 */
#ifndef HVB_NOISE_H
#define HVB_NOISE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <hvb/stats.h>

enum {
    HVB_NOISE_CV = 1u << 0,       /* "cv>=10%" */
    HVB_NOISE_MINMAX = 1u << 1,   /* "min/max>=50%-from-mean" */
    HVB_NOISE_SHORT = 1u << 2,    /* "samples<1ms" */
    HVB_NOISE_OUTLIERS = 1u << 3, /* "outliers" */
    HVB_NOISE_SCALING = 1u << 4,  /* "cpu-scaling" */
    HVB_NOISE_FEW = 1u << 5,      /* "fewer-than-3-samples" */
    /*
     * "cpu-share<90%": the measured threads were runnable and not
     * running (schedstat's run delay) over 10% of their wall time, or,
     * where run delay is unknown, on CPU (task-clock) under 90% of it.
     */
    HVB_NOISE_DESCHED = 1u << 6,
    HVB_NOISE_TIMER = 1u << 7, /* "timer-cost>0.5%" of a sample */
    /*
     * "one-process": two files compared on a metric that varies between
     * processes (layout, ASLR, placement), one of them measured in a
     * single process, which cannot show that variance.
     */
    HVB_NOISE_ONEPROC = 1u << 8,
    /*
     * "two-clusters": the rounds (or, pooled with --processes, the
     * processes) fall into two groups far apart (hvb_stats.two_clusters):
     * the machine ran in two states.  A paired ratio within one run still
     * cancels it; two separate runs may each have caught one state.
     */
    HVB_NOISE_CLUSTERS = 1u << 9,
    HVB_NOISE_NR = 10,
};

/*
 * Under this CPU share (task-clock / wall x threads), or over 1 - it of
 * run delay / wall x threads: HVB_NOISE_DESCHED.
 */
#define HVB_CPU_SHARE_MIN 0.9

/*
 * Flags that make a comparison too unstable to judge (gate exit 3).
 * cpu-share<90%: the measured threads were descheduled (other work on
 * the CPUs); the two-build gate's A/A under that load said "regressed"
 * (+12.45% [+3.7%, +26.6%]) with every row so flagged.
 */
#define HVB_NOISE_UNSTABLE                                                 \
    (HVB_NOISE_CV | HVB_NOISE_MINMAX | HVB_NOISE_FEW | HVB_NOISE_ONEPROC | \
     HVB_NOISE_DESCHED)

/*
 * The flags of @st; @shortest_s is the wall time of the shortest sample
 * (negative if unknown).
 */
unsigned int hvb_noise_flags(const struct hvb_stats *st, double shortest_s,
                             bool cpu_scaling);

/* The name of flag bit @i (0 .. HVB_NOISE_NR-1). */
const char *hvb_noise_name(unsigned int i);

/* The flags as a JSON array of names; parse back with hvb_noise_parse(). */
json_t *hvb_noise_json(unsigned int flags);
unsigned int hvb_noise_parse(const json_t *names);

#endif /* HVB_NOISE_H */
