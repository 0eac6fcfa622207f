/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Build and source information for the results.  git runs without a
 * shell, with stdin and stderr on /dev/null; any failure (no git, not a
 * git tree, no commit yet) gives "unknown" rather than an error.
 */
#define _GNU_SOURCE /* pipe2 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hvb/buildinfo.h>

#ifndef HVB_VERSION
#define HVB_VERSION "unknown"
#endif
#ifndef HVB_COMPILER
#define HVB_COMPILER "unknown"
#endif
#ifndef HVB_CFLAGS
#define HVB_CFLAGS "unknown"
#endif
#ifndef HVB_BUILD_TYPE
#define HVB_BUILD_TYPE "unknown"
#endif
#ifndef HVB_SOURCE_DIR
#define HVB_SOURCE_DIR "."
#endif

extern char **environ;

/*
 * Run "git -C <dir> <a1> <a2>"; the first @len-1 bytes of its stdout go
 * into @out, @total gets the whole length.  Returns git's exit status,
 * or -1 if it could not run.
 */
static int run_git(const char *a1, const char *a2, char *out, size_t len,
                   size_t *total)
{
    char *argv[] = {"git",      "-C",       (char *)HVB_SOURCE_DIR,
                    (char *)a1, (char *)a2, NULL};
    posix_spawn_file_actions_t fa;
    int pfd[2], status, rc;
    size_t used = 0;
    pid_t pid;
    ssize_t n;
    char buf[4096];

    *total = 0;
    out[0] = '\0';
    if ( pipe2(pfd, O_CLOEXEC) )
        return -1;
    if ( posix_spawn_file_actions_init(&fa) )
    {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    rc = posix_spawnp(&pid, "git", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if ( rc )
    {
        close(pfd[0]);
        return -1;
    }
    while ( (n = read(pfd[0], buf, sizeof(buf))) != 0 )
    {
        if ( n < 0 )
        {
            if ( errno == EINTR )
                continue;
            break;
        }
        if ( used + 1 < len )
        {
            size_t k = (size_t)n < len - 1 - used ? (size_t)n : len - 1 - used;

            memcpy(out + used, buf, k);
            used += k;
            out[used] = '\0';
        }
        *total += (size_t)n;
    }
    close(pfd[0]);
    while ( waitpid(pid, &status, 0) < 0 )
        if ( errno != EINTR )
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool is_hex_commit(const char *s)
{
    size_t n = strlen(s);

    if ( n != 40 && n != 64 )
        return false;
    for ( ; *s; s++ )
        if ( !isxdigit((unsigned char)*s) )
            return false;
    return true;
}

const char *hvb_version(void)
{
    return HVB_VERSION;
}

void hvb_buildinfo_get(struct hvb_buildinfo *bi)
{
    char out[72];
    size_t total;

    bi->version = HVB_VERSION;
    bi->compiler = HVB_COMPILER;
    bi->cflags = HVB_CFLAGS;
    bi->build_type = HVB_BUILD_TYPE;
    bi->source_dir = HVB_SOURCE_DIR;
    snprintf(bi->commit, sizeof(bi->commit), "unknown");
    bi->dirty = -1;

    if ( run_git("rev-parse", "--is-inside-work-tree", out, sizeof(out),
                 &total) != 0 )
        return; /* no git, or not a git tree */
    if ( run_git("rev-parse", "HEAD", out, sizeof(out), &total) == 0 )
    {
        out[strcspn(out, "\n")] = '\0';
        if ( is_hex_commit(out) )
            snprintf(bi->commit, sizeof(bi->commit), "%s", out);
    }
    if ( run_git("status", "--porcelain", out, sizeof(out), &total) == 0 )
        bi->dirty = total > 0;
}
