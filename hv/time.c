/* SPDX-License-Identifier: GPL-2.0-only */
/* Time sources of the model, and its one fatal-error path. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <hv/compiler.h>

uint64_t hv_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void hv_bug(const char *file, int line, const char *cond)
{
    fprintf(stderr, "hv: BUG at %s:%d: %s\n", file, line, cond);
    abort();
}
