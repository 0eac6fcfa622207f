/* SPDX-License-Identifier: GPL-2.0-only */
/* Descriptive statistics; see hvb/stats.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/stats.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int hvb_stats_compute(const double *v, size_t n, struct hvb_stats *out)
{
    double *sorted, sum = 0, sq = 0;
    size_t i;

    memset(out, 0, sizeof(*out));
    if ( n == 0 )
        return 0;
    sorted = malloc(n * sizeof(*sorted));
    if ( sorted == NULL )
        return -ENOMEM;
    memcpy(sorted, v, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), cmp_double);

    out->n = n;
    out->min = sorted[0];
    out->max = sorted[n - 1];
    out->median =
        n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    for ( i = 0; i < n; i++ )
        sum += v[i];
    out->mean = sum / (double)n;
    if ( n > 1 )
    {
        for ( i = 0; i < n; i++ )
            sq += (v[i] - out->mean) * (v[i] - out->mean);
        out->stddev = sqrt(sq / (double)(n - 1));
        if ( out->mean != 0 )
            out->cv = out->stddev / fabs(out->mean);
    }
    free(sorted);
    return 0;
}
