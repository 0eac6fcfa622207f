/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit-virt: the libvirt model's API, under every built-in seclock x
 * namesearch pair: define / lookup by UUID, name and id / EEXIST /
 * undefine / start / stop with their errors, labels (spawned helper,
 * unique, released), the modelled delays' timer slack, bad
 * configurations; and the RPC layer: the
 * per-client in-flight cap, the bounded pool, priority workers.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cmocka.h>

#include <hv/plugin.h>
#include <hv/plugin_registry.h>
#include <hv/virt_qemu.h>
#include <hv/virt_rpc.h>

#include "testlib.h"

static struct hv_virt *make_setall(const char *seclock, const char *namesearch,
                                   const char *helper, bool setall_helper)
{
    struct hv_plugin_inst sl = {0}, ns = {0};
    struct hv_virt_config cfg;
    struct hv_virt *v = NULL;
    char err[256] = "";

    assert_int_equal(
        hv_plugin_resolve("seclock", seclock, false, &sl, err, sizeof(err)), 0);
    assert_int_equal(hv_plugin_resolve("namesearch", namesearch, false, &ns,
                                       err, sizeof(err)),
                     0);
    hv_virt_config_init(&cfg);
    cfg.define_us = 0;
    cfg.qemu_start_us = 100;
    cfg.sec.delay_us = 100;
    cfg.sec.helper = helper;
    cfg.sec.setall_helper = setall_helper;
    cfg.seclock = &sl;
    cfg.namesearch = &ns;
    assert_int_equal(hv_virt_create(&cfg, &v, err, sizeof(err)), 0);
    hv_plugin_inst_free(&sl);
    hv_plugin_inst_free(&ns);
    return v;
}

static struct hv_virt *make(const char *seclock, const char *namesearch,
                            const char *helper)
{
    return make_setall(seclock, namesearch, helper, true);
}

/* The API contract, on one driver. */
static void api_checks(struct hv_virt *v)
{
    unsigned char u1[HV_VIRT_UUID_LEN], u2[HV_VIRT_UUID_LEN],
        u3[HV_VIRT_UUID_LEN];
    struct hv_virt_info info;
    struct hv_secmgr_stats st;
    char longname[HV_VIRT_NAME_MAX + 8];
    struct hv_vobj *obj;

    hv_virt_uuid(1, u1);
    hv_virt_uuid(2, u2);
    hv_virt_uuid(3, u3);
    assert_int_equal(hv_virt_define(v, "vm1", u1), 0);
    assert_int_equal(hv_virt_define(v, "vm2", u2), 0);
    /* An existing name, with another UUID; an existing UUID. */
    assert_int_equal(hv_virt_define(v, "vm1", u3), -EEXIST);
    assert_int_equal(hv_virt_define(v, "vm3", u1), -EEXIST);
    assert_int_equal(hv_virt_define(v, "", u3), -EINVAL);
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    assert_int_equal(hv_virt_define(v, longname, u3), -EINVAL);
    assert_int_equal(hv_vobjlist_count(hv_virt_list(v)), 2);

    assert_int_equal(hv_virt_lookup_name(v, "vm2", &info), 0);
    assert_memory_equal(info.uuid, u2, HV_VIRT_UUID_LEN);
    assert_int_equal(info.state, HV_VOBJ_SHUTOFF);
    assert_int_equal(info.id, -1);
    assert_int_equal(hv_virt_lookup_uuid(v, u1, &info), 0);
    assert_string_equal(info.name, "vm1");
    assert_int_equal(hv_virt_lookup_name(v, "vm3", &info), -ENOENT);
    assert_int_equal(hv_virt_lookup_uuid(v, u3, &info), -ENOENT);
    assert_int_equal(hv_virt_lookup_id(v, 1, &info), -ENOENT);

    /* Start: labelled with its own label, running with an id. */
    assert_int_equal(hv_virt_start(v, u1), 0);
    assert_int_equal(hv_virt_start(v, u1), -EBUSY);
    assert_int_equal(hv_virt_start(v, u2), 0);
    assert_int_equal(hv_virt_lookup_uuid(v, u1, &info), 0);
    assert_int_equal(info.state, HV_VOBJ_RUNNING);
    assert_true(info.id > 0);
    {
        struct hv_virt_info by_id;

        assert_int_equal(hv_virt_lookup_id(v, info.id, &by_id), 0);
        assert_string_equal(by_id.name, "vm1");
    }
    obj = hv_vobjlist_find_by_uuid(hv_virt_list(v), u1);
    assert_non_null(obj);
    assert_true(hv_secmgr_label_ok(hv_virt_secmgr(v), obj));
    hv_vobj_end(obj);
    assert_int_equal(hv_secmgr_labels_held(hv_virt_secmgr(v)), 2);
    /* A running domain cannot be undefined; its name stays taken. */
    assert_int_equal(hv_virt_undefine(v, u1), -EBUSY);
    assert_int_equal(hv_virt_define(v, "vm1", u3), -EEXIST);

    /* Stop releases the label; stop twice is refused. */
    assert_int_equal(hv_virt_stop(v, u1), 0);
    assert_int_equal(hv_virt_stop(v, u1), -EINVAL);
    assert_int_equal(hv_secmgr_labels_held(hv_virt_secmgr(v)), 1);
    assert_int_equal(hv_virt_lookup_id(v, info.id, &info), -ENOENT);

    /* Undefine: gone by name and UUID; the name is free again. */
    assert_int_equal(hv_virt_undefine(v, u1), 0);
    assert_int_equal(hv_virt_undefine(v, u1), -ENOENT);
    assert_int_equal(hv_virt_lookup_name(v, "vm1", &info), -ENOENT);
    assert_int_equal(hv_virt_lookup_uuid(v, u1, &info), -ENOENT);
    assert_int_equal(hv_virt_start(v, u1), -ENOENT);
    assert_int_equal(hv_virt_define(v, "vm1", u3), 0);
    assert_int_equal(hv_virt_lookup_name(v, "vm1", &info), 0);
    assert_memory_equal(info.uuid, u3, HV_VIRT_UUID_LEN);

    assert_int_equal(hv_virt_stop(v, u2), 0);
    assert_int_equal(hv_virt_undefine(v, u2), 0);
    assert_int_equal(hv_virt_undefine(v, u3), 0);
    assert_int_equal(hv_vobjlist_count(hv_virt_list(v)), 0);
    assert_int_equal(hv_vobjlist_live_objects(hv_virt_list(v)), 0);
    assert_int_equal(hv_secmgr_labels_held(hv_virt_secmgr(v)), 0);

    /* Two starts and one stop: 2 + 2 GenLabel/SetAll, 2 RestoreAll. */
    hv_secmgr_stats(hv_virt_secmgr(v), &st);
    assert_int_equal(st.ops[HV_LABEL_GEN], 2);
    assert_int_equal(st.ops[HV_LABEL_SETALL], 2);
    assert_int_equal(st.ops[HV_LABEL_RESTORE], 2);
    assert_int_equal(st.delay_ns, 6 * 100 * 1000);
}

static void test_every_pair(void **state)
{
    static const char *const sl[] = {"global", "per-domain", "job"};
    static const char *const ns[] = {"lock-each", "name-hash"};
    unsigned int i, j;

    for ( i = 0; i < HV_ARRAY_SIZE(sl); i++ )
        for ( j = 0; j < HV_ARRAY_SIZE(ns); j++ )
        {
            struct hv_virt *v = make(sl[i], ns[j], NULL);

            api_checks(v);
            hv_virt_destroy(v);
        }
}

/* The helper is really spawned, once per label operation. */
static void test_helper_spawned(void **state)
{
    struct hv_virt *v = make("global", "name-hash", "/bin/true");
    unsigned char u[HV_VIRT_UUID_LEN];
    struct hv_secmgr_stats st;

    hv_virt_uuid(7, u);
    assert_int_equal(hv_virt_define(v, "vm", u), 0);
    assert_int_equal(hv_virt_start(v, u), 0);
    assert_int_equal(hv_virt_stop(v, u), 0);
    hv_secmgr_stats(hv_virt_secmgr(v), &st);
    assert_int_equal(st.spawns, 3);
    assert_true(st.spawn_ns > 0);
    hv_virt_destroy(v);

    /* A helper that fails fails the start, and leaves no label. */
    v = make("per-domain", "name-hash", "/bin/false");
    assert_int_equal(hv_virt_define(v, "vm", u), 0);
    assert_int_equal(hv_virt_start(v, u), -EIO);
    assert_int_equal(hv_secmgr_labels_held(hv_virt_secmgr(v)), 0);
    hv_virt_destroy(v);
}

/*
 * setall_helper off (AppArmor's start path): SetAllLabel still runs (and
 * takes the strategy's locks) but spawns no helper and sleeps nothing;
 * GenLabel and RestoreAll still do both.
 */
static void test_setall_no_helper(void **state)
{
    static const char *const seclocks[] = {"global", "per-domain", "job"};
    unsigned char u[HV_VIRT_UUID_LEN];
    struct hv_secmgr_stats st;
    unsigned int i;

    hv_virt_uuid(8, u);
    for ( i = 0; i < sizeof(seclocks) / sizeof(seclocks[0]); i++ )
    {
        struct hv_virt *v =
            make_setall(seclocks[i], "name-hash", "/bin/true", false);

        assert_int_equal(hv_virt_define(v, "vm", u), 0);
        assert_int_equal(hv_virt_start(v, u), 0);
        assert_int_equal(hv_secmgr_labels_held(hv_virt_secmgr(v)), 1);
        assert_int_equal(hv_virt_stop(v, u), 0);
        hv_secmgr_stats(hv_virt_secmgr(v), &st);
        assert_int_equal(st.ops[HV_LABEL_SETALL], 1);
        assert_int_equal(st.spawns, 2);
        assert_int_equal(st.delay_ns, 2 * 100 * 1000);
        assert_int_equal(hv_secmgr_labels_held(hv_virt_secmgr(v)), 0);
        hv_virt_destroy(v);
    }
}

/*
 * A modelled delay sleeps with a timer slack of 1 ns, not the default
 * 50 us that ended a 130 us sleep at 185 us: checked on the slack itself
 * (deterministic), in a thread of its own so that its first sleep is the
 * one that sets it.
 */
static void *slack_thread(void *arg)
{
    long *slack =
        arg; /* asserted by the caller: cmocka's are not for threads */

    slack[0] = prctl(PR_SET_TIMERSLACK, 50000UL, 0UL, 0UL, 0UL);
    hv_virt_sleep_us(0); /* no sleep: the slack stays */
    slack[1] = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
    hv_virt_sleep_us(1);
    slack[2] = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
    return NULL;
}

static void test_sleep_exact(void **state)
{
    long slack[3] = {-1, -1, -1};
    pthread_t t;

    assert_int_equal(pthread_create(&t, NULL, slack_thread, slack), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(slack[0], 0);
    assert_int_equal(slack[1], 50000);
    assert_int_equal(slack[2], 1);
}

/*
 * The interface's filter: off by default; on, a start instantiates it
 * once (a real shell, the modelled delay counted), a failing shell fails
 * the start and leaves no label, a missing one is refused.
 */
static void test_nwfilter(void **state)
{
    struct hv_nwfilter_stats nf;
    struct hv_virt_config cfg;
    unsigned char u[HV_VIRT_UUID_LEN];
    struct hv_virt *v = make("global", "lock-each", NULL);
    char err[256] = "";

    assert_null(hv_virt_nwfilter(v));
    hv_virt_destroy(v);

    hv_virt_config_init(&cfg);
    cfg.define_us = 0;
    cfg.qemu_start_us = 0;
    cfg.sec.delay_us = 0;
    cfg.sec.helper = NULL;
    cfg.nwfilter = true;
    cfg.nwf.delay_us = 100;
    assert_int_equal(hv_virt_create(&cfg, &v, err, sizeof(err)), 0);
    hv_virt_uuid(9, u);
    assert_int_equal(hv_virt_define(v, "vm", u), 0);
    assert_int_equal(hv_virt_start(v, u), 0);
    hv_nwfilter_stats(hv_virt_nwfilter(v), &nf);
    assert_int_equal(nf.instantiations, 1);
    assert_int_equal(nf.spawns, 1);
    assert_true(nf.spawn_ns > 0);
    assert_int_equal(nf.delay_ns, 100000);
    assert_int_equal(hv_virt_stop(v, u), 0);
    hv_virt_destroy(v);

    cfg.nwf.shell = "/bin/false";
    assert_int_equal(hv_virt_create(&cfg, &v, err, sizeof(err)), 0);
    assert_int_equal(hv_virt_define(v, "vm", u), 0);
    assert_int_equal(hv_virt_start(v, u), -EIO);
    assert_int_equal(hv_secmgr_labels_held(hv_virt_secmgr(v)), 0);
    hv_nwfilter_stats(hv_virt_nwfilter(v), &nf);
    assert_int_equal(nf.instantiations, 0);
    hv_virt_destroy(v);

    cfg.nwf.shell = "/nonexistent/sh";
    assert_int_equal(hv_virt_create(&cfg, &v, err, sizeof(err)), -EINVAL);
    assert_null(v);
    assert_non_null(strstr(err, "/nonexistent/sh"));
}

static void test_bad_config(void **state)
{
    struct hv_virt_config cfg;
    struct hv_virt *v = (void *)1;
    char err[256] = "";

    hv_virt_config_init(&cfg);
    cfg.sec.helper = "/nonexistent/virt-aa-helper";
    assert_int_equal(hv_virt_create(&cfg, &v, err, sizeof(err)), -EINVAL);
    assert_null(v);
    assert_non_null(strstr(err, "/nonexistent/virt-aa-helper"));
    hv_virt_config_init(&cfg);
    cfg.sec.label_space = 0;
    assert_int_equal(hv_virt_create(&cfg, &v, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "label_space"));
    /* The defaults resolve (seclock=global, namesearch=name-hash). */
    hv_virt_config_init(&cfg);
    assert_int_equal(hv_virt_create(&cfg, &v, err, sizeof(err)), 0);
    hv_virt_destroy(v);
}

/* RPC: calls that block until released, to fill the pool. */
struct gate {
    pthread_mutex_t m;
    pthread_cond_t c;
    unsigned int running, open;
};

static int gated(void *arg)
{
    struct gate *g = arg;

    pthread_mutex_lock(&g->m);
    g->running++;
    pthread_cond_broadcast(&g->c);
    while ( !g->open )
        pthread_cond_wait(&g->c, &g->m);
    g->running--;
    pthread_mutex_unlock(&g->m);
    return 7;
}

static int quick(void *arg)
{
    return 42;
}

struct caller {
    struct hv_rpc_client *cl;
    struct hv_rpc_call call;
    pthread_t tid;
    int rc;
};

static void *caller_main(void *arg)
{
    struct caller *c = arg;

    c->rc = hv_rpc_call(c->cl, &c->call);
    return NULL;
}

static unsigned int running(struct gate *g)
{
    unsigned int r;

    pthread_mutex_lock(&g->m);
    r = g->running;
    pthread_mutex_unlock(&g->m);
    return r;
}

/*
 * Start callers @from .. @to - 1 of @c, blocking calls of client @cl held
 * at gate @g; then, given time (2 s at most, and 20 ms more for any call
 * too many), exactly @expect calls must be running.
 */
static void start_gated(struct caller *c, unsigned int from, unsigned int to,
                        struct hv_rpc_client *cl, struct gate *g,
                        unsigned int expect)
{
    unsigned int i;

    for ( i = from; i < to; i++ )
    {
        c[i] = (struct caller){.cl = cl, .call = {.fn = gated, .arg = g}};
        pthread_create(&c[i].tid, NULL, caller_main, &c[i]);
    }
    for ( i = 0; i < 2000 && running(g) < expect; i++ )
        usleep(1000);
    usleep(20000);
    assert_int_equal(running(g), expect);
}

static void test_rpc_caps(void **state)
{
    struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    struct hv_rpc_config cfg = {
        .max_workers = 4, .prio_workers = 1, .max_client_requests = 3};
    struct hv_rpc_server *s = NULL;
    struct hv_rpc_client *a, *b, *p;
    struct caller c[8];
    struct hv_rpc_stats st;
    struct hv_rpc_call pc = {.fn = quick, .prio = true};
    char err[256];
    unsigned int i;

    assert_int_equal(hv_rpc_server_create(&cfg, &s, err, sizeof(err)), 0);
    a = hv_rpc_client_open(s);
    b = hv_rpc_client_open(s);
    p = hv_rpc_client_open(s);
    /* Client a: 5 blocking calls, at most 3 in flight. */
    start_gated(c, 0, 5, a, &g, 3);
    /* Client b: 3 more; only one ordinary worker is left. */
    start_gated(c, 5, 8, b, &g, 4);
    /* Every ordinary worker is stuck: a priority call still runs. */
    assert_int_equal(hv_rpc_call(p, &pc), 42);
    hv_rpc_stats(s, &st);
    assert_int_equal(st.busy_max, 4);
    assert_true(st.throttled >= 2);
    assert_true(st.queued >= 2);

    pthread_mutex_lock(&g.m);
    g.open = 1;
    pthread_cond_broadcast(&g.c);
    pthread_mutex_unlock(&g.m);
    for ( i = 0; i < 8; i++ )
    {
        pthread_join(c[i].tid, NULL);
        assert_int_equal(c[i].rc, 7);
        assert_true(c[i].call.t_submit <= c[i].call.t_read &&
                    c[i].call.t_read <= c[i].call.t_start &&
                    c[i].call.t_start <= c[i].call.t_end);
    }
    assert_int_equal(hv_rpc_client_inflight_max(a), 3);
    assert_int_equal(hv_rpc_client_inflight_max(b), 3);
    hv_rpc_client_close(a);
    hv_rpc_client_close(b);
    hv_rpc_client_close(p);
    hv_rpc_server_destroy(s);

    cfg.max_client_requests = 0;
    assert_int_equal(hv_rpc_server_create(&cfg, &s, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "max_client_requests"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_pair),
        cmocka_unit_test(test_helper_spawned),
        cmocka_unit_test(test_setall_no_helper),
        cmocka_unit_test(test_sleep_exact),
        cmocka_unit_test(test_nwfilter),
        cmocka_unit_test(test_bad_config),
        cmocka_unit_test(test_rpc_caps),
    };

    if ( !tl_registry_init("unit-virt") )
        return 2;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
