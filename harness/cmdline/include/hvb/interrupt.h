/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ctrl-C and SIGTERM for the commands that run other processes (review,
 * bisect, history backfill, gate --base-bin): interrupt.c.  Each child
 * runs in a process group of its own (a deadline kills it with what it
 * started), so the terminal's SIGINT reaches hvbench alone; the handler
 * sends it on to every group started here, the waits that follow are cut
 * to HVB_INTERRUPT_GRACE_S, and the command exits 128 + the signal with
 * what finished kept.
 */
#ifndef HVB_INTERRUPT_H
#define HVB_INTERRUPT_H

#include <sys/types.h>

#define HVB_INTERRUPT_GRACE_S 10.0 /* then SIGKILL to the group */

/* Catch SIGINT and SIGTERM from now on (no SA_RESTART). */
void hvb_interrupt_catch(void);
/* The signal caught (SIGINT, SIGTERM), or 0. */
int hvb_interrupted(void);
/*
 * fork() with the child in a new process group of its own, known to the
 * handler before any signal can be delivered; the child's signal mask
 * and SIGINT/SIGTERM dispositions are those before hvb_interrupt_catch().
 * -1 with errno EINTR once interrupted (no new child), or EAGAIN with
 * too many children at once.
 */
pid_t hvb_interrupt_fork(void);
/*
 * waitpid() for a child of hvb_interrupt_fork(); once interrupted, what
 * it left in its group (a child that ignores SIGINT) is killed before
 * the group's leader is reaped.
 */
pid_t hvb_interrupt_waitpid(pid_t pid, int *status, int options);
/* @pid's group reaped: no longer signalled. */
void hvb_interrupt_forget(pid_t pid);
/* @deadline (monotonic s), or sooner: the grace after an interrupt. */
double hvb_interrupt_deadline(double deadline);
/* "hvbench: WHAT: interrupted (SIGINT); KEPT" said; 128 + the signal. */
int hvb_interrupt_status(const char *what, const char *kept);

#endif /* HVB_INTERRUPT_H */
