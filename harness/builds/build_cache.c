/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The build cache's root and options key (hvb/builds.h): where the
 * entries go (--cache, $HVBENCH_CACHE, $XDG_CACHE_HOME, ~/.cache, else
 * /tmp), and the CMake options every build of another revision shares
 * with this hvbench, hashed into the key of each entry.
 *
 * Where ccache is on PATH (and $HVBENCH_CCACHE is not 0), the builds go
 * through it, its files in CACHE/ccache (unless $CCACHE_DIR says
 * otherwise), with base_dir the entry and hash_dir off: paths inside
 * the entry are made relative, so two entries (neighbouring commits)
 * share every object whose source and headers are the same.  Such
 * builds compile relative paths into the binary (__FILE__), so they
 * have their own options key ("-DCMAKE_C_COMPILER_LAUNCHER=ccache" is
 * one of its options): never paired with a build made without.  Their
 * debug information names the directory of the entry that compiled the
 * object first (the same source, another entry).
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hvb/buildinfo.h>
#include <hvb/fsutil.h>
#include <hvb/builds.h>

/* The CMake cache entries a build of another revision must share. */
static const char *const option_keys[] = {
    "CMAKE_BUILD_TYPE",  "CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER",
    "HVB_STABLE_LAYOUT", "HVB_LOCKSTAT",     NULL,
};
/* FNV-1a, 64 bits: the options' key (not a secret, only a name). */
static uint64_t fnv1a(uint64_t h, const char *s)
{
    for ( ; *s != '\0'; s++ )
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* The value of @key in CMakeCache.txt @f ("KEY:TYPE=VALUE"), or NULL. */
static char *cmake_cache_value(FILE *f, const char *key)
{
    char line[4096];
    size_t n = strlen(key);

    rewind(f);
    while ( fgets(line, sizeof(line), f) )
    {
        char *eq;

        if ( strncmp(line, key, n) != 0 || line[n] != ':' )
            continue;
        eq = strchr(line, '=');
        if ( eq == NULL )
            continue;
        eq[strcspn(eq, "\n")] = '\0';
        return strdup(eq + 1);
    }
    return NULL;
}

/* Is ccache on PATH (and not turned off by $HVBENCH_CCACHE=0)? */
static bool ccache_on(void)
{
    const char *off = getenv("HVBENCH_CCACHE"), *path = getenv("PATH");
    char dir[PATH_MAX + 16];
    size_t n;

    if ( off != NULL && strcmp(off, "0") == 0 )
        return false;
    for ( ; path != NULL && *path; path += n + (path[n] == ':') )
    {
        n = strcspn(path, ":");
        snprintf(dir, sizeof(dir), "%.*s/ccache", (int)n, path);
        if ( n > 0 && access(dir, X_OK) == 0 )
            return true;
    }
    return false;
}

/* This hvbench's CMake options into @bc->defs. */
static int own_options(struct hvb_build_cache *bc)
{
    char self[PATH_MAX], cache[PATH_MAX + 32], *slash;
    struct hvb_buildinfo bi;
    ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    FILE *f = NULL;
    size_t i;

    if ( sl > 0 )
    {
        self[sl] = '\0';
        slash = strrchr(self, '/');
        if ( slash != NULL )
            *slash = '\0';
        snprintf(cache, sizeof(cache), "%s/CMakeCache.txt", self);
        f = fopen(cache, "r");
    }
    for ( i = 0; f != NULL && option_keys[i] != NULL; i++ )
    {
        char *v = cmake_cache_value(f, option_keys[i]);

        if ( v == NULL || *v == '\0' )
        {
            free(v);
            continue;
        }
        if ( asprintf(&bc->defs[bc->nr_defs], "-D%s=%s", option_keys[i], v) <
             0 )
            bc->defs[bc->nr_defs] = NULL;
        free(v);
        if ( bc->defs[bc->nr_defs] == NULL )
            break;
        bc->nr_defs++;
    }
    if ( f != NULL )
        fclose(f);
    if ( bc->nr_defs == 0 )
    {
        /* Installed: no build directory; the build type it was built as. */
        hvb_buildinfo_get(&bi);
        if ( asprintf(&bc->defs[0], "-DCMAKE_BUILD_TYPE=%s",
                      bi.build_type[0] ? bi.build_type : "Release") < 0 )
            return -ENOMEM;
        bc->nr_defs = 1;
    }
    if ( ccache_on() )
    {
        bc->defs[bc->nr_defs++] = strdup("-DCMAKE_C_COMPILER_LAUNCHER=ccache");
        bc->defs[bc->nr_defs++] =
            strdup("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache");
        bc->ccache = bc->defs[bc->nr_defs - 1] && bc->defs[bc->nr_defs - 2];
    }
    return 0;
}

/*
 * The cache's root made and checked: a directory of this user's that
 * nobody else can write (else another user could plant a symlink or a
 * directory where an entry goes, or swap one under a build).  In /tmp
 * (@shared: no HOME) it is made 0700 and never followed through a
 * symlink; a root the user named is resolved first (a symlink to
 * another disk is theirs to make).
 */
static int cache_root(struct hvb_build_cache *bc, bool shared, char *err,
                      size_t len)
{
    char why[256], real[PATH_MAX];
    int rc = 0;

    if ( shared )
    {
        if ( mkdir(bc->dir, 0700) && errno != EEXIST )
            rc = -errno;
    }
    else
        rc = hvb_mkdirs(bc->dir);
    if ( rc )
    {
        snprintf(err, len, "build cache %s: %s", bc->dir, strerror(-rc));
        return rc;
    }
    if ( !shared && realpath(bc->dir, real) != NULL )
        snprintf(bc->dir, sizeof(bc->dir), "%s", real);
    rc = hvb_dir_ours(bc->dir, 1, why, sizeof(why));
    if ( rc )
        snprintf(err, len,
                 "build cache %s: %s (a cache must be a directory of this "
                 "user's that nobody else can write; see --cache)",
                 bc->dir, why);
    return rc;
}

int hvb_build_cache_init(struct hvb_build_cache *bc, const char *dir,
                         unsigned int jobs, char *err, size_t len)
{
    const char *env = getenv("HVBENCH_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    int rc;

    memset(bc, 0, sizeof(*bc));
    bc->jobs = jobs;
    if ( dir != NULL )
        snprintf(bc->dir, sizeof(bc->dir), "%s", dir);
    else if ( env != NULL && *env != '\0' )
        snprintf(bc->dir, sizeof(bc->dir), "%s", env);
    else if ( xdg != NULL && *xdg == '/' )
        snprintf(bc->dir, sizeof(bc->dir), "%s/hvbench/builds", xdg);
    else if ( home != NULL && *home == '/' )
        snprintf(bc->dir, sizeof(bc->dir), "%s/.cache/hvbench/builds", home);
    else
        snprintf(bc->dir, sizeof(bc->dir), "/tmp/hvbench-builds-%u",
                 (unsigned int)geteuid());
    rc = cache_root(bc,
                    dir == NULL && (env == NULL || *env == '\0') &&
                        (xdg == NULL || *xdg != '/') &&
                        (home == NULL || *home != '/'),
                    err, len);
    if ( rc )
        return rc;
    rc = own_options(bc);
    if ( rc )
    {
        snprintf(err, len, "out of memory");
        return rc;
    }
    for ( i = 0; i < bc->nr_defs; i++ )
        h = fnv1a(fnv1a(h, bc->defs[i]), "\n");
    snprintf(bc->options_key, sizeof(bc->options_key), "%016" PRIx64, h);
    return 0;
}

void hvb_build_cache_free(struct hvb_build_cache *bc)
{
    size_t i;

    for ( i = 0; i < bc->nr_defs; i++ )
        free(bc->defs[i]);
    bc->nr_defs = 0;
}
