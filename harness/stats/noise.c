/* SPDX-License-Identifier: GPL-2.0-only */
/* Noise flags; see hvb/noise.h. */
#include <math.h>
#include <string.h>

#include <hvb/noise.h>

static const char *const names[] = {
    "cv>=10%",     "min/max>=50%-from-mean", "samples<1ms",   "outliers",
    "cpu-scaling", "fewer-than-3-samples",   "cpu-share<90%", "timer-cost>0.5%",
    "one-process", "two-clusters",
};

/* Every flag has its name: a missing one would drop out of the JSON. */
_Static_assert(sizeof(names) / sizeof(names[0]) == HVB_NOISE_NR,
               "a noise flag without a name");

unsigned int hvb_noise_flags(const struct hvb_stats *st, double shortest_s,
                             bool cpu_scaling)
{
    unsigned int f = 0;

    if ( st->n < 3 )
        f |= HVB_NOISE_FEW;
    if ( st->n == 0 )
        return f;
    if ( st->cv >= 0.10 )
        f |= HVB_NOISE_CV;
    if ( st->mean > 0 && ((st->mean - st->min) / st->mean >= 0.5 ||
                          (st->max - st->mean) / st->mean >= 0.5) )
        f |= HVB_NOISE_MINMAX;
    if ( shortest_s >= 0 && shortest_s < 1e-3 )
        f |= HVB_NOISE_SHORT;
    if ( st->outliers > 0 )
        f |= HVB_NOISE_OUTLIERS;
    if ( st->two_clusters )
        f |= HVB_NOISE_CLUSTERS;
    if ( cpu_scaling )
        f |= HVB_NOISE_SCALING;
    return f;
}

const char *hvb_noise_name(unsigned int i)
{
    return i < HVB_NOISE_NR ? names[i] : "?";
}

json_t *hvb_noise_json(unsigned int flags)
{
    json_t *a = json_array();
    unsigned int i;

    for ( i = 0; i < HVB_NOISE_NR && a != NULL; i++ )
        if ( flags & (1u << i) )
            json_array_append_new(a, json_string(names[i]));
    return a;
}

unsigned int hvb_noise_parse(const json_t *a)
{
    unsigned int f = 0, i;
    size_t k;
    json_t *v;

    json_array_foreach(a, k, v)
    {
        for ( i = 0; i < HVB_NOISE_NR; i++ )
            if ( json_is_string(v) &&
                 strcmp(json_string_value(v), names[i]) == 0 )
                f |= 1u << i;
    }
    return f;
}
