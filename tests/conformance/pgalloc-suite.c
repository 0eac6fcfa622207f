/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pgalloc conformance suite (see pgalloc-suite.h).  Each test builds
 * its own small emulated topology, so the suite runs in well under a
 * second per plugin.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hv/page_alloc.h>
#include <hv/topology.h>

#include "pgalloc-suite.h"
#include "testlib.h"

static const char *suite_spec;
unsigned int pgalloc_model_zones = HV_ZONES_DOM;

struct hv *pgalloc_model(const char *spec, const char *topology)
{
    struct hv_config cfg;
    struct hv *hv = NULL;
    char err[512];
    int rc;

    hv_config_init(&cfg);
    cfg.nr_cpus = 4;
    cfg.topology = topology;
    cfg.zones = pgalloc_model_zones;
    rc = hv_plugin_resolve("pgalloc", spec, true, &cfg.plugins[HV_SLOT_PGALLOC],
                           err, sizeof(err));
    if ( rc == 0 )
    {
        rc = hv_create(&cfg, &hv, err, sizeof(err));
        hv_plugin_inst_free(&cfg.plugins[HV_SLOT_PGALLOC]);
    }
    if ( rc )
    {
        fprintf(stderr, "pgalloc_model(%s, %s): %s\n", spec, topology, err);
        return NULL;
    }
    return hv;
}

struct hv_domain *pgalloc_domain(struct hv *hv, domid_t id, unsigned int node)
{
    struct hv_domain *d;
    int cpu = hv_node_first_cpu(hv, node);
    unsigned int c = cpu < 0 ? 0 : (unsigned int)cpu;

    if ( hv_domain_create(hv, id, 0, &d) || hv_domain_set_vcpus(d, &c, 1) )
        return NULL;
    return d;
}

static int one(struct hv_cpu *cpu, struct hv_domain *d, bool up,
               unsigned int order, unsigned int flags)
{
    struct hv_memop op = {
        .nr_extents = 1,
        .extent_order = order,
        .memflags = flags,
    };

    return up ? hv_increase_reservation(cpu, d, &op)
              : hv_decrease_reservation(cpu, d, &op);
}

static int check(struct hv *hv, struct hv_heap_info *info)
{
    char err[256];
    int rc = hv_heap_check(hv, info, err, sizeof(err));

    if ( rc )
        fprintf(stderr, "heap check: %s\n", err);
    return rc;
}

#define MAXD 8

int pgalloc_random_ops(struct hv *hv, struct hv_cpu *cpu,
                       unsigned int nr_domains, unsigned long nr,
                       unsigned int max_order, unsigned long check_every,
                       uint64_t seed)
{
    static struct hv_heap_info before, after;
    struct hv_domain *d[MAXD];
    unsigned long held[MAXD][HV_MAX_ORDER + 1] = {{0}}, i, enomem = 0;
    const struct hv_topology *t = hv_topology(hv);
    uint64_t s = tl_seed(seed);
    unsigned int k, o;

    if ( nr_domains > MAXD || check(hv, &before) )
        return -1;
    for ( k = 0; k < nr_domains; k++ )
    {
        unsigned int node = k % t->nr_nodes;

        while ( !t->node_has_cpus[node] )
            node = (node + 1) % t->nr_nodes;
        if ( (d[k] = pgalloc_domain(hv, (domid_t)(100 + k), node)) == NULL )
            return -1;
    }
    for ( i = 0; i < nr; i++ )
    {
        uint64_t r = tl_rand(&s);
        unsigned int dk = (unsigned int)(r % nr_domains);
        unsigned int order = (unsigned int)((r >> 8) % (max_order + 1));
        int rc;

        if ( (r >> 20) % 2 == 0 )
        {
            unsigned int flags = 0;

            if ( (r >> 24) % 8 == 0 )
                flags = HV_MEMF_node((r >> 28) % t->nr_nodes) |
                        ((r >> 32) % 2 ? HV_MEMF_exact_node : 0);
            rc = one(cpu, d[dk], true, order, flags);
            if ( rc == 0 )
                held[dk][order]++;
            else if ( rc == -ENOMEM )
                enomem++;
            else
            {
                fprintf(stderr, "op %lu: increase: %d\n", i, rc);
                return -1;
            }
        }
        else if ( held[dk][order] )
        {
            rc = one(cpu, d[dk], false, order, 0);
            if ( rc )
            {
                fprintf(stderr, "op %lu: decrease: %d\n", i, rc);
                return -1;
            }
            held[dk][order]--;
        }
        if ( check_every && (i + 1) % check_every == 0 && check(hv, NULL) )
        {
            fprintf(stderr, "after op %lu\n", i);
            return -1;
        }
    }
    for ( k = 0; k < nr_domains; k++ )
    {
        unsigned long pages = 0;

        for ( o = 0; o <= max_order; o++ )
            pages += held[k][o] << o;
        if ( d[k]->tot_pages != pages )
        {
            fprintf(stderr, "d%u: tot_pages %lu, expected %lu\n", k,
                    d[k]->tot_pages, pages);
            return -1;
        }
        hv_domain_relinquish_memory(cpu, d[k]);
    }
    if ( check(hv, &after) )
        return -1;
    if ( memcmp(before.node_free, after.node_free, sizeof(before.node_free)) ||
         memcmp(before.node_blocks, after.node_blocks,
                sizeof(before.node_blocks)) )
    {
        fprintf(stderr, "free lists not back to their initial shape\n");
        return -1;
    }
    printf("    %lu ops, %lu ENOMEM\n", nr, enomem);
    return 0;
}

/* ---------------------------------------------------------------------- */

struct fixture {
    struct hv *hv;
    struct hv_cpu *cpu;
};

static struct fixture *setup_topo(void **state, const char *topo)
{
    struct fixture *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    f->hv = pgalloc_model(suite_spec, topo);
    assert_non_null(f->hv);
    f->cpu = hv_cpu_enter(f->hv, 0);
    assert_non_null(f->cpu);
    *state = f;
    return f;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    if ( f == NULL )
        return 0;
    if ( f->cpu )
        hv_cpu_leave(f->cpu);
    hv_destroy(f->hv);
    free(f);
    return 0;
}

static void test_roundtrip(void **state)
{
    struct fixture *f = setup_topo(state, "2x16M");
    struct hv_domain *d = pgalloc_domain(f->hv, 1, 1);
    static struct hv_heap_info a, b;
    struct hv_memop op = {.nr_extents = 100, .extent_order = 0};

    assert_non_null(d);
    assert_int_equal(check(f->hv, &a), 0);
    assert_int_equal(hv_increase_reservation(f->cpu, d, &op), 0);
    op = (struct hv_memop){.nr_extents = 3, .extent_order = 9};
    assert_int_equal(hv_increase_reservation(f->cpu, d, &op), 0);
    assert_int_equal(d->tot_pages, 100 + 3 * 512);
    assert_int_equal(check(f->hv, NULL), 0);
    op = (struct hv_memop){.nr_extents = 100, .extent_order = 0};
    assert_int_equal(hv_decrease_reservation(f->cpu, d, &op), 0);
    op = (struct hv_memop){.nr_extents = 4, .extent_order = 9};
    assert_int_equal(hv_decrease_reservation(f->cpu, d, &op), -ENOENT);
    assert_int_equal(op.nr_done, 3);
    assert_int_equal(d->tot_pages, 0);
    assert_int_equal(check(f->hv, &b), 0);
    assert_memory_equal(a.node_blocks, b.node_blocks, sizeof(a.node_blocks));
    op = (struct hv_memop){.nr_extents = 1, .extent_order = HV_MAX_ORDER + 1};
    assert_int_equal(hv_increase_reservation(f->cpu, d, &op), -EINVAL);
}

static void test_exact_node(void **state)
{
    struct fixture *f = setup_topo(state, "2x16M");
    struct hv_domain *d = pgalloc_domain(f->hv, 1, 0);
    struct hv_memop op = {
        .nr_extents = 1ul << 20,
        .extent_order = 0,
        .memflags = HV_MEMF_node(1) | HV_MEMF_exact_node,
    };
    uint64_t pages[HV_MAX_NUMNODES];
    static struct hv_heap_info info;

    assert_non_null(d);
    /* Node 1 only, until it is exhausted; node 0 keeps all it had. */
    assert_int_equal(hv_increase_reservation(f->cpu, d, &op), -ENOMEM);
    assert_int_equal(hv_domain_node_pages(d, pages), op.nr_done);
    assert_int_equal(pages[0], 0);
    assert_int_equal(check(f->hv, &info), 0);
    assert_int_equal(info.node_free[1], 0);
    assert_int_equal(info.node_free[0], info.node_total[0] - 1);
    assert_int_equal(pages[1], info.node_total[1] - info.node_reserved[1]);
    /* Without exact_node the request falls back to node 0. */
    op = (struct hv_memop){.nr_extents = 8, .memflags = HV_MEMF_node(1)};
    assert_int_equal(hv_increase_reservation(f->cpu, d, &op), 0);
}

static void test_enomem_everything(void **state)
{
    struct fixture *f = setup_topo(state, "8M+0+8M-nocpu+4M");
    struct hv_domain *d = pgalloc_domain(f->hv, 1, 0);
    struct hv_memop op = {.nr_extents = 1ul << 20, .extent_order = 0};
    static struct hv_heap_info info;
    unsigned int n;

    assert_non_null(d);
    assert_int_equal(hv_increase_reservation(f->cpu, d, &op), -ENOMEM);
    assert_int_equal(check(f->hv, &info), 0);
    /* Every node, the CPU-less one too, gave all it had. */
    for ( n = 0; n < info.nr_nodes; n++ )
        assert_int_equal(info.node_free[n], 0);
    assert_int_equal(op.nr_done, d->tot_pages);
    op = (struct hv_memop){.nr_extents = 1, .extent_order = 0};
    assert_int_equal(hv_increase_reservation(f->cpu, d, &op), -ENOMEM);
    op = (struct hv_memop){.nr_extents = d->tot_pages};
    assert_int_equal(hv_decrease_reservation(f->cpu, d, &op), 0);
    assert_int_equal(check(f->hv, &info), 0);
}

static bool preempt_every_3(void *arg)
{
    unsigned int *n = arg;

    return ++*n % 3 == 0;
}

static void test_preempt(void **state)
{
    struct fixture *f = setup_topo(state, "2x8M");
    struct hv_domain *d = pgalloc_domain(f->hv, 1, 0);
    unsigned int calls = 0, restarts = 0;
    struct hv_memop op = {
        .nr_extents = 100,
        .preempt = preempt_every_3,
        .preempt_arg = &calls,
    };
    int rc;

    assert_non_null(d);
    while ( (rc = hv_increase_reservation(f->cpu, d, &op)) == -ERESTART )
        restarts++;
    assert_int_equal(rc, 0);
    assert_true(restarts > 10);
    assert_int_equal(d->tot_pages, 100);
    op.nr_done = 0;
    while ( (rc = hv_decrease_reservation(f->cpu, d, &op)) == -ERESTART )
        ;
    assert_int_equal(rc, 0);
    assert_int_equal(d->tot_pages, 0);
}

static void test_destroy_frees(void **state)
{
    struct fixture *f = setup_topo(state, "2x8M");
    struct hv_domain *d = pgalloc_domain(f->hv, 1, 1);
    struct hv_memop op = {.nr_extents = 5, .extent_order = 9};
    static struct hv_heap_info a, b;

    assert_non_null(d);
    assert_int_equal(check(f->hv, &a), 0);
    assert_int_equal(hv_increase_reservation(f->cpu, d, &op), 0);
    assert_int_equal(hv_domain_destroy(f->hv, 1), 0);
    assert_true(tl_wait_freed(f->hv, f->cpu, 1, 10.0));
    assert_int_equal(check(f->hv, &b), 0);
    assert_memory_equal(a.node_free, b.node_free, sizeof(a.node_free));
}

static void test_random(void **state)
{
    struct fixture *f = setup_topo(state, "8M+8M+0+6M");

    assert_int_equal(
        pgalloc_random_ops(f->hv, f->cpu, 4, 100000, 10, 20000, 42), 0);
}

/* Today's zone layout: many zones, so the strategy's zone scan shows. */
static void test_random_bitwidth(void **state)
{
    struct fixture *f;

    pgalloc_model_zones = HV_ZONES_BITWIDTH;
    f = setup_topo(state, "8M+8M+0+6M");
    pgalloc_model_zones = HV_ZONES_DOM;
    assert_int_equal(pgalloc_random_ops(f->hv, f->cpu, 4, 100000, 10, 20000, 7),
                     0);
}

int pgalloc_suite_run(const char *spec, const char *label)
{
    char group[128];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_roundtrip, teardown),
        cmocka_unit_test_teardown(test_exact_node, teardown),
        cmocka_unit_test_teardown(test_enomem_everything, teardown),
        cmocka_unit_test_teardown(test_preempt, teardown),
        cmocka_unit_test_teardown(test_destroy_frees, teardown),
        cmocka_unit_test_teardown(test_random, teardown),
        cmocka_unit_test_teardown(test_random_bitwidth, teardown),
    };

    suite_spec = spec;
    snprintf(group, sizeof(group), "pgalloc/%s", label);
    return _cmocka_run_group_tests(group, tests, HV_ARRAY_SIZE(tests), NULL,
                                   NULL);
}
