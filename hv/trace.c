/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timeline recorder (hv/trace.h): per-thread rings, thread names,
 * the cell, and the lock events the lock profiler's hooks hand over.
 *
 * A lock event arrives in the profiler's ticks (the TSC on x86), which
 * the hooks read anyway: it is kept so, and converted at collection
 * with the two points the start and the stop read of both clocks, so
 * that every event is on CLOCK_MONOTONIC and a wait ends exactly where
 * the hold it led to begins.  A lock event reads no clock of its own.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hv/lock.h>
#include <hv/trace.h>

#include "lockstat_priv.h"

struct ring {
    struct ring *next; /* all rings */
    struct ring *free_next;
    uint64_t head; /* events ever put; the last HV_TRACE_RING are kept */
    struct hv_trace_event ev[HV_TRACE_RING];
};

_Atomic bool hv_trace_on;
bool hv_trace_holds;
uint64_t hv_trace_lock_ticks = UINT64_MAX;

static _Atomic unsigned int cur_cell;
static _Atomic unsigned int generation = 1;
static uint64_t origin_ns, origin_ticks, stop_ns, stop_ticks;
static unsigned int rcu_tid;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ring *rings, *free_rings;
static char names[HV_TRACE_NAMES_MAX][HV_TRACE_NAME_LEN];
static unsigned int nr_names, nr_unnamed;
static bool names_full;

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread struct ring *my_ring;
static __thread unsigned int my_tid, my_gen, adopted;
static __thread char my_name[HV_TRACE_NAME_LEN]; /* "": "thread N" */

static void ring_release(void *p)
{
    struct ring *r = p;

    pthread_mutex_lock(&lock);
    r->free_next = free_rings;
    free_rings = r;
    pthread_mutex_unlock(&lock);
}

static void key_init(void)
{
    pthread_key_create(&key, ring_release);
}

/* @name's tid (under lock), interned: 0 when the table is full. */
static unsigned int intern(const char *name)
{
    unsigned int i;

    for ( i = 0; i < nr_names; i++ )
        if ( strcmp(names[i], name) == 0 )
            return i + 1;
    if ( nr_names == HV_TRACE_NAMES_MAX )
    {
        names_full = true;
        return 0;
    }
    snprintf(names[nr_names], HV_TRACE_NAME_LEN, "%s", name);
    return ++nr_names;
}

void hv_trace_name_thread(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(my_name, sizeof(my_name), fmt, ap);
    va_end(ap);
    my_gen = 0; /* interned at its first event */
}

unsigned int hv_trace_tid(void)
{
    char name[HV_TRACE_NAME_LEN];

    if ( adopted )
        return adopted;
    if ( my_gen != atomic_load_explicit(&generation, memory_order_relaxed) )
    {
        pthread_mutex_lock(&lock);
        if ( my_name[0] == '\0' )
            snprintf(name, sizeof(name), "thread %u", ++nr_unnamed);
        my_tid = intern(my_name[0] ? my_name : name);
        my_gen = atomic_load(&generation);
        pthread_mutex_unlock(&lock);
    }
    return my_tid;
}

void hv_trace_adopt(unsigned int tid)
{
    adopted = tid;
}

static struct ring *get_ring(void)
{
    struct ring *r = my_ring;

    if ( likely(r != NULL) )
        return r;
    pthread_once(&key_once, key_init);
    pthread_mutex_lock(&lock);
    r = free_rings;
    if ( r != NULL )
        free_rings = r->free_next;
    else if ( (r = malloc(sizeof(*r))) != NULL )
    {
        r->head = 0;
        r->next = rings;
        rings = r;
    }
    pthread_mutex_unlock(&lock);
    if ( r != NULL )
    {
        pthread_setspecific(key, r);
        my_ring = r;
    }
    return r;
}

/* Put @e (its cell and, unless set, its tid filled in here). */
static void put(struct hv_trace_event *e)
{
    struct ring *r = get_ring();

    if ( r == NULL )
        return;
    e->cell = (uint16_t)atomic_load_explicit(&cur_cell, memory_order_relaxed);
    if ( e->tid == 0 )
        e->tid = (uint16_t)hv_trace_tid();
    r->ev[r->head & (HV_TRACE_RING - 1)] = *e;
    r->head++;
}

void hv_trace_record(const char *cat, const char *name, const char *arg_key,
                     uint64_t arg, uint64_t t0, uint64_t t1)
{
    struct hv_trace_event e = {.t0 = t0,
                               .dur = t1 > t0 ? t1 - t0 : 0,
                               .name = name,
                               .cat = cat,
                               .what = arg_key,
                               .arg = arg,
                               .type = HV_TRACE_SPAN};

    if ( t0 != 0 ) /* 0: begun before the recorder was on */
        put(&e);
}

void hv_trace_rcu_gp(uint64_t t0, uint64_t t1, unsigned int n)
{
    struct hv_trace_event e = {.t0 = t0,
                               .dur = t1 > t0 ? t1 - t0 : 0,
                               .name = "grace period",
                               .cat = "rcu",
                               .what = "callbacks",
                               .arg = n,
                               .tid = (uint16_t)rcu_tid,
                               .type = HV_TRACE_RCU_GP};

    put(&e);
}

void hv_trace_lock(enum hv_trace_type type, const char *cls, const void *site,
                   unsigned int kind, uint64_t t0, uint64_t ticks)
{
    struct hv_trace_event e = {.t0 = t0,
                               .dur = ticks,
                               .name = cls,
                               .cat = "lock",
                               .what = site,
                               .arg = kind,
                               .type = (uint8_t)type};

    put(&e);
}

void hv_trace_set_cell(unsigned int cell)
{
    atomic_store_explicit(&cur_cell, cell, memory_order_relaxed);
}

/* The lock profiler's ticks per nanosecond, over ~2 ms. */
static double calibrate(void)
{
    struct timespec d = {0, 2000000};
    uint64_t n0 = hv_now_ns(), k0 = hv_lockstat_ticks(), n1, k1;

    nanosleep(&d, NULL);
    n1 = hv_now_ns();
    k1 = hv_lockstat_ticks();
    return k1 > k0 ? (double)(n1 - n0) / (double)(k1 - k0) : 1.0;
}

int hv_trace_start(uint64_t lock_ns, bool holds)
{
    struct ring *r;

    hv_trace_lock_ticks = (uint64_t)((double)lock_ns / calibrate());
    hv_trace_holds = holds;
    pthread_mutex_lock(&lock);
    for ( r = rings; r != NULL; r = r->next )
        r->head = 0;
    nr_names = nr_unnamed = 0;
    names_full = false;
    atomic_fetch_add(&generation, 1);
    rcu_tid = intern("rcu grace periods");
    pthread_mutex_unlock(&lock);
    origin_ns = hv_now_ns();
    origin_ticks = hv_lockstat_ticks();
    atomic_store(&hv_trace_on, true);
    hv_lockstat_hooks_update();
    return 0;
}

void hv_trace_stop(void)
{
    atomic_store(&hv_trace_on, false);
    hv_lockstat_hooks_update();
    stop_ns = hv_now_ns();
    stop_ticks = hv_lockstat_ticks();
}

/* Tick @t as CLOCK_MONOTONIC ns, at @r ns per tick from the origin. */
static uint64_t map(uint64_t t, double r)
{
    return origin_ns + (uint64_t)((double)(int64_t)(t - origin_ticks) * r);
}

/* The lock events' ticks to CLOCK_MONOTONIC ns, through the two points. */
static void to_ns(struct hv_trace_event *ev, size_t n)
{
    double r = stop_ticks > origin_ticks
                   ? (double)(stop_ns - origin_ns) /
                         (double)(stop_ticks - origin_ticks)
                   : 1.0;
    uint64_t t1;
    size_t i;

    for ( i = 0; i < n; i++ )
    {
        struct hv_trace_event *e = &ev[i];

        if ( e->type != HV_TRACE_LOCK_WAIT && e->type != HV_TRACE_LOCK_HOLD )
            continue;
        t1 = map(e->t0 + e->dur, r);
        e->t0 = map(e->t0, r);
        e->dur = t1 - e->t0;
    }
}

long hv_trace_collect(struct hv_trace_event **out, struct hv_trace_stats *st)
{
    struct hv_trace_event *ev;
    struct ring *r;
    size_t n = 0, k;

    memset(st, 0, sizeof(*st));
    pthread_mutex_lock(&lock);
    for ( r = rings; r != NULL; r = r->next )
    {
        n += r->head < HV_TRACE_RING ? r->head : HV_TRACE_RING;
        st->rings++;
    }
    ev = malloc((n ? n : 1) * sizeof(*ev));
    if ( ev == NULL )
    {
        pthread_mutex_unlock(&lock);
        return -ENOMEM;
    }
    n = 0;
    for ( r = rings; r != NULL; r = r->next )
    {
        k = r->head < HV_TRACE_RING ? r->head : HV_TRACE_RING;
        st->lost += r->head - k;
        memcpy(&ev[n], r->ev, k * sizeof(*ev));
        n += k;
    }
    st->names_full = names_full;
    pthread_mutex_unlock(&lock);
    to_ns(ev, n);
    st->recorded = n;
    *out = ev;
    return (long)n;
}

const char *hv_trace_thread_name(unsigned int tid)
{
    return tid >= 1 && tid <= nr_names ? names[tid - 1] : "";
}

uint64_t hv_trace_origin_ns(void)
{
    return origin_ns;
}
