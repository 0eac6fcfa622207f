/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --instrument callgrind: the same cells, run under valgrind's callgrind
 * with instrumentation off except between client requests placed tight
 * around the measured loop (hvb/meter.h), giving the deterministic
 * counters sim_instructions_per_op (callgrind's Ir) and, from its cache
 * simulation with the caches pinned (hvb_meter_cg_options()),
 * sim_cycles_per_op and the raw events.  The command re-runs itself
 * under valgrind; the child finds its dump directory in
 * HVB_CALLGRIND_DIR.  Valgrind's own messages go to a log there, copied
 * to stderr at the end less its note on the host's L3 (the simulated
 * caches are the pinned ones, not the host's).  Multi-threaded cells
 * are refused: valgrind runs one thread at a time, so it cannot see
 * contention.
 */
#ifndef HVB_CALLGRIND_H
#define HVB_CALLGRIND_H

#include <stddef.h>

#include <hvb/matrix.h>

#define HVB_CALLGRIND_DIR_ENV "HVB_CALLGRIND_DIR"

/* -EINVAL with @err if a cell of @m cannot run under callgrind. */
int hvb_callgrind_check(const struct hvb_matrix *m, char *err, size_t len);

/* Run @argv under callgrind, wait, clean up; returns its exit status. */
int hvb_callgrind_reexec(int argc, char *const *argv);

#endif /* HVB_CALLGRIND_H */
