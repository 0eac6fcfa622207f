/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Descriptive statistics over a cell's repetitions, computed as Google
 * Benchmark computes its aggregates (sample standard deviation, CV as a
 * fraction of the mean) so our aggregate rows read like the library's.
 */
#ifndef HVB_STATS_H
#define HVB_STATS_H

#include <stddef.h>

struct hvb_stats {
    size_t n;
    double mean;
    double median;
    double stddev; /* sample (n - 1); 0 for n < 2 */
    double cv;     /* stddev / mean; 0 for n < 2 or a zero mean */
    double min;
    double max;
};

/* Statistics of @v[0..n); all zero for n == 0.  -ENOMEM or 0. */
int hvb_stats_compute(const double *v, size_t n, struct hvb_stats *out);

#endif /* HVB_STATS_H */
