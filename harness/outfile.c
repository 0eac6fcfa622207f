/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Output files that never destroy what their name stands for
 * (hvb/outfile.h has the rules).  Example, as root:
 *
 *   hvbench run lookup --out /dev/null     written in place; /dev/null
 *                                          stays a character device
 *   hvbench run lookup --out /dev/full     exit 1: "cannot write results
 *                                          to '/dev/full' (writing): No
 *                                          space left on device"
 *   hvbench run lookup --out /dev/sda      exit 2 before the run: a block
 *                                          device is never written
 *   hvbench run lookup --out r.json        .r.json.XXXXXX, fsync, rename
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <hvb/outfile.h>

/*
 * Character devices that may be written in place: the memory class's
 * null (1:3), zero (1:5) and full (1:7), and terminals (consoles 4:*,
 * /dev/tty 5:0, pseudo-terminals 136-143:*).  Writing JSON to any other
 * one (/dev/mem, /dev/port, a disk's raw node) could do harm.
 */
static bool harmless_chardev(dev_t rdev)
{
    unsigned int maj = major(rdev), min = minor(rdev);

    if ( maj == 1 )
        return min == 3 || min == 5 || min == 7;
    return maj == 4 || maj == 5 || (maj >= 136 && maj <= 143);
}

static char *dir_of(const char *path)
{
    char *copy = strdup(path), *d;

    if ( copy == NULL )
        return NULL;
    d = strdup(dirname(copy));
    free(copy);
    return d;
}

#define FAIL(e, ...)                                                 \
    do                                                               \
    {                                                                \
        snprintf(err, len, "cannot write %s to '%s': " __VA_ARGS__); \
        return -(e);                                                 \
    } while ( 0 )

/* What is at @path (followed through links): kind, or refused. */
static int classify(const char *path, const char *what,
                    enum hvb_outfile_kind *kind, char *err, size_t len)
{
    struct stat st, lst;

    if ( *path == '\0' )
    {
        snprintf(err, len, "%s needs a file name, not an empty one", what);
        return -EINVAL;
    }
    if ( stat(path, &st) )
    {
        int e = errno;

        if ( e == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) )
            FAIL(ENOENT, "it is a symbolic link to nothing", what, path);
        if ( e != ENOENT )
            FAIL(e, "%s", what, path, strerror(e));
        *kind = HVB_OUTFILE_REPLACE;
        return 0;
    }
    if ( S_ISREG(st.st_mode) )
        *kind = HVB_OUTFILE_REPLACE;
    else if ( S_ISFIFO(st.st_mode) ||
              (S_ISCHR(st.st_mode) && harmless_chardev(st.st_rdev)) )
        *kind = HVB_OUTFILE_INPLACE;
    else if ( S_ISDIR(st.st_mode) )
        FAIL(EISDIR, "it is a directory", what, path);
    else if ( S_ISBLK(st.st_mode) )
        FAIL(EPERM, "it is a block device (never written)", what, path);
    else if ( S_ISCHR(st.st_mode) )
        FAIL(EPERM,
             "it is a character device %u:%u (only pipes, terminals, "
             "/dev/null, /dev/zero and /dev/full are written in place)",
             what, path, major(st.st_rdev), minor(st.st_rdev));
    else
        FAIL(EPERM, "it is not a regular file, a pipe or a terminal", what,
             path);
    return 0;
}

int hvb_outfile_check(const char *path, const char *what,
                      enum hvb_outfile_kind *kind, char *err, size_t len)
{
    char *dir;
    struct stat st;
    int rc = classify(path, what, kind, err, len);

    if ( rc || *kind == HVB_OUTFILE_INPLACE )
        return rc;
    dir = dir_of(path);
    if ( dir == NULL )
        FAIL(ENOMEM, "out of memory", what, path);
    if ( stat(dir, &st) || !S_ISDIR(st.st_mode) )
    {
        snprintf(err, len, "cannot write %s to '%s': no directory '%s'", what,
                 path, dir);
        rc = -ENOENT;
    }
    else if ( access(dir, W_OK | X_OK) )
    {
        rc = -errno;
        snprintf(err, len, "cannot write %s to '%s': %s", what, path,
                 strerror(errno));
    }
    free(dir);
    return rc;
}

/* Open a pipe or harmless device for writing, without blocking forever. */
static int open_inplace(struct hvb_outfile *o, char *err, size_t len)
{
    const char *what = o->what, *path = o->path;
    struct stat st;
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);

    if ( fd < 0 && errno == ENXIO )
        FAIL(ENXIO, "it is a pipe with no reader", what, path);
    if ( fd < 0 )
        FAIL(errno, "%s", what, path, strerror(errno));
    /* It must still be what classify() saw: never write a file in place. */
    if ( fstat(fd, &st) ||
         !(S_ISFIFO(st.st_mode) ||
           (S_ISCHR(st.st_mode) && harmless_chardev(st.st_rdev))) ||
         fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) )
    {
        close(fd);
        FAIL(EAGAIN, "it changed while being opened", what, path);
    }
    o->f = fdopen(fd, "w");
    if ( o->f == NULL )
    {
        close(fd);
        FAIL(errno, "%s", what, path, strerror(errno));
    }
    return 0;
}

static int open_replace(struct hvb_outfile *o, char *err, size_t len)
{
    const char *what = o->what, *path = o->path;
    char *dir, *base, *copy;
    size_t n;
    int fd;

    /* Replace a link's target, not the link. */
    o->target = realpath(path, NULL);
    if ( o->target == NULL && errno != ENOENT )
        FAIL(errno, "%s", what, path, strerror(errno));
    if ( o->target == NULL && (o->target = strdup(path)) == NULL )
        FAIL(ENOMEM, "out of memory", what, path);
    dir = dir_of(o->target);
    copy = strdup(o->target);
    if ( dir == NULL || copy == NULL )
    {
        free(dir);
        free(copy);
        FAIL(ENOMEM, "out of memory", what, path);
    }
    base = basename(copy);
    n = strlen(dir) + strlen(base) + 16;
    o->tmp = malloc(n);
    if ( o->tmp != NULL )
        snprintf(o->tmp, n, "%s/.%s.XXXXXX", dir, base);
    free(dir);
    free(copy);
    if ( o->tmp == NULL )
        FAIL(ENOMEM, "out of memory", what, path);
    fd = mkstemp(o->tmp);
    if ( fd < 0 )
    {
        int e = errno;

        free(o->tmp);
        o->tmp = NULL;
        FAIL(e, "creating a temporary file: %s", what, path, strerror(e));
    }
    if ( fchmod(fd, 0644) || (o->f = fdopen(fd, "w")) == NULL )
    {
        int e = errno;

        close(fd);
        hvb_outfile_abort(o);
        FAIL(e, "%s", what, path, strerror(e));
    }
    return 0;
}

int hvb_outfile_open(struct hvb_outfile *o, const char *path, const char *what,
                     char *err, size_t len)
{
    int rc;

    *o = (struct hvb_outfile){.what = what, .path = path};
    rc = classify(path, what, &o->kind, err, len);
    if ( rc == 0 )
        rc = o->kind == HVB_OUTFILE_INPLACE ? open_inplace(o, err, len)
                                            : open_replace(o, err, len);
    if ( rc )
        hvb_outfile_abort(o);
    return rc;
}

int hvb_outfile_commit(struct hvb_outfile *o, char *err, size_t len)
{
    const char *step = "writing";
    char *dir;
    int e = 0, dfd;

    if ( fflush(o->f) || ferror(o->f) )
        e = errno ? errno : EIO;
    else if ( o->kind == HVB_OUTFILE_REPLACE && fsync(fileno(o->f)) )
        e = errno, step = "syncing";
    if ( fclose(o->f) && e == 0 )
        e = errno, step = "closing";
    o->f = NULL;
    if ( e == 0 && o->kind == HVB_OUTFILE_REPLACE && rename(o->tmp, o->target) )
        e = errno, step = "renaming";
    if ( e )
    {
        snprintf(err, len, "cannot write %s to '%s' (%s): %s", o->what, o->path,
                 step, strerror(e));
        hvb_outfile_abort(o);
        return -e;
    }
    if ( o->kind == HVB_OUTFILE_REPLACE && (dir = dir_of(o->target)) != NULL )
    {
        /* Make the rename itself durable. */
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if ( dfd >= 0 )
        {
            if ( fsync(dfd) && errno != EINVAL )
                fprintf(stderr, "hvbench: warning: syncing directory %s: %s\n",
                        dir, strerror(errno));
            close(dfd);
        }
        free(dir);
    }
    free(o->tmp);
    o->tmp = NULL;
    hvb_outfile_abort(o);
    return 0;
}

void hvb_outfile_abort(struct hvb_outfile *o)
{
    if ( o->f != NULL )
        fclose(o->f);
    o->f = NULL;
    if ( o->tmp != NULL )
        unlink(o->tmp);
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
}
