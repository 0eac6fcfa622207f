/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The harness's own threads (the watcher, the profilers' readers), so
 * that a view of "every thread of a cell" (hvb/offcpu.h) leaves them
 * out: each marks itself when it starts.  At most HVB_OWN_THREADS; more
 * are not remembered.
 */
#ifndef HVB_OWN_THREADS_H
#define HVB_OWN_THREADS_H

#include <stdbool.h>
#include <stdint.h>

#define HVB_OWN_THREADS 32

/* The calling thread is the harness's. */
void hvb_own_thread_mark(void);

/* Is thread @tid one that marked itself? */
bool hvb_own_thread(uint64_t tid);

#endif /* HVB_OWN_THREADS_H */
