/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Build and source information for the results and --version.  The
 * commit and dirty flag are the source tree's when the binary was built
 * (gitinfo.h, written by cmake/gitinfo.cmake on every build), not when it
 * runs: a binary copied elsewhere, installed, or run after the tree moved
 * on still names the code it was built from.  "unknown" / -1 where the
 * tree was no git tree.
 */
#include <stdio.h>

#include <hvb/buildinfo.h>

#include "gitinfo.h"

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

const char *hvb_version(void)
{
    return HVB_VERSION;
}

void hvb_buildinfo_get(struct hvb_buildinfo *bi)
{
    bi->version = HVB_VERSION;
    bi->compiler = HVB_COMPILER;
    bi->cflags = HVB_CFLAGS;
    bi->build_type = HVB_BUILD_TYPE;
    bi->source_dir = HVB_SOURCE_DIR;
    snprintf(bi->commit, sizeof(bi->commit), "%s", HVB_GIT_COMMIT);
    bi->dirty = HVB_GIT_DIRTY;
}
