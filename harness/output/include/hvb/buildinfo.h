/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What built this binary and from which tree: version, compiler, flags,
 * build type, and the source tree's git commit and dirty flag, all fixed
 * at build time (the commit by cmake/gitinfo.cmake on every build: an
 * installed or copied binary names the tree it was built from).
 */
#ifndef HVB_BUILDINFO_H
#define HVB_BUILDINFO_H

struct hvb_buildinfo {
    const char *version;
    const char *compiler;
    const char *cflags;
    const char *build_type;
    const char *source_dir;
    char commit[72]; /* hex SHA-1/256, or "unknown" */
    int dirty;       /* 1, 0, or -1 when unknown */
};

/* The hvbench version, e.g. "0.1.0". */
const char *hvb_version(void);

/* Fill @bi; runs git twice (quietly) unless the tree is not a git tree. */
void hvb_buildinfo_get(struct hvb_buildinfo *bi);

#endif /* HVB_BUILDINFO_H */
