/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Slow paths of the model locks (hv/include/hv/lock.h).  The fast paths
 * are inline; these spin with cpu_relax(), reading before retrying the
 * atomic so a waiting CPU does not keep stealing the line.
 */
#include <hv/lock.h>

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

void hv_spin_lock_slow(hv_spinlock_t *l)
{
    do
    {
        while ( atomic_load_explicit(&l->locked, memory_order_relaxed) )
            cpu_relax();
    } while ( !hv_spin_trylock(l) );
}

/* Entered with our reader count added and a writer present. */
void hv_read_lock_slow(hv_rwlock_t *l)
{
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
            return;
    }
}

/*
 * Writer preference: claim the writer bit first, so new readers back off,
 * then wait for the readers already inside to drain.
 */
void hv_write_lock_slow(hv_rwlock_t *l)
{
    uint32_t old = atomic_load_explicit(&l->cnts, memory_order_relaxed);

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
