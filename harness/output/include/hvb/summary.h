/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-cell summaries of a run: the engine's samples sorted back to their
 * cells, statistics of time and counters over the repetitions, and the
 * ratio of each cell's median to the reference (variant 0) of its group.
 * The console table and the results JSON are both views of this.
 */
#ifndef HVB_SUMMARY_H
#define HVB_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hvb/engine.h>
#include <hvb/matrix.h>
#include <hvb/stats.h>

struct hvb_ctr_summary {
    const char *name;   /* points into an engine sample */
    unsigned int flags; /* HVB_CTR_* */
    double *vals;       /* per good sample; 0 where absent */
    struct hvb_stats st;
};

struct hvb_cell_summary {
    /* Every sample of the cell, by repetition index. */
    const struct hvb_engine_sample **samples;
    size_t nr_samples;
    /* The good (error-free) ones: time per op, by repetition index. */
    size_t nr_good;
    double *real_ns;
    double *cpu_ns;
    struct hvb_stats real;
    struct hvb_stats cpu;
    int64_t iterations; /* of the first good sample */
    const char *error;  /* the first error, or NULL */
    bool has_ratio;
    double ratio; /* median / median of variant 0 */
    /*
     * Paired rounds (variant > 0): the ratio of each round present in
     * both this cell and its reference, their median and its interval
     * (hvb_median_interval(): a bootstrap 95% CI, or with fewer than
     * HVB_CI_MIN_N rounds their range, @pair_range), and the
     * Mann-Whitney U p-value of the two sample sets.
     */
    double *pair_ratios;
    size_t nr_pairs;
    double pair_median, pair_lo, pair_hi, pair_p;
    bool pair_range;
    double shortest_s;            /* wall time of the shortest good sample */
    unsigned int noise;           /* HVB_NOISE_* of real time */
    struct hvb_ctr_summary *ctrs; /* sorted by name */
    size_t nr_ctrs;
};

struct hvb_summary {
    struct hvb_cell_summary *cells; /* one per matrix cell */
    size_t nr_cells;
    size_t nr_failed; /* cells with an error or no sample */
};

/*
 * hvb_summary_build - summarise @r for @m.  The summary points into @r,
 * which must outlive it.  0 or -ENOMEM.
 */
int hvb_summary_build(const struct hvb_matrix *m,
                      const struct hvb_engine_result *r,
                      struct hvb_summary *out);

void hvb_summary_free(struct hvb_summary *s);

#endif /* HVB_SUMMARY_H */
