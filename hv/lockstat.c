/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lock profiler (hv/lockstat.h): the instrumented lock paths the
 * inline fast paths of hv/lock.h branch to while it is enabled, the
 * per-thread tables, and their aggregation.
 *
 * Time is read with the TSC on x86 (converted with a rate calibrated
 * against CLOCK_MONOTONIC between enable and collect), elsewhere with
 * hv_now_ns().  Hold time needs the acquisition time at release: each
 * thread keeps a small stack of the locks it holds.  A contended
 * acquisition also goes to the wait stacks (hv/lockstat_stacks.c) while
 * they are on, with the frame of the hv_lockstat_*_lock() function its
 * user called.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <hv/lockstat.h>

#include "lockstat_priv.h"

#define TABLE_SIZE 256 /* entries per thread, a power of two */
#define HELD_MAX   16

struct entry {
    const void *cls; /* NULL: free slot... with used */
    const struct hv_lock_site *site;
    unsigned int tag;
    enum hv_lock_kind kind;
    bool used;
    uint64_t acq, contended, wait, wait_max, hold, hold_max; /* ticks */
};

struct held {
    const void *lock;
    struct entry *e; /* NULL: not counted (full, or tables off) */
    const struct hv_lock_class *cls;
    const struct hv_lock_site *site;
    enum hv_lock_kind kind;
    uint64_t t;
};

struct table {
    struct table *next; /* all tables */
    struct table *free_next;
    uint64_t dropped;
    struct entry e[TABLE_SIZE];
    struct held held[HELD_MAX];
    unsigned int nr_held;
    struct hv_lockstat_stk *stk; /* wait stacks, from the first one on */
};

#ifndef HV_NO_LOCKSTAT
_Atomic bool hv_lockstat_on;
static _Atomic bool tables_on; /* the profiler's, apart from the recorder */
#endif
static _Atomic unsigned int cur_tag;
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static struct table *tables, *free_tables;
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static __thread struct table *my_table;
static uint64_t cal_ticks0, cal_ns0;

static const struct hv_lock_class unnamed = {.name = "(unnamed)"};

static void table_release(void *p)
{
    struct table *t = p;

    pthread_mutex_lock(&tables_lock);
    t->nr_held = 0;
    t->free_next = free_tables;
    free_tables = t;
    pthread_mutex_unlock(&tables_lock);
}

static void tls_init(void)
{
    pthread_key_create(&tls_key, table_release);
}

static struct table *get_table(void)
{
    struct table *t = my_table;

    if ( likely(t != NULL) )
        return t;
    pthread_once(&tls_once, tls_init);
    pthread_mutex_lock(&tables_lock);
    t = free_tables;
    if ( t != NULL )
        free_tables = t->free_next;
    else
    {
        t = calloc(1, sizeof(*t));
        if ( t != NULL )
        {
            t->next = tables;
            tables = t;
        }
    }
    pthread_mutex_unlock(&tables_lock);
    if ( t != NULL )
    {
        pthread_setspecific(tls_key, t);
        my_table = t;
    }
    return t;
}

static struct entry *lookup(struct table *t, const void *cls,
                            const struct hv_lock_site *site,
                            enum hv_lock_kind kind)
{
    unsigned int tag = atomic_load_explicit(&cur_tag, memory_order_relaxed);
    uintptr_t h = ((uintptr_t)site >> 3) ^ ((uintptr_t)cls >> 4) ^
                  (tag * 0x9E3779B1u) ^ kind;
    unsigned int i, n;

    h ^= h >> 11;
    for ( n = 0, i = h & (TABLE_SIZE - 1); n < TABLE_SIZE;
          n++, i = (i + 1) & (TABLE_SIZE - 1) )
    {
        struct entry *e = &t->e[i];

        if ( !e->used )
        {
            e->used = true;
            e->cls = cls;
            e->site = site;
            e->tag = tag;
            e->kind = kind;
            return e;
        }
        if ( e->cls == cls && e->site == site && e->tag == tag &&
             e->kind == kind )
            return e;
    }
    t->dropped++;
    return NULL;
}

#ifndef HV_NO_LOCKSTAT
static void acquired(const void *lock, const struct hv_lock_class *cls,
                     const struct hv_lock_site *site, enum hv_lock_kind kind,
                     bool contended, uint64_t t0, uint64_t t1, const void *fp)
{
    struct table *t = get_table();
    struct entry *e = NULL;

    if ( t == NULL )
        return;
    cls = cls ? cls : &unnamed;
    if ( atomic_load_explicit(&tables_on, memory_order_relaxed) )
    {
        if ( contended && hv_lockstat_stacks_active() )
            hv_lockstat_stack_add(
                &t->stk, fp,
                atomic_load_explicit(&cur_tag, memory_order_relaxed), cls,
                t1 - t0);
        e = lookup(t, cls, site, kind);
    }
    if ( e != NULL )
    {
        e->acq++;
        if ( contended )
        {
            uint64_t w = t1 - t0;

            e->contended++;
            e->wait += w;
            if ( w > e->wait_max )
                e->wait_max = w;
        }
    }
    if ( t->nr_held < HELD_MAX )
        t->held[t->nr_held++] = (struct held){lock, e, cls, site, kind, t1};
}

void hv_lockstat_spin_lock(hv_spinlock_t *l, const struct hv_lock_site *site)
{
    uint64_t t0 = hv_lockstat_ticks();
    bool contended = !hv_spin_trylock(l);

    if ( contended )
        hv_spin_lock_slow(l, site);
    acquired(l, l->cls, site, HV_LOCK_SPIN, contended, t0,
             contended ? hv_lockstat_ticks() : t0, __builtin_frame_address(0));
}

void hv_lockstat_read_lock(hv_rwlock_t *l, const struct hv_lock_site *site)
{
    uint64_t t0 = hv_lockstat_ticks();
    uint32_t old =
        atomic_fetch_add_explicit(&l->cnts, HV_RW_READER, memory_order_acquire);

    if ( unlikely(old & HV_RW_WRITER) )
        hv_read_lock_slow(l, site);
    acquired(l, l->cls, site, HV_LOCK_READ, old != 0, t0,
             old != 0 ? hv_lockstat_ticks() : t0, __builtin_frame_address(0));
}

void hv_lockstat_write_lock(hv_rwlock_t *l, const struct hv_lock_site *site)
{
    uint64_t t0 = hv_lockstat_ticks();
    uint32_t zero = 0;
    bool contended = !atomic_compare_exchange_strong_explicit(
        &l->cnts, &zero, HV_RW_WRITER, memory_order_acquire,
        memory_order_relaxed);

    if ( contended )
        hv_write_lock_slow(l, site);
    acquired(l, l->cls, site, HV_LOCK_WRITE, contended, t0,
             contended ? hv_lockstat_ticks() : t0, __builtin_frame_address(0));
}

/* The lock at held[@i] of @t is being released. */
static void released(struct table *t, unsigned int i)
{
    const struct held *hl = &t->held[i];
    uint64_t h = hv_lockstat_ticks() - hl->t;

    if ( hl->e != NULL )
    {
        hl->e->hold += h;
        if ( h > hl->e->hold_max )
            hl->e->hold_max = h;
    }
    if ( hv_trace_active() && hv_trace_holds && h >= hv_trace_lock_ticks )
        hv_trace_lock(HV_TRACE_LOCK_HOLD,
                      hl->cls->name ? hl->cls->name : unnamed.name, hl->site,
                      hl->kind, hl->t, h);
}

void hv_lockstat_release(const void *lock)
{
    struct table *t = my_table;
    unsigned int i;

    if ( t == NULL )
        return;
    for ( i = t->nr_held; i-- > 0; )
    {
        if ( t->held[i].lock != lock )
            continue;
        released(t, i);
        t->held[i] = t->held[--t->nr_held];
        return;
    }
}

void hv_lockstat_mutex_lock(hv_mutex_t *l, const struct hv_lock_site *site)
{
    uint64_t t0 = hv_lockstat_ticks();
    bool contended = pthread_mutex_trylock(&l->m) != 0;

    if ( contended )
        hv_mutex_lock_slow(l, site);
    acquired(l, l->cls, site, HV_LOCK_MUTEX, contended, t0,
             contended ? hv_lockstat_ticks() : t0, __builtin_frame_address(0));
}

/* Asleep on @c the mutex is not ours: a release, then an acquisition. */
void hv_lockstat_cond_wait(pthread_cond_t *c, hv_mutex_t *l,
                           const struct hv_lock_site *site)
{
    uint64_t t;

    hv_lockstat_release(l);
    pthread_cond_wait(c, &l->m);
    t = hv_lockstat_ticks();
    acquired(l, l->cls, site, HV_LOCK_MUTEX, false, t, t, NULL);
}

#endif /* HV_NO_LOCKSTAT */

bool hv_lockstat_available(void)
{
#ifndef HV_NO_LOCKSTAT
    return true;
#else
    return false;
#endif
}

bool hv_lockstat_enable(bool on)
{
#ifndef HV_NO_LOCKSTAT
    if ( on && cal_ns0 == 0 )
    {
        cal_ns0 = hv_now_ns();
        cal_ticks0 = hv_lockstat_ticks();
    }
    atomic_store(&tables_on, on);
    hv_lockstat_hooks_update();
    return true;
#else
    return false;
#endif
}

void hv_lockstat_hooks_update(void)
{
#ifndef HV_NO_LOCKSTAT
    atomic_store(&hv_lockstat_on,
                 atomic_load(&tables_on) ||
                     (atomic_load(&hv_trace_on) && hv_trace_holds));
#endif
}

void hv_lockstat_set_tag(unsigned int tag)
{
    atomic_store_explicit(&cur_tag, tag, memory_order_relaxed);
}

void hv_lockstat_reset(void)
{
    struct table *t;

    hv_lockstat_stacks_reset();
    pthread_mutex_lock(&tables_lock);
    for ( t = tables; t != NULL; t = t->next )
    {
        memset(t->e, 0, sizeof(t->e));
        t->nr_held = 0;
        t->dropped = 0;
    }
    pthread_mutex_unlock(&tables_lock);
}

const char *hv_lock_kind_name(enum hv_lock_kind k)
{
    switch ( k )
    {
    case HV_LOCK_SPIN:
        return "spin";
    case HV_LOCK_READ:
        return "read";
    case HV_LOCK_WRITE:
        return "write";
    case HV_LOCK_MUTEX:
        return "mutex";
    }
    return "?";
}

static int row_cmp(const void *a, const void *b)
{
    const struct hv_lockstat_row *x = a, *y = b;

    if ( x->wait_ns != y->wait_ns )
        return x->wait_ns < y->wait_ns ? 1 : -1;
    if ( x->acquisitions != y->acquisitions )
        return x->acquisitions < y->acquisitions ? 1 : -1;
    if ( x->tag != y->tag )
        return x->tag < y->tag ? -1 : 1;
    return strcmp(x->cls, y->cls);
}

/* Ticks to nanoseconds. */
static uint64_t to_ns(uint64_t v, double ns_per_tick)
{
    return (uint64_t)((double)v * ns_per_tick + 0.5);
}

double hv_lockstat_ns_per_tick(void)
{
#ifdef HV_LOCKSTAT_TSC
    uint64_t dt = hv_lockstat_ticks() - cal_ticks0, dns = hv_now_ns() - cal_ns0;

    if ( cal_ns0 != 0 && dt > 0 && dns > 1000000 )
        return (double)dns / (double)dt;
    return 1.0 / 2.5; /* never enabled long enough */
#else
    return 1.0;
#endif
}

long hv_lockstat_collect(struct hv_lockstat_row **out, uint64_t *dropped)
{
    struct hv_lockstat_row *rows = NULL;
    double ns_per_tick = hv_lockstat_ns_per_tick();
    size_t nr = 0, cap = 0, i, j;
    struct table *t;
    uint64_t drop = 0;

    pthread_mutex_lock(&tables_lock);
    for ( t = tables; t != NULL; t = t->next )
    {
        drop += t->dropped;
        for ( i = 0; i < TABLE_SIZE; i++ )
        {
            const struct entry *e = &t->e[i];
            const char *cls;
            struct hv_lockstat_row *r = NULL;

            if ( !e->used || e->acq == 0 )
                continue;
            cls = ((const struct hv_lock_class *)e->cls)->name;
            if ( cls == NULL )
                cls = unnamed.name;
            for ( j = 0; j < nr; j++ )
                if ( rows[j].tag == e->tag && rows[j].kind == e->kind &&
                     rows[j].site == e->site && strcmp(rows[j].cls, cls) == 0 )
                {
                    r = &rows[j];
                    break;
                }
            if ( r == NULL )
            {
                if ( nr == cap )
                {
                    struct hv_lockstat_row *n;

                    cap = cap ? 2 * cap : 32;
                    n = realloc(rows, cap * sizeof(*rows));
                    if ( n == NULL )
                    {
                        pthread_mutex_unlock(&tables_lock);
                        free(rows);
                        return -ENOMEM;
                    }
                    rows = n;
                }
                r = &rows[nr++];
                memset(r, 0, sizeof(*r));
                r->tag = e->tag;
                r->cls = cls;
                r->kind = e->kind;
                r->site = e->site;
            }
            r->acquisitions += e->acq;
            r->contended += e->contended;
            r->wait_ns += to_ns(e->wait, ns_per_tick);
            r->hold_ns += to_ns(e->hold, ns_per_tick);
            if ( to_ns(e->wait_max, ns_per_tick) > r->wait_max_ns )
                r->wait_max_ns = to_ns(e->wait_max, ns_per_tick);
            if ( to_ns(e->hold_max, ns_per_tick) > r->hold_max_ns )
                r->hold_max_ns = to_ns(e->hold_max, ns_per_tick);
        }
    }
    pthread_mutex_unlock(&tables_lock);
    if ( nr > 1 )
        qsort(rows, nr, sizeof(*rows), row_cmp);
    *out = rows;
    if ( dropped != NULL )
        *dropped = drop;
    return (long)nr;
}
