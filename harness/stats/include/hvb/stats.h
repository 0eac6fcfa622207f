/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Statistics over a cell's repetitions.  The descriptive ones are
 * computed as Google Benchmark computes its aggregates (sample standard
 * deviation, CV as a fraction of the mean) so our aggregate rows read
 * like the library's; the robust ones and the tests follow scipy
 * (tests/harness/unit-stats.c checks them against scipy-computed values).
 */
#ifndef HVB_STATS_H
#define HVB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hvb_stats {
    size_t n;
    double mean;
    double median;
    double stddev; /* sample (n - 1); 0 for n < 2 */
    double cv;     /* stddev / mean; 0 for n < 2 or a zero mean */
    double min;
    double max;
    double mad;      /* median absolute deviation, unscaled (scipy) */
    size_t outliers; /* modified z-score |0.6745 (x - median) / MAD| > 3.5 */
    /*
     * The sorted samples split into two clusters: at the widest gap
     * between neighbours, each side has at least two samples, the gap is
     * at least 10% of the median and at least twice the wider side's own
     * range.  Example: 6.1 6.2 6.3 9.0 9.1 9.3 -> gap 2.7 (at 6.3 | 9.0),
     * ranges 0.2 and 0.3: two clusters.  A machine whose speed drifts
     * between two states over seconds shows this (round or process).
     */
    bool two_clusters;
};

/* Statistics of @v[0..n); all zero for n == 0.  -ENOMEM or 0. */
int hvb_stats_compute(const double *v, size_t n, struct hvb_stats *out);

/* Median of @v[0..n) (NaN for n == 0); @v is left as it was. */
double hvb_median(const double *v, size_t n);

/*
 * hvb_mannwhitneyu - two-sided Mann-Whitney U test of @x against @y, as
 * scipy.stats.mannwhitneyu(x, y) with its defaults (method "auto": exact
 * when a side has at most 8 values and there are no ties, else normal
 * approximation with tie and continuity correction).  Returns the
 * p-value, NaN if a side is empty; @u1 (may be NULL) gets U of @x.
 */
double hvb_mannwhitneyu(const double *x, size_t nx, const double *y, size_t ny,
                        double *u1);

/*
 * Percentile bootstrap 95% confidence intervals, @resamples resamples
 * drawn with a generator seeded by @seed (deterministic).
 *
 * hvb_bootstrap_median_ci: of the median of @v (paired per-round ratios);
 * _clustered: @v is @k equal consecutive clusters (the rounds of each
 * process, or process pair), resampled in two stages as below.
 * hvb_bootstrap_ratio_ci: of median(@y) / median(@x), @x and @y
 * resampled independently (two unpaired sets of samples).
 * hvb_bootstrap_ratio_ci_clustered: the same where @x is @kx and @y is
 * @ky equal consecutive clusters (the pooled rounds of --processes
 * workers): each side is resampled in two stages, clusters then samples
 * within them (1, or a count that does not divide the side: plain).
 * Return 0, -EINVAL (an empty side), -ENOMEM.
 */
int hvb_bootstrap_median_ci(const double *v, size_t n, unsigned int resamples,
                            uint64_t seed, double *lo, double *hi);
int hvb_bootstrap_median_ci_clustered(const double *v, size_t n, unsigned int k,
                                      unsigned int resamples, uint64_t seed,
                                      double *lo, double *hi);
int hvb_bootstrap_ratio_ci(const double *x, size_t nx, const double *y,
                           size_t ny, unsigned int resamples, uint64_t seed,
                           double *lo, double *hi);

int hvb_bootstrap_ratio_ci_clustered(const double *x, size_t nx,
                                     unsigned int kx, const double *y,
                                     size_t ny, unsigned int ky,
                                     unsigned int resamples, uint64_t seed,
                                     double *lo, double *hi);

/*
 * hvb_bootstrap_median_draws_clustered - the @resamples bootstrap medians
 * of hvb_bootstrap_median_ci_clustered() themselves, sorted ascending,
 * into @est (@resamples of them): a CI at another level, or a bootstrap
 * p-value, from one set of resamples (gate --base-bin's sequential
 * rule).  With the same arguments, hvb_quantile_sorted(est, resamples,
 * 0.025) and (..., 0.975) are that function's CI.  0, -EINVAL, -ENOMEM.
 */
int hvb_bootstrap_median_draws_clustered(const double *v, size_t n,
                                         unsigned int k, unsigned int resamples,
                                         uint64_t seed, double *est);

/*
 * hvb_bootstrap_hl_draws_clustered - one vote per cluster: @v[0..n) is
 * @k clusters of n / k samples one after another (the rounds of k
 * process pairs); each cluster is summarised by its median, and the
 * estimate is the Hodges-Lehmann estimate of those k medians (the median
 * of their pairwise averages), into @point.  The @resamples bootstrap
 * estimates (k cluster medians drawn with replacement, their
 * Hodges-Lehmann estimate), sorted ascending, into @est.  A cluster in a
 * state of its own (a process pair whose median sits at 0.85 beside 15
 * at 1.000 +- 0.5%) moves the estimate by about one rank, where drawn
 * three times into a pooled median it moves that median by its whole
 * weight.  0; -EINVAL (no samples, k = 0 or not dividing n); -ENOMEM.
 */
int hvb_bootstrap_hl_draws_clustered(const double *v, size_t n, unsigned int k,
                                     unsigned int resamples, uint64_t seed,
                                     double *est, double *point);

/*
 * hvb_bh_cut - Benjamini-Hochberg at false discovery rate @q over the
 * @m p-values @p (left as they were): the largest p_(k) (k-th smallest)
 * with p_(k) <= k @q / @m; the p-values at or below it are the
 * discoveries.  -1 when there are none (or @m is 0, or out of memory).
 * E.g. q = 0.05, p = {0.001, 0.02, 0.03, 0.6}: k = 3 (0.03 <= 3 x
 * 0.0125), cut 0.03, three discoveries; {0.001, 0.03, 0.04, 0.6}: cut
 * 0.001 (0.03 > 2 x 0.0125, 0.04 > 3 x 0.0125), one.  A NaN counts as 1.
 */
double hvb_bh_cut(const double *p, size_t m, double q);

/* The q-quantile of sorted @v, linear interpolation (numpy's default). */
double hvb_quantile_sorted(const double *v, size_t n, double q);

/* Bootstrap resamples and seed of every CI hvbench reports. */
#define HVB_BOOTSTRAP_RESAMPLES 5000
#define HVB_BOOTSTRAP_SEED      0x5EEDu

/*
 * Below this many values the percentile bootstrap's 95% interval of their
 * median is their min and max: with 5 values a resample's median is the
 * smallest one with probability 0.058 (3 or more of 5 draws), beyond the
 * 2.5% tail; with 6 it is 0.009.  Such an interval is called what it is,
 * a range ("range of 5 rounds"), never a 95% CI: the chance that the
 * range of n values holds their distribution's median is 1 - 2^(1 - n),
 * 94% for 5, 88% for 4, 75% for 3.
 */
#define HVB_CI_MIN_N 6

/*
 * hvb_median_interval - the interval every paired ratio of hvbench
 * carries: of the median of @v[0..n) (@k clusters, as for
 * hvb_bootstrap_median_ci_clustered()), the bootstrap 95% CI with
 * HVB_BOOTSTRAP_RESAMPLES and HVB_BOOTSTRAP_SEED, or with fewer than
 * HVB_CI_MIN_N values their min and max.  Returns 1 for a range, 0 for a
 * CI, -EINVAL (no values), -ENOMEM.
 */
int hvb_median_interval(const double *v, size_t n, unsigned int k, double *lo,
                        double *hi);

/*
 * The interval's name for a column or a sentence, into @buf: "range of 5
 * rounds" (@range, @n values, @unit "rounds") or "95% CI" (@level 0.95).
 */
const char *hvb_interval_label(bool range, size_t n, const char *unit,
                               double level, char *buf, size_t len);

#endif /* HVB_STATS_H */
