/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --instrument callgrind: the same cells, run under valgrind's callgrind
 * with instrumentation off except between client requests placed tight
 * around the measured loop (hvb/meter.h), giving the deterministic
 * counter sim_instructions_per_op (callgrind's Ir).  The command re-runs
 * itself under valgrind; the child finds its dump directory in
 * HVB_CALLGRIND_DIR.  Multi-threaded cells are refused: valgrind runs one
 * thread at a time, so it cannot see contention.
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
