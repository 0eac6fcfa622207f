/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit-quota: the quota slot's conformance suite, run for every
 * registered quota plugin, and two differential tests:
 *
 *  - map level: one seeded stream of add/del/copy/release over up to 8
 *    live versions, checked after every step against plain arrays (one
 *    per version): copies are independent values;
 *  - store level: one seeded stream of random xenstore requests from
 *    several domains, transactions included, through a machine per
 *    plugin: identical answers at every step, identical quota counts,
 *    and quota == recount at the end.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"
#include <hv/hv.h>
#include <hv/plugin.h>
#include <hv/quota.h>
#include <hv/xenstore.h>

#define MAX_PLUGINS 8
static const struct hv_quota_ops *plugins[MAX_PLUGINS];
static unsigned int nr_plugins;

static void *init(const struct hv_quota_ops *q)
{
    void *priv = NULL;

    if ( q->init )
        assert_int_equal(q->init(NULL, &priv), 0);
    return priv;
}

static void fini(const struct hv_quota_ops *q, void *priv)
{
    if ( q->fini )
        q->fini(priv);
}

static void sum_fn(domid_t id, int n, void *arg)
{
    ((long *)arg)[0] += n;
    ((long *)arg)[1]++;
}

static void test_conformance(void **state)
{
    unsigned int i;

    for ( i = 0; i < nr_plugins; i++ )
    {
        const struct hv_quota_ops *q = plugins[i];
        void *priv = init(q);
        struct hv_quota_map *a = q->create(priv), *b;
        long sum[2] = {0, 0};

        assert_non_null(a);
        assert_int_equal(q->get(priv, a, 5), 0);
        assert_int_equal(q->add(priv, &a, 5, 3), 0);
        assert_int_equal(q->add(priv, &a, 0x7FEF, 1), 0);
        assert_int_equal(q->get(priv, a, 5), 3);
        b = q->copy(priv, a);
        assert_int_equal(q->add(priv, &b, 5, -3), 0);
        assert_int_equal(q->get(priv, b, 5), 0); /* entry gone */
        assert_int_equal(q->size(priv, b), 1);
        assert_int_equal(q->get(priv, a, 5), 3); /* a untouched */
        assert_int_equal(q->size(priv, a), 2);
        assert_int_equal(q->del(priv, &a, 0x7FEF), 0);
        assert_int_equal(q->get(priv, b, 0x7FEF), 1);
        q->foreach(priv, a, sum_fn, sum);
        assert_int_equal(sum[0], 3);
        assert_int_equal(sum[1], 1);
        q->release(priv, a);
        q->release(priv, b);
        fini(q, priv);
    }
}

#define VERSIONS 8
#define IDS      2000

static void test_map_differential(void **state)
{
    unsigned int i, step;

    for ( i = 0; i < nr_plugins; i++ )
    {
        const struct hv_quota_ops *q = plugins[i];
        void *priv = init(q);
        struct hv_quota_map *m[VERSIONS] = {NULL};
        static int ref[VERSIONS][IDS];
        uint64_t s = 0x1234567 + i * 0; /* same stream for every plugin */

        memset(ref, 0, sizeof(ref));
        m[0] = q->create(priv);
        for ( step = 0; step < 200000; step++ )
        {
            unsigned int v = tl_rand(&s) % VERSIONS, w = tl_rand(&s) % VERSIONS;
            domid_t id = tl_rand(&s) % IDS;
            unsigned int op = tl_rand(&s) % 16, k, n = 0;

            if ( m[v] == NULL )
                continue;
            if ( op < 10 )
            {
                int d = (int)(tl_rand(&s) % 5) - 2;

                assert_int_equal(q->add(priv, &m[v], id, d), 0);
                ref[v][id] += d;
            }
            else if ( op < 11 )
            {
                assert_int_equal(q->del(priv, &m[v], id), 0);
                ref[v][id] = 0;
            }
            else if ( op < 14 && v != w )
            {
                if ( m[w] )
                    q->release(priv, m[w]);
                m[w] = q->copy(priv, m[v]);
                memcpy(ref[w], ref[v], sizeof(ref[v]));
            }
            else if ( op < 15 && v != 0 )
            {
                q->release(priv, m[v]);
                m[v] = NULL;
                continue;
            }
            assert_int_equal(q->get(priv, m[v], id), ref[v][id]);
            if ( step % 4096 == 0 )
            {
                for ( k = 0; k < IDS; k++ )
                {
                    assert_int_equal(q->get(priv, m[v], k), ref[v][k]);
                    n += ref[v][k] != 0;
                }
                assert_int_equal(q->size(priv, m[v]), n);
            }
        }
        for ( step = 0; step < VERSIONS; step++ )
            if ( m[step] )
                q->release(priv, m[step]);
        fini(q, priv);
    }
}

static struct hv *machine(const char *plugin)
{
    struct hv_config cfg;
    struct hv *hv;

    hv_config_init(&cfg);
    cfg.nr_cpus = 1;
    cfg.xs.maxent = 40; /* reach the limit often */
    hv = tl_hv_create_cfg(&cfg, "quota", plugin);
    assert_non_null(hv);
    return hv;
}

/* One random request; its answer hashed into *@h. */
static int random_request(struct hv_xs *xs, uint64_t *s, uint32_t *tids,
                          char *buf)
{
    static const char *const names[] = {"a", "b", "c", "d"};
    char path[64];
    domid_t caller = tl_rand(s) % 4;
    unsigned int depth = 1 + tl_rand(s) % 4, i, slot = caller;
    size_t off = 0;
    struct hv_xs_perm p[2] = {{tl_rand(s) % 4, tl_rand(s) % 4},
                              {tl_rand(s) % 4, 1}};
    struct hv_xs_req q = {.caller = caller};
    struct hv_xs_rsp r = {.buf = buf, .cap = 256};
    int rc;

    if ( tl_rand(s) % 2 )
        off = snprintf(path, sizeof(path), "/local/domain/%u", caller);
    for ( i = 0; i < depth; i++ )
        off += snprintf(path + off, sizeof(path) - off, "/%s",
                        names[tl_rand(s) % 4]);
    q.path = path;
    q.tid = tl_rand(s) % 3 == 0 ? tids[slot] : 0;
    switch ( tl_rand(s) % 10 )
    {
    case 0:
    case 1:
        q.op = HV_XS_WRITE;
        q.value = "val";
        q.value_len = tl_rand(s) % 4;
        break;
    case 2:
        q.op = HV_XS_MKDIR;
        break;
    case 3:
        q.op = HV_XS_RM;
        break;
    case 4:
        q.op = HV_XS_SET_PERMS;
        q.perms = p;
        q.nr_perms = 1 + tl_rand(s) % 2;
        break;
    case 5:
        q.op = HV_XS_DIRECTORY;
        break;
    case 6:
        q.op = HV_XS_GET_PERMS;
        break;
    case 7:
        if ( tids[slot] )
        {
            q.op = HV_XS_TXN_END;
            q.tid = tids[slot];
            q.commit = tl_rand(s) % 4 != 0;
            tids[slot] = 0;
        }
        else
            q.op = HV_XS_TXN_START;
        break;
    default:
        q.op = HV_XS_READ;
    }
    if ( q.op == HV_XS_TXN_START )
        q.tid = 0;
    rc = hv_xs_request(xs, &q, &r);
    if ( getenv("QTRACE") ) /* debug: trace the stream */
        printf("op %d caller %u tid %u path %s commit %d -> %d\n", q.op,
               q.caller, q.tid, path, q.commit, rc);
    if ( q.op == HV_XS_TXN_START && rc == 0 )
        tids[slot] = r.tid;
    if ( rc == 0 && q.op != HV_XS_TXN_START )
        return (int)(r.len * 131 + (r.len ? (unsigned char)buf[0] : 0));
    return rc;
}

static void test_store_differential(void **state)
{
    struct hv *hv[MAX_PLUGINS];
    uint64_t seed;
    unsigned int i, step;
    char buf[256], err[256];

    if ( nr_plugins < 2 )
        skip();
    for ( seed = 1; seed <= 20; seed++ )
    {
        uint64_t s[MAX_PLUGINS];
        uint32_t tids[MAX_PLUGINS][4];

        for ( i = 0; i < nr_plugins; i++ )
        {
            hv[i] = machine(plugins[i]->hdr.name);
            s[i] = seed * 0x9E3779B97F4A7C15ull;
            memset(tids[i], 0, sizeof(tids[i]));
        }
        for ( step = 0; step < 5000; step++ )
        {
            int a = random_request(hv_xs(hv[0]), &s[0], tids[0], buf);

            for ( i = 1; i < nr_plugins; i++ )
            {
                int b = random_request(hv_xs(hv[i]), &s[i], tids[i], buf);

                if ( a != b )
                    fail_msg("seed %lu step %u: %s answers %d, %s %d",
                             (unsigned long)seed, step, plugins[0]->hdr.name, a,
                             plugins[i]->hdr.name, b);
            }
            if ( step % (getenv("QSTEP") ? 1 : 500) == 0 )
                for ( i = 0; i < nr_plugins; i++ )
                {
                    domid_t d;

                    if ( hv_xs_check(hv_xs(hv[i]), err, sizeof(err)) )
                        fail_msg("seed %lu step %u %s: %s", (unsigned long)seed,
                                 step, plugins[i]->hdr.name, err);
                    for ( d = 0; d < 4; d++ )
                        assert_int_equal(hv_xs_quota(hv_xs(hv[i]), d),
                                         hv_xs_quota(hv_xs(hv[0]), d));
                }
        }
        for ( i = 0; i < nr_plugins; i++ )
        {
            if ( hv_xs_check(hv_xs(hv[i]), err, sizeof(err)) )
                fail_msg("seed %lu end %s: %s", (unsigned long)seed,
                         plugins[i]->hdr.name, err);
            hv_destroy(hv[i]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conformance),
        cmocka_unit_test(test_map_differential),
        cmocka_unit_test(test_store_differential),
    };
    const struct hv_plugin_hdr *h;
    unsigned int i;

    if ( !tl_registry_init("unit-quota") )
        return 1;
    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
        if ( strcmp(h->slot, "quota") == 0 && nr_plugins < MAX_PLUGINS )
        {
            printf("quota plugin: %s\n", h->name);
            plugins[nr_plugins++] = (const struct hv_quota_ops *)h;
        }
    return cmocka_run_group_tests_name("quota", tests, NULL, NULL);
}
