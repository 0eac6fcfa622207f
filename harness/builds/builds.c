/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The build cache's entries (hvb/builds.h): a revision built, or found
 * built, by hvb_build_get().
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
 * Revisions are revisions.c's, the cache's root and options key
 * build_cache.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include <hvb/exec.h>
#include <hvb/fsutil.h>
#include <hvb/builds.h>

#define LOG_TAIL_LINES 20

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
