/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Thread placement.  With "spread" (the default), measured thread i of a
 * cell of several threads runs pinned to the i-th CPU the process may use
 * (modulo their number), as will-it-scale places its tasks: two threads
 * of a contention benchmark then really run on two CPUs, instead of the
 * scheduler stacking them on one and timing them without contention.  A
 * single-thread cell without a background thread is left to the
 * scheduler, so that it does not sit on CPU 0 beside whatever else is
 * pinned there; with a background thread (churn), the measured threads
 * and the background thread are spread over distinct CPUs.
 */
#ifndef HVB_AFFINITY_H
#define HVB_AFFINITY_H

#include <stdbool.h>

enum hvb_affinity {
    HVB_AFFINITY_SPREAD,
    HVB_AFFINITY_NONE,
};

/* Parse "spread" or "none"; false if neither. */
bool hvb_affinity_parse(const char *s, enum hvb_affinity *out);
const char *hvb_affinity_name(enum hvb_affinity a);

/*
 * hvb_affinity_apply - place the calling thread, measured thread @index
 * of @nthreads.  Returns 0 or -errno (the thread then runs unpinned).
 */
int hvb_affinity_apply(enum hvb_affinity a, unsigned int index,
                       unsigned int nthreads);

#endif /* HVB_AFFINITY_H */
