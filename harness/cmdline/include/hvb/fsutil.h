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

/* Copy @from to @to (mode @mode) through a temporary file: 0 or -errno. */
int hvb_copy_file(const char *from, const char *to, mode_t mode);

/* The whole of @path, NUL-terminated (malloc'd; its length in @len), or
 * NULL with errno. */
char *hvb_slurp(const char *path, size_t *len);

#endif /* HVB_FSUTIL_H */
