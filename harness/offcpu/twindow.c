/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cells' time windows (hvb/offcpu.h): which cell a sample taken at
 * time t belongs to (moved from cli/cmd_profile.c, unchanged).  The
 * windows sorted by start, the search looks back from the last window
 * started at or before t, and gives up 64 windows past one that ended
 * over 5 s before t: no body runs that long.
 *
 * Worked example: windows [10, 20] cell 0, [21, 30] cell 1, [31, 40]
 * cell 0: t = 25 is cell 1's, t = 20.5 nobody's (SIZE_MAX).
 */
#include <stdint.h>
#include <stdlib.h>

#include <hvb/offcpu.h>

static int win_cmp(const void *a, const void *b)
{
    const struct hvb_twindow *x = a, *y = b;

    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

void hvb_twindow_sort(struct hvb_twindow *w, size_t n)
{
    qsort(w, n, sizeof(*w), win_cmp);
}

size_t hvb_twindow_cell_at(const struct hvb_twindow *w, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;

    while ( lo < hi ) /* first window with t0 > t */
    {
        size_t mid = (lo + hi) / 2;

        if ( w[mid].t0 <= t )
            lo = mid + 1;
        else
            hi = mid;
    }
    while ( lo-- > 0 )
    {
        if ( w[lo].t0 <= t && t <= w[lo].t1 )
            return w[lo].cell;
        if ( lo + 64 < n && w[lo].t1 + 5000000000ull < t )
            break; /* no body runs that long */
    }
    return SIZE_MAX;
}
