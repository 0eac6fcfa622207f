/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny boot storm (what workloads/macro/boot-storm.c runs at scale)
 * under each strategy set, built plain and under ASan and TSan: NR_VMS
 * VMs booted by NR_BOOTERS threads through hv_vmboot() (hv/vmboot.h)
 * while a poller enumerates every domain, a netback thread maps grants of
 * the running VMs and a churn thread destroys and re-creates other
 * domains.  Then:
 *
 *   - every VM booted is enumerable (getdomaininfolist lists it);
 *   - its xenstore home exists, is owned by the VM, and the VM's quota is
 *     what the boot wrote below it; the store's CONTROL check passes;
 *   - under pgalloc=numa its memory is all on its vCPU's node;
 *   - destroying every VM (by the booters, the poller still polling)
 *     returns the heap's free pages, the store's node count, every VM's
 *     quota and the domain table to their initial state;
 *   - the comparison is not vacuous: one VM left running is seen.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <hv/hv.h>
#include <hv/page_alloc.h>
#include <hv/virt_qemu.h>
#include <hv/virt_rpc.h>
#include <hv/vmboot.h>
#include <hv/xenctrl.h>

#include "testlib.h"

#define NR_VMS      16
#define NR_BOOTERS  4
#define NR_CONN     2
#define CHURN_FIRST 0x4000
#define CHURN_N     8
#define MEM_PAGES   64
#define CPU_POLLER  (1 + NR_BOOTERS)
#define CPU_GRANTS  (2 + NR_BOOTERS)

struct set {
    const char *name;
    const char *plugins[HV_SLOT_NR][2]; /* slot, spec */
};

static const struct set sets[] = {
    {"all-old",
     {{"domlookup", "rwlock-ref"},
      {"quota", "hashtbl-copy"},
      {"pgalloc", "numa-2006"},
      {"infolist", "append-2"},
      {"seclock", "global"},
      {"namesearch", "lock-each"}}},
    {"all-new",
     {{"domlookup", "rcu-noref"},
      {"quota", "persistent"},
      {"pgalloc", "numa"},
      {"infolist", "chunked"},
      {"seclock", "per-domain"},
      {"namesearch", "name-hash"}}},
#ifndef __SANITIZE_THREAD__ /* liburcu is invisible to TSan */
    {"urcu-job",
     {{"domlookup", "urcu-ref"},
      {"quota", "persistent"},
      {"pgalloc", "numa"},
      {"infolist", "cursor"},
      {"seclock", "job"},
      {"namesearch", "lock-each"}}},
#endif
};

struct host {
    struct hv *hv;
    struct hv_virt *virt;
    struct hv_rpc_server *srv;
    struct hv_rpc_client *conn[NR_CONN];
    struct hv_vmboot_config boot;
    struct hv_vmboot_result res[NR_VMS];
    bool numa;
    _Atomic unsigned int next, nr_running;
    _Atomic domid_t running[NR_VMS];
    _Atomic bool stop, stop_grants;
    _Atomic uint64_t polls, grant_rounds, grant_failed, boot_failed;
    bool teardown; /* set before the booters start */
};

static void sleep_ms(unsigned int ms)
{
    struct timespec ts = {0, (long)ms * 1000000};

    nanosleep(&ts, NULL);
}

static struct hv *make_hv(const struct set *s)
{
    struct hv_config cfg;
    struct hv *hv = NULL;
    char err[256];
    unsigned int i;
    int rc;

    hv_config_init(&cfg);
    cfg.nr_cpus = 8;
    cfg.topology = "2x64M";
#ifdef __SANITIZE_ADDRESS__
    cfg.quarantine_gps = 0; /* freed at once: ASan sees a late access */
#else
    cfg.quarantine_gps = 2; /* poisoned: the lifetime checks see it */
#endif
    for ( i = 0; i < HV_SLOT_NR && s->plugins[i][0]; i++ )
    {
        const struct hv_slot *sl = hv_slot_find(s->plugins[i][0]);

        assert_non_null(sl);
        rc = hv_plugin_resolve(sl->name, s->plugins[i][1], true,
                               &cfg.plugins[sl->id], err, sizeof(err));
        if ( rc )
            fail_msg("%s: %s", s->plugins[i][1], err);
    }
    rc = hv_create(&cfg, &hv, err, sizeof(err));
    for ( i = 0; i < HV_SLOT_NR; i++ )
        hv_plugin_inst_free(&cfg.plugins[i]);
    if ( rc )
        fail_msg("hv_create(%s): %s", s->name, err);
    return hv;
}

static void host_init(struct host *h, const struct set *s)
{
    struct hv_virt_config vc;
    struct hv_rpc_config rc_cfg;
    char err[256];
    unsigned int i;

    memset(h, 0, sizeof(*h));
    h->hv = make_hv(s);
    h->numa = strcmp(s->plugins[2][1], "numa") == 0;
    hv_virt_config_init(&vc);
    vc.sec.delay_us = 200;
    vc.qemu_start_us = 100;
    vc.define_us = 20;
    vc.seclock = hv_slot_plugin(h->hv, HV_SLOT_SECLOCK);
    vc.namesearch = hv_slot_plugin(h->hv, HV_SLOT_NAMESEARCH);
    assert_int_equal(hv_virt_create(&vc, &h->virt, err, sizeof(err)), 0);
    hv_rpc_config_init(&rc_cfg);
    assert_int_equal(hv_rpc_server_create(&rc_cfg, &h->srv, err, sizeof(err)),
                     0);
    for ( i = 0; i < NR_CONN; i++ )
        assert_non_null(h->conn[i] = hv_rpc_client_open(h->srv));
    h->boot = (struct hv_vmboot_config){
        .virt = h->virt,
        .mem_pages = MEM_PAGES,
        .extent_order = 0,
        .batch = 16,
        .xs_nodes = 80,
        .nr_grants = 8,
        .xs_max_retries = 64,
    };
    assert_int_equal(hv_vmboot_host_init(h->hv), 0);
    for ( i = 0; i < CHURN_N; i++ )
        assert_int_equal(hv_domain_create(h->hv, CHURN_FIRST + i, 0, NULL), 0);
}

static void host_fini(struct host *h)
{
    unsigned int i;

    for ( i = 0; i < NR_CONN; i++ )
        hv_rpc_client_close(h->conn[i]);
    hv_rpc_server_destroy(h->srv);
    hv_virt_destroy(h->virt);
    hv_destroy(h->hv);
}

struct booter {
    struct host *h;
    unsigned int index;
};

static void *booter_main(void *arg)
{
    struct booter *b = arg;
    struct host *h = b->h;
    struct hv_cpu *cpu = hv_cpu_enter(h->hv, 1 + b->index);
    struct hv_rpc_client *conn = h->conn[b->index % NR_CONN];
    unsigned int i;

    if ( cpu == NULL )
        abort();
    while ( (i = atomic_fetch_add(&h->next, 1)) < NR_VMS )
    {
        domid_t id = (domid_t)(1 + i);

        if ( h->teardown )
        {
            if ( hv_vmboot_teardown(cpu, conn, &h->boot, id) )
                atomic_fetch_add(&h->boot_failed, 1);
        }
        else if ( hv_vmboot(cpu, conn, &h->boot, id, &h->res[i]) )
            atomic_fetch_add(&h->boot_failed, 1);
        else
            atomic_store(&h->running[atomic_fetch_add(&h->nr_running, 1)], id);
        hv_rcu_quiescent(cpu);
    }
    hv_cpu_leave(cpu);
    return NULL;
}

static void run_booters(struct host *h, bool teardown)
{
    struct booter b[NR_BOOTERS];
    pthread_t tid[NR_BOOTERS];
    unsigned int k;

    h->teardown = teardown;
    atomic_store(&h->next, 0);
    for ( k = 0; k < NR_BOOTERS; k++ )
    {
        b[k] = (struct booter){h, k};
        assert_int_equal(pthread_create(&tid[k], NULL, booter_main, &b[k]), 0);
    }
    for ( k = 0; k < NR_BOOTERS; k++ )
        pthread_join(tid[k], NULL);
}

static void *poller_main(void *arg)
{
    struct host *h = arg;
    struct hv_cpu *cpu = hv_cpu_enter(h->hv, CPU_POLLER);
    struct hv_dominfo_list l;
    struct hv_xc xc;

    if ( cpu == NULL )
        abort();
    hv_xc_open(&xc, cpu);
    while ( !atomic_load(&h->stop) )
    {
        if ( hv_xc_domain_getinfolist_all(&xc, 0, &l) )
            abort();
        free(l.info);
        hv_rcu_quiescent(cpu);
        atomic_fetch_add(&h->polls, 1);
        sleep_ms(1);
    }
    hv_xc_close(&xc);
    hv_cpu_leave(cpu);
    return NULL;
}

/* Netback: map and unmap grants of the VMs running so far. */
static void *granter_main(void *arg)
{
    struct host *h = arg;
    struct hv_cpu *cpu = hv_cpu_enter(h->hv, CPU_GRANTS);
    struct hv_gnttab_map_op map[4];
    struct hv_gnttab_unmap_op unmap[4];
    uint64_t rng = 7;
    unsigned int i, n;

    if ( cpu == NULL )
        abort();
    hv_cpu_set_domain(cpu, 0);
    while ( !atomic_load(&h->stop_grants) )
    {
        n = atomic_load(&h->nr_running);
        if ( n == 0 )
        {
            sleep_ms(1);
            continue;
        }
        for ( i = 0; i < 4; i++ )
            map[i] = (struct hv_gnttab_map_op){
                .dom = atomic_load(&h->running[tl_rand(&rng) % n]), .ref = i};
        if ( map[0].dom == 0 )
            continue; /* not published yet */
        map[1].dom = map[2].dom = map[3].dom = map[0].dom;
        hv_gnttab_map(cpu, map, 4);
        hv_rcu_quiescent(cpu);
        for ( i = 0; i < 4; i++ )
        {
            if ( map[i].status != GNTST_okay )
                atomic_fetch_add(&h->grant_failed, 1);
            unmap[i].handle = map[i].handle;
        }
        hv_gnttab_unmap(cpu, unmap, 4);
        hv_rcu_quiescent(cpu);
        atomic_fetch_add(&h->grant_rounds, 1);
    }
    hv_cpu_leave(cpu);
    return NULL;
}

static void *churn_main(void *arg)
{
    struct host *h = arg;
    uint64_t rng = 11;

    while ( !atomic_load(&h->stop) )
    {
        domid_t id = (domid_t)(CHURN_FIRST + tl_rand(&rng) % CHURN_N);

        if ( hv_domain_destroy(h->hv, id) == 0 )
            (void)!hv_domain_create(h->hv, id, 0, NULL);
        hv_rcu_poll(h->hv);
    }
    return NULL;
}

/* The state teardown must give back. */
struct snap {
    uint64_t free_pages, xs_nodes;
    unsigned int domains;
    int quota[NR_VMS];
};

static void snap(struct host *h, struct hv_cpu *cpu, struct snap *sn)
{
    const struct hv_stats *st = hv_stats(h->hv);
    struct hv_heap_info hi;
    struct hv_xs_stats xst;
    double end = tl_now() + 10;
    unsigned int n;

    /* Every destroyed domain freed (its memory back in the heap). */
    while ( tl_created(h->hv) - tl_freed(h->hv) != hv_domain_count(h->hv) &&
            tl_now() < end )
    {
        hv_rcu_quiescent(cpu);
        hv_rcu_poll(h->hv);
        sleep_ms(1);
    }
    assert_int_equal(tl_created(h->hv) - atomic_load(&st->domains_freed),
                     hv_domain_count(h->hv));
    assert_int_equal(hv_heap_check(h->hv, &hi, NULL, 0), 0);
    sn->free_pages = 0;
    for ( n = 0; n < hi.nr_nodes; n++ )
        sn->free_pages += hi.node_free[n];
    hv_xs_get_stats(hv_xs(h->hv), &xst);
    sn->xs_nodes = xst.nodes;
    sn->domains = hv_domain_count(h->hv);
    for ( n = 0; n < NR_VMS; n++ )
        sn->quota[n] = hv_xs_quota(hv_xs(h->hv), (domid_t)(1 + n));
    assert_int_equal(hv_domtab_check(h->hv), 0);
    assert_int_equal(hv_xs_check(hv_xs(h->hv), NULL, 0), 0);
}

static bool snap_equal(const struct snap *a, const struct snap *b)
{
    return a->free_pages == b->free_pages && a->xs_nodes == b->xs_nodes &&
           a->domains == b->domains &&
           memcmp(a->quota, b->quota, sizeof(a->quota)) == 0;
}

/* What a booted VM must look like. */
static void check_vm(struct host *h, struct hv_cpu *cpu, unsigned int i,
                     const struct hv_dominfo_list *l)
{
    domid_t id = (domid_t)(1 + i);
    const struct hv_vmboot_result *r = &h->res[i];
    uint64_t pages[HV_MAX_NUMNODES];
    struct hv_xs_req q = {
        .op = HV_XS_GET_PERMS, .path = NULL, .caller = 0, .tid = 0};
    char path[64], buf[256], want[16];
    struct hv_xs_rsp rsp = {.buf = buf, .cap = sizeof(buf)};
    struct hv_domain *d;
    unsigned int k;
    bool listed = false;

    for ( k = 0; k < l->n; k++ )
        listed |= l->info[k].domain == id;
    if ( !listed )
        fail_msg("d%u booted but not enumerated", id);

    snprintf(path, sizeof(path), "/local/domain/%u", id);
    q.path = path;
    assert_int_equal(hv_xs_request(hv_xs(h->hv), &q, &rsp), 0);
    snprintf(want, sizeof(want), "n%u", id);
    if ( rsp.len < strlen(want) + 1 || strcmp(buf, want) != 0 )
        fail_msg("d%u: home owned by '%s', not %s", id, buf, want);
    assert_int_equal(hv_xs_quota(hv_xs(h->hv), id), (int)r->xs_owned);
    assert_true(r->xs_owned > HV_VMBOOT_XS_MIN / 2);
    assert_true(r->xs_written <= h->boot.xs_nodes);
    snprintf(path, sizeof(path), "/local/domain/0/backend/vif/%u/0/state", id);
    assert_int_equal(
        hv_xs_read(hv_xs(h->hv), 0, 0, path, buf, sizeof(buf), NULL), 0);

    d = hv_domain_lock_by_id(cpu, id);
    assert_non_null(d);
    assert_int_equal(hv_domain_node_pages(d, pages), MEM_PAGES);
    if ( h->numa && pages[r->node] != MEM_PAGES )
        fail_msg("d%u: %llu of %u pages on its node %u", id,
                 (unsigned long long)pages[r->node], MEM_PAGES, r->node);
    hv_domain_unlock(cpu, d);
    hv_rcu_quiescent(cpu);
}

static void storm(const struct set *s)
{
    struct host h;
    struct hv_cpu *cpu;
    struct hv_dominfo_list l;
    struct snap before, after, leak;
    struct hv_vmboot_result extra;
    pthread_t poller, granter, churn;
    struct hv_xc xc;
    unsigned int i;

    host_init(&h, s);
    cpu = hv_cpu_enter(h.hv, 0);
    assert_non_null(cpu);
    snap(&h, cpu, &before);
    assert_int_equal(pthread_create(&poller, NULL, poller_main, &h), 0);
    assert_int_equal(pthread_create(&granter, NULL, granter_main, &h), 0);
    assert_int_equal(pthread_create(&churn, NULL, churn_main, &h), 0);

    run_booters(&h, false);
    assert_int_equal(atomic_load(&h.boot_failed), 0);
    assert_int_equal(atomic_load(&h.nr_running), NR_VMS);
    hv_xc_open(&xc, cpu);
    assert_int_equal(hv_xc_domain_getinfolist_all(&xc, 0, &l), 0);
    for ( i = 0; i < NR_VMS; i++ )
        check_vm(&h, cpu, i, &l);
    free(l.info);
    hv_xc_close(&xc);
    /* Let the poller and netback see every VM running for a while. */
    sleep_ms(20);
    /* Netback disconnects first (backends close before the destroy). */
    atomic_store(&h.stop_grants, true);
    pthread_join(granter, NULL);

    run_booters(&h, true);
    atomic_store(&h.stop, true);
    pthread_join(poller, NULL);
    pthread_join(churn, NULL);
    assert_int_equal(atomic_load(&h.boot_failed), 0);
    assert_int_equal(atomic_load(&h.grant_failed), 0);
    assert_true(atomic_load(&h.polls) > 0);
    assert_true(atomic_load(&h.grant_rounds) > 0);
    assert_int_equal(hv_perfc_sum(h.hv, HV_PERFC_sysctl_walk_freed), 0);
    snap(&h, cpu, &after);
    if ( !snap_equal(&before, &after) )
        fail_msg("%s: teardown left free pages %llu -> %llu, xenstore nodes "
                 "%llu -> %llu, domains %u -> %u",
                 s->name, (unsigned long long)before.free_pages,
                 (unsigned long long)after.free_pages,
                 (unsigned long long)before.xs_nodes,
                 (unsigned long long)after.xs_nodes, before.domains,
                 after.domains);

    /* Not vacuous: one VM left running is a difference. */
    assert_int_equal(hv_vmboot(cpu, h.conn[0], &h.boot, 1, &extra), 0);
    snap(&h, cpu, &leak);
    assert_false(snap_equal(&before, &leak));
    assert_true(leak.free_pages + MEM_PAGES == before.free_pages);
    assert_int_equal(leak.quota[0], (int)extra.xs_owned);
    assert_int_equal(hv_vmboot_teardown(cpu, h.conn[0], &h.boot, 1), 0);
    snap(&h, cpu, &after);
    assert_true(snap_equal(&before, &after));

    hv_cpu_leave(cpu);
    host_fini(&h);
}

static void storm_every_set(void **state)
{
    unsigned int i;

    (void)state;
    for ( i = 0; i < HV_ARRAY_SIZE(sets); i++ )
        storm(&sets[i]);
}

/* Bad configs and ids are -EINVAL, a second boot of one VM -EEXIST. */
static void bad_input(void **state)
{
    struct host h;
    struct hv_vmboot_config bad;
    struct hv_vmboot_result r;
    struct snap before, after;
    struct hv_cpu *cpu;

    (void)state;
    host_init(&h, &sets[1]);
    cpu = hv_cpu_enter(h.hv, 0);
    assert_non_null(cpu);
    snap(&h, cpu, &before);
    assert_int_equal(hv_vmboot(cpu, h.conn[0], &h.boot, 0, &r), -EINVAL);
    assert_int_equal(
        hv_vmboot(cpu, h.conn[0], &h.boot, DOMID_FIRST_RESERVED, &r), -EINVAL);
    bad = h.boot;
    bad.xs_nodes = HV_VMBOOT_XS_MIN - 1;
    assert_int_equal(hv_vmboot(cpu, h.conn[0], &bad, 3, &r), -EINVAL);
    bad = h.boot;
    bad.batch = 0;
    assert_int_equal(hv_vmboot(cpu, h.conn[0], &bad, 3, &r), -EINVAL);
    /* More memory than the heap has: -ENOMEM, and nothing is left. */
    bad = h.boot;
    bad.mem_pages = 1ul << 20;
    assert_int_equal(hv_vmboot(cpu, h.conn[0], &bad, 3, &r), -ENOMEM);
    snap(&h, cpu, &after);
    assert_true(snap_equal(&before, &after));
    assert_int_equal(hv_vmboot(cpu, h.conn[0], &h.boot, 3, &r), 0);
    assert_int_equal(hv_vmboot(cpu, h.conn[0], &h.boot, 3, &r), -EEXIST);
    assert_int_equal(hv_vmboot_teardown(cpu, h.conn[0], &h.boot, 3), 0);
    snap(&h, cpu, &after);
    assert_true(snap_equal(&before, &after));
    hv_cpu_leave(cpu);
    host_fini(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(storm_every_set),
        cmocka_unit_test(bad_input),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
