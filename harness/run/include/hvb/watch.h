/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Watching a run from outside the measured threads: a phase (calibration,
 * a round) that runs far past what --min-time makes it take is reported on
 * stderr while it runs, and SIGINT/SIGTERM stop the run cleanly, whatever
 * the model is doing (a reader starving behind a writer never returns to
 * the harness, so nothing on the measured threads can be relied on).
 *
 *   hvbench run lookup --plugin domlookup=rwlock-ref --param domains=32751 \
 *       --param churn=1000000 --param batch=1000000 \
 *       --param distribution=uniform --min-time 0.1 --out r.json
 *   hvbench: round 1/10 still running after 2.0 s (expected about 0.1 s
 *     at --min-time 0.1), in lookup/domlookup=rwlock-ref/...: a cell may
 *     be stuck; SIGINT (Ctrl-C) or SIGTERM stops the run and keeps the
 *     rounds done
 *   (again after 4 s, 8 s, ...)
 *   ^C
 *   hvbench: interrupted (SIGINT) before round 1 finished: nothing written
 *   exit status 130 (128 + the signal)
 *
 * hvb_watch_start() blocks SIGINT and SIGTERM in the calling thread, so
 * every thread created after it (the engine's) inherits the mask, and
 * starts one thread that takes them from a signalfd (and is stopped
 * through an eventfd, never cancelled).  On a signal it
 * calls on_signal() (which writes what is done; it may block until a write
 * in progress ends) and then _exit(128 + signal).
 */
#ifndef HVB_WATCH_H
#define HVB_WATCH_H

#include <stdbool.h>

struct hvb_watch_ops {
    /* Called on the watcher thread once; the process exits after it. */
    void (*on_signal)(void *ctx, int sig);
    void *ctx;
};

/* Start watching; 0 or -errno (then nothing is watched). */
int hvb_watch_start(const struct hvb_watch_ops *ops);

/*
 * hvb_watch_phase - a phase starts: @what ("round", "calibration"),
 * @round of @rounds (0-based; rounds 0: not a round), expected to take
 * about @expected_s.  Reported once past max(2 s, 20 x @expected_s),
 * then at every doubling.
 */
void hvb_watch_phase(const char *what, unsigned int round, unsigned int rounds,
                     double expected_s);

/* The cell that is running now (a static or long-lived name). */
void hvb_watch_cell(const char *name);

/* No phase: nothing to report (between the rounds and the end). */
void hvb_watch_idle(void);

/* Stop watching; signals get their default actions again. */
void hvb_watch_stop(void);

/* In a forked child, before exec: unblock what hvb_watch_start blocked. */
void hvb_watch_child(void);

#endif /* HVB_WATCH_H */
