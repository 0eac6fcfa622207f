/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Running one external command (hvb/exec.h): for the fleet sinfo,
 * sbatch, squeue, and this hvbench's own "run --plan"; for review git,
 * cmake and the builds' hvbench.  Its stdout and
 * stderr are read together (poll), so a command that writes a lot on
 * one of them never waits on a full pipe while hvbench waits on the
 * other; what is kept is bounded, and the command has a deadline.
 *
 * Worked example: "sinfo -h -N -o %N|%f" on a cluster of 5,000 nodes
 * prints 170 KB on stdout and, say, 200 KB of warnings on stderr.  The
 * old reader read stdout to its end and only then stderr: sinfo filled
 * the 64 KB stderr pipe and blocked in write(), hvbench blocked in
 * read() on stdout, forever.  Here both pipes drain as data comes: the
 * 170 KB are kept (up to .max_out, 16 MiB for sinfo; more is an error,
 * not a node list cut short), the first 1 KB of stderr is kept for the
 * message, the rest is read and dropped.  A command still running at
 * .timeout_s (a controller that does not answer; or one that closed its
 * output and did not exit) is killed with its process group, and the
 * caller says "sinfo did not answer within 120 s: killed
 * (--slurm-timeout sets the limit)".  Ctrl-C (hvb/interrupt.h) reaches
 * the command's group and cuts the wait to its grace: -EINTR.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hv/compiler.h>
#include <hvb/exec.h>
#include <hvb/interrupt.h>

/* Append what @fd has to @buf (kept up to @max), or drop it.  0 at EOF. */
static ssize_t drain(int fd, char **buf, size_t *len, size_t *cap, size_t max,
                     bool *cut)
{
    char sink[16384], *p;
    ssize_t r;

    if ( *len + 1 >= *cap && *cap < max + 1 )
    {
        size_t want = *cap ? *cap * 2 : 4096;

        if ( want > max + 1 )
            want = max + 1;
        p = realloc(*buf, want);
        if ( p != NULL )
        {
            *buf = p;
            *cap = want;
        }
    }
    if ( *len + 1 < *cap )
    {
        r = read(fd, *buf + *len, *cap - *len - 1);
        if ( r > 0 )
            *len += (size_t)r;
        return r;
    }
    r = read(fd, sink, sizeof(sink));
    if ( r > 0 )
        *cut = true;
    return r;
}

/*
 * Reap @pid into *@status by @deadline (monotonic s), else kill it with
 * its group and reap it then: 0, or -ETIMEDOUT (killed).
 */
static int reap(pid_t pid, double deadline, int *status)
{
    struct timespec tick = {0, 10 * 1000 * 1000};
    pid_t r;

    for ( ;; )
    {
        r = hvb_interrupt_waitpid(pid, status, WNOHANG);
        if ( r == pid )
            return 0;
        if ( r < 0 && errno != EINTR )
        {
            *status = 255 << 8; /* not ours to reap: a failure */
            return 0;
        }
        if ( hv_now_ns() * 1e-9 > hvb_interrupt_deadline(deadline) )
            break;
        nanosleep(&tick, NULL);
    }
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while ( waitpid(pid, status, 0) < 0 && errno == EINTR )
        ;
    return -ETIMEDOUT;
}

static void child(const struct hvb_exec *c, int out, int err)
{
    size_t i;

    setpgid(0, 0); /* a deadline kills the command and what it started */
    dup2(out, 1);
    if ( err >= 0 )
        dup2(err, 2);
    for ( i = 0; c->env != NULL && c->env[i] != NULL; i++ )
        putenv(c->env[i]);
    if ( c->cwd != NULL && chdir(c->cwd) )
    {
        fprintf(stderr, "cannot enter %s: %s", c->cwd, strerror(errno));
        _exit(127);
    }
    if ( c->path_search )
        execvp(c->argv[0], c->argv);
    else
        execv(c->argv[0], c->argv);
    fprintf(stderr, "cannot run %s: %s", c->argv[0], strerror(errno));
    _exit(127);
}

int hvb_exec_run(struct hvb_exec *c)
{
    int po[2], pe[2] = {-1, -1}, status, rc = 0;
    size_t ocap = 0, ecap = 0;
    double deadline;
    bool open_o = true, open_e;
    pid_t pid;

    c->out = c->errout = NULL;
    c->out_len = c->err_len = 0;
    c->out_cut = c->err_cut = c->timed_out = false;
    if ( pipe2(po, O_CLOEXEC) )
        return -errno;
    if ( c->capture_err && pipe2(pe, O_CLOEXEC) )
    {
        rc = -errno;
        close(po[0]);
        close(po[1]);
        return rc;
    }
    fflush(NULL);
    pid = hvb_interrupt_fork();
    if ( pid == 0 && c->log_fd > 0 )
        child(c, c->log_fd, c->log_fd);
    if ( pid == 0 )
        child(c, po[1], pe[1]);
    if ( pid < 0 )
        rc = -errno;
    close(po[1]);
    if ( pe[1] >= 0 )
        close(pe[1]);
    open_e = pe[0] >= 0;
    deadline = hv_now_ns() * 1e-9 + c->timeout_s;
    while ( pid > 0 && (open_o || open_e) )
    {
        struct pollfd pf[2] = {{.fd = open_o ? po[0] : -1, .events = POLLIN},
                               {.fd = open_e ? pe[0] : -1, .events = POLLIN}};
        double left = hvb_interrupt_deadline(deadline) - hv_now_ns() * 1e-9;
        int n;

        if ( left <= 0 )
        {
            c->timed_out = !hvb_interrupted();
            break;
        }
        n = poll(pf, 2, (int)(left * 1000) + 1);
        if ( n < 0 && errno != EINTR )
        {
            rc = -errno;
            break;
        }
        if ( n > 0 && pf[0].revents &&
             drain(po[0], &c->out, &c->out_len, &ocap, c->max_out,
                   &c->out_cut) <= 0 )
            open_o = false;
        if ( n > 0 && pf[1].revents &&
             drain(pe[0], &c->errout, &c->err_len, &ecap, HVB_EXEC_ERR_MAX,
                   &c->err_cut) <= 0 )
            open_e = false;
    }
    close(po[0]);
    if ( pe[0] >= 0 )
        close(pe[0]);
    if ( pid > 0 && (c->timed_out || rc) )
    {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
    }
    /* Either may be NULL (nothing read); callers get "" instead. */
    if ( c->out == NULL )
        c->out = calloc(1, 1);
    if ( c->errout == NULL )
        c->errout = calloc(1, 1);
    if ( c->out != NULL )
        c->out[c->out_len] = '\0';
    if ( c->errout != NULL )
        c->errout[c->err_len] = '\0';
    if ( pid > 0 && reap(pid, deadline, &status) )
        c->timed_out = true; /* its pipes closed, itself still there */
    if ( pid > 0 )
        hvb_interrupt_forget(pid);
    if ( hvb_interrupted() )
        return -EINTR; /* stopped by Ctrl-C or SIGTERM, not by itself */
    if ( c->timed_out )
        return -ETIMEDOUT;
    if ( rc || pid < 0 )
        return rc;
    if ( c->out == NULL || c->errout == NULL )
        return -ENOMEM;
    if ( c->out_cut )
        return -E2BIG;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void hvb_exec_free(struct hvb_exec *c)
{
    free(c->out);
    free(c->errout);
    c->out = c->errout = NULL;
}

void hvb_exec_error(const struct hvb_exec *c, int rc, char *err, size_t len)
{
    const char *e = c->errout ? c->errout : "";
    size_t n = strcspn(e, "\n");

    if ( rc == -ETIMEDOUT )
        snprintf(err, len, "%s did not answer within %g s: killed%s%s%s",
                 c->argv[0], c->timeout_s, c->timeout_hint ? " (" : "",
                 c->timeout_hint ? c->timeout_hint : "",
                 c->timeout_hint ? ")" : "");
    else if ( rc == -EINTR )
        snprintf(err, len, "%s: stopped (hvbench was interrupted)", c->argv[0]);
    else if ( rc == -E2BIG )
        snprintf(err, len, "%s printed more than %zu bytes: refused",
                 c->argv[0], c->max_out);
    else if ( rc < 0 )
        snprintf(err, len, "%s: %s", c->argv[0], strerror(-rc));
    else if ( n > 0 )
        snprintf(err, len, "%s: %.*s", c->argv[0], (int)n, e);
    else
        snprintf(err, len, "%s: exit status %d", c->argv[0], rc);
}
