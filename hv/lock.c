/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Slow paths of the model locks (hv/include/hv/lock.h).  The fast paths
 * are inline; these spin with cpu_relax(), reading before retrying the
 * atomic so a waiting CPU does not keep stealing the line.
 *
 * While the timeline recorder is on (hv/trace.h), a slow path times its
 * wait with the lock profiler's clock and records one of at least the
 * threshold: only an acquisition that found the lock taken pays, with or
 * without the profiler's hooks.  E.g. a client waiting 9 ms for the
 * global virSecurityManager mutex at global.c:22 gives the event
 * "wait virSecurityManager" (mutex, global.c:22, 9,000,000 ns).
 */
#include <hv/lock.h>
#include <hv/lockstat.h>

#include "lockstat_priv.h"

/* Tracing: when a wait began (ticks), 0 when the recorder is off. */
static inline uint64_t wait_begins(void)
{
    return hv_trace_active() ? hv_lockstat_ticks() : 0;
}

/* Tracing: the wait of a lock of @cls begun at @t0 ended now. */
static void wait_ends(const struct hv_lock_class *cls,
                      const struct hv_lock_site *site, enum hv_lock_kind kind,
                      uint64_t t0)
{
    uint64_t w = hv_lockstat_ticks() - t0;

    if ( w >= hv_trace_lock_ticks )
        hv_trace_lock(HV_TRACE_LOCK_WAIT,
                      cls && cls->name ? cls->name : "(unnamed)", site, kind,
                      t0, w);
}

void hv_spin_init(hv_spinlock_t *l, const struct hv_lock_class *cls)
{
    atomic_init(&l->locked, 0);
    l->cls = cls;
}

void hv_rwlock_init(hv_rwlock_t *l, const struct hv_lock_class *cls)
{
    atomic_init(&l->cnts, 0);
    l->cls = cls;
}

void hv_spin_lock_slow(hv_spinlock_t *l, const struct hv_lock_site *site)
{
    uint64_t t0 = wait_begins();

    do
    {
        while ( atomic_load_explicit(&l->locked, memory_order_relaxed) )
            cpu_relax();
    } while ( !hv_spin_trylock(l) );
    if ( t0 )
        wait_ends(l->cls, site, HV_LOCK_SPIN, t0);
}

/* Entered with our reader count added and a writer present. */
void hv_read_lock_slow(hv_rwlock_t *l, const struct hv_lock_site *site)
{
    uint64_t t0 = wait_begins();

    for ( ;; )
    {
        uint32_t old;

        atomic_fetch_sub_explicit(&l->cnts, HV_RW_READER, memory_order_relaxed);
        while ( atomic_load_explicit(&l->cnts, memory_order_relaxed) &
                HV_RW_WRITER )
            cpu_relax();
        old = atomic_fetch_add_explicit(&l->cnts, HV_RW_READER,
                                        memory_order_acquire);
        if ( !(old & HV_RW_WRITER) )
            break;
    }
    if ( t0 )
        wait_ends(l->cls, site, HV_LOCK_READ, t0);
}

/*
 * Writer preference: claim the writer bit first, so new readers back off,
 * then wait for the readers already inside to drain.
 */
void hv_write_lock_slow(hv_rwlock_t *l, const struct hv_lock_site *site)
{
    uint32_t old = atomic_load_explicit(&l->cnts, memory_order_relaxed);
    uint64_t t0 = wait_begins();

    for ( ;; )
    {
        if ( !(old & HV_RW_WRITER) &&
             atomic_compare_exchange_weak_explicit(
                 &l->cnts, &old, old | HV_RW_WRITER, memory_order_acquire,
                 memory_order_relaxed) )
            break;
        cpu_relax();
        old = atomic_load_explicit(&l->cnts, memory_order_relaxed);
    }
    while ( atomic_load_explicit(&l->cnts, memory_order_acquire) !=
            HV_RW_WRITER )
        cpu_relax();
    if ( t0 )
        wait_ends(l->cls, site, HV_LOCK_WRITE, t0);
}

void hv_mutex_init(hv_mutex_t *l, const struct hv_lock_class *cls)
{
    pthread_mutex_init(&l->m, NULL);
    l->cls = cls;
}

void hv_mutex_destroy(hv_mutex_t *l)
{
    pthread_mutex_destroy(&l->m);
}

void hv_mutex_lock_slow(hv_mutex_t *l, const struct hv_lock_site *site)
{
    uint64_t t0 = wait_begins();

    pthread_mutex_lock(&l->m);
    if ( t0 )
        wait_ends(l->cls, site, HV_LOCK_MUTEX, t0);
}
