/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit-xenstore: the model's xenstore against its rules, once per quota
 * plugin (every test runs under each registered quota strategy):
 * permission matrix incl. "/" (XSA-353), quota boundaries (N ok, N+1
 * fails with the errno and no state change), transaction commit paths,
 * and the XSA regressions 421, 440, 419 (hv_xs_domain_release, and
 * through hv_domain_destroy), 322.  After every test the
 * quota equals a recount of owners over the tree (hv_xs_check).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hv/hv.h>
#include <hv/plugin.h>
#include <hv/xenstore.h>

#include "testlib.h"

static const char *quota_plugin;

struct fx {
    struct hv *hv;
    struct hv_xs *xs;
};

static int setup(void **state)
{
    struct hv_config cfg;
    struct fx *f = calloc(1, sizeof(*f));
    char err[256];

    hv_config_init(&cfg);
    cfg.nr_cpus = 2;
    if ( hv_plugin_resolve("quota", quota_plugin, false,
                           &cfg.plugins[HV_SLOT_QUOTA], err, sizeof(err)) ||
         hv_create(&cfg, &f->hv, err, sizeof(err)) )
    {
        fprintf(stderr, "setup: %s\n", err);
        return -1;
    }
    hv_plugin_inst_free(&cfg.plugins[HV_SLOT_QUOTA]);
    f->xs = hv_xs(f->hv);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    char err[256];
    int rc = hv_xs_check(f->xs, err, sizeof(err));

    if ( rc )
        fprintf(stderr, "check: %s\n", err);
    hv_destroy(f->hv);
    free(f);
    return rc ? -1 : 0;
}

static void own(struct hv_xs *xs, const char *path, domid_t id, uint8_t def)
{
    struct hv_xs_perm p = {id, def};

    assert_int_equal(hv_xs_set_perms(xs, 0, 0, path, &p, 1), 0);
}

static int rd(struct hv_xs *xs, domid_t caller, uint32_t tid, const char *path,
              char *out)
{
    size_t len = 0;
    int rc = hv_xs_read(xs, caller, tid, path, out, 64, &len);

    out[rc == 0 ? len : 0] = '\0';
    return rc;
}

static void test_paths(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    char big[HV_XS_ABS_PATH_MAX + 8], v[64];

    assert_int_equal(hv_xs_write(xs, 0, 0, "/a//b", "v"), -EINVAL);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/a/", "v"), -EINVAL);
    assert_int_equal(hv_xs_write(xs, 0, 0, "", "v"), -EINVAL);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/a b", "v"), -EINVAL);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/a-_@9", "v"), 0);
    memset(big, 'a', sizeof(big));
    big[0] = '/';
    big[HV_XS_ABS_PATH_MAX + 1] = '\0';
    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, big), -E2BIG);
    /* relative: under /local/domain/<caller> */
    assert_int_equal(hv_xs_write(xs, 0, 0, "rel", "r"), 0);
    assert_int_equal(rd(xs, 0, 0, "/local/domain/0/rel", v), 0);
    assert_string_equal(v, "r");
}

/*
 * The permission matrix: op x caller class x target.  Node /t owned by
 * 5 with default none, ACL r6 w7 b8 n9; 10 is unlisted; 0 is dom0.
 */
static void test_perm_matrix(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    struct hv_xs_perm acl[] = {{5, 0}, {6, 1}, {7, 2}, {8, 3}, {9, 0}};
    static const domid_t callers[] = {5, 0, 6, 7, 8, 9, 10};
    /* expected rc per caller: read, write, setperms(same owner), rm */
    static const int exp[][4] = {
        {0, 0, 0, 0},                         /* owner */
        {0, 0, 0, 0},                         /* dom0 */
        {0, -EACCES, -EACCES, -EACCES},       /* r */
        {-EACCES, 0, -EACCES, 0},             /* w */
        {0, 0, -EACCES, 0},                   /* b */
        {-EACCES, -EACCES, -EACCES, -EACCES}, /* n */
        {-EACCES, -EACCES, -EACCES, -EACCES}, /* unlisted: default n */
    };
    unsigned int i;
    char v[64];

    for ( i = 0; i < HV_ARRAY_SIZE(callers); i++ )
    {
        domid_t c = callers[i];

        assert_int_equal(hv_xs_write(xs, 0, 0, "/t/c", "v"), 0);
        assert_int_equal(hv_xs_set_perms(xs, 0, 0, "/t", acl, 5), 0);
        assert_int_equal(hv_xs_set_perms(xs, 0, 0, "/t/c", acl, 5), 0);
        assert_int_equal(rd(xs, c, 0, "/t", v), exp[i][0]);
        assert_int_equal(hv_xs_directory(xs, c, 0, "/t", v, 64, NULL),
                         exp[i][0]);
        assert_int_equal(hv_xs_read(xs, c, 0, "/t", v, 0, NULL) == -EACCES,
                         exp[i][0] == -EACCES);
        assert_int_equal(hv_xs_write(xs, c, 0, "/t", "w"), exp[i][1]);
        /* a new child needs WRITE on the deepest existing ancestor */
        assert_int_equal(hv_xs_write(xs, c, 0, "/t/new", "w"), exp[i][1]);
        assert_int_equal(hv_xs_set_perms(xs, c, 0, "/t", acl, 5), exp[i][2]);
        assert_int_equal(hv_xs_simple(xs, HV_XS_RM, c, 0, "/t/c"), exp[i][3]);
        assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/t"), 0);
    }
    /* Only dom0 changes the owner, even the owner may not give it away */
    assert_int_equal(hv_xs_write(xs, 0, 0, "/g", "v"), 0);
    own(xs, "/g", 5, 0);
    acl[0].id = 6;
    assert_int_equal(hv_xs_set_perms(xs, 5, 0, "/g", acl, 1), -EACCES);
    assert_int_equal(hv_xs_quota(xs, 5), 1);
    assert_int_equal(hv_xs_set_perms(xs, 0, 0, "/g", acl, 1), 0);
    assert_int_equal(hv_xs_quota(xs, 5), 0);
    assert_int_equal(hv_xs_quota(xs, 6), 1);
}

/* XSA-353: the root node is checked like any other. */
static void test_root_node(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    struct hv_xs_perm all = {5, HV_XS_PERM_BOTH};
    char v[64];

    assert_int_equal(rd(xs, 5, 0, "/", v), -EACCES);
    assert_int_equal(hv_xs_directory(xs, 5, 0, "/", v, 64, NULL), -EACCES);
    assert_int_equal(hv_xs_write(xs, 5, 0, "/", "x"), -EACCES);
    assert_int_equal(hv_xs_write(xs, 5, 0, "/evil", "x"), -EACCES);
    assert_int_equal(hv_xs_set_perms(xs, 5, 0, "/", &all, 1), -EACCES);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 5, 0, "/"), -EACCES);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/"), -EINVAL);
    assert_int_equal(rd(xs, 0, 0, "/", v), 0);
}

static void test_quota_boundaries(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    char path[64], val[2050];
    unsigned int i;
    uint32_t tids[11], tid;
    int before;

    /* maxent 1000 for domain 5 (its home counts as 1) */
    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, "/local/domain/5"), 0);
    own(xs, "/local/domain/5", 5, 0);
    for ( i = 1; i < 1000; i++ )
    {
        snprintf(path, sizeof(path), "n%u", i);
        assert_int_equal(hv_xs_write(xs, 5, 0, path, "v"), 0);
    }
    assert_int_equal(hv_xs_quota(xs, 5), 1000);
    assert_int_equal(hv_xs_write(xs, 5, 0, "over", "v"), -ENOSPC);
    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 5, 0, "over"), -ENOSPC);
    assert_int_equal(rd(xs, 5, 0, "over", val), -ENOENT);
    assert_int_equal(hv_xs_quota(xs, 5), 1000);
    /* existing nodes may still be written; dom0 is exempt */
    assert_int_equal(hv_xs_write(xs, 5, 0, "n1", "w"), 0);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/local/domain/5/d0", "v"), 0);
    assert_int_equal(hv_xs_quota(xs, 5), 1001);

    /* maxsize 2048 for everyone */
    memset(val, 'x', sizeof(val));
    val[2048] = '\0';
    assert_int_equal(hv_xs_write(xs, 0, 0, "/big", val), 0);
    val[2048] = 'x';
    val[2049] = '\0';
    assert_int_equal(hv_xs_write(xs, 0, 0, "/big", val), -E2BIG);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/big2", val), -E2BIG);
    assert_int_equal(rd(xs, 0, 0, "/big2", path), -ENOENT);

    /* 10 open transactions per domU */
    for ( i = 0; i < 10; i++ )
        assert_int_equal(hv_xs_txn_start(xs, 5, &tids[i]), 0);
    assert_int_equal(hv_xs_txn_start(xs, 5, &tids[10]), -ENOSPC);
    assert_int_equal(hv_xs_txn_start(xs, 0, &tid), 0); /* dom0 exempt */
    assert_int_equal(hv_xs_txn_end(xs, 0, tid, false), 0);
    for ( i = 0; i < 10; i++ )
        assert_int_equal(hv_xs_txn_end(xs, 5, tids[i], false), 0);

    /* 1024 requests per domU transaction */
    assert_int_equal(hv_xs_txn_start(xs, 5, &tid), 0);
    for ( i = 0; i < 1024; i++ )
        assert_int_equal(rd(xs, 5, tid, "n1", val), 0);
    before = hv_xs_quota(xs, 5);
    assert_int_equal(hv_xs_write(xs, 5, tid, "n1", "z"), -ENOSPC);
    assert_int_equal(hv_xs_txn_end(xs, 5, tid, true), 0);
    assert_int_equal(rd(xs, 5, 0, "n1", val), 0);
    assert_string_equal(val, "w");
    assert_int_equal(hv_xs_quota(xs, 5), before);

    /* payload 4096 */
    {
        char *v = malloc(4096);

        memset(v, 'y', 4095);
        v[4095] = '\0';
        assert_int_equal(hv_xs_write(xs, 0, 0, "/p", v), -E2BIG);
        free(v);
    }
}

/*
 * A transaction writes @mine while, outside it, @theirs is set to @val;
 * then it commits, which must succeed and leave both writes in place.
 */
static void commit_across(struct hv_xs *xs, const char *mine,
                          const char *theirs, const char *val)
{
    uint32_t t;
    char v[64];

    assert_int_equal(hv_xs_txn_start(xs, 0, &t), 0);
    assert_int_equal(hv_xs_write(xs, 0, t, mine, "1"), 0);
    assert_int_equal(hv_xs_write(xs, 0, 0, theirs, val), 0);
    assert_int_equal(hv_xs_txn_end(xs, 0, t, true), 0);
    assert_int_equal(rd(xs, 0, 0, mine, v), 0);
    assert_int_equal(rd(xs, 0, 0, theirs, v), 0);
    assert_string_equal(v, val);
}

static void test_txn_paths(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    struct hv_xs_stats st;
    uint32_t t1, t2;
    char v[64];

    assert_int_equal(hv_xs_write(xs, 0, 0, "/a/x", "1"), 0);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/b/y", "1"), 0);

    /* fast: isolation, then commit */
    assert_int_equal(hv_xs_txn_start(xs, 0, &t1), 0);
    assert_int_equal(hv_xs_write(xs, 0, t1, "/a/z", "1"), 0);
    assert_int_equal(rd(xs, 0, 0, "/a/z", v), -ENOENT);
    assert_int_equal(rd(xs, 0, t1, "/a/z", v), 0);
    assert_int_equal(hv_xs_txn_end(xs, 0, t1, true), 0);
    assert_int_equal(rd(xs, 0, 0, "/a/z", v), 0);

    /* coalesce: disjoint subtrees */
    commit_across(xs, "/a/w", "/b/y", "2");
    hv_xs_get_stats(xs, &st);
    assert_int_equal(st.commits_coalesce, 1);

    /* replay, same answers: commit */
    commit_across(xs, "/a/v", "/a/x", "2");
    hv_xs_get_stats(xs, &st);
    assert_int_equal(st.commits_replay, 1);

    /* replay, different answer: EAGAIN, nothing changes */
    assert_int_equal(hv_xs_txn_start(xs, 0, &t1), 0);
    assert_int_equal(rd(xs, 0, t1, "/a/x", v), 0);
    assert_int_equal(hv_xs_write(xs, 0, t1, "/a/u", v), 0);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/a/x", "3"), 0);
    assert_int_equal(hv_xs_txn_end(xs, 0, t1, true), -EAGAIN);
    assert_int_equal(rd(xs, 0, 0, "/a/u", v), -ENOENT);

    /* a tid belongs to its domain; abort discards */
    assert_int_equal(hv_xs_txn_start(xs, 0, &t2), 0);
    assert_int_equal(hv_xs_write(xs, 7, t2, "/q", "1"), -ENOENT);
    assert_int_equal(hv_xs_txn_end(xs, 7, t2, true), -ENOENT);
    assert_int_equal(hv_xs_write(xs, 0, t2, "/q", "1"), 0);
    assert_int_equal(hv_xs_txn_end(xs, 0, t2, false), 0);
    assert_int_equal(rd(xs, 0, 0, "/q", v), -ENOENT);
    assert_int_equal(hv_xs_txn_end(xs, 0, t2, true), -ENOENT);
}

/* XSA-421: create and delete in one transaction: accounting unchanged */
static void test_xsa421(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    uint32_t t;
    int q;

    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, "/local/domain/5"), 0);
    own(xs, "/local/domain/5", 5, 0);
    q = hv_xs_quota(xs, 5);
    assert_int_equal(hv_xs_txn_start(xs, 5, &t), 0);
    assert_int_equal(hv_xs_write(xs, 5, t, "a/b/c", "v"), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 5, t, "a"), 0);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/other", "v"), 0); /* no fast */
    assert_int_equal(hv_xs_txn_end(xs, 5, t, true), 0);
    assert_int_equal(hv_xs_quota(xs, 5), q);
}

/* XSA-440: a conflicting delete outside an open txn: EAGAIN, no abort */
static void test_xsa440(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    uint32_t t;
    char v[64];

    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, "/local/domain/5"), 0);
    own(xs, "/local/domain/5", 5, 0);
    assert_int_equal(hv_xs_write(xs, 5, 0, "d/x", "v"), 0);
    assert_int_equal(hv_xs_txn_start(xs, 5, &t), 0);
    assert_int_equal(rd(xs, 5, t, "d/x", v), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 5, t, "d/x"), 0);
    assert_int_equal(hv_xs_write(xs, 5, t, "d/y", "v"), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/local/domain/5/d"), 0);
    assert_int_equal(hv_xs_txn_end(xs, 5, t, true), -EAGAIN);
    assert_int_equal(hv_xs_quota(xs, 5), 1);
}

/* XSA-419 and XSA-322: release returns the count to baseline and a
 * recycled domid sees nothing of the old domain. */
static void test_domain_release(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    struct hv_xs_perm acl[] = {{0, 0}, {5, HV_XS_PERM_BOTH}};
    struct hv_xs_stats st0, st1;
    uint32_t t;
    char v[64];

    hv_xs_get_stats(xs, &st0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, "/local/domain/5"), 0);
    own(xs, "/local/domain/5", 5, 0);
    assert_int_equal(hv_xs_write(xs, 5, 0, "a/b", "v"), 0);
    /* outside its home: a node it owns and one it is granted */
    assert_int_equal(hv_xs_write(xs, 0, 0, "/vm/5/x", "v"), 0);
    own(xs, "/vm/5/x", 5, 0);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/vm/5/g", "v"), 0);
    assert_int_equal(hv_xs_set_perms(xs, 0, 0, "/vm/5/g", acl, 2), 0);
    assert_int_equal(hv_xs_txn_start(xs, 5, &t), 0);
    assert_int_equal(hv_xs_quota(xs, 5), 4);

    assert_int_equal(hv_xs_domain_release(xs, 5), 0);
    assert_int_equal(hv_xs_quota(xs, 5), 0);
    assert_int_equal(hv_xs_txn_end(xs, 5, t, true), -ENOENT);
    hv_xs_get_stats(xs, &st1);
    assert_int_equal(st1.open_txns, 0);
    /* the recycled domid 5 */
    assert_int_equal(rd(xs, 5, 0, "/vm/5/x", v), -EACCES);
    assert_int_equal(rd(xs, 5, 0, "/vm/5/g", v), -EACCES);
    assert_int_equal(rd(xs, 5, 0, "a/b", v), -ENOENT);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/vm"), 0);
    hv_xs_get_stats(xs, &st1);
    assert_int_equal(st1.nodes, st0.nodes + 2); /* /local, /local/domain */
}

/* XSA-419 through the domain lifecycle: hv_domain_destroy() alone
 * returns the node count and quota to baseline, and the recreated
 * domain sees nothing of the old one. */
static void test_domain_destroy(void **state)
{
    struct fx *f = *state;
    struct hv_xs *xs = f->xs;
    struct hv_xs_perm acl[] = {{0, 0}, {5, HV_XS_PERM_BOTH}};
    struct hv_xs_stats st0, st1;
    uint32_t t;
    char v[64];
    int i;

    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, "/local/domain"), 0);
    hv_xs_get_stats(xs, &st0);
    assert_int_equal(hv_domain_create(f->hv, 5, 16, NULL), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, "/local/domain/5"), 0);
    own(xs, "/local/domain/5", 5, 0);
    for ( i = 0; i < 20; i++ )
    {
        snprintf(v, sizeof(v), "device/vif/%d/state", i);
        assert_int_equal(hv_xs_write(xs, 5, 0, v, "4"), 0);
    }
    assert_int_equal(hv_xs_write(xs, 0, 0, "/vm/5/g", "v"), 0);
    assert_int_equal(hv_xs_set_perms(xs, 0, 0, "/vm/5/g", acl, 2), 0);
    assert_int_equal(hv_xs_txn_start(xs, 5, &t), 0);
    assert_int_equal(hv_xs_write(xs, 5, t, "pending", "1"), 0);
    assert_int_equal(hv_xs_quota(xs, 5), 1 + 1 + 1 + 20 * 2);

    assert_int_equal(hv_domain_destroy(f->hv, 5), 0);
    assert_int_equal(hv_xs_quota(xs, 5), 0);
    hv_xs_get_stats(xs, &st1);
    assert_int_equal(st1.open_txns, 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/vm"), 0);
    hv_xs_get_stats(xs, &st1);
    assert_int_equal(st1.nodes, st0.nodes);

    /* the recycled domid */
    assert_int_equal(hv_xs_write(xs, 0, 0, "/vm/5/g", "v"), 0);
    assert_int_equal(hv_xs_set_perms(xs, 0, 0, "/vm/5/g", acl, 2), 0);
    assert_int_equal(hv_domain_destroy(f->hv, 5), -ESRCH);
    hv_rcu_barrier(f->hv);
    assert_int_equal(hv_domain_create(f->hv, 5, 16, NULL), 0);
    assert_int_equal(rd(xs, 5, 0, "device/vif/0/state", v), -ENOENT);
    assert_int_equal(hv_xs_txn_end(xs, 5, t, true), -ENOENT);
    assert_int_equal(hv_domain_destroy(f->hv, 5), 0);
    assert_int_equal(rd(xs, 5, 0, "/vm/5/g", v), -EACCES);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/vm"), 0);
    hv_xs_get_stats(xs, &st1);
    assert_int_equal(st1.nodes, st0.nodes);
}

/* The copy schedule: read 1, write 3, txn start 3, inside 0. */
static void test_copy_schedule(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    struct hv_xs_stats a, b;
    uint32_t t;
    char v[64];

    assert_int_equal(hv_xs_write(xs, 0, 0, "/c", "v"), 0);
#define COPIES(stmt)                                           \
    (hv_xs_get_stats(xs, &a), (stmt), hv_xs_get_stats(xs, &b), \
     b.quota_copies - a.quota_copies)
    assert_int_equal(COPIES(rd(xs, 0, 0, "/c", v)), 1);
    assert_int_equal(COPIES(hv_xs_directory(xs, 0, 0, "/", v, 64, NULL)), 1);
    assert_int_equal(COPIES(hv_xs_write(xs, 0, 0, "/c", "w")), 3);
    assert_int_equal(COPIES(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/c")), 3);
    assert_int_equal(COPIES(hv_xs_txn_start(xs, 0, &t)), 3);
    assert_int_equal(COPIES(hv_xs_write(xs, 0, t, "/c", "w")), 0);
    assert_int_equal(COPIES(hv_xs_txn_end(xs, 0, t, true)), 0);
#undef COPIES
}

/*
 * The rules the independent reference store (tests/common/xs-ref.c) found
 * the model breaking, one test each, with the rule it follows.
 */

/* RM of a missing node is OK only when its parent exists (xenstore-wire.md
 * 2 and 5.5: ENOENT in both daemons; oxenstored store.ml lookup_get). */
static void test_rm_missing_parent(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    uint32_t t;

    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/nx"), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/nx/y"), -ENOENT);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/a", "v"), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/a/b"), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, 0, "/a/b/c"), -ENOENT);
    assert_int_equal(hv_xs_txn_start(xs, 0, &t), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, t, "/a/b/c"), -ENOENT);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, t, "/a/b"), 0);
    assert_int_equal(hv_xs_txn_end(xs, 0, t, true), 0);
}

/* MKDIR of an existing node changes nothing but needs WRITE on it
 * (oxenstored store.ml path_mkdir: check_perm before Already_exist). */
static void test_mkdir_existing(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    struct hv_xs_perm acl[] = {
        {5, HV_XS_PERM_NONE}, {6, HV_XS_PERM_READ}, {7, HV_XS_PERM_WRITE}};
    const char *d = "/local/domain/5";
    int q;

    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, d), 0);
    assert_int_equal(hv_xs_set_perms(xs, 0, 0, d, acl, 3), 0);
    q = hv_xs_quota(xs, 5);
    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 6, 0, d), -EACCES);
    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 8, 0, d), -EACCES);
    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 7, 0, d), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 5, 0, d), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, d), 0);
    assert_int_equal(hv_xs_quota(xs, 5), q);
}

/*
 * The transaction a request names is looked up before its path or perms
 * are parsed (process.ml process_packet; cxenstored transaction_lookup):
 * an unknown tid is ENOENT whatever else is wrong, a nested start in a
 * known one EBUSY, and a request with a bad path in a known one is one of
 * its maxops requests.
 */
static void test_txn_lookup_first(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    struct hv_xs_perm bad = {0, 4};
    struct hv_xs_req q = {.op = HV_XS_TXN_START, .caller = 0, .tid = 99};
    struct hv_xs_rsp r = {.buf = NULL, .cap = 0};
    char big[HV_XS_ABS_PATH_MAX + 2];
    unsigned int i;
    uint32_t t;

    assert_int_equal(hv_xs_request(xs, &q, &r), -ENOENT);
    assert_int_equal(hv_xs_write(xs, 0, 99, "/a//b", "v"), -ENOENT);
    assert_int_equal(hv_xs_set_perms(xs, 0, 99, "/", &bad, 1), -ENOENT);
    /* without a transaction: the path before the entries */
    memset(big, 'a', sizeof(big));
    big[0] = '/';
    big[HV_XS_ABS_PATH_MAX + 1] = '\0';
    assert_int_equal(hv_xs_set_perms(xs, 0, 0, big, &bad, 1), -E2BIG);
    assert_int_equal(hv_xs_set_perms(xs, 0, 0, "/nx", &bad, 1), -EINVAL);

    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, "/local/domain/5"), 0);
    own(xs, "/local/domain/5", 5, 0);
    assert_int_equal(hv_xs_txn_start(xs, 5, &t), 0);
    q = (struct hv_xs_req){.op = HV_XS_TXN_START, .caller = 5, .tid = t};
    assert_int_equal(hv_xs_request(xs, &q, &r), -EBUSY);
    for ( i = 0; i < 1024; i++ ) /* maxops, all bad paths */
        assert_int_equal(hv_xs_write(xs, 5, t, "a//b", "v"), -EINVAL);
    assert_int_equal(hv_xs_write(xs, 5, t, "a", "v"), -HV_XS_EQUOTA);
    assert_int_equal(hv_xs_txn_end(xs, 5, t, false), 0);
}

/* A transaction that changed nothing commits as a no-op, whatever was
 * committed meanwhile (xenstore-wire.md 5.4; process.ml
 * do_transaction_end: commit && not is_read_only). */
static void test_readonly_commit(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    char v[64];
    uint32_t t;
    struct hv_xs_stats a, b;

    assert_int_equal(hv_xs_write(xs, 0, 0, "/a", "1"), 0);
    assert_int_equal(hv_xs_txn_start(xs, 0, &t), 0);
    assert_int_equal(rd(xs, 0, t, "/a", v), 0);
    assert_int_equal(hv_xs_simple(xs, HV_XS_RM, 0, t, "/a/none"), 0);
    assert_int_equal(hv_xs_write(xs, 0, 0, "/a", "2"), 0);
    hv_xs_get_stats(xs, &a);
    assert_int_equal(hv_xs_txn_end(xs, 0, t, true), 0);
    hv_xs_get_stats(xs, &b);
    assert_int_equal(b.commits_fast, a.commits_fast + 1);
    assert_int_equal(b.conflicts, a.conflicts);
    assert_int_equal(b.commits_replay, a.commits_replay);
}

/*
 * Coalesce only when every node from the root down to each lowpath has
 * the same perms in the start tree and the committed one
 * (xen-mechanisms.md (b), transaction.ml check_parents_perms_identical);
 * else replay.  The first commit is the control: an unrelated change.
 */
static void test_coalesce_parent_perms(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    struct hv_xs_perm ro = {0, HV_XS_PERM_READ};
    struct hv_xs_stats a, b;
    uint32_t t;
    int pass;

    assert_int_equal(hv_xs_write(xs, 0, 0, "/p/q/r", "0"), 0);
    for ( pass = 0; pass < 2; pass++ )
    {
        assert_int_equal(hv_xs_txn_start(xs, 0, &t), 0);
        assert_int_equal(hv_xs_write(xs, 0, t, "/p/q/r", "x"), 0);
        if ( pass == 0 )
            assert_int_equal(hv_xs_write(xs, 0, 0, "/z", "1"), 0);
        else
            assert_int_equal(hv_xs_set_perms(xs, 0, 0, "/p", &ro, 1), 0);
        hv_xs_get_stats(xs, &a);
        assert_int_equal(hv_xs_txn_end(xs, 0, t, true), 0);
        hv_xs_get_stats(xs, &b);
        assert_int_equal(b.commits_coalesce, a.commits_coalesce + !pass);
        assert_int_equal(b.commits_replay, a.commits_replay + pass);
    }
}

/* A lowpath absent from both trees coalesces only if its parent is in
 * the committed tree (transaction.ml test_coalesce, None/None). */
static void test_coalesce_absent_lowpath(void **state)
{
    struct hv_xs *xs = ((struct fx *)*state)->xs;
    struct hv_xs_stats a, b;
    uint32_t t;
    char v[64];

    assert_int_equal(hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, "/m"), 0);
    assert_int_equal(hv_xs_txn_start(xs, 0, &t), 0);
    assert_int_equal(hv_xs_write(xs, 0, t, "/m/x/y", "1"), 0);
    assert_int_equal(rd(xs, 0, t, "/m/x/y", v), 0); /* its own node */
    assert_int_equal(hv_xs_write(xs, 0, 0, "/z", "1"), 0);
    hv_xs_get_stats(xs, &a);
    assert_int_equal(hv_xs_txn_end(xs, 0, t, true), 0);
    hv_xs_get_stats(xs, &b);
    assert_int_equal(b.commits_coalesce, a.commits_coalesce);
    assert_int_equal(b.commits_replay, a.commits_replay + 1);
    assert_int_equal(rd(xs, 0, 0, "/m/x/y", v), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_perm_matrix, setup, teardown),
        cmocka_unit_test_setup_teardown(test_root_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quota_boundaries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_txn_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xsa421, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xsa440, setup, teardown),
        cmocka_unit_test_setup_teardown(test_domain_release, setup, teardown),
        cmocka_unit_test_setup_teardown(test_domain_destroy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_schedule, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rm_missing_parent, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mkdir_existing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_txn_lookup_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readonly_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_coalesce_parent_perms, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_coalesce_absent_lowpath, setup,
                                        teardown),
    };
    const struct hv_plugin_hdr *h;
    char name[64];
    unsigned int i;
    int failed = 0;

    if ( !tl_registry_init("unit-xenstore") )
        return 1;
    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
    {
        if ( strcmp(h->slot, "quota") != 0 || (h->flags & HV_PF_TEST_ONLY) )
            continue;
        quota_plugin = h->name;
        snprintf(name, sizeof(name), "xenstore/quota=%s", h->name);
        failed += _cmocka_run_group_tests(name, tests, HV_ARRAY_SIZE(tests),
                                          NULL, NULL);
    }
    return failed ? 1 : 0;
}
