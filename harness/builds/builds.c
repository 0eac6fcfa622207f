/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Revisions and the build cache (hvb/builds.h).
 *
 * A revision is a commit, or the working tree on top of one.  The
 * working tree's files are named by a tree hash without touching the
 * user's index or object store: a copy of .git/index is read into,
 * "git add -u" run on the copy ("-A" with --include-untracked), "git
 * write-tree" answers; the new objects land in a temporary object store
 * whose alternate is the repository's, read again by the build's
 * checkout and removed after the review.  Untracked files (a report
 * written inside the tree, a .env, a 30 MB core file) are not part of
 * the reviewed tree unless asked, so nothing a review writes changes
 * what the next review sees.
 *
 * An entry of the cache is one revision built with one set of CMake
 * options, in CACHE/KEY/: src/ (a "git clone --shared" of the user's
 * repository, checked out at the commit; a dirty tree's files read into
 * it by "git read-tree -u --reset TREE", so the build's own gitinfo
 * says "commit, dirty"), build/ (cmake's), build.log, and a stamp:
 * "ok" (JSON: what was built, with what, in how long) or "failed" (the
 * log's last lines).  KEY.lock, flock()ed, keeps two reviews from
 * building one entry at once.
 *
 * Worked example: "hvbench review HEAD^" in a clean clone at 2f87caf,
 * this hvbench built Release with HVB_STABLE_LAYOUT=ON:
 *   base 9a2715d... -> KEY 9a2715d1a2b3-000000000000-5c0e3f1a2b3c4d5e
 *   head 2f87caf... -> KEY 2f87caf4d5e6-000000000000-5c0e3f1a2b3c4d5e
 * both built (about 90 s each here); asked again, both are found ("ok"
 * stamps) and nothing is built.  With an edit in hv/domain.c, head is
 * 2f87caf4d5e6-3f9e0c1d2a4b-5c0e..., built once for that content.  Every
 * key has one length, so every entry's source path does (see
 * hvb_build_get()).
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
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <hv/compiler.h>
#include <hv/strbuf.h>
#include <hvb/buildinfo.h>
#include <hvb/cmdline.h>
#include <hvb/exec.h>
#include <hvb/fsutil.h>
#include <hvb/builds.h>

#define GIT_TIMEOUT_S  600.0
#define LOG_TAIL_LINES 20

/* The CMake cache entries a build of another revision must share. */
static const char *const option_keys[] = {
    "CMAKE_BUILD_TYPE",  "CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER",
    "HVB_STABLE_LAYOUT", "HVB_LOCKSTAT",     NULL,
};

int hvb_git(const char *repo, char *out, size_t len, char *err, size_t elen,
            char *const *env, const char *const *args)
{
    char *argv[24];
    struct hvb_exec c = {.argv = argv,
                         .path_search = true,
                         .capture_err = true,
                         .timeout_s = GIT_TIMEOUT_S,
                         .max_out = 1u << 20,
                         .env = env};
    size_t n = 0, i;
    int rc;

    argv[n++] = "git";
    argv[n++] = "-C";
    argv[n++] = (char *)repo;
    for ( i = 0; args[i] != NULL && n < 23; i++ )
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    rc = hvb_exec_run(&c);
    if ( rc == 0 && out != NULL )
    {
        size_t l = c.out_len;

        while ( l > 0 && (c.out[l - 1] == '\n' || c.out[l - 1] == ' ') )
            l--;
        snprintf(out, len, "%.*s", (int)l, c.out);
    }
    else if ( rc != 0 )
    {
        char why[512];

        hvb_exec_error(&c, rc, why, sizeof(why));
        snprintf(err, elen, "git %s: %s", args[0], why + strlen("git: "));
        rc = rc < 0 ? rc : -EINVAL;
    }
    hvb_exec_free(&c);
    return rc;
}

/* git in @repo, its stdout into array @out, a failure into @err (@len). */
#define GIT(repo, out, err, len, ...)               \
    hvb_git(repo, out, sizeof(out), err, len, NULL, \
            (const char *const[]){__VA_ARGS__, NULL})

int hvb_rev_repo(const char *dir, char *top, size_t len, char *err, size_t elen)
{
    char e[512];

    if ( hvb_git(dir, top, len, e, sizeof(e), NULL,
                 (const char *const[]){"rev-parse", "--show-toplevel", NULL}) )
    {
        snprintf(err, elen,
                 "%s is not in a git repository (review builds commits; "
                 "see --repo)",
                 dir);
        return -EINVAL;
    }
    return 0;
}

int hvb_rev_gitdir_path(const char *dir, const char *name, char *path,
                        size_t len, char *err, size_t elen)
{
    char gitdir[PATH_MAX];

    if ( GIT(dir, gitdir, err, elen, "rev-parse", "--absolute-git-dir") )
        return -EINVAL;
    snprintf(path, len, "%s/%s", gitdir, name);
    return 0;
}

static int subject(const char *repo, struct hvb_rev *r, char *err, size_t len)
{
    return GIT(repo, r->subject, err, len, "log", "-1", "--format=%s",
               r->commit);
}

int hvb_rev_resolve(const char *repo, const char *spec, struct hvb_rev *r,
                    char *err, size_t len)
{
    char want[300];

    memset(r, 0, sizeof(*r));
    snprintf(r->spec, sizeof(r->spec), "%s", spec);
    snprintf(want, sizeof(want), "%s^{commit}", spec);
    if ( GIT(repo, r->commit, err, len, "rev-parse", "--verify", "-q", want) )
    {
        snprintf(err, len, "'%s' is not a commit of %s", spec, repo);
        return -EINVAL;
    }
    return subject(repo, r, err, len);
}

/*
 * The tree of @repo's working tree into @r->tree: a copy of the index,
 * "git add -u" (tracked files) or "-A" (and untracked ones) on it, then
 * "git write-tree", with the new objects in a private store.
 */
static int worktree_tree(const char *repo, struct hvb_rev *r, char *err,
                         size_t len)
{
    char index[PATH_MAX], objects[PATH_MAX], tmp[PATH_MAX + 16];
    char env[3][PATH_MAX + 64], *envv[] = {env[0], env[1], env[2], NULL};
    const char *const add[] = {"add", r->untracked ? "-A" : "-u", NULL};
    const char *const write[] = {"write-tree", NULL};
    const char *t = getenv("TMPDIR");
    int rc;

    rc = GIT(repo, index, err, len, "rev-parse", "--path-format=absolute",
             "--git-path", "index");
    if ( rc == 0 )
        rc = GIT(repo, objects, err, len, "rev-parse", "--path-format=absolute",
                 "--git-path", "objects");
    if ( rc )
        return rc;
    snprintf(r->objdir, sizeof(r->objdir), "%s/hvbench-tree.XXXXXX",
             t != NULL && *t == '/' ? t : "/tmp");
    if ( mkdtemp(r->objdir) == NULL )
    {
        snprintf(err, len, "mkdtemp %s: %s", r->objdir, strerror(errno));
        r->objdir[0] = '\0';
        return -errno;
    }
    snprintf(tmp, sizeof(tmp), "%s/objects", r->objdir);
    if ( mkdir(tmp, 0700) )
    {
        snprintf(err, len, "mkdir %s: %s", tmp, strerror(errno));
        return -errno;
    }
    snprintf(env[1], sizeof(env[1]), "GIT_OBJECT_DIRECTORY=%s", tmp);
    snprintf(tmp, sizeof(tmp), "%s/index", r->objdir);
    /* A copy of the index: its stat data spares re-hashing every file. */
    rc = hvb_copy_file(index, tmp, 0600);
    if ( rc == -ENOENT )
        rc = 0; /* no index yet: add -A builds one */
    else if ( rc )
        snprintf(err, len, "copying %s: %s", index, strerror(-rc));
    snprintf(env[0], sizeof(env[0]), "GIT_INDEX_FILE=%s", tmp);
    snprintf(env[2], sizeof(env[2]), "GIT_ALTERNATE_OBJECT_DIRECTORIES=%s",
             objects);
    if ( rc == 0 )
        rc = hvb_git(repo, NULL, 0, err, len, envv, add);
    if ( rc == 0 )
        rc = hvb_git(repo, r->tree, sizeof(r->tree), err, len, envv, write);
    unlink(tmp);
    return rc;
}

int hvb_rev_worktree(const char *repo, struct hvb_rev *r, bool untracked,
                     char *err, size_t len)
{
    char status[64];
    int rc;

    rc = hvb_rev_resolve(repo, "HEAD", r, err, len);
    if ( rc )
        return rc;
    snprintf(r->spec, sizeof(r->spec), "working tree");
    r->worktree = true;
    r->untracked = untracked;
    rc = GIT(repo, status, err, len, "status", "--porcelain",
             untracked ? "--untracked-files=normal" : "--untracked-files=no");
    if ( rc )
        return rc;
    r->dirty = status[0] != '\0';
    if ( !r->dirty )
        return 0;
    return worktree_tree(repo, r, err, len);
}

void hvb_rev_release(struct hvb_rev *r)
{
    if ( r->objdir[0] != '\0' )
        hvb_rmtree(r->objdir);
    r->objdir[0] = '\0';
}

int hvb_rev_default_base(const char *repo, const struct hvb_rev *head,
                         struct hvb_rev *r, char *err, size_t len)
{
    char up[200], mb[72], e[512], parent[100];

    if ( GIT(repo, up, e, sizeof(e), "rev-parse", "--abbrev-ref",
             "--symbolic-full-name", "@{upstream}") == 0 &&
         GIT(repo, mb, e, sizeof(e), "merge-base", head->commit, up) == 0 &&
         strcmp(mb, head->commit) != 0 )
    {
        int rc = hvb_rev_resolve(repo, mb, r, err, len);

        if ( rc == 0 )
            snprintf(r->spec, sizeof(r->spec), "merge-base with %s", up);
        return rc;
    }
    if ( head->worktree && head->dirty )
        return hvb_rev_resolve(repo, "HEAD", r, err, len);
    snprintf(parent, sizeof(parent), "%s^", head->commit);
    if ( hvb_rev_resolve(repo, parent, r, err, len) )
    {
        snprintf(err, len,
                 "%s has no parent to review against: name BASE "
                 "('hvbench review BASE')",
                 head->commit);
        return -EINVAL;
    }
    snprintf(r->spec, sizeof(r->spec), "%.200s^",
             head->worktree ? "HEAD" : head->spec);
    return 0;
}

const char *hvb_rev_short(const struct hvb_rev *r, char *buf, size_t len)
{
    snprintf(buf, len, "%.12s%s", r->commit, r->dirty ? "+" : "");
    return buf;
}

json_t *hvb_rev_json(const struct hvb_rev *r)
{
    return json_pack("{s:s, s:s, s:s?, s:b, s:b, s:s}", "spec", r->spec,
                     "commit", r->commit, "tree", r->dirty ? r->tree : NULL,
                     "worktree", r->worktree, "dirty", r->dirty, "subject",
                     r->subject);
}

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

/* The last LOG_TAIL_LINES lines of @path after "@what:\n" into @err. */
static void log_tail(const char *path, const char *what, char *err, size_t len)
{
    struct hv_strbuf b;
    char *text = hvb_slurp(path, NULL), *p;
    int lines = 0;

    hv_strbuf_init(&b, err, len);
    hv_strbuf_add(&b, "%s (log: %s); its last lines:", what, path);
    if ( text == NULL )
        return;
    p = text + strlen(text);
    while ( p > text && p[-1] == '\n' )
        *--p = '\0';
    while ( p > text && lines < LOG_TAIL_LINES )
        if ( *--p == '\n' )
            lines++;
    hv_strbuf_add(&b, "\n%s", p + (*p == '\n'));
    free(text);
}

/*
 * One step of a build: @argv (@env added) with its output appended to
 * the log @fd.
 */
static int step(char *const *argv, char *const *env, int fd, double timeout_s)
{
    struct hvb_exec c = {.argv = argv,
                         .path_search = true,
                         .timeout_s =
                             timeout_s > 0 ? timeout_s : HVB_BUILD_TIMEOUT_S,
                         .env = env,
                         .log_fd = fd};
    size_t i;
    int rc;

    dprintf(fd, "+");
    for ( i = 0; argv[i] != NULL; i++ )
        dprintf(fd, " %s", argv[i]);
    dprintf(fd, "\n");
    rc = hvb_exec_run(&c);
    hvb_exec_free(&c);
    return rc;
}

/*
 * A failed step @argv (status @rc) is the commit's own (the compiler
 * failed on it: remembered) or the environment's (a tool missing or
 * killed, a full disk, no memory: said, never remembered, so the commit
 * is tried again once the machine is fixed).
 */
static int step_failed(char *const *argv, int rc, const struct hvb_build *b,
                       char *why, size_t len)
{
    static const char *const env_signs[] = {
        "No space left on device",          "Disk quota exceeded",
        "Killed signal terminated program", "virtual memory exhausted",
        "Cannot allocate memory",           NULL};
    bool compile =
        strcmp(argv[0], "cmake") == 0 && strcmp(argv[1], "--build") == 0;
    struct statvfs fs;
    char *log;
    size_t i;

    if ( rc < 0 || rc == 127 || rc == 126 || rc > 128 )
    {
        snprintf(why, len, "%s could not run here (%s)", argv[0],
                 rc == 127          ? "not found on PATH"
                 : rc == -ETIMEDOUT ? "timed out"
                 : rc < 0           ? strerror(-rc)
                 : rc > 128         ? "killed by a signal"
                                    : "not executable");
        return -EAGAIN;
    }
    if ( statvfs(b->dir, &fs) == 0 &&
         (double)fs.f_bavail * fs.f_frsize < 64.0 * 1024 * 1024 )
    {
        snprintf(why, len, "%s failed with the disk of %.300s full", argv[0],
                 b->dir);
        return -EAGAIN;
    }
    log = hvb_slurp(b->log, NULL);
    for ( i = 0; log != NULL && env_signs[i] != NULL; i++ )
        if ( strstr(log, env_signs[i]) != NULL )
            break;
    free(log);
    if ( log != NULL && env_signs[i] != NULL )
    {
        snprintf(why, len,
                 "%s failed: \"%s\" (the machine's, not the "
                 "commit's)",
                 argv[0], env_signs[i]);
        return -EAGAIN;
    }
    if ( strcmp(argv[0], "cmake") == 0 && strcmp(argv[1], "-S") == 0 )
    {
        /* The commit's CMakeLists, or a package missing here. */
        snprintf(why, len, "cmake's configure failed (exit %d)", rc);
        return -ENOEXEC;
    }
    if ( !compile )
    {
        snprintf(why, len, "%s %s failed (exit %d)", argv[0], argv[1], rc);
        return -EAGAIN;
    }
    snprintf(why, len, "the compiler failed on this commit");
    return -EINVAL;
}

/*
 * Run the @n steps @argvs (a NULL one skipped), each with its @envs: 0,
 * or step_failed() of the first that fails.
 */
static int steps(char **const *argvs, char **const *envs, size_t n,
                 const struct hvb_build *b, int fd, double timeout_s, char *why,
                 size_t len)
{
    size_t i;
    int rc;

    for ( i = 0; i < n; i++ )
    {
        if ( argvs[i] == NULL )
            continue;
        rc = step(argvs[i], envs[i], fd, timeout_s);
        if ( rc )
            return step_failed(argvs[i], rc, b, why, len);
    }
    return 0;
}

/*
 * Clone, check out and build @r into entry @b: 0; -EINVAL when the
 * compiler failed on it, -ENOEXEC when its configure did, -EAGAIN when
 * the environment did (@why says).
 */
static int build(struct hvb_build_cache *bc, const char *repo,
                 const struct hvb_rev *r, struct hvb_build *b, int fd,
                 char *why, size_t len)
{
    char src[4400], bdir[4400], jobs[16], cdir[4200], base[4400], alt[4200];
    char *env[4] = {"CCACHE_NOHASHDIR=1", base,
                    getenv("CCACHE_DIR") ? NULL : cdir, NULL};
    char *cfg[8 + 16] = {"cmake", "-S", src,
                         "-B",    bdir, "-DHVB_ENABLE_TESTING=OFF"};
    char *rm[] = {"rm", "-rf", src, bdir, NULL};
    char *clone[] = {"git",           "clone",      "-q", "--shared",
                     "--no-checkout", (char *)repo, src,  NULL};
    char *checkout[] = {
        "git", "-C", src, "checkout", "-q", "--detach", (char *)r->commit,
        NULL};
    char *tree[] = {"git",           "-C", src, "read-tree", "-u", "--reset",
                    (char *)r->tree, NULL};
    char *make[] = {"cmake",   "--build", bdir, "--target",
                    "hvbench", "-j",      jobs, NULL};
    char *alts[] = {alt, NULL};
    size_t n = 6, i;

    snprintf(src, sizeof(src), "%s/src", b->dir);
    snprintf(bdir, sizeof(bdir), "%s/build", b->dir);
    snprintf(jobs, sizeof(jobs), "%u", bc->jobs ? bc->jobs : 2);
    snprintf(base, sizeof(base), "CCACHE_BASEDIR=%s", b->dir);
    snprintf(cdir, sizeof(cdir), "CCACHE_DIR=%s/ccache", bc->dir);
    snprintf(alt, sizeof(alt), "GIT_ALTERNATE_OBJECT_DIRECTORIES=%s/objects",
             r->objdir);
    for ( i = 0; i < bc->nr_defs; i++ )
        cfg[n++] = bc->defs[i];
    cfg[n] = NULL;
    return steps((char **const[]){rm, clone, checkout, r->dirty ? tree : NULL,
                                  cfg, make},
                 (char **const[]){NULL, NULL, NULL, alts,
                                  bc->ccache ? env : NULL,
                                  bc->ccache ? env : NULL},
                 6, b, fd, bc->timeout_s, why, len);
}

/* Write stamp @name of entry @b with @text (atomically). */
static void stamp(const struct hvb_build *b, const char *name, const char *text)
{
    char path[4400];

    snprintf(path, sizeof(path), "%s/%s", b->dir, name);
    hvb_replace_file(path, text, strlen(text), 0644);
}

/*
 * "building KEY (about N s: the last build here took that; log: ...)"
 * on stderr, N from the newest "ok" stamp in the cache.
 */
static void eta(const struct hvb_build_cache *bc, const struct hvb_build *b)
{
    char path[8400];
    struct dirent *e;
    struct stat st;
    time_t newest = 0;
    double s = -1;
    DIR *d = opendir(bc->dir);

    while ( d != NULL && (e = readdir(d)) != NULL )
    {
        json_t *o;

        snprintf(path, sizeof(path), "%s/%s/ok", bc->dir, e->d_name);
        if ( e->d_name[0] == '.' || stat(path, &st) || st.st_mtime < newest )
            continue;
        o = json_load_file(path, 0, NULL);
        if ( json_is_number(json_object_get(o, "build_s")) )
        {
            s = json_number_value(json_object_get(o, "build_s"));
            newest = st.st_mtime;
        }
        json_decref(o);
    }
    if ( d != NULL )
        closedir(d);
    if ( s > 0 )
        fprintf(stderr,
                "hvbench: review: building %s (about %.0f s, as the last "
                "build here; log: %s)\n",
                b->key, s, b->log);
    else
        fprintf(stderr, "hvbench: review: building %s (log: %s)\n", b->key,
                b->log);
}

/* Found in the cache (0, or -EINVAL for a remembered failure), or 1. */
static int found(const struct hvb_build *b, char *err, size_t len)
{
    char path[4400];

    snprintf(path, sizeof(path), "%s/ok", b->dir);
    if ( access(path, F_OK) == 0 && access(b->bin, X_OK) == 0 )
        return 0;
    snprintf(path, sizeof(path), "%s/failed", b->dir);
    if ( access(path, F_OK) == 0 )
    {
        log_tail(b->log,
                 "it did not build (remembered; remove the entry to "
                 "try again)",
                 err, len);
        return -EINVAL;
    }
    return 1;
}

/*
 * What a build's status @rc (build()'s, @why) leaves in entry @b: an
 * "ok" stamp, a remembered "failed" (the compiler's), or nothing (a
 * failed configure: -EINVAL, said "does not build", so bisect skips the
 * commit; the environment's: -EIO).  Returns 0, -EINVAL or -EIO with
 * @err.
 */
static int outcome(const struct hvb_build_cache *bc, const struct hvb_rev *r,
                   const struct hvb_build *b, int rc, const char *why,
                   char *err, size_t len)
{
    char what[700], *json;
    json_t *o;

    if ( rc == -EINVAL )
    {
        stamp(b, "failed", "the compiler failed: see build.log\n");
        log_tail(b->log,
                 "it does not build (the compiler failed on this commit; "
                 "remembered)",
                 err, len);
        return rc;
    }
    if ( rc == -ENOEXEC )
    {
        snprintf(what, sizeof(what),
                 "it does not build (%s; not remembered: a package missing "
                 "here fails the same way)",
                 why);
        log_tail(b->log, what, err, len);
        return -EINVAL;
    }
    if ( rc )
    {
        snprintf(what, sizeof(what),
                 "it could not be built here: %s (not remembered: fixed, "
                 "it is built again)",
                 why);
        log_tail(b->log, what, err, len);
        return -EIO;
    }
    o = json_pack("{s:o, s:o, s:f}", "revision", hvb_rev_json(r), "options",
                  json_array(), "build_s", b->build_s);
    for ( size_t i = 0; o != NULL && i < bc->nr_defs; i++ )
        json_array_append_new(json_object_get(o, "options"),
                              json_string(bc->defs[i]));
    json = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
    stamp(b, "ok", json ? json : "{}");
    free(json);
    json_decref(o);
    return 0;
}

int hvb_build_get(struct hvb_build_cache *bc, const char *repo,
                  const struct hvb_rev *r, struct hvb_build *b, char *err,
                  size_t len)
{
    char lock[4400], why[512];
    double t0;
    int lfd, fd, rc;

    memset(b, 0, sizeof(*b));
    /*
     * One length for every key: the source path is compiled in
     * (HVB_SOURCE_DIR), and a longer path moves the binary's data and
     * with it what alignment-sensitive string functions cost.  Built
     * in /tmp/cc2/build against a base in the cache, xs-read's
     * __strncmp_avx2 took 359.18 Ir/op in the one and 315.56 in the
     * other: +1.64% sim_instructions with no change of its code.
     */
    snprintf(b->key, sizeof(b->key), "%.12s-%.12s-%s", r->commit,
             r->dirty ? r->tree : "000000000000", bc->options_key);
    snprintf(b->dir, sizeof(b->dir), "%s/%s", bc->dir, b->key);
    snprintf(b->bin, sizeof(b->bin), "%s/build/hvbench", b->dir);
    snprintf(b->log, sizeof(b->log), "%s/build.log", b->dir);
    rc = hvb_mkdir_ours(b->dir, why, sizeof(why));
    if ( rc )
    {
        snprintf(err, len,
                 "build cache entry %s: %s (not made by this hvbench: "
                 "refused, nothing in it used or removed)",
                 b->dir, why);
        return rc;
    }
    snprintf(lock, sizeof(lock), "%s.lock", b->dir);
    lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if ( lfd < 0 || flock(lfd, LOCK_EX | LOCK_NB) )
    {
        if ( lfd >= 0 && !bc->quiet )
            fprintf(stderr,
                    "hvbench: review: waiting for another build of "
                    "%s\n",
                    b->key);
        if ( lfd < 0 || flock(lfd, LOCK_EX) )
        {
            snprintf(err, len, "%s: %s", lock, strerror(errno));
            if ( lfd >= 0 )
                close(lfd);
            return -errno;
        }
    }
    rc = found(b, err, len);
    if ( rc <= 0 )
    {
        b->cached = rc == 0;
        close(lfd);
        return rc;
    }
    fd = open(b->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
              0644);
    if ( fd < 0 )
    {
        snprintf(err, len, "%s: %s", b->log, strerror(errno));
        close(lfd);
        return -errno;
    }
    if ( !bc->quiet )
        eta(bc, b);
    t0 = hv_now_ns() * 1e-9;
    rc = build(bc, repo, r, b, fd, why, sizeof(why));
    close(fd);
    b->build_s = hv_now_ns() * 1e-9 - t0;
    rc = outcome(bc, r, b, rc, why, err, len);
    close(lfd);
    return rc;
}
