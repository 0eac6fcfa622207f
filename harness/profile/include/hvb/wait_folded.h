/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wait view's folded stacks ("hvbench profile --view wait"): the
 * lock profiler's wait stacks (hv/lockstat.h) of one cell, weighted by
 * wait in ns per operation of the cell, the lock class as the leaf
 * frame.  E.g. 20 clients creating domains, 3 ops each, where one stack
 * waited 1.2 s in all on the security manager over 60 ops gives
 *
 *   start_thread;worker_main;...;qemu_start;[wait] virSecurityManager 20000000.0000
 *
 * (a weight of 20 ms per op); the sum of a file's weights is the cell's
 * wait per op, lockstat's wait_ns_per_op summed over its rows.
 */
#ifndef HVB_WAIT_FOLDED_H
#define HVB_WAIT_FOLDED_H

#include <stddef.h>
#include <stdint.h>

#include <hv/lockstat.h>
#include <hvb/symbols.h>

struct hvb_wait_total {
    double wait_ns_per_op; /* the sum of the file's weights */
    uint64_t wait_ns;      /* over every op */
    uint64_t contended;    /* acquisitions that waited */
    size_t stacks;         /* distinct (class, stack) of the lock profiler */
    double mean_depth;     /* frames per stack, the leaf not counted */
};

/*
 * hvb_wait_folded_write - write to @path (atomically) the stacks of
 * @v[0..nr) whose tag is @tag, each weighted by wait_ns / @ops, leaf
 * "[wait] CLASS", named through @sym; @t gets the totals.  @ops 0
 * writes an empty file.  0 or -errno.
 */
int hvb_wait_folded_write(const char *path, const struct hv_lockstat_stack *v,
                          size_t nr, unsigned int tag, uint64_t ops,
                          struct hvb_symbols *sym, struct hvb_wait_total *t);

#endif /* HVB_WAIT_FOLDED_H */
