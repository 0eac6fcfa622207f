/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run's watcher thread: stalled phases and SIGINT/SIGTERM (see
 * hvb/watch.h for an example).  It wakes every 250 ms; a phase is reported
 * when it has run past its first threshold, max(2 s, 20 x expected), and
 * again each time that doubles, so a round stuck for a minute says so
 * five times, not 240.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hvb/watch.h>

#define POLL_NS         250000000L
#define FIRST_WARN_S    2.0
#define WARN_PER_EXPECT 20.0

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct hvb_watch_ops ops;
static pthread_t watcher;
static bool running;
static sigset_t blocked, old_mask;

/* The phase now (under lock). */
static const char *phase;
static const char *cell;
static unsigned int p_round, p_rounds;
static double p_expected, p_start, p_next_warn;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check_stall(void)
{
    double el;

    pthread_mutex_lock(&lock);
    el = now_s() - p_start;
    if ( phase != NULL && el >= p_next_warn )
    {
        if ( p_rounds )
            fprintf(stderr, "hvbench: %s %u/%u", phase, p_round + 1, p_rounds);
        else
            fprintf(stderr, "hvbench: %s", phase);
        fprintf(stderr,
                " still running after %.1f s (expected about %.2g s from "
                "--min-time)%s%s: a cell may be stuck; SIGINT (Ctrl-C) or "
                "SIGTERM stops the run and keeps the rounds done\n",
                el, p_expected, cell ? ", in " : "", cell ? cell : "");
        p_next_warn *= 2;
    }
    pthread_mutex_unlock(&lock);
}

static void *watch_main(void *arg)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = POLL_NS};
    int sig;

    (void)arg;
    /* Cancelled only while waiting: never with the lock held. */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    for ( ;; )
    {
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
        sig = sigtimedwait(&blocked, NULL, &ts);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
        if ( sig > 0 )
        {
            if ( ops.on_signal != NULL )
                ops.on_signal(ops.ctx, sig);
            fflush(NULL);
            _exit(128 + sig);
        }
        if ( errno == EAGAIN )
            check_stall();
    }
    return NULL;
}

int hvb_watch_start(const struct hvb_watch_ops *o)
{
    int rc;

    ops = *o;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGTERM);
    rc = pthread_sigmask(SIG_BLOCK, &blocked, &old_mask);
    if ( rc )
        return -rc;
    rc = pthread_create(&watcher, NULL, watch_main, NULL);
    if ( rc )
    {
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        return -rc;
    }
    running = true;
    return 0;
}

void hvb_watch_phase(const char *what, unsigned int round, unsigned int rounds,
                     double expected_s)
{
    double first = WARN_PER_EXPECT * expected_s;

    pthread_mutex_lock(&lock);
    phase = what;
    cell = NULL;
    p_round = round;
    p_rounds = rounds;
    p_expected = expected_s;
    p_start = now_s();
    p_next_warn = first > FIRST_WARN_S ? first : FIRST_WARN_S;
    pthread_mutex_unlock(&lock);
}

void hvb_watch_cell(const char *name)
{
    pthread_mutex_lock(&lock);
    cell = name;
    pthread_mutex_unlock(&lock);
}

void hvb_watch_idle(void)
{
    pthread_mutex_lock(&lock);
    phase = cell = NULL;
    pthread_mutex_unlock(&lock);
}

void hvb_watch_stop(void)
{
    if ( !running )
        return;
    running = false;
    pthread_cancel(watcher); /* sigtimedwait() is a cancellation point */
    pthread_join(watcher, NULL);
    hvb_watch_idle();
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
}

void hvb_watch_child(void)
{
    if ( running )
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
}
