/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Wait stacks of the lock profiler (hv/lockstat.h): per thread, a table
 * of (tag, lock class, call stack) -> contended acquisitions and wait,
 * filled only on contended acquisitions while hv_lockstat_stacks(true),
 * summed across threads by hv_lockstat_collect_stacks().  A thread's
 * table hangs off its lockstat table (hv/lockstat.c), made at its first
 * contended acquisition, and goes back to the pool with it.
 *
 * Worked example: an RPC worker calls virt_qemu.c's start, which takes
 * the security manager's mutex held by another worker and waits 2 ms.
 * hv_lockstat_mutex_lock() passes its own frame (fp); the walk reads the
 * frame records the build keeps (-fno-omit-frame-pointer):
 *
 *   fp[0] -> the caller's frame    fp[1] = return into the lock's user
 *   e.g. pc = {global_label+0x2f, hv_secmgr_label+0x44, qemu_start+0x91,
 *              ..., worker_main+0xc3, start_thread+0x..}
 *
 * and the entry (tag, "virSecurityManager", pc) gets +1 contended and
 * +2 ms.  The walk stops at the first frame pointer outside the thread's
 * stack (read once per thread with pthread_getattr_np), misaligned, or
 * not above the last one (code built without frame pointers, such as a
 * distribution's library, leaves anything in %rbp): it never reads
 * outside the stack, so a broken chain ends the stack early instead of
 * faulting.  The table is open addressing on a hash of the key; a full
 * table counts the event as dropped.
 */
#define _GNU_SOURCE /* pthread_getattr_np */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lockstat_priv.h"

#define STK_TABLE 512 /* entries per thread, a power of two */

struct stk_entry {
    const struct hv_lock_class *cls; /* NULL: free */
    unsigned int tag, depth;
    uint64_t hash, contended, wait; /* wait in ticks */
    const void *pc[HV_LOCKSTAT_STACK_DEPTH];
};

struct hv_lockstat_stk {
    struct hv_lockstat_stk *next; /* all tables */
    uint64_t dropped;
    struct stk_entry e[STK_TABLE];
};

_Atomic bool hv_lockstat_stacks_on;
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hv_lockstat_stk *tables;
static _Atomic uint64_t lost;                 /* events with no table */
static __thread uintptr_t stack_lo, stack_hi; /* 0, 0: not read yet */

/* A new table, on the list of all; NULL without memory. */
static struct hv_lockstat_stk *table_new(void)
{
    struct hv_lockstat_stk *t = calloc(1, sizeof(*t));

    if ( t == NULL )
        return NULL;
    pthread_mutex_lock(&tables_lock);
    t->next = tables;
    tables = t;
    pthread_mutex_unlock(&tables_lock);
    return t;
}

/* This thread's stack bounds, where the walk may read. */
static void read_bounds(void)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;

    if ( pthread_getattr_np(pthread_self(), &attr) != 0 )
        return;
    if ( pthread_attr_getstack(&attr, &addr, &size) == 0 )
    {
        stack_lo = (uintptr_t)addr;
        stack_hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&attr);
}

/* The return addresses above frame @fp, innermost first, into @pc. */
static unsigned int walk(const void *fp, const void **pc)
{
    const uintptr_t *f = fp;
    unsigned int n = 0;

    while ( n < HV_LOCKSTAT_STACK_DEPTH && (uintptr_t)f >= stack_lo &&
            (uintptr_t)f + 2 * sizeof(*f) <= stack_hi &&
            ((uintptr_t)f & (sizeof(*f) - 1)) == 0 )
    {
        const uintptr_t *next = (const uintptr_t *)f[0];

        if ( f[1] == 0 )
            break;
        pc[n++] = (const void *)f[1];
        if ( next <= f )
            break; /* frames grow up towards the callers */
        f = next;
    }
    return n;
}

static uint64_t key_hash(unsigned int tag, const struct hv_lock_class *cls,
                         const void *const *pc, unsigned int n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ tag ^ ((uintptr_t)cls << 7);
    unsigned int i;

    for ( i = 0; i < n; i++ )
        h = (h ^ (uintptr_t)pc[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

void hv_lockstat_stack_add(struct hv_lockstat_stk **slot, const void *fp,
                           unsigned int tag, const struct hv_lock_class *cls,
                           uint64_t wait)
{
    struct hv_lockstat_stk *t = *slot;
    const void *pc[HV_LOCKSTAT_STACK_DEPTH];
    unsigned int n, i, k;
    uint64_t h;

    if ( t == NULL && (t = *slot = table_new()) == NULL )
    {
        atomic_fetch_add(&lost, 1);
        return;
    }
    if ( stack_hi == 0 )
        read_bounds();
    n = walk(fp, pc);
    h = key_hash(tag, cls, pc, n);
    for ( k = 0, i = h & (STK_TABLE - 1); k < STK_TABLE;
          k++, i = (i + 1) & (STK_TABLE - 1) )
    {
        struct stk_entry *e = &t->e[i];

        if ( e->cls == NULL )
        {
            e->cls = cls;
            e->tag = tag;
            e->hash = h;
            e->depth = n;
            memcpy(e->pc, pc, n * sizeof(pc[0]));
        }
        else if ( e->hash != h || e->cls != cls || e->tag != tag ||
                  e->depth != n || memcmp(e->pc, pc, n * sizeof(pc[0])) )
            continue;
        e->contended++;
        e->wait += wait;
        return;
    }
    t->dropped++;
}

bool hv_lockstat_stacks(bool on)
{
    if ( !hv_lockstat_available() )
        return false;
    atomic_store(&hv_lockstat_stacks_on, on);
    return true;
}

void hv_lockstat_stacks_reset(void)
{
    struct hv_lockstat_stk *t;

    pthread_mutex_lock(&tables_lock);
    for ( t = tables; t != NULL; t = t->next )
    {
        memset(t->e, 0, sizeof(t->e));
        t->dropped = 0;
    }
    atomic_store(&lost, 0);
    pthread_mutex_unlock(&tables_lock);
}

/* By tag, class, then the stack itself: equal keys end up side by side. */
static int key_cmp(const void *a, const void *b)
{
    const struct hv_lockstat_stack *x = a, *y = b;
    int c;

    if ( x->tag != y->tag )
        return x->tag < y->tag ? -1 : 1;
    if ( (c = strcmp(x->cls, y->cls)) != 0 )
        return c;
    if ( x->depth != y->depth )
        return x->depth < y->depth ? -1 : 1;
    return memcmp(x->pc, y->pc, x->depth * sizeof(x->pc[0]));
}

static int wait_cmp(const void *a, const void *b)
{
    const struct hv_lockstat_stack *x = a, *y = b;

    if ( x->tag != y->tag )
        return x->tag < y->tag ? -1 : 1;
    if ( x->wait_ns != y->wait_ns )
        return x->wait_ns < y->wait_ns ? 1 : -1;
    return key_cmp(a, b);
}

/* Every used entry, in ns, unmerged; the number or -ENOMEM. */
static long gather(struct hv_lockstat_stack **out, uint64_t *dropped)
{
    struct hv_lockstat_stack *v;
    double ns_per_tick = hv_lockstat_ns_per_tick();
    size_t nr = 0, i;
    struct hv_lockstat_stk *t;

    *dropped = atomic_load(&lost);
    for ( t = tables; t != NULL; t = t->next )
        for ( i = 0; i < STK_TABLE; i++ )
            nr += t->e[i].cls != NULL;
    v = calloc(nr + 1, sizeof(*v));
    if ( v == NULL )
        return -ENOMEM;
    for ( nr = 0, t = tables; t != NULL; t = t->next )
    {
        *dropped += t->dropped;
        for ( i = 0; i < STK_TABLE; i++ )
        {
            const struct stk_entry *e = &t->e[i];
            struct hv_lockstat_stack *s = &v[nr];

            if ( e->cls == NULL )
                continue;
            nr++;
            s->tag = e->tag;
            s->cls = e->cls->name ? e->cls->name : "(unnamed)";
            s->contended = e->contended;
            s->wait_ns = (uint64_t)((double)e->wait * ns_per_tick + 0.5);
            s->depth = e->depth;
            memcpy(s->pc, e->pc, e->depth * sizeof(e->pc[0]));
        }
    }
    *out = v;
    return (long)nr;
}

long hv_lockstat_collect_stacks(struct hv_lockstat_stack **out,
                                uint64_t *dropped)
{
    struct hv_lockstat_stack *v = NULL;
    uint64_t drop;
    size_t i, j;
    long nr;

    pthread_mutex_lock(&tables_lock);
    nr = gather(&v, &drop);
    pthread_mutex_unlock(&tables_lock);
    if ( nr < 0 )
        return nr;
    qsort(v, (size_t)nr, sizeof(*v), key_cmp);
    for ( i = 0, j = 0; i < (size_t)nr; i++ )
    {
        if ( j > 0 && key_cmp(&v[j - 1], &v[i]) == 0 )
        {
            v[j - 1].contended += v[i].contended;
            v[j - 1].wait_ns += v[i].wait_ns;
        }
        else
            v[j++] = v[i];
    }
    if ( j > 1 )
        qsort(v, j, sizeof(*v), wait_cmp);
    *out = v;
    if ( dropped != NULL )
        *dropped = drop;
    return (long)j;
}
