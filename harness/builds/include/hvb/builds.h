/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The builds room: git revisions resolved (revisions.c), and built with
 * this build's CMake options (build_cache.c) in a build cache keyed by
 * commit, tree and options (builds.c), so that a second use of the same
 * revision builds nothing.
 * review builds its two revisions here; history's bisect and backfill
 * will build theirs here too.
 */
#ifndef HVB_BUILDS_H
#define HVB_BUILDS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* A revision to build: a commit, or the working tree on top of one. */
struct hvb_rev {
    char spec[256];  /* as given ("HEAD^", "main"), or "working tree" */
    char commit[72]; /* full hash */
    char tree[72];   /* worktree: the tree of its files, else "" */
    bool worktree;   /* the working tree, uncommitted changes included */
    bool dirty;      /* worktree with changes (else it is just commit) */
    bool untracked;  /* worktree: its untracked files are part of it */
    char subject[256];
    /* worktree, dirty: the private object store holding its tree */
    char objdir[4096];
};

/* The git repository @dir is in: its top directory into @top. */
int hvb_rev_repo(const char *dir, char *top, size_t len, char *err,
                 size_t elen);

/*
 * "GIT_DIR/@name" of the repository @dir is in (absolute) into @path:
 * where a command's default output goes, never inside the work tree.
 */
int hvb_rev_gitdir_path(const char *dir, const char *name, char *path,
                        size_t len, char *err, size_t elen);

/* @spec ("HEAD^", a hash, a branch) of @repo as a commit into @r. */
int hvb_rev_resolve(const char *repo, const char *spec, struct hvb_rev *r,
                    char *err, size_t len);

/*
 * The working tree of @repo into @r (its tree hash when dirty): its
 * tracked files, and with @untracked the untracked ones that are not
 * ignored.  The tree and the blobs of changed files go into a private
 * object store of the review's (@r->objdir, alternates to the
 * repository's), never into the repository's own: reviewing writes
 * nothing there.  hvb_rev_release() removes it.
 */
int hvb_rev_worktree(const char *repo, struct hvb_rev *r, bool untracked,
                     char *err, size_t len);
void hvb_rev_release(struct hvb_rev *r);

/*
 * The default base for @head: the merge base with the upstream branch
 * when that is not head's own commit; else head's commit when head is a
 * dirty working tree; else its parent.
 */
int hvb_rev_default_base(const char *repo, const struct hvb_rev *head,
                         struct hvb_rev *r, char *err, size_t len);

/* "1a2b3c4d5e6f" or "1a2b3c4d5e6f+" (dirty), into @buf. */
const char *hvb_rev_short(const struct hvb_rev *r, char *buf, size_t len);

/* The revision as JSON: spec, commit, tree, worktree, dirty, subject. */
json_t *hvb_rev_json(const struct hvb_rev *r);

/* Where and how revisions are built. */
struct hvb_build_cache {
    char dir[4096]; /* the cache's directory */
    char *defs[16]; /* "-DKEY=VALUE": this build's CMake options */
    size_t nr_defs;
    char options_key[17]; /* hash of defs */
    unsigned int jobs;    /* cmake --build -j */
    bool quiet;
    bool ccache; /* builds through ccache (on PATH; not $HVBENCH_CCACHE=0) */
    double timeout_s; /* a build step's limit (0: HVB_BUILD_TIMEOUT_S) */
};

#define HVB_BUILD_TIMEOUT_S 7200.0 /* a step of a build: 2 hours */

/*
 * The cache in @dir (NULL: $HVBENCH_CACHE, else $XDG_CACHE_HOME/hvbench/
 * builds, else ~/.cache/hvbench/builds), with this hvbench's CMake
 * options (its build directory's CMakeCache.txt: build type, layout,
 * lockstat, compilers; or its compiled-in build type).
 */
int hvb_build_cache_init(struct hvb_build_cache *bc, const char *dir,
                         unsigned int jobs, char *err, size_t len);
void hvb_build_cache_free(struct hvb_build_cache *bc);

/* One revision's build in the cache. */
struct hvb_build {
    char key[96];   /* commit-tree(or zeros)-options: one length */
    char dir[4200]; /* cache entry */
    char bin[4300]; /* its hvbench */
    char log[4300]; /* its build log */
    bool cached;    /* found built: nothing was built */
    double build_s; /* time spent building now (0 when cached) */
};

/*
 * hvb_build_get - revision @r of @repo built in @bc, into @b.  0; or
 * -EINVAL with @err ending in the last lines of its build log when it
 * does not build (remembered: asked again, it fails at once), or
 * another -errno with @err.
 */
int hvb_build_get(struct hvb_build_cache *bc, const char *repo,
                  const struct hvb_rev *r, struct hvb_build *b, char *err,
                  size_t len);

/*
 * git -C @repo @args... (NULL-ended) with @env added: its stdout, less
 * trailing blanks, into @out (may be NULL); 0, or -errno / -EINVAL with
 * "git ARG: why" in @err.
 */
int hvb_git(const char *repo, char *out, size_t len, char *err, size_t elen,
            char *const *env, const char *const *args);

#endif /* HVB_BUILDS_H */
