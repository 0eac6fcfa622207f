/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The gate room (harness/gate/): two results files compared or gated
 * (cmd_compare.c; compare.c matches the cells and judges each row,
 * compare_metric.c resolves the metric, compare_builds.c is the rule for
 * two builds paired in one run, compare_views.c what is printed).  Two
 * builds paired in one run are the twobuild room's.
 */
#ifndef HVB_GATE_PRIVATE_H
#define HVB_GATE_PRIVATE_H

#include <stddef.h>

#include <jansson.h>

#include <hvb/compare.h>

/*
 * compare_metric.c: @metric resolved for @base and @new_ (the same
 * document when paired) into @out, which keeps only its names, builds and
 * alpha; -EINVAL with @err for an unknown metric or one a side lacks.
 */
int hvb_cmp_resolve(json_t *base, json_t *new_, const char *metric, double t,
                    struct hvb_cmp *out, char *err, size_t len);

/*
 * compare.c: every variant of @doc against its reference into @out
 * (hvb_cmp_paired(), and hvb_cmp_builds() before its FDR control).
 */
int hvb_cmp_paired_rows(json_t *doc, const char *metric, double t,
                        struct hvb_cmp *out, char *err, size_t len);

/*
 * compare_builds.c: a row of two builds paired, from the ratios @q[0..n)
 * of @k process pairs: its CI, p and p_beyond; its verdict before the
 * FDR control.
 */
int hvb_cmp_builds_ci(const struct hvb_cmp *cmp, struct hvb_cmp_row *r,
                      const double *q, size_t n, unsigned int k);
enum hvb_verdict hvb_cmp_builds_verdict(const struct hvb_cmp_row *r, double t);

#endif /* HVB_GATE_PRIVATE_H */
