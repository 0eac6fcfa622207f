/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The gate room (harness/gate/): two results files compared or gated
 * (cmd_compare.c; compare.c matches the cells and judges each row,
 * compare_metric.c resolves the metric, compare_builds.c is the rule for
 * two builds paired in one run, compare_why.c a row's reason and
 * interval in words, compare_views.c what is printed).  Two
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
 * compare.c: the noise flags of row @r that keep it from a verdict under
 * @c's rule, per side: two files, any of HVB_NOISE_UNSTABLE (a noisy
 * side, one process, cpu-share<90%); paired rounds of one run, only
 * fewer than 3 rounds (the ratios' interval carries the rest).  Two
 * builds have their own rule (hvb_cmp_builds_verdict()).
 */
void hvb_cmp_vetoes(const struct hvb_cmp *c, const struct hvb_cmp_row *r,
                    unsigned int *base, unsigned int *new_);

/*
 * compare_why.c: row @r's noise flags into @buf: "base", "new" or "both"
 * sides' (two builds: the cells' own, e.g. "both cpu-share<90%"), the
 * per-round ratios' of two builds ("ratios cv>=10%"), and a verdict the
 * FDR control held back.
 */
void hvb_cmp_noise_str(const struct hvb_cmp_row *r, char *buf, size_t len);

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
