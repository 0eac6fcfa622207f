/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench run --processes N" (run_session.c): the command line run again
 * N times, one child process after another, each writing its own
 * temporary results file, whose rounds are pooled into the parent's
 * result.  E.g. --processes 3 --repetitions 4: children 1, 2, 3 each run
 * 4 rounds; child 2's round 1 becomes repetition 5 of 12.  With --trace,
 * each child writes its timeline beside its results file, and the parent
 * merges them (trace_merge.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hvb/cmdline.h>
#include <hvb/outfile.h>
#include <hvb/resume.h>
#include <hvb/run.h>
#include <hvb/watch.h>

#include "private.h"

/* A temporary results file for a child, beside --out or in $TMPDIR. */
static int child_out(const struct hvb_run_opts *o, char *path, size_t len)
{
    const char *dir = getenv("TMPDIR"), *slash;
    int fd;

    if ( dir == NULL || *dir == '\0' )
        dir = "/tmp";
    slash = o->out_path ? strrchr(o->out_path, '/') : NULL;
    if ( o->out_path != NULL && slash == NULL )
        snprintf(path, len, ".hvbench-process.XXXXXX");
    else if ( o->out_path != NULL )
        snprintf(path, len, "%.*s/.hvbench-process.XXXXXX",
                 (int)(slash - o->out_path), o->out_path);
    else
        snprintf(path, len, "%s/hvbench-process.XXXXXX", dir);
    fd = mkstemp(path);
    if ( fd < 0 )
        return -errno;
    close(fd);
    return 0;
}

/*
 * Run one child of --processes, with --trace @trace when not NULL; its
 * exit status (128 + signal) or -errno.
 */
static int run_child(struct hvb_run_state *st, const char *out,
                     const char *trace)
{
    const struct hvb_run_opts *o = st->o;
    char self[PATH_MAX];
    char **av = calloc((size_t)o->child_argc + 8, sizeof(*av));
    int status, n = 0, i, fd;
    ssize_t sl;
    pid_t pid;

    if ( av == NULL )
        return -ENOMEM;
    sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if ( sl <= 0 )
    {
        free(av);
        return -errno;
    }
    self[sl] = '\0';
    av[n++] = self;
    for ( i = 0; i < o->child_argc; i++ )
        av[n++] = o->child_argv[i];
    av[n++] = "--out";
    av[n++] = (char *)out;
    av[n++] = "--quiet";
    if ( trace != NULL )
    {
        av[n++] = "--trace";
        av[n++] = (char *)trace;
    }
    av[n] = NULL;

    fflush(NULL);
    /*
     * Forked and made known in one step of the write lock: an interrupt
     * between the two would find no child to stop, remove its file and
     * exit while the child runs on and writes its lock file (ctest
     * interrupt, seen once in CI: "left behind: .hvbench-process.*.lock").
     */
    pthread_mutex_lock(&st->write_lock);
    pid = fork();
    if ( pid == 0 )
    {
        hvb_watch_child();
        /* The parent prints the pooled result; a child's stdout is noise. */
        fd = open("/dev/null", O_WRONLY);
        if ( fd >= 0 )
            dup2(fd, 1);
        execv(self, av);
        fprintf(stderr, "hvbench: cannot run %s: %s\n", self, strerror(errno));
        _exit(HVB_EXIT_FAIL);
    }
    status = pid < 0 ? -errno : 0;
    if ( pid > 0 )
        st->child = pid;
    pthread_mutex_unlock(&st->write_lock);
    free(av);
    if ( pid < 0 )
        return status;
    while ( waitpid(pid, &status, 0) < 0 )
        if ( errno != EINTR )
        {
            status = -errno;
            pthread_mutex_lock(&st->write_lock);
            st->child = 0;
            pthread_mutex_unlock(&st->write_lock);
            return status;
        }
    pthread_mutex_lock(&st->write_lock);
    st->child = 0;
    pthread_mutex_unlock(&st->write_lock);
    if ( WIFEXITED(status) )
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

/*
 * Remove child @k's file @path and say which process runs next, in one
 * step of the write lock: an interrupt (run_session.c's on_signal())
 * then finds either the file to remove or none, and names process k + 2
 * once k + 1 is done (ctest interrupt: SIGINT right after "process 1/3
 * done" said "in process 1 of 3" while the parent was pooling).
 */
static void child_done(struct hvb_run_state *st, unsigned int k,
                       const char *path, const char *trace)
{
    pthread_mutex_lock(&st->write_lock);
    hvb_outfile_remove(path);
    st->child_out = NULL;
    if ( trace != NULL )
        hvb_outfile_remove(trace);
    st->child_trace = NULL;
    if ( k + 1 < st->o->processes )
        st->proc = k + 2;
    pthread_mutex_unlock(&st->write_lock);
}

int hvb_run_processes(struct hvb_run_state *st, struct hvb_engine_result *res)
{
    const struct hvb_run_opts *o = st->o;
    unsigned int k, total = o->repetitions * o->processes;
    char path[PATH_MAX], tpath[PATH_MAX + 8], err[512] = "";
    const char *trace = NULL;
    int rc;

    for ( k = 0; k < o->processes; k++ )
    {
        /* Made and made known at once: an interrupt removes them. */
        pthread_mutex_lock(&st->write_lock);
        rc = child_out(o, path, sizeof(path));
        st->child_out = rc ? NULL : path;
        if ( rc == 0 && st->trace.path != NULL )
        {
            snprintf(tpath, sizeof(tpath), "%s.trace", path);
            trace = st->child_trace = tpath;
        }
        st->proc = k + 1;
        pthread_mutex_unlock(&st->write_lock);
        if ( rc )
            return hvb_failure("--processes: temporary file %s: %s", path,
                               strerror(-rc));
        rc = run_child(st, path, trace);
        if ( rc < 0 )
        {
            child_done(st, k, path, trace);
            return hvb_failure("--processes: process %u of %u: %s", k + 1,
                               o->processes, strerror(-rc));
        }
        if ( rc != 0 )
        {
            child_done(st, k, path, trace);
            return hvb_failure("--processes: process %u of %u failed (%s %d)",
                               k + 1, o->processes,
                               rc > 128 ? "signal" : "exit status",
                               rc > 128 ? rc - 128 : rc);
        }
        rc = hvb_resume_pool(path, st->m, o->repetitions, k * o->repetitions,
                             total, st->iters, res, err, sizeof(err));
        if ( rc == 0 && trace != NULL )
            rc = hvb_trace_take(&st->trace, st->m, trace, k, err, sizeof(err));
        child_done(st, k, path, trace);
        if ( rc )
            return hvb_failure("--processes: process %u of %u: %s", k + 1,
                               o->processes, err);
        if ( k == 0 )
            hvb_run_on_context(st, res->context_json);
        if ( !o->quiet && !isatty(2) )
            fprintf(stderr, "hvbench: process %u/%u done\n", k + 1,
                    o->processes);
    }
    return HVB_EXIT_OK;
}
