/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The changes room: change points of a series by E-divisive means
 * (detect.c) and Welch's t-test and CI (welch.cc, Boost.Math), the
 * statistics history detect and publish run on a series' values.  Pure
 * functions of arrays of doubles: no database, no files.
 */
#ifndef HVB_CHANGES_H
#define HVB_CHANGES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One change point of a series (detect.c). */
struct hvb_change {
    size_t at;            /* the first point after the change */
    double before, after; /* the segments' means */
    double p;      /* Welch's t-test of the two segments, x the splits tried */
    double lo, hi; /* 95% CI of after - before (Welch's t) */
};

/*
 * hvb_edivisive - change points of @x[0..@n) by E-divisive means:
 * candidates where the energy statistic of a split peaks (over windows
 * of @window points), kept while Welch's t-test of the segments either
 * side says p < @pvalue and each is at least @min_seg points long.
 * Returns how many (sorted by position, at most @max into @out), or
 * -errno.
 */
long hvb_edivisive(const double *x, size_t n, double pvalue, size_t min_seg,
                   size_t window, struct hvb_change *out, size_t max);

/*
 * The figures (means, p, CI) of the changes @c[0..@k) at their @at,
 * each between its neighbours, as hvb_edivisive() gives them: after
 * some were dropped.  0 or -ENOMEM.
 */
int hvb_changes_at(const double *x, size_t n, struct hvb_change *c, size_t k,
                   size_t min_seg, size_t window);

/*
 * The splits each candidate of hvb_edivisive() was the best of (its
 * Bonferroni factor): W - 2 min_seg + 1, W the window (at least
 * 2 min_seg).
 */
double hvb_edivisive_splits(size_t min_seg, size_t window);

/* Mean and (sample) variance of @x[0..@n), summed point by point. */
void hvb_mean_var(const double *x, size_t n, double *m, double *v);

/* Two-sided p of Welch's t-test for two samples' means and variances. */
double hvb_welch_p(double m1, double v1, size_t n1, double m2, double v2,
                   size_t n2);

/*
 * The @level CI of m2 - m1 (Welch-Satterthwaite degrees of freedom) into
 * @lo, @hi; NAN, NAN where a side has fewer than 2 points.
 */
void hvb_welch_ci(double m1, double v1, size_t n1, double m2, double v2,
                  size_t n2, double level, double *lo, double *hi);

#ifdef __cplusplus
}
#endif

#endif /* HVB_CHANGES_H */
