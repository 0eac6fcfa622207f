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

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hv/compiler.h>

/* A lock class: the name the lock profiler reports. */
struct hv_lock_class {
    const char *name;
};

#define HV_LOCK_CLASS(var, str) struct hv_lock_class var = {.name = (str)}

/*
 * The lock profiler (hv/lockstat.h) sees every acquisition through the
 * lock and unlock macros below, which pass their call site.  Built with
 * HV_NO_LOCKSTAT (cmake -DHVB_LOCKSTAT=OFF) the hooks vanish; otherwise
 * a disabled profiler costs one load and one predicted branch per call.
 */
struct hv_lock_site {
    const char *func;
    const char *file;
    int line;
};

#ifndef HV_NO_LOCKSTAT
#define HV_LOCK_SITE()                                                   \
    ({                                                                   \
        static const struct hv_lock_site hv_site_ = {__func__, __FILE__, \
                                                     __LINE__};          \
        &hv_site_;                                                       \
    })
#else
#define HV_LOCK_SITE() ((const struct hv_lock_site *)0)
#endif

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

/*
 * The slow paths, entered after a failed first try; @site is the
 * caller's, for the timeline recorder's wait events (hv/trace.h).
 */
void hv_spin_lock_slow(hv_spinlock_t *l, const struct hv_lock_site *site);
void hv_read_lock_slow(hv_rwlock_t *l, const struct hv_lock_site *site);
void hv_write_lock_slow(hv_rwlock_t *l, const struct hv_lock_site *site);

#ifndef HV_NO_LOCKSTAT
extern _Atomic bool hv_lockstat_on;

void hv_lockstat_spin_lock(hv_spinlock_t *l, const struct hv_lock_site *site);
void hv_lockstat_read_lock(hv_rwlock_t *l, const struct hv_lock_site *site);
void hv_lockstat_write_lock(hv_rwlock_t *l, const struct hv_lock_site *site);
void hv_lockstat_release(const void *l);

static inline bool hv_lockstat_active(void)
{
    return unlikely(
        atomic_load_explicit(&hv_lockstat_on, memory_order_relaxed));
}
#else
static inline bool hv_lockstat_active(void)
{
    return false;
}
#define hv_lockstat_spin_lock(l, s)  ((void)0)
#define hv_lockstat_read_lock(l, s)  ((void)0)
#define hv_lockstat_write_lock(l, s) ((void)0)
#define hv_lockstat_release(l)       ((void)0)
#endif

static inline bool hv_spin_trylock(hv_spinlock_t *l)
{
    return !atomic_exchange_explicit(&l->locked, 1, memory_order_acquire);
}

static inline void hv_spin_lock_at(hv_spinlock_t *l,
                                   const struct hv_lock_site *site)
{
    if ( hv_lockstat_active() )
        hv_lockstat_spin_lock(l, site);
    else if ( unlikely(!hv_spin_trylock(l)) )
        hv_spin_lock_slow(l, site);
}

static inline void hv_spin_unlock(hv_spinlock_t *l)
{
    if ( hv_lockstat_active() )
        hv_lockstat_release(l);
    atomic_store_explicit(&l->locked, 0, memory_order_release);
}

static inline bool hv_spin_is_locked(hv_spinlock_t *l)
{
    return atomic_load_explicit(&l->locked, memory_order_relaxed);
}

static inline void hv_read_lock_at(hv_rwlock_t *l,
                                   const struct hv_lock_site *site)
{
    uint32_t old;

    if ( hv_lockstat_active() )
    {
        hv_lockstat_read_lock(l, site);
        return;
    }
    old =
        atomic_fetch_add_explicit(&l->cnts, HV_RW_READER, memory_order_acquire);
    if ( unlikely(old & HV_RW_WRITER) )
        hv_read_lock_slow(l, site);
}

static inline void hv_read_unlock(hv_rwlock_t *l)
{
    if ( hv_lockstat_active() )
        hv_lockstat_release(l);
    atomic_fetch_sub_explicit(&l->cnts, HV_RW_READER, memory_order_release);
}

static inline void hv_write_lock_at(hv_rwlock_t *l,
                                    const struct hv_lock_site *site)
{
    uint32_t zero = 0;

    if ( hv_lockstat_active() )
        hv_lockstat_write_lock(l, site);
    else if ( unlikely(!atomic_compare_exchange_strong_explicit(
                  &l->cnts, &zero, HV_RW_WRITER, memory_order_acquire,
                  memory_order_relaxed)) )
        hv_write_lock_slow(l, site);
}

static inline void hv_write_unlock(hv_rwlock_t *l)
{
    if ( hv_lockstat_active() )
        hv_lockstat_release(l);
    atomic_fetch_and_explicit(&l->cnts, ~HV_RW_WRITER, memory_order_release);
}

/* The call site is recorded where the macro is used. */
#define hv_spin_lock(l)  hv_spin_lock_at((l), HV_LOCK_SITE())
#define hv_read_lock(l)  hv_read_lock_at((l), HV_LOCK_SITE())
#define hv_write_lock(l) hv_write_lock_at((l), HV_LOCK_SITE())

/*
 * hv_mutex_t: a sleeping mutex (a pthread mutex with a lock class), for
 * the toolstack, whose locks are held across process spawns and sleeps
 * (libvirt's virMutex).  Spinning there would burn the CPUs that the
 * holders' helpers need.  hv_cond_wait() waits on a condition with it:
 * the lock profiler sees the release and the re-acquisition (the time
 * asleep on the condition is not lock wait).
 */
typedef struct hv_mutex {
    pthread_mutex_t m;
    const struct hv_lock_class *cls;
} hv_mutex_t;

void hv_mutex_init(hv_mutex_t *l, const struct hv_lock_class *cls);
void hv_mutex_destroy(hv_mutex_t *l);
/* After a failed trylock: wait for it (hv/lock.c). */
void hv_mutex_lock_slow(hv_mutex_t *l, const struct hv_lock_site *site);

#ifndef HV_NO_LOCKSTAT
void hv_lockstat_mutex_lock(hv_mutex_t *l, const struct hv_lock_site *site);
void hv_lockstat_cond_wait(pthread_cond_t *c, hv_mutex_t *l,
                           const struct hv_lock_site *site);
#else
#define hv_lockstat_mutex_lock(l, s)   ((void)0)
#define hv_lockstat_cond_wait(c, l, s) pthread_cond_wait((c), &(l)->m)
#endif

static inline void hv_mutex_lock_at(hv_mutex_t *l,
                                    const struct hv_lock_site *site)
{
    if ( hv_lockstat_active() )
        hv_lockstat_mutex_lock(l, site);
    else if ( unlikely(pthread_mutex_trylock(&l->m) != 0) )
        hv_mutex_lock_slow(l, site);
}

static inline void hv_mutex_unlock(hv_mutex_t *l)
{
    if ( hv_lockstat_active() )
        hv_lockstat_release(l);
    pthread_mutex_unlock(&l->m);
}

static inline void hv_cond_wait_at(pthread_cond_t *c, hv_mutex_t *l,
                                   const struct hv_lock_site *site)
{
    if ( hv_lockstat_active() )
        hv_lockstat_cond_wait(c, l, site);
    else
        pthread_cond_wait(c, &l->m);
}

#define hv_mutex_lock(l)   hv_mutex_lock_at((l), HV_LOCK_SITE())
#define hv_cond_wait(c, l) hv_cond_wait_at((c), (l), HV_LOCK_SITE())

#endif /* HV_LOCK_H */
