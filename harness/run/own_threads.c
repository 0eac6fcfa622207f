/* SPDX-License-Identifier: GPL-2.0-only */
/* The harness's own threads; see hvb/own_threads.h. */
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <hvb/own_threads.h>

static _Atomic uint64_t own[HVB_OWN_THREADS];
static atomic_uint nr_own;

void hvb_own_thread_mark(void)
{
    unsigned int i = atomic_fetch_add(&nr_own, 1);

    if ( i < HVB_OWN_THREADS )
        atomic_store(&own[i], (uint64_t)syscall(SYS_gettid));
}

bool hvb_own_thread(uint64_t tid)
{
    unsigned int n = atomic_load(&nr_own), i;

    for ( i = 0; i < n && i < HVB_OWN_THREADS; i++ )
        if ( atomic_load(&own[i]) == tid )
            return true;
    return false;
}
