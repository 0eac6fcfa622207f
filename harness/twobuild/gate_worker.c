/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The gate's end of the worker protocol (private.h): "gate --base-bin"
 * (cmd_gate_bin.c) starts one worker per build, asks it for samples one
 * line at a time, and stops it.  E.g. hvb_gate_worker_start() runs
 * "OLD/hvbench worker lookup --plugin domlookup=rcu-ref -q" and keeps its
 * hello; hvb_gate_worker_ask(w, "run 0 1000000", &reply, ...) gives the
 * reply {"ns": 6.1, "counters": {...}}.
 *
 * Nothing a worker does can hang the gate:
 *   - the pipes are close-on-exec, so the new build's worker does not
 *     hold the base's stdin open: a base that ignores "quit" still sees
 *     the end of its input (it did not, and the gate, waiting for the
 *     base's end, and both workers waited in a pipe read forever);
 *   - every answer (the hello included) has a deadline, w->timeout_s
 *     (--worker-timeout): a worker that has not answered by then is
 *     killed with its process group and named, e.g. "the base build's
 *     worker (OLD/hvbench) did not answer 'run 0 1000' within 120 s:
 *     killed (--worker-timeout sets the limit)";
 *   - hvb_gate_worker_stop() waits at most HVB_WORKER_STOP_S for the
 *     worker's end after "quit", then kills it.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <hvb/cmdline.h>
#include <hvb/interrupt.h>

#include "private.h"

#define HVB_WORKER_STOP_S 5.0
#define HVB_WORKER_LINE   (64u << 20) /* a longer line is not an answer */

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The next line of @w's stdout into w->line (no newline) within
 * @timeout_s: its length, 0 at the end (or a line too long), -ETIMEDOUT.
 */
static ssize_t read_line(struct hvb_gate_worker *w, double timeout_s)
{
    double deadline = mono_now() + timeout_s;

    for ( ;; )
    {
        char *nl = w->have ? memchr(w->buf, '\n', w->have) : NULL;
        struct pollfd pf = {.fd = w->out, .events = POLLIN};
        double left;
        ssize_t r;

        if ( nl != NULL )
        {
            size_t n = (size_t)(nl - w->buf);
            char *l = n + 1 > w->cap ? realloc(w->line, n + 1) : w->line;

            if ( l == NULL )
                return 0;
            if ( n + 1 > w->cap )
                w->cap = n + 1;
            w->line = l;
            memcpy(l, w->buf, n);
            l[n] = '\0';
            w->have -= n + 1;
            memmove(w->buf, nl + 1, w->have);
            return (ssize_t)n + 1;
        }
        if ( w->have == w->bufcap )
        {
            size_t want = w->bufcap ? 2 * w->bufcap : 4096;
            char *b = want <= HVB_WORKER_LINE ? realloc(w->buf, want) : NULL;

            if ( b == NULL )
                return 0;
            w->buf = b;
            w->bufcap = want;
        }
        left = hvb_interrupt_deadline(deadline) - mono_now();
        if ( left <= 0 )
            return -ETIMEDOUT;
        if ( poll(&pf, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR )
            return 0;
        if ( pf.revents == 0 )
            continue;
        r = read(w->out, w->buf + w->have, w->bufcap - w->have);
        if ( r < 0 && errno == EINTR )
            continue;
        if ( r <= 0 )
            return 0;
        w->have += (size_t)r;
    }
}

/* Kill @w (its process group: a wrapper and what it started). */
static void kill_worker(struct hvb_gate_worker *w)
{
    if ( w->pid <= 0 )
        return;
    kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
}

/* @w reaped with wait status @status: its exit status (128 + signal). */
static int reaped(struct hvb_gate_worker *w, int status)
{
    hvb_interrupt_forget(w->pid);
    w->pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Reap @w; its exit status, or 128 + signal. */
static int hvb_gate_worker_wait(struct hvb_gate_worker *w)
{
    int status;

    if ( w->pid <= 0 )
        return 0;
    while ( hvb_interrupt_waitpid(w->pid, &status, 0) < 0 )
        if ( errno != EINTR )
            return -1;
    return reaped(w, status);
}

/*
 * Reap @w by @deadline; a worker that closed its output but lives on is
 * killed with its process group there (a blocking waitpid() hung the
 * gate for ever, the worker orphaned): its exit status.
 */
static int reap(struct hvb_gate_worker *w, double deadline)
{
    int status;
    pid_t r;

    while ( w->pid > 0 )
    {
        r = hvb_interrupt_waitpid(w->pid, &status, WNOHANG);
        if ( r < 0 && errno != EINTR )
            return -1;
        if ( r == w->pid )
            return reaped(w, status);
        if ( mono_now() >= hvb_interrupt_deadline(deadline) )
        {
            kill_worker(w);
            return hvb_gate_worker_wait(w);
        }
        usleep(2000);
    }
    return 0;
}

/*
 * Close @w's input (after "quit" if @quit), read its output to the end
 * and reap it, all within HVB_WORKER_STOP_S, killing it if it is still
 * there: its exit status.
 */
static int end_worker(struct hvb_gate_worker *w, bool quit)
{
    double deadline = mono_now() + HVB_WORKER_STOP_S;
    ssize_t n = 1;

    if ( w->in != NULL )
    {
        if ( quit )
            fputs("quit\n", w->in);
        fclose(w->in);
        w->in = NULL;
    }
    /* Its last words ("bye"), to the end of its output, not forever. */
    while ( w->out >= 0 && n > 0 )
    {
        double left = deadline - mono_now();

        n = left > 0 ? read_line(w, left) : -ETIMEDOUT;
    }
    if ( n < 0 )
        kill_worker(w);
    if ( w->out >= 0 )
        close(w->out);
    w->out = -1;
    return reap(w, deadline);
}

void hvb_gate_worker_stop(struct hvb_gate_worker *w)
{
    end_worker(w, true);
    json_decref(w->hello);
    w->hello = NULL;
    free(w->line);
    free(w->buf);
    w->line = w->buf = NULL;
    w->cap = w->bufcap = w->have = 0;
}

/* A timed-out worker: killed, and @err says so. */
static int timed_out(struct hvb_gate_worker *w, const char *what, char *err,
                     size_t len)
{
    kill_worker(w);
    snprintf(err, len,
             "the %s build's worker (%s) did not %s within %g s: killed "
             "(--worker-timeout sets the limit)",
             w->label, w->bin, what, w->timeout_s);
    return -ETIMEDOUT;
}

int hvb_gate_worker_ask(struct hvb_gate_worker *w, const char *cmd,
                        json_t **reply, char *err, size_t len)
{
    char what[96];
    ssize_t n;

    *reply = NULL;
    if ( fprintf(w->in, "%s\n", cmd) < 0 || fflush(w->in) )
        n = 0;
    else
        n = read_line(w, w->timeout_s);
    if ( n == -ETIMEDOUT )
    {
        snprintf(what, sizeof(what), "answer '%.60s'", cmd);
        return timed_out(w, what, err, len);
    }
    if ( n <= 0 )
    {
        snprintf(err, len, "the %s build's worker (%s) stopped answering",
                 w->label, w->bin);
        return -EIO;
    }
    if ( strncmp(w->line, "ok ", 3) == 0 )
        *reply = json_loads(w->line + 3, 0, NULL);
    if ( *reply == NULL )
    {
        snprintf(err, len, "the %s build's worker: %s: %s", w->label, cmd,
                 strncmp(w->line, "err ", 4) == 0 ? w->line + 4 : w->line);
        return -EIO;
    }
    return 0;
}

int hvb_gate_worker_start(struct hvb_gate_worker *w, char **args)
{
    char err[768];
    int to[2], from[2], rc;
    ssize_t n;

    w->out = -1;
    if ( pipe2(to, O_CLOEXEC) )
        return hvb_failure("pipe: %s", strerror(errno));
    if ( pipe2(from, O_CLOEXEC) )
    {
        close(to[0]);
        close(to[1]);
        return hvb_failure("pipe: %s", strerror(errno));
    }
    fflush(NULL);
    /* A group of its own: a deadline kills the worker and its children. */
    w->pid = hvb_interrupt_fork();
    if ( w->pid == 0 )
    {
        dup2(to[0], 0);
        dup2(from[1], 1);
        args[0] = (char *)w->bin;
        execv(w->bin, args);
        fprintf(stderr, "hvbench: cannot run %s: %s\n", w->bin,
                strerror(errno));
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    if ( w->pid < 0 )
    {
        close(to[1]);
        close(from[0]);
        return hvb_failure("fork: %s", strerror(errno));
    }
    w->in = fdopen(to[1], "w");
    w->out = from[0];
    if ( w->in == NULL )
        return hvb_failure("fdopen: %s", strerror(errno));
    n = read_line(w, w->timeout_s);
    if ( n == -ETIMEDOUT )
    {
        timed_out(w, "say hello", err, sizeof(err));
        return hvb_usage_error("%s", err);
    }
    if ( n > 6 && strncmp(w->line, "hello ", 6) == 0 )
        w->hello = json_loads(w->line + 6, 0, NULL);
    if ( w->hello != NULL && json_integer_value(json_object_get(
                                 w->hello, "protocol")) == HVB_WORKER_PROTOCOL )
        return 0;
    rc = end_worker(w, false);
    if ( n <= 0 && rc == HVB_EXIT_USAGE )
        return hvb_usage_error("the %s build (%s) refused the run options "
                               "(its message above)",
                               w->label, w->bin);
    return hvb_usage_error("the %s build (%s) does not speak the worker "
                           "protocol %d (exit status %d; an hvbench older "
                           "than 'gate --base-bin'?)",
                           w->label, w->bin, HVB_WORKER_PROTOCOL, rc);
}
