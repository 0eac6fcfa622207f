/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run's watcher thread: stalled phases and SIGINT/SIGTERM (see
 * hvb/watch.h for an example).  It wakes every 250 ms; a phase is reported
 * when it has run past its first threshold, max(2 s, 20 x expected), and
 * again each time that doubles, so a round stuck for a minute says so
 * five times, not 240.
 *
 * It waits in poll() on a signalfd of SIGINT/SIGTERM and an eventfd that
 * hvb_watch_stop() writes: it is stopped by being told, never cancelled
 * (pthread_cancel's unwinding made ASan report a stack-buffer-underflow
 * in sigaltstack at the thread's exit, google/sanitizers#1399, which
 * failed every run of the ASan build under default ASAN_OPTIONS).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <hvb/own_threads.h>
#include <hvb/watch.h>

#define POLL_MS         250
#define FIRST_WARN_S    2.0
#define WARN_PER_EXPECT 20.0

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct hvb_watch_ops ops;
static pthread_t watcher;
static bool running;
static int sig_fd = -1, stop_fd = -1;
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
    struct pollfd fds[2] = {{.fd = sig_fd, .events = POLLIN},
                            {.fd = stop_fd, .events = POLLIN}};
    struct signalfd_siginfo si;
    int n;

    (void)arg;
    hvb_own_thread_mark();
    for ( ;; )
    {
        n = poll(fds, 2, POLL_MS);
        if ( n < 0 && errno == EINTR )
            continue;
        if ( n < 0 )
            return NULL; /* cannot watch: the signals stay pending */
        if ( fds[1].revents )
            return NULL;
        if ( fds[0].revents &&
             read(sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si) )
        {
            if ( ops.on_signal != NULL )
                ops.on_signal(ops.ctx, (int)si.ssi_signo);
            fflush(NULL);
            _exit(128 + (int)si.ssi_signo);
        }
        if ( n == 0 )
            check_stall();
    }
    return NULL;
}

static void close_fds(void)
{
    if ( sig_fd >= 0 )
        close(sig_fd);
    if ( stop_fd >= 0 )
        close(stop_fd);
    sig_fd = stop_fd = -1;
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
    sig_fd = signalfd(-1, &blocked, SFD_CLOEXEC);
    stop_fd = eventfd(0, EFD_CLOEXEC);
    rc = sig_fd < 0 || stop_fd < 0 ? errno : 0;
    if ( rc == 0 )
        rc = pthread_create(&watcher, NULL, watch_main, NULL);
    if ( rc )
    {
        close_fds();
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
    (void)eventfd_write(stop_fd, 1);
    pthread_join(watcher, NULL);
    close_fds();
    hvb_watch_idle();
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
}

void hvb_watch_child(void)
{
    if ( running )
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
}
