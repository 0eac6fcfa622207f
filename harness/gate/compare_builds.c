/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Two builds paired (gate --base-bin, hvb_cmp_builds()): a sequential
 * SAME / DIFFERENT / UNKNOWN rule, after Chromium Pinpoint's.  The gate
 * adds process pairs to the cells still undecided and looks again; each
 * look judges every cell on the bootstrap distribution of its ratio
 * new/base, B resamples sorted into d[0..B).  The ratio is one vote per
 * process pair: each pair's median ratio over its rounds, and the
 * Hodges-Lehmann estimate of those medians (the median of their pairwise
 * averages), resampled by pair (hvb_bootstrap_hl_draws_clustered()).
 * With under HL_MIN_PAIRS pairs (the deterministic sim_ metrics' one
 * pair) it is the median of all rounds, resampled by pair, then by round.
 * Why one vote per pair: on the 2-vCPU VM an A/A gate of 16 pairs had 15
 * pair medians within +-1.1% and one at 1.195; the two-stage bootstrap
 * of the pooled median drew that pair two or three times into many
 * resamples and gave [-0.39%, +2.74%].  Offline on 64 recorded A/A pairs
 * (1 ms x 100 rounds, subsets of 16, 99%): half-width 0.66% pooled,
 * 0.50% Hodges-Lehmann; a +1% change cleared t = 0.5% in 28% and 75%
 * of them.
 *
 *   CI    [d at alpha/2, d at 1 - alpha/2]: alpha is the gate's 0.05
 *         over the looks it may take (Bonferroni: 5 looks -> 0.01, a
 *         99% CI), so looking again and again does not raise the chance
 *         of a wrong verdict past 0.05
 *   p     two-sided, of a ratio other than 1: 2 (min(#d <= 1, #d >= 1)
 *         + 1) / (B + 1)
 *   p_beyond  of a change beyond the threshold: the smaller of 2 (#d <=
 *         1 + t + 1) / (B + 1) and 2 (#d >= 1 - t + 1) / (B + 1)
 *
 * A cell is "same" when its CI lies inside [1 - t, 1 + t], "regressed"
 * ("improved") when it lies wholly above 1 + t (below 1 - t) and its
 * p_beyond is a Benjamini-Hochberg discovery at q = alpha among all the
 * cells' (so that of many cells, the false "regressed" ones stay a
 * fraction alpha of those found), else "unknown".  E.g. t = 0.5%, one
 * cell, alpha 0.01: d's 0.5% and 99.5% points at 1.0062 and 1.0148 ->
 * regressed (#d <= 1.005 is 0, p_beyond 2 / 5001); at 1.0031 and
 * 1.0170 -> unknown, and with the CI narrowing as 1/sqrt(pairs) around
 * the median 1.0102 it would take 12 x ((1.0102 - 1.0031) / (1.0102 -
 * 1.005))^2 ~ 22 pairs instead of 12 (hvb_cmp_more_pairs(): 10 more).
 * With so few resamples in a tail as 20 / alpha needs, B grows with the
 * looks (5000 at least).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/compare.h>
#include <hvb/noise.h>
#include <hvb/stats.h>
#include "private.h"

#define HL_MIN_PAIRS 4

static unsigned int builds_resamples(double alpha)
{
    double b = ceil(20 / alpha);

    return b > HVB_BOOTSTRAP_RESAMPLES ? (unsigned int)b
                                       : HVB_BOOTSTRAP_RESAMPLES;
}

/* 2 (@k + 1) / (@b + 1), at most 1: a two-sided bootstrap p-value. */
static double tail_p(size_t k, unsigned int b)
{
    double p = 2.0 * ((double)k + 1) / ((double)b + 1);

    return p < 1 ? p : 1;
}

/* See private.h. */
int hvb_cmp_builds_ci(const struct hvb_cmp *cmp, struct hvb_cmp_row *r,
                      const double *q, size_t n, unsigned int k)
{
    unsigned int b = builds_resamples(cmp->alpha), i;
    double *d = malloc(b * sizeof(*d)), t = cmp->threshold;
    size_t le1 = 0, ge1 = 0, le_hi = 0, ge_lo = 0;
    int rc;

    if ( d == NULL )
        return -ENOMEM;
    if ( k >= HL_MIN_PAIRS && n % k == 0 )
        rc = hvb_bootstrap_hl_draws_clustered(q, n, k, b, HVB_BOOTSTRAP_SEED, d,
                                              &r->ratio);
    else
        rc = hvb_bootstrap_median_draws_clustered(q, n, k, b,
                                                  HVB_BOOTSTRAP_SEED, d);
    if ( rc == 0 )
    {
        r->lo = hvb_quantile_sorted(d, b, cmp->alpha / 2);
        r->hi = hvb_quantile_sorted(d, b, 1 - cmp->alpha / 2);
        for ( i = 0; i < b; i++ )
        {
            le1 += d[i] <= 1;
            ge1 += d[i] >= 1;
            le_hi += d[i] <= 1 + t;
            ge_lo += d[i] >= 1 - t;
        }
        r->p = tail_p(le1 < ge1 ? le1 : ge1, b);
        r->p_beyond = tail_p(le_hi < ge_lo ? le_hi : ge_lo, b);
    }
    free(d);
    return rc;
}

/* See private.h. */
enum hvb_verdict hvb_cmp_builds_verdict(const struct hvb_cmp_row *r, double t)
{
    if ( isnan(r->ratio) || isnan(r->lo) || isnan(r->hi) )
        return HVB_UNSTABLE;
    if ( (r->ratio_noise & HVB_NOISE_FEW) ||
         ((r->base_noise | r->new_noise) & HVB_NOISE_DESCHED) )
        return HVB_UNSTABLE;
    if ( r->lo > 1 + t )
        return HVB_REGRESSED;
    if ( r->hi < 1 - t )
        return HVB_IMPROVED;
    if ( r->lo >= 1 - t && r->hi <= 1 + t )
        return HVB_UNCHANGED;
    return HVB_UNSTABLE;
}

long hvb_cmp_more_pairs(const struct hvb_cmp_row *r, double t)
{
    double m = r->ratio, f, need;

    if ( r->verdict != HVB_UNSTABLE )
        return 0;
    if ( !isfinite(m) || !isfinite(r->lo) || !isfinite(r->hi) ||
         r->pairs == 0 || (r->ratio_noise & HVB_NOISE_FEW) ||
         ((r->base_noise | r->new_noise) & HVB_NOISE_DESCHED) )
        return -1;
    /* How much narrower the CI's side(s) facing the band's edge must be. */
    if ( m > 1 + t )
        f = (m - r->lo) / (m - 1 - t);
    else if ( m < 1 - t )
        f = (r->hi - m) / (1 - t - m);
    else if ( m == 1 + t || m == 1 - t )
        return -1;
    else
    {
        double up = (r->hi - m) / (1 + t - m), down = (m - r->lo) / (m - 1 + t);

        f = up > down ? up : down;
    }
    need = ceil((double)r->pairs * f * f) - (double)r->pairs;
    if ( !(need < 1e6) )
        return -1;
    return need >= 1 ? (long)need : 1;
}

/*
 * Benjamini-Hochberg at q = c->alpha over the m rows' p_beyond
 * (hvb_bh_cut()): a row judged regressed or improved whose p_beyond is
 * not a discovery is held back (unstable, r->held).  Of many cells, the
 * ones called regressed or improved wrongly stay a fraction alpha of
 * all so called; one cell alone is judged as without it.
 */
static void fdr(struct hvb_cmp *c)
{
    double *p = malloc((c->nr_rows + 1) * sizeof(*p)), cut = -1;
    size_t i;

    for ( i = 0; p != NULL && i < c->nr_rows; i++ )
        p[i] = c->rows[i].p_beyond;
    if ( p != NULL )
        cut = hvb_bh_cut(p, c->nr_rows, c->alpha);
    free(p);
    memset(c->nr, 0, sizeof(c->nr));
    for ( i = 0; i < c->nr_rows; i++ )
    {
        struct hvb_cmp_row *r = &c->rows[i];

        if ( (r->verdict == HVB_REGRESSED || r->verdict == HVB_IMPROVED) &&
             !(r->p_beyond <= cut) )
        {
            r->verdict = HVB_UNSTABLE;
            r->held = true;
        }
        c->nr[r->verdict]++;
    }
}

int hvb_cmp_builds(json_t *doc, const char *metric, double t, double alpha,
                   struct hvb_cmp *out, char *err, size_t len)
{
    int rc;

    if ( !(alpha > 0 && alpha < 1) )
    {
        snprintf(err, len, "alpha %g: not in (0, 1)", alpha);
        return -EINVAL;
    }
    out->builds = true;
    out->alpha = alpha;
    rc = hvb_cmp_paired_rows(doc, metric, t, out, err, len);
    if ( rc == 0 )
        fdr(out);
    return rc;
}
