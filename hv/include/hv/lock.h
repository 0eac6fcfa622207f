/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Model locks.  Every lock of the model is one of these types and names a
 * lock class, so the lock profiler can attribute wait and hold time per
 * class.  They spin, as Xen's do: a futex would hide the cache-line
 * traffic that the domain-lookup story is about.
 *
 * hv_rwlock_t is a Xen-style reader/writer lock on ONE shared 32-bit word
 * (writer bit + reader count): every read_lock and read_unlock is a locked
 * read-modify-write of that word, so two readers on two CPUs bounce its
 * cache line.  That is the cost RCU removed in 2007.
 */
#ifndef HV_LOCK_H
#define HV_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hv/compiler.h>

/* A lock class: the name the lock profiler reports. */
struct hv_lock_class {
    const char *name;
};

#define HV_LOCK_CLASS(var, str) struct hv_lock_class var = {.name = (str)}

typedef struct hv_spinlock {
    _Atomic uint32_t locked;
    const struct hv_lock_class *cls;
} hv_spinlock_t;

typedef struct hv_rwlock {
    _Atomic uint32_t cnts;
    const struct hv_lock_class *cls;
} hv_rwlock_t;

#define HV_RW_WRITER 0x80000000u
#define HV_RW_READER 1u

void hv_spin_init(hv_spinlock_t *l, const struct hv_lock_class *cls);
void hv_rwlock_init(hv_rwlock_t *l, const struct hv_lock_class *cls);

void hv_spin_lock_slow(hv_spinlock_t *l);
void hv_read_lock_slow(hv_rwlock_t *l);
void hv_write_lock_slow(hv_rwlock_t *l);

static inline bool hv_spin_trylock(hv_spinlock_t *l)
{
    return !atomic_exchange_explicit(&l->locked, 1, memory_order_acquire);
}

static inline void hv_spin_lock(hv_spinlock_t *l)
{
    if ( unlikely(!hv_spin_trylock(l)) )
        hv_spin_lock_slow(l);
}

static inline void hv_spin_unlock(hv_spinlock_t *l)
{
    atomic_store_explicit(&l->locked, 0, memory_order_release);
}

static inline bool hv_spin_is_locked(hv_spinlock_t *l)
{
    return atomic_load_explicit(&l->locked, memory_order_relaxed);
}

static inline void hv_read_lock(hv_rwlock_t *l)
{
    uint32_t old =
        atomic_fetch_add_explicit(&l->cnts, HV_RW_READER, memory_order_acquire);

    if ( unlikely(old & HV_RW_WRITER) )
        hv_read_lock_slow(l);
}

static inline void hv_read_unlock(hv_rwlock_t *l)
{
    atomic_fetch_sub_explicit(&l->cnts, HV_RW_READER, memory_order_release);
}

static inline void hv_write_lock(hv_rwlock_t *l)
{
    uint32_t zero = 0;

    if ( unlikely(!atomic_compare_exchange_strong_explicit(
             &l->cnts, &zero, HV_RW_WRITER, memory_order_acquire,
             memory_order_relaxed)) )
        hv_write_lock_slow(l);
}

static inline void hv_write_unlock(hv_rwlock_t *l)
{
    atomic_fetch_and_explicit(&l->cnts, ~HV_RW_WRITER, memory_order_release);
}

#endif /* HV_LOCK_H */
