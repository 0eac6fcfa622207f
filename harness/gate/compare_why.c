/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a comparison's row says in words (hvb/compare.h): why it has no
 * verdict (hvb_cmp_why()), what its interval is (hvb_cmp_interval()) and
 * its noise flags by side (hvb_cmp_noise_str()).  Every view says the
 * same: gate's console and markdown, compare --format json, and report's
 * table and chart, which read that JSON.  E.g. a variant of 5 paired
 * rounds on a busy VM:
 *
 *   interval  "range of 5 rounds" (fewer than HVB_CI_MIN_N: min and max)
 *   why       "the range of 5 rounds [-3.1%, +12.0%] reaches past +5%:
 *             a regression can be neither shown nor ruled out (the
 *             machine was busy: cpu-share<90%)"
 *   noise     "new cv>=10%, both cpu-share<90%"
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/compare.h>
#include <hvb/noise.h>
#include <hvb/stats.h>
#include "private.h"

/* The flags @b (base) and @n (new) as "base X, new Y, both Z" into @sb. */
static void sides(struct hv_strbuf *sb, unsigned int b, unsigned int n)
{
    unsigned int i;

    for ( i = 0; i < HVB_NOISE_NR; i++ )
    {
        const char *side = (b & n & (1u << i)) ? "both"
                           : (b & (1u << i))   ? "base"
                           : (n & (1u << i))   ? "new"
                                               : NULL;

        if ( side != NULL )
            hv_strbuf_join(sb, ", ", "%s %s", side, hvb_noise_name(i));
    }
}

/* See private.h. */
void hvb_cmp_noise_str(const struct hvb_cmp_row *r, char *buf, size_t len)
{
    struct hv_strbuf sb;
    unsigned int i;

    hv_strbuf_init(&sb, buf, len);
    sides(&sb, r->base_noise, r->new_noise);
    for ( i = 0; i < HVB_NOISE_NR; i++ )
        if ( r->ratio_noise & (1u << i) )
            hv_strbuf_join(&sb, ", ", "ratios %s", hvb_noise_name(i));
    if ( r->held )
        hv_strbuf_join(&sb, ", ",
                       "not a discovery at the FDR (Benjamini-"
                       "Hochberg) level");
}

const char *hvb_cmp_interval(const struct hvb_cmp *c,
                             const struct hvb_cmp_row *r, char *buf, size_t len)
{
    return hvb_interval_label(r->range, r->n, "rounds",
                              1 - (c->builds ? c->alpha : 0.05), buf, len);
}

/* Two builds' reason (gate --base-bin, hvb_cmp_builds()). */
static void builds_why(const struct hvb_cmp_row *r, double t,
                       struct hv_strbuf *sb)
{
    long more;

    if ( (r->base_noise | r->new_noise) & HVB_NOISE_DESCHED )
    {
        hv_strbuf_add(sb, "workers descheduled (cpu-share<90%%): the "
                          "machine was busy; rerun on a quiet one");
        return;
    }
    if ( r->ratio_noise & HVB_NOISE_FEW )
    {
        hv_strbuf_add(sb, "fewer than 3 rounds");
        return;
    }
    if ( r->held )
    {
        hv_strbuf_add(sb, "beyond the threshold, but not a discovery "
                          "among the cells (Benjamini-Hochberg)");
        return;
    }
    more = hvb_cmp_more_pairs(r, t);
    hv_strbuf_add(sb,
                  "the CI [%+.2f%%, %+.2f%%] reaches across the +-%.2g%% "
                  "threshold after %u pair(s)",
                  (r->lo - 1) * 100, (r->hi - 1) * 100, t * 100, r->pairs);
    if ( more > 0 )
        hv_strbuf_add(sb, "; about %ld more would likely decide it", more);
    else
        hv_strbuf_add(sb, "; its median sits on the threshold: no count of "
                          "pairs is likely to decide it");
}

const char *hvb_cmp_why(const struct hvb_cmp *c, const struct hvb_cmp_row *r,
                        char *buf, size_t len)
{
    struct hv_strbuf sb;
    unsigned int b, n;
    char iv[48];

    if ( r->verdict != HVB_UNSTABLE )
        return NULL;
    hv_strbuf_init(&sb, buf, len);
    if ( !isfinite(r->ratio) || !isfinite(r->lo) || !isfinite(r->hi) )
        hv_strbuf_add(&sb, "no figures to judge");
    else if ( c->builds )
        builds_why(r, c->threshold, &sb);
    else
    {
        hvb_cmp_vetoes(c, r, &b, &n);
        if ( c->paired && (n & HVB_NOISE_FEW) )
            hv_strbuf_add(&sb, "fewer than 3 rounds");
        else if ( b | n )
        {
            hv_strbuf_add(&sb, "too noisy to judge: ");
            sides(&sb, b, n);
        }
        else
            hv_strbuf_add(&sb,
                          "the %s [%+.1f%%, %+.1f%%] reaches past "
                          "+%.2g%%: a regression can be neither shown "
                          "nor ruled out",
                          hvb_cmp_interval(c, r, iv, sizeof(iv)),
                          (r->lo - 1) * 100, (r->hi - 1) * 100,
                          c->threshold * 100);
        if ( c->paired && !(b | n) &&
             ((r->base_noise | r->new_noise) & HVB_NOISE_DESCHED) )
            hv_strbuf_add(&sb, " (the machine was busy: cpu-share<90%%)");
    }
    return buf;
}
