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
 *   hvbench run lookup --out r.json        .r.json.lock held for the run;
 *                                          each write .r.json.PID.XXXXXX,
 *                                          fsync, rename
 *   (a second run, same --out, meanwhile)  exit 2: "cannot write results
 *                                          to 'r.json': another hvbench
 *                                          (pid 4242) is writing it; ..."
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* A path in a message: cut in the middle of a long one, with a marker. */
#define SHOWN_LEN 200
static const char *shown(const char *path, char buf[SHOWN_LEN])
{
    size_t n = strlen(path);

    if ( n < SHOWN_LEN - 40 )
        return path;
    snprintf(buf, SHOWN_LEN, "%.80s...[%zu bytes]...%s", path, n,
             path + n - 40);
    return buf;
}

/* "cannot write WHAT to 'PATH': REASON" into err/len, return -e. */
#define FAIL(e, fmt, ...)                                         \
    do                                                            \
    {                                                             \
        char sp_[SHOWN_LEN];                                      \
                                                                  \
        snprintf(err, len, "cannot write %s to '%s': " fmt, what, \
                 shown(path, sp_), ##__VA_ARGS__);                \
        return -(e);                                              \
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
    /* "r.json/" would be written as r.json, then fail to rename. */
    if ( path[strlen(path) - 1] == '/' )
        FAIL(EISDIR, "a file name cannot end in '/'");
    if ( stat(path, &st) )
    {
        int e = errno;

        if ( e == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) )
            FAIL(ENOENT, "it is a symbolic link to nothing");
        if ( e != ENOENT )
            FAIL(e, "%s", strerror(e));
        *kind = HVB_OUTFILE_REPLACE;
        return 0;
    }
    if ( S_ISREG(st.st_mode) )
        *kind = HVB_OUTFILE_REPLACE;
    else if ( S_ISFIFO(st.st_mode) ||
              (S_ISCHR(st.st_mode) && harmless_chardev(st.st_rdev)) )
        *kind = HVB_OUTFILE_INPLACE;
    else if ( S_ISDIR(st.st_mode) )
        FAIL(EISDIR, "it is a directory");
    else if ( S_ISBLK(st.st_mode) )
        FAIL(EPERM, "it is a block device (never written)");
    else if ( S_ISCHR(st.st_mode) )
        FAIL(EPERM,
             "it is a character device %u:%u (only pipes, terminals, "
             "/dev/null, /dev/zero and /dev/full are written in place)",
             major(st.st_rdev), minor(st.st_rdev));
    else
        FAIL(EPERM, "it is not a regular file, a pipe or a terminal");
    return 0;
}

/*
 * The file a REPLACE write ends in (a link's target, not the link), its
 * directory and its base name; malloc'd, or -ENOMEM / -errno.
 */
static int resolve(const char *path, char **target, char **dir, char **base)
{
    char *copy;

    *dir = *base = NULL;
    *target = realpath(path, NULL);
    if ( *target == NULL && errno != ENOENT )
        return -errno;
    if ( *target == NULL && (*target = strdup(path)) == NULL )
        return -ENOMEM;
    *dir = dir_of(*target);
    copy = strdup(*target);
    if ( copy != NULL )
        *base = strdup(basename(copy));
    free(copy);
    if ( *dir == NULL || *base == NULL )
    {
        free(*target);
        free(*dir);
        free(*base);
        *target = *dir = *base = NULL;
        return -ENOMEM;
    }
    return 0;
}

/* "DIR/.BASE.SUFFIX", malloc'd. */
static char *side_name(const char *dir, const char *base, const char *suffix)
{
    size_t n = strlen(dir) + strlen(base) + strlen(suffix) + 4;
    char *s = malloc(n);

    if ( s != NULL )
        snprintf(s, n, "%s/.%s.%s", dir, base, suffix);
    return s;
}

/* A temporary file beside the target, named by our pid; fd or -errno. */
static int make_tmp(const char *dir, const char *base, char **tmp)
{
    char suffix[32];
    int fd;

    snprintf(suffix, sizeof(suffix), "%ld.XXXXXX", (long)getpid());
    *tmp = side_name(dir, base, suffix);
    if ( *tmp == NULL )
        return -ENOMEM;
    fd = mkstemp(*tmp);
    if ( fd >= 0 )
        return fd;
    fd = -errno;
    free(*tmp);
    *tmp = NULL;
    return fd;
}

/*
 * Remove what a writer killed mid-write (kill -9) left of this target:
 * ".BASE.PID.XXXXXX" whose PID is no longer running.  Another live
 * writer's temporary file is never touched.
 */
static void remove_stale(const char *dir, const char *base)
{
    size_t bl = strlen(base);
    struct dirent *e;
    DIR *d = opendir(dir);

    if ( d == NULL )
        return;
    while ( (e = readdir(d)) != NULL )
    {
        const char *n = e->d_name, *p;
        char *end, *victim;
        long pid;

        if ( n[0] != '.' || strncmp(n + 1, base, bl) || n[1 + bl] != '.' )
            continue;
        p = n + 2 + bl;
        if ( *p < '1' || *p > '9' )
            continue;
        errno = 0;
        pid = strtol(p, &end, 10);
        if ( errno || *end != '.' || strlen(end + 1) != 6 || pid <= 0 ||
             pid > INT_MAX || pid == (long)getpid() ||
             kill((pid_t)pid, 0) == 0 || errno != ESRCH )
            continue;
        victim = side_name(dir, base, p);
        if ( victim != NULL && unlink(victim) == 0 )
            fprintf(stderr,
                    "hvbench: removed %s, left by process %ld (no longer "
                    "running)\n",
                    victim, pid);
        free(victim);
    }
    closedir(d);
}

int hvb_outfile_check(const char *path, const char *what,
                      enum hvb_outfile_kind *kind, char *err, size_t len)
{
    char *target, *dir, *base, *tmp, sd[SHOWN_LEN];
    struct stat st;
    int rc = classify(path, what, kind, err, len), fd;

    if ( rc || *kind == HVB_OUTFILE_INPLACE )
        return rc;
    rc = resolve(path, &target, &dir, &base);
    if ( rc )
        FAIL(-rc, "%s", strerror(-rc));
    if ( stat(dir, &st) || !S_ISDIR(st.st_mode) )
    {
        snprintf(err, len, "cannot write %s to '%s': no directory '%s'", what,
                 shown(path, sd), dir);
        rc = -ENOENT;
    }
    else if ( (fd = make_tmp(dir, base, &tmp)) < 0 )
    {
        /* What the write would meet: /proc, a read-only file system. */
        rc = fd;
        snprintf(err, len,
                 "cannot write %s to '%s': cannot create a file in "
                 "'%s': %s",
                 what, shown(path, sd), dir, strerror(-rc));
    }
    else
    {
        close(fd);
        unlink(tmp);
        free(tmp);
    }
    free(target);
    free(dir);
    free(base);
    return rc;
}

/* Open a pipe or harmless device for writing, without blocking forever. */
static int open_inplace(struct hvb_outfile *o, char *err, size_t len)
{
    const char *what = o->what, *path = o->path;
    struct stat st;
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);

    if ( fd < 0 && errno == ENXIO )
        FAIL(ENXIO, "it is a pipe with no reader");
    if ( fd < 0 )
        FAIL(errno, "%s", strerror(errno));
    /* It must still be what classify() saw: never write a file in place. */
    if ( fstat(fd, &st) ||
         !(S_ISFIFO(st.st_mode) ||
           (S_ISCHR(st.st_mode) && harmless_chardev(st.st_rdev))) ||
         fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) )
    {
        close(fd);
        FAIL(EAGAIN, "it changed while being opened");
    }
    o->f = fdopen(fd, "w");
    if ( o->f == NULL )
    {
        close(fd);
        FAIL(errno, "%s", strerror(errno));
    }
    return 0;
}

static int open_replace(struct hvb_outfile *o, char *err, size_t len)
{
    const char *what = o->what, *path = o->path;
    char *dir, *base;
    int fd, rc;

    rc = resolve(path, &o->target, &dir, &base);
    if ( rc )
        FAIL(-rc, "%s", strerror(-rc));
    remove_stale(dir, base);
    fd = make_tmp(dir, base, &o->tmp);
    free(dir);
    free(base);
    if ( fd < 0 )
        FAIL(-fd, "creating a temporary file: %s", strerror(-fd));
    if ( fchmod(fd, 0644) || (o->f = fdopen(fd, "w")) == NULL )
    {
        int e = errno;

        close(fd);
        hvb_outfile_abort(o);
        FAIL(e, "%s", strerror(e));
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
        char sp[SHOWN_LEN];

        snprintf(err, len, "cannot write %s to '%s' (%s): %s", o->what,
                 shown(o->path, sp), step, strerror(e));
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

/*
 * The lock is a file ".BASE.lock" beside the target, flock()ed for as long
 * as the writer runs and removed by it at the end.  A lock file removed
 * between our open() and our flock() is stale: its inode is no longer the
 * name's, so we try again with the new one.
 */
int hvb_outfile_lock(const char *path, const char *what,
                     struct hvb_outfile_lock *l, char *err, size_t len)
{
    char *target, *dir, *base, pidbuf[32];
    struct stat fst, nst;
    int rc, tries;
    ssize_t n;

    l->fd = -1;
    l->path = NULL;
    rc = resolve(path, &target, &dir, &base);
    if ( rc )
        FAIL(-rc, "%s", strerror(-rc));
    l->path = side_name(dir, base, "lock");
    free(target);
    free(dir);
    free(base);
    if ( l->path == NULL )
        FAIL(ENOMEM, "out of memory");
    for ( tries = 0; tries < 10; tries++ )
    {
        l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if ( l->fd < 0 )
        {
            rc = errno;
            hvb_outfile_unlock(l);
            FAIL(rc, "creating the lock file: %s", strerror(rc));
        }
        if ( flock(l->fd, LOCK_EX | LOCK_NB) )
        {
            rc = errno;
            n = pread(l->fd, pidbuf, sizeof(pidbuf) - 1, 0);
            pidbuf[n > 0 ? n : 0] = '\0';
            pidbuf[strcspn(pidbuf, "\n")] = '\0';
            close(l->fd); /* not ours: never unlink it */
            l->fd = -1;
            hvb_outfile_unlock(l);
            if ( rc != EWOULDBLOCK )
                FAIL(rc, "locking: %s", strerror(rc));
            FAIL(EBUSY,
                 "another hvbench (pid %s) is writing it; wait for it to "
                 "finish or choose another file",
                 pidbuf[0] ? pidbuf : "unknown");
        }
        if ( fstat(l->fd, &fst) == 0 && stat(l->path, &nst) == 0 &&
             fst.st_ino == nst.st_ino && fst.st_dev == nst.st_dev )
            break;
        close(l->fd); /* removed under us by its last holder: again */
        l->fd = -1;
    }
    if ( l->fd < 0 )
    {
        hvb_outfile_unlock(l);
        FAIL(EAGAIN, "its lock file keeps changing");
    }
    n = snprintf(pidbuf, sizeof(pidbuf), "%ld\n", (long)getpid());
    if ( ftruncate(l->fd, 0) || pwrite(l->fd, pidbuf, (size_t)n, 0) != n )
        fprintf(stderr, "hvbench: warning: writing %s: %s\n", l->path,
                strerror(errno));
    return 0;
}

void hvb_outfile_remove(const char *path)
{
    char *target, *dir, *base, *lock;

    if ( resolve(path, &target, &dir, &base) )
        return;
    unlink(target);
    lock = side_name(dir, base, "lock");
    if ( lock != NULL )
        unlink(lock);
    remove_stale(dir, base);
    free(lock);
    free(target);
    free(dir);
    free(base);
}

void hvb_outfile_unlock(struct hvb_outfile_lock *l)
{
    /* Removed while still held: a waiter's flock then fails its check. */
    if ( l->fd >= 0 )
    {
        unlink(l->path);
        close(l->fd);
    }
    free(l->path);
    l->fd = -1;
    l->path = NULL;
}
