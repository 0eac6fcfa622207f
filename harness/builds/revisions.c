/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Revisions (hvb/builds.h): git run in the user's repository, and the
 * revisions a review or a bisect builds.
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
 * E.g. "hvbench review" in a tree with an edit in hv/domain.c, on a
 * branch without an upstream: head is the working tree, its tree hash
 * written by "git write-tree" into /tmp/hvbench-tree.XXXXXX/objects;
 * base is HEAD (hvb_rev_default_base()).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hvb/exec.h>
#include <hvb/fsutil.h>
#include <hvb/builds.h>

#define GIT_TIMEOUT_S 600.0

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
