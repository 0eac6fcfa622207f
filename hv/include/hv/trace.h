/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timeline recorder: while on, the model and the workloads record
 * intervals (a VM's boot phases, a getinfolist poll, a xenstore
 * transaction, a request on the wire, lock waits and holds above a
 * threshold, RCU grace periods) into a ring of the recording thread; the
 * harness collects them after the run and writes a Chrome Trace Event
 * Format file (harness/session/trace_file.c, "hvbench run --trace").
 *
 * Off, a trace point is one load and one predicted branch on a global
 * flag (hv_trace_active()): no clock read, no store.  Lock waits come
 * from the locks' out-of-line slow paths (hv/lock.c): an uncontended
 * acquisition does not see the recorder.  Lock holds need every
 * acquisition timed: they come through the lock profiler's hooks
 * (hv/lockstat.c), which hv_trace_start(..., true) switches on, at the
 * hooks' cost; the inline fast paths of hv/lock.h are as they were.
 *
 * Worked example: a client thread of boot-storm names itself
 * ("client 3"), and hv_vmboot() records its phases:
 *
 *     hv_trace_name("client %u", k);           // tid of "client 3"
 *     t = hv_now_ns(); ...create...;
 *     hv_trace_span("create", "vm", id, t, hv_now_ns());
 *
 * A libvirtd worker running the client's define call adopts the client's
 * tid (hv_trace_adopt()), so the lock waits of the call (a "wait
 * virSecurityManager" of 4 ms at global.c:22) land on the
 * client's row, inside its "define" interval: under seclock=global the
 * rows of 20 clients show their waits staggered, one after the other.
 *
 * Rings: HV_TRACE_RING events per thread, the oldest overwritten when
 * one wraps (hv_trace_stats.lost counts them), handed back to a pool
 * when their thread exits and reused by the next.  Times are
 * CLOCK_MONOTONIC nanoseconds (hv_now_ns()), the clock of the run's
 * other timestamps.
 */
#ifndef HV_TRACE_H
#define HV_TRACE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>

#define HV_TRACE_RING      16384 /* events per thread, a power of two */
#define HV_TRACE_NAMES_MAX 4096  /* distinct thread names (tids) */
#define HV_TRACE_NAME_LEN  32

enum hv_trace_type {
    HV_TRACE_SPAN,      /* a phase: name, cat, what = arg key */
    HV_TRACE_LOCK_WAIT, /* name = class, what = site, arg = lock kind */
    HV_TRACE_LOCK_HOLD,
    HV_TRACE_RCU_GP, /* arg = callbacks the grace period freed */
};

struct hv_trace_event {
    uint64_t t0, dur;   /* ns, CLOCK_MONOTONIC */
    const char *name;   /* static: phase name or lock class */
    const char *cat;    /* static: "boot", "xenstore", ... */
    const void *what;   /* span: arg key (NULL: none); lock: its site */
    uint64_t arg;       /* span: the arg's value; lock: hv_lock_kind */
    uint16_t cell, tid; /* hv_trace_set_cell()'s, the thread's name id */
    uint8_t type;       /* enum hv_trace_type */
};

struct hv_trace_stats {
    uint64_t recorded; /* events kept in the rings */
    uint64_t lost;     /* overwritten by a wrapping ring */
    unsigned int rings;
    bool names_full; /* a thread's name did not fit: it got tid 0 */
};

extern _Atomic bool hv_trace_on;

static inline bool hv_trace_active(void)
{
    return unlikely(atomic_load_explicit(&hv_trace_on, memory_order_relaxed));
}

/*
 * hv_trace_start - forget what was recorded and record from now on,
 * lock waits of at least @lock_ns and, with @holds, holds too.  0 or
 * -ENOMEM.
 */
int hv_trace_start(uint64_t lock_ns, bool holds);
void hv_trace_stop(void);

/* Attribute what follows to cell @cell (the harness: the cell index). */
void hv_trace_set_cell(unsigned int cell);

/*
 * The calling thread's name from now on (printf format), for its events
 * while the recorder is on: hv_trace_name_thread() at the start of a
 * thread that may outlive a start of the recorder (a daemon's), the
 * hv_trace_name() form (nothing while off) where it runs often.  A
 * thread never named is "thread N".
 */
void hv_trace_name_thread(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
#define hv_trace_name(...)                     \
    do                                         \
    {                                          \
        if ( hv_trace_active() )               \
            hv_trace_name_thread(__VA_ARGS__); \
    } while ( 0 )

/*
 * The calling thread's tid (0: unnamed), and adopting another's: the
 * events that follow go to @tid's row (0: back to the thread's own).
 */
unsigned int hv_trace_tid(void);
void hv_trace_adopt(unsigned int tid);

/* Record one interval [t0, t1] (hv_now_ns()) named @name of @cat. */
void hv_trace_record(const char *cat, const char *name, const char *arg_key,
                     uint64_t arg, uint64_t t0, uint64_t t1);
#define hv_trace_span(cat, name, key, arg, t0, t1)                    \
    do                                                                \
    {                                                                 \
        if ( hv_trace_active() )                                      \
            hv_trace_record((cat), (name), (key), (arg), (t0), (t1)); \
    } while ( 0 )

/* A grace period of @r (on a row of its own), freeing @n callbacks. */
void hv_trace_rcu_gp(uint64_t t0, uint64_t t1, unsigned int n);

/*
 * hv_trace_collect - every ring's events (malloc'd, the caller frees),
 * unordered; *@st gets the counts.  No thread may be recording.
 * Returns the number of events, or -ENOMEM.
 */
long hv_trace_collect(struct hv_trace_event **out, struct hv_trace_stats *st);

/* The name of thread @tid ("" for 0), and the clock's origin (start). */
const char *hv_trace_thread_name(unsigned int tid);
uint64_t hv_trace_origin_ns(void);

#endif /* HV_TRACE_H */
