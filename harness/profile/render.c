/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Running the render scripts (harness/profile/render/ scripts) with Debian's Python
 * (/usr/bin/python3, which has python3-matplotlib; a pyenv python3 on
 * PATH does not).  HVB_PYTHON and HVB_RENDER_DIR override the defaults.
 *
 * Where the scripts are: installed (make install, the Debian package),
 * in HVB_DATA_REL/render beside the executable's directory, found
 * through /proc/self/exe so that a tree installed under any prefix or
 * DESTDIR finds its own; else, run from the build tree, in the source
 * tree the binary was built from.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hvb/render.h>

#ifndef HVB_SOURCE_DIR
#define HVB_SOURCE_DIR "."
#endif
#ifndef HVB_DATA_REL
#define HVB_DATA_REL "../share/hvbench"
#endif

const char *hvb_render_dir(void)
{
    static char installed[4096 + 64];
    const char *d = getenv("HVB_RENDER_DIR");
    char exe[4096], *slash;
    ssize_t n;

    if ( d && *d )
        return d;
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if ( n > 0 )
    {
        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if ( slash != NULL )
            *slash = '\0';
        if ( snprintf(installed, sizeof(installed), "%s/%s/render", exe,
                      HVB_DATA_REL) < (int)sizeof(installed) &&
             access(installed, X_OK) == 0 )
            return installed;
    }
    return HVB_SOURCE_DIR "/harness/profile/render";
}

int hvb_render_run(const char *script, char *const *args)
{
    const char *py = getenv("HVB_PYTHON");
    char path[4096];
    char **argv;
    size_t n = 0, i;
    pid_t pid;
    int st;

    if ( py == NULL || *py == '\0' )
        py = "/usr/bin/python3";
    snprintf(path, sizeof(path), "%s/%s", hvb_render_dir(), script);
    if ( access(path, R_OK) )
        return -ENOENT;
    while ( args[n] != NULL )
        n++;
    argv = calloc(n + 3, sizeof(*argv));
    if ( argv == NULL )
        return -ENOMEM;
    argv[0] = (char *)py;
    argv[1] = path;
    for ( i = 0; i < n; i++ )
        argv[i + 2] = args[i];
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if ( pid == 0 )
    {
        execv(py, argv);
        fprintf(stderr, "hvbench: cannot run %s: %s\n", py, strerror(errno));
        _exit(127);
    }
    free(argv);
    if ( pid < 0 )
        return -errno;
    if ( waitpid(pid, &st, 0) < 0 )
        return -errno;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
