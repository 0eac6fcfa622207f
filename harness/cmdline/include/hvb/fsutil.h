/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small file operations the commands share (fsutil.c): the fleet's
 * staging directory, the review's build cache.
 */
#ifndef HVB_FSUTIL_H
#define HVB_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* mkdir -p @path (0755): 0 or -errno. */
int hvb_mkdirs(const char *path);

/*
 * Copy @from to @to (mode @mode) through a temporary file beside it made
 * with O_EXCL, renamed over @to (a symlink at @to is replaced, never
 * written through): 0 or -errno.
 */
int hvb_copy_file(const char *from, const char *to, mode_t mode);

/* @len bytes of @data as @to, the same way: 0 or -errno. */
int hvb_replace_file(const char *to, const void *data, size_t len, mode_t mode);

/* The whole of @path, NUL-terminated (malloc'd; its length in @len), or
 * NULL with errno. */
char *hvb_slurp(const char *path, size_t *len);

/*
 * Is @path a directory of this user's (lstat: a symlink is not), and,
 * with @private, writable by nobody else?  0, or -errno with the reason
 * ("a symlink", "owned by uid 1001", "mode 0777") in @why (@len).
 */
int hvb_dir_ours(const char *path, int private, char *why, size_t len);

/*
 * mkdir @path (0755) where it is missing, then hvb_dir_ours(@path, 0):
 * an entry planted by someone else (a symlink, their directory) is
 * refused, never used.  0 or -errno with @why.
 */
int hvb_mkdir_ours(const char *path, char *why, size_t len);

/* rm -rf @path, never following a symlink: 0 or -errno. */
int hvb_rmtree(const char *path);

#endif /* HVB_FSUTIL_H */
