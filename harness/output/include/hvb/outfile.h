/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Writing an output file (results, gate markdown, folded stacks) without
 * destroying what the name stands for.
 *
 * What the target is decides how it is written:
 *
 *   nothing there, or a regular file   a temporary file in the same
 *                                      directory, written, fsync'd, renamed
 *                                      over the name, directory fsync'd: a
 *                                      reader sees the old file or the new
 *                                      one, never half of one
 *   a symbolic link to a regular file  the same, over the link's target
 *                                      (the link stays a link)
 *   a pipe, /dev/null, /dev/full,      opened and written in place, with no
 *   /dev/zero or a terminal            temporary file and nothing renamed
 *                                      ("--out /dev/null" as root used to
 *                                      replace the device with a file)
 *   anything else (a directory, a      refused before anything is written
 *   block or other character device,
 *   a socket, a dangling link)
 *
 * The temporary file is ".NAME.PID.XXXXXX"; one left by a writer that was
 * killed (kill -9) is removed by the next write of the same target once
 * its PID is gone.  A path in a message is cut in the middle, with a
 * marker, so that the reason always fits.
 *
 * Every write, flush, fsync and close is checked: a failure (ENOSPC on
 * /dev/full, say) is -errno with a one-line message naming the file, the
 * step and the error, and a temporary file is removed.
 */
#ifndef HVB_OUTFILE_H
#define HVB_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum hvb_outfile_kind {
    HVB_OUTFILE_REPLACE, /* nothing or a regular file: temporary + rename */
    HVB_OUTFILE_INPLACE, /* a pipe or a harmless character device */
};

struct hvb_outfile {
    FILE *f; /* write here between open and commit */
    enum hvb_outfile_kind kind;
    char *target;     /* the file the data ends up in (links resolved) */
    char *tmp;        /* the temporary file (REPLACE only) */
    const char *what; /* "results", "markdown", ... for messages */
    const char *path; /* the name as given, for messages */
};

/*
 * hvb_outfile_check - could @path be written, and how?  Checks what is
 * there now and, for a regular file, creates and removes a temporary file
 * beside it (so /proc/x.json, a name too long or a read-only directory
 * is found before a run, not after its first round).  0 with @kind
 * set, or -errno with a one-line @err ("cannot write @what to 'P': ...").
 */
int hvb_outfile_check(const char *path, const char *what,
                      enum hvb_outfile_kind *kind, char *err, size_t len);

/* hvb_outfile_open - start writing @path; 0 or -errno with @err. */
int hvb_outfile_open(struct hvb_outfile *o, const char *path, const char *what,
                     char *err, size_t len);

/*
 * hvb_outfile_commit - finish: flush, fsync (regular files), close and
 * rename into place.  0, or -errno with @err and the target untouched
 * (in place: what was written so far has been written).
 */
int hvb_outfile_commit(struct hvb_outfile *o, char *err, size_t len);

/* hvb_outfile_abort - give up: close, remove the temporary file. */
void hvb_outfile_abort(struct hvb_outfile *o);

/*
 * One writer per file: two runs writing one --out at once would each
 * rename their own rounds over the other's.  A run holds the lock from
 * before its first round to its end.
 */
struct hvb_outfile_lock {
    int fd;     /* -1: not held */
    char *path; /* ".NAME.lock" beside the target */
};

/*
 * hvb_outfile_lock - lock @path (a REPLACE target) for writing: 0, or
 * -EBUSY with @err naming the other writer's pid, or -errno.
 */
int hvb_outfile_lock(const char *path, const char *what,
                     struct hvb_outfile_lock *l, char *err, size_t len);

/*
 * hvb_outfile_remove - remove @path and what its writer, gone now (a
 * --processes child that was killed), left beside it: its lock file and
 * temporary files.
 */
void hvb_outfile_remove(const char *path);

/* hvb_outfile_unlock - release and remove the lock file (safe if unheld). */
void hvb_outfile_unlock(struct hvb_outfile_lock *l);

#endif /* HVB_OUTFILE_H */
