/* SPDX-License-Identifier: GPL-2.0-only */
/* Re-running a command under callgrind; see callgrind.h. */
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "callgrind.h"
#include <hvb/cmdline.h>
#include <hvb/meter.h>

/*
 * What valgrind says before it applies --I1/--D1/--LL: true of the
 * host, not of the caches simulated (the probe line says which).
 */
#define HOST_CACHE_NOTE "warning: L3 cache found, using its data for the LL"

int hvb_callgrind_check(const struct hvb_matrix *m, char *err, size_t len)
{
    size_t i;

    for ( i = 0; i < m->nr_cells; i++ )
        if ( m->cells[i].cell.threads > 1 )
        {
            snprintf(
                err, len,
                "--instrument callgrind refuses %s: %u threads, but valgrind runs one thread at a time and cannot see contention (use --threads 1)",
                m->cells[i].name, m->cells[i].cell.threads);
            return -EINVAL;
        }
    return 0;
}

/* Remove the dump directory @dir and the files in it. */
static void rm_dumps(const char *dir)
{
    char path[PATH_MAX + 256];
    DIR *d = opendir(dir);
    struct dirent *e;

    while ( d != NULL && (e = readdir(d)) != NULL )
    {
        if ( strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 )
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if ( d != NULL )
        closedir(d);
    rmdir(dir);
}

/* Copy valgrind's messages from @path to stderr, less HOST_CACHE_NOTE. */
static void relay_log(const char *path)
{
    char line[1024];
    FILE *f = fopen(path, "r");

    while ( f != NULL && fgets(line, sizeof(line), f) )
        if ( strstr(line, HOST_CACHE_NOTE) == NULL )
            fputs(line, stderr);
    if ( f != NULL )
        fclose(f);
}

int hvb_callgrind_reexec(int argc, char *const *argv)
{
    char dir[] = "/tmp/hvbench-callgrind.XXXXXX";
    char outfile[PATH_MAX], logfile[PATH_MAX + 16], log[PATH_MAX];
    char self[PATH_MAX];
    const char *const *sim = hvb_meter_cg_options();
    char **av = calloc((size_t)argc + 16, sizeof(*av));
    int status, n = 0, i;
    ssize_t sl;
    pid_t pid;

    if ( av == NULL )
        return hvb_failure("out of memory");
    sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if ( sl <= 0 || mkdtemp(dir) == NULL )
    {
        free(av);
        return hvb_failure("--instrument callgrind: %s", strerror(errno));
    }
    self[sl] = '\0';
    snprintf(outfile, sizeof(outfile), "--callgrind-out-file=%s/cg.out", dir);
    snprintf(log, sizeof(log), "%s/valgrind.log", dir);
    snprintf(logfile, sizeof(logfile), "--log-file=%s", log);
    av[n++] = "valgrind";
    av[n++] = "--tool=callgrind";
    av[n++] = "--instr-atstart=no";
    av[n++] = "--quiet";
    av[n++] = outfile;
    av[n++] = logfile;
    for ( i = 0; sim[i] != NULL; i++ )
        av[n++] = (char *)sim[i];
    av[n++] = self;
    for ( i = 1; i < argc; i++ )
        av[n++] = argv[i];
    av[n] = NULL;

    fflush(NULL);
    pid = fork();
    if ( pid == 0 )
    {
        setenv(HVB_CALLGRIND_DIR_ENV, dir, 1);
        execvp("valgrind", av);
        fprintf(stderr,
                "hvbench: --instrument callgrind: cannot run valgrind: %s\n",
                strerror(errno));
        _exit(HVB_EXIT_USAGE);
    }
    free(av);
    if ( pid < 0 )
        return hvb_failure("fork: %s", strerror(errno));
    while ( waitpid(pid, &status, 0) < 0 && errno == EINTR )
        ;
    relay_log(log);
    rm_dumps(dir);
    if ( WIFEXITED(status) )
        return WEXITSTATUS(status);
    return hvb_failure("valgrind died of signal %d", WTERMSIG(status));
}
