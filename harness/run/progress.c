/* SPDX-License-Identifier: GPL-2.0-only */
/* Progress bar with ETA; see private.h. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "private.h"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void hvb_progress_start(struct hvb_progress *p, size_t total, bool quiet)
{
    p->tty = !quiet && isatty(STDERR_FILENO);
    p->total = total;
    p->done = 0;
    p->t0 = now();
}

void hvb_progress_step(struct hvb_progress *p, const char *label)
{
    p->done++;
    hvb_progress_show(p, label);
}

void hvb_progress_show(struct hvb_progress *p, const char *label)
{
    char bar[31], eta_s[16];
    double el, eta;
    size_t i, fill;

    if ( !p->tty || p->total == 0 )
        return;
    fill = p->done * 30 / p->total;
    for ( i = 0; i < 30; i++ )
        bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    el = now() - p->t0;
    eta = p->done ? el / (double)p->done * (double)(p->total - p->done) : 0;
    /* Nothing done yet (hvb_progress_show): no rate to go by. */
    if ( p->done )
        snprintf(eta_s, sizeof(eta_s), "%3.0fs", eta);
    else
        snprintf(eta_s, sizeof(eta_s), "   ?");
    fprintf(stderr, "\r\033[K[%s] %zu/%zu ETA %s %.40s", bar, p->done, p->total,
            eta_s, label ? label : "");
    fflush(stderr);
}

void hvb_progress_end(struct hvb_progress *p)
{
    if ( p->tty )
        fprintf(stderr, "\r\033[K");
}
