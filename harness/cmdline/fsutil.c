/* SPDX-License-Identifier: GPL-2.0-only */
/* Small file operations the commands share; see hvb/fsutil.h. */
#define _GNU_SOURCE /* mkostemp; nftw */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hvb/fsutil.h>

int hvb_mkdirs(const char *path)
{
    char buf[PATH_MAX], *p;

    snprintf(buf, sizeof(buf), "%s", path);
    for ( p = buf + 1; *p; p++ )
        if ( *p == '/' )
        {
            *p = '\0';
            if ( mkdir(buf, 0755) && errno != EEXIST )
                return -errno;
            *p = '/';
        }
    if ( mkdir(buf, 0755) && errno != EEXIST )
        return -errno;
    return 0;
}

/*
 * A new temporary file beside @to (@tmp, @len), mode @mode: made with
 * O_EXCL, so nothing planted there (a symlink) is ever opened.  Its fd
 * or -errno.
 */
static int temp_beside(const char *to, mode_t mode, char *tmp, size_t len)
{
    int fd;

    if ( (size_t)snprintf(tmp, len, "%s.XXXXXX", to) >= len )
        return -ENAMETOOLONG;
    fd = mkostemp(tmp, O_CLOEXEC);
    if ( fd < 0 )
        return -errno;
    if ( fchmod(fd, mode) )
    {
        int rc = -errno;

        close(fd);
        unlink(tmp);
        return rc;
    }
    return fd;
}

/* Close @fd, rename @tmp to @to (or remove it after @rc): 0 or -errno. */
static int temp_commit(int fd, const char *tmp, const char *to, int rc)
{
    if ( rc == 0 && fsync(fd) )
        rc = -errno;
    if ( close(fd) && rc == 0 )
        rc = -errno;
    if ( rc == 0 && rename(tmp, to) )
        rc = -errno;
    if ( rc )
        unlink(tmp);
    return rc;
}

int hvb_replace_file(const char *to, const void *data, size_t len, mode_t mode)
{
    char tmp[PATH_MAX + 16];
    const char *p = data;
    int fd = temp_beside(to, mode, tmp, sizeof(tmp)), rc = 0;
    ssize_t n;

    if ( fd < 0 )
        return fd;
    while ( rc == 0 && len > 0 )
    {
        n = write(fd, p, len);
        if ( n < 0 && errno == EINTR )
            continue;
        if ( n <= 0 )
            rc = n < 0 ? -errno : -EIO;
        else
            p += n, len -= (size_t)n;
    }
    return temp_commit(fd, tmp, to, rc);
}

/* Copy @from to @to (mode @mode) through a temporary file. */
int hvb_copy_file(const char *from, const char *to, mode_t mode)
{
    char tmp[PATH_MAX + 16], buf[65536];
    int in, out, rc = 0;
    ssize_t n;

    in = open(from, O_RDONLY | O_CLOEXEC);
    if ( in < 0 )
        return -errno;
    out = temp_beside(to, mode, tmp, sizeof(tmp));
    if ( out < 0 )
    {
        close(in);
        return out;
    }
    while ( rc == 0 && (n = read(in, buf, sizeof(buf))) != 0 )
        if ( n < 0 || write(out, buf, (size_t)n) != n )
            rc = errno ? -errno : -EIO;
    close(in);
    return temp_commit(out, tmp, to, rc);
}

char *hvb_slurp(const char *path, size_t *len)
{
    size_t cap = 0, n = 0;
    char *buf = NULL, *p;
    ssize_t r;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if ( fd < 0 )
        return NULL;
    for ( ;; )
    {
        if ( n + 1 >= cap )
        {
            cap = cap ? cap * 2 : 65536;
            p = realloc(buf, cap);
            if ( p == NULL )
                break;
            buf = p;
        }
        r = read(fd, buf + n, cap - n - 1);
        if ( r < 0 && errno == EINTR )
            continue;
        if ( r <= 0 )
        {
            close(fd);
            if ( r < 0 )
                break;
            buf[n] = '\0';
            if ( len != NULL )
                *len = n;
            return buf;
        }
        n += (size_t)r;
    }
    close(fd);
    free(buf);
    return NULL;
}

int hvb_dir_ours(const char *path, int private, char *why, size_t len)
{
    struct stat st;

    int e;

    if ( lstat(path, &st) )
    {
        e = errno;
        snprintf(why, len, "%s", strerror(e));
        return -e;
    }
    if ( S_ISLNK(st.st_mode) )
        snprintf(why, len, "a symlink, not a directory");
    else if ( !S_ISDIR(st.st_mode) )
        snprintf(why, len, "not a directory");
    else if ( st.st_uid != geteuid() )
        snprintf(why, len, "owned by uid %u, not this user (%u)",
                 (unsigned int)st.st_uid, (unsigned int)geteuid());
    else if ( private && (st.st_mode & 022) )
        snprintf(why, len, "mode %04o: writable by others",
                 (unsigned int)(st.st_mode & 07777));
    else
        return 0;
    return -EPERM;
}

int hvb_mkdir_ours(const char *path, char *why, size_t len)
{
    int e;

    if ( mkdir(path, 0755) && (e = errno) != EEXIST )
    {
        snprintf(why, len, "%s", strerror(e));
        return -e;
    }
    return hvb_dir_ours(path, 0, why, len);
}

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if ( (flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT )
        return -errno;
    return 0;
}

int hvb_rmtree(const char *path)
{
    struct stat st;

    if ( lstat(path, &st) )
        return errno == ENOENT ? 0 : -errno;
    if ( !S_ISDIR(st.st_mode) )
        return unlink(path) ? -errno : 0;
    return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
