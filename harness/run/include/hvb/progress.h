/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A progress bar with ETA on stderr, drawn only when stderr is a TTY
 * (DESIGN §6); elsewhere it prints nothing.
 */
#ifndef HVB_PROGRESS_H
#define HVB_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct hvb_progress {
    bool tty;
    size_t total, done;
    double t0; /* seconds, CLOCK_MONOTONIC */
};

void hvb_progress_start(struct hvb_progress *p, size_t total, bool quiet);
void hvb_progress_step(struct hvb_progress *p, const char *label);
/* Redraw with @label, without a step (what a fleet's tasks do now). */
void hvb_progress_show(struct hvb_progress *p, const char *label);
void hvb_progress_end(struct hvb_progress *p);

#endif /* HVB_PROGRESS_H */
