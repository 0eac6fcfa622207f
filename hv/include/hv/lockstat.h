/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lock profiler.  While enabled, every model lock acquisition is
 * recorded per (tag, lock class, kind, call site) in a table of the
 * acquiring thread: acquisitions, contended acquisitions, wait time
 * (total, max) and hold time (total, max).  Tables outlive their threads
 * (a thread's table goes back to a pool when it exits) and are summed by
 * hv_lockstat_collect() once no thread is taking locks.
 *
 * "Contended" means the lock was held by another CPU on arrival: a spin
 * lock or a write lock that could not be taken at once, or a read lock
 * that found a writer or other readers inside (their read-modify-writes
 * of the one shared word bounce its cache line: the cost RCU removed).
 * Wait time is the time spent before the lock was ours.
 *
 * The tag (hv_lockstat_set_tag()) is global, not per thread: the harness
 * runs one cell at a time and sets it to the cell, so a cell's background
 * threads are attributed to the cell too.
 */
#ifndef HV_LOCKSTAT_H
#define HV_LOCKSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/lock.h>

enum hv_lock_kind {
    HV_LOCK_SPIN,
    HV_LOCK_READ,
    HV_LOCK_WRITE,
    HV_LOCK_MUTEX, /* hv_mutex_t: a sleeping mutex */
};

struct hv_lockstat_row {
    unsigned int tag;
    const char *cls; /* the lock class name, "(unnamed)" when none */
    enum hv_lock_kind kind;
    const struct hv_lock_site *site; /* NULL: unknown */
    uint64_t acquisitions;
    uint64_t contended;
    uint64_t wait_ns, wait_max_ns;
    uint64_t hold_ns, hold_max_ns;
};

/* Compiled in?  false under HV_NO_LOCKSTAT (cmake -DHVB_LOCKSTAT=OFF). */
bool hv_lockstat_available(void);

/* Start or stop recording (false when not compiled in). */
bool hv_lockstat_enable(bool on);

/* Attribute what follows to @tag (the harness: cell index + 1). */
void hv_lockstat_set_tag(unsigned int tag);

/* Forget everything recorded so far.  No thread may be taking locks. */
void hv_lockstat_reset(void);

/*
 * hv_lockstat_collect - sum every thread's table into @rows (malloc'd,
 * the caller frees), one row per (tag, class, kind, site), sorted by
 * total wait, then acquisitions.  Returns the number of rows, or -ENOMEM.
 * @dropped, if not NULL, gets the acquisitions not recorded because a
 * table was full.  No thread may be taking locks.
 */
long hv_lockstat_collect(struct hv_lockstat_row **rows, uint64_t *dropped);

const char *hv_lock_kind_name(enum hv_lock_kind k);

/*
 * Wait stacks (hv/lockstat_stacks.c): while hv_lockstat_stacks(true) and
 * the profiler are on, every *contended* acquisition also walks its call
 * stack by frame pointers (the build keeps them) and adds its wait to
 * (tag, lock class, stack) in a table of the waiting thread; the
 * uncontended paths and a disabled profiler do nothing more.  pc[0] is
 * the return address into the function that took the lock, pc[depth-1]
 * the outermost frame the walk reached (it stops at the thread's stack
 * bounds, a frame pointer that does not grow, or the depth).  The lock
 * kind is not part of the key: a rwlock's read and write waits share a
 * stack only if they share the call site, which they do not.
 */
#define HV_LOCKSTAT_STACK_DEPTH 48

struct hv_lockstat_stack {
    unsigned int tag;
    const char *cls;    /* the lock class name */
    uint64_t contended; /* contended acquisitions */
    uint64_t wait_ns;
    unsigned int depth;
    const void *pc[HV_LOCKSTAT_STACK_DEPTH];
};

/* Record wait stacks from now on (@on), or stop; false when not built. */
bool hv_lockstat_stacks(bool on);

/*
 * hv_lockstat_collect_stacks - every thread's wait stacks summed into
 * @out (malloc'd, the caller frees), one per (tag, class, stack), by
 * tag then total wait.  Returns their number or -ENOMEM; @dropped, if
 * not NULL, gets the contended acquisitions not recorded (a thread's
 * table was full, or no memory for one).  No thread may be taking locks.
 */
long hv_lockstat_collect_stacks(struct hv_lockstat_stack **out,
                                uint64_t *dropped);

#endif /* HV_LOCKSTAT_H */
