/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The gate's end of the worker protocol (gate.h): "gate --base-bin"
 * (cmd_gate_bin.c) starts one worker per build, asks it for samples one
 * line at a time, and stops it.  E.g. hvb_gate_worker_start() runs
 * "OLD/hvbench worker lookup --plugin domlookup=rcu-ref -q" and keeps its
 * hello; hvb_gate_worker_ask(w, "run 0 1000000", &reply, ...) gives the
 * reply {"ns": 6.1, "counters": {...}}.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include <hvb/cli.h>

#include "gate.h"

int hvb_gate_worker_wait(struct hvb_gate_worker *w)
{
    int status;

    if ( w->pid <= 0 )
        return 0;
    while ( waitpid(w->pid, &status, 0) < 0 )
        if ( errno != EINTR )
            return -1;
    w->pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void hvb_gate_worker_stop(struct hvb_gate_worker *w)
{
    if ( w->in != NULL )
    {
        fputs("quit\n", w->in);
        fclose(w->in);
        w->in = NULL;
    }
    if ( w->out != NULL )
    {
        while ( getline(&w->line, &w->cap, w->out) > 0 )
            ;
        fclose(w->out);
        w->out = NULL;
    }
    hvb_gate_worker_wait(w);
    json_decref(w->hello);
    w->hello = NULL;
    free(w->line);
    w->line = NULL;
    w->cap = 0;
}

int hvb_gate_worker_ask(struct hvb_gate_worker *w, const char *cmd,
                        json_t **reply, char *err, size_t len)
{
    ssize_t n;

    *reply = NULL;
    if ( fprintf(w->in, "%s\n", cmd) < 0 || fflush(w->in) )
        n = -1;
    else
        n = getline(&w->line, &w->cap, w->out);
    if ( n <= 0 )
    {
        snprintf(err, len, "the %s build's worker (%s) stopped answering",
                 w->label, w->bin);
        return -EIO;
    }
    w->line[strcspn(w->line, "\n")] = '\0';
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
    int to[2], from[2], rc;
    ssize_t n;

    if ( pipe(to) )
        return hvb_failure("pipe: %s", strerror(errno));
    if ( pipe(from) )
    {
        close(to[0]);
        close(to[1]);
        return hvb_failure("pipe: %s", strerror(errno));
    }
    fflush(NULL);
    w->pid = fork();
    if ( w->pid == 0 )
    {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[0]);
        close(to[1]);
        close(from[0]);
        close(from[1]);
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
    w->out = fdopen(from[0], "r");
    if ( w->in == NULL || w->out == NULL )
        return hvb_failure("fdopen: %s", strerror(errno));
    n = getline(&w->line, &w->cap, w->out);
    if ( n > 6 && strncmp(w->line, "hello ", 6) == 0 )
        w->hello = json_loads(w->line + 6, 0, NULL);
    if ( w->hello != NULL && json_integer_value(json_object_get(
                                 w->hello, "protocol")) == HVB_WORKER_PROTOCOL )
        return 0;
    fclose(w->in);
    w->in = NULL;
    rc = hvb_gate_worker_wait(w);
    if ( n <= 0 && rc == HVB_EXIT_USAGE )
        return hvb_usage_error("the %s build (%s) refused the run options "
                               "(its message above)",
                               w->label, w->bin);
    return hvb_usage_error("the %s build (%s) does not speak the worker "
                           "protocol %d (exit status %d; an hvbench older "
                           "than 'gate --base-bin'?)",
                           w->label, w->bin, HVB_WORKER_PROTOCOL, rc);
}
