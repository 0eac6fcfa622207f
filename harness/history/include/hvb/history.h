/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The history room: "hvbench history record|export|detect" (issue 22), a
 * series per benchmark cell, metric and kind (the absolute figure of a
 * run, or the paired ratio of a review against its base) kept in SQLite,
 * and change points found in them by E-divisive means.
 */
#ifndef HVB_HISTORY_H
#define HVB_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hvb_cmd_ctx;

int hvb_cmd_history(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_history;

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

#endif /* HVB_HISTORY_H */
