/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The page heap and the topology: spec parsing, boundary reservation, and
 * the invariants under 10^6 random allocations and frees of orders 0-10
 * on a 4-node topology with an empty node (free + allocated = total per
 * node, well-formed free lists, no buddy across nodes, the free lists back
 * in their initial shape at the end, ENOMEM on exhaustion).
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

static void test_topology_parse(void **state)
{
    static struct hv_topology t;
    char err[256];

    assert_int_equal(hv_topology_parse(&t, "4x1G", NULL, 0, 8, err, 256), 0);
    assert_int_equal(t.nr_nodes, 4);
    assert_int_equal(t.node_pages[3], 1u << 18);
    assert_false(t.real);
    assert_int_equal(t.distance[0][0], 10);
    assert_int_equal(t.distance[0][3], 20);
    assert_int_equal(t.cpu_to_node[0], 0);
    assert_int_equal(t.cpu_to_node[7], 3);

    assert_int_equal(
        hv_topology_parse(&t, "1G+0+512M-nocpu+2x64M", "10:21", 0, 4, err, 256),
        0);
    assert_int_equal(t.nr_nodes, 5);
    assert_int_equal(t.node_pages[1], 0);
    assert_true(t.node_has_cpus[1]);
    assert_false(t.node_has_cpus[2]);
    assert_int_equal(t.distance[1][2], 21);
    for ( unsigned int c = 0; c < 4; c++ )
        assert_int_not_equal(t.cpu_to_node[c], 2);

    assert_int_equal(
        hv_topology_parse(&t, "2x8M", "10:21:5:12", 0, 2, err, 256), -EINVAL);
    assert_int_equal(
        hv_topology_parse(&t, "2x8M", "10:21:21:10", 0, 2, err, 256), 0);
    assert_int_equal(t.distance[1][0], 21);
    assert_int_equal(hv_topology_parse(&t, "3x", NULL, 0, 2, err, 256),
                     -EINVAL);
    assert_int_equal(hv_topology_parse(&t, "1G,1G", NULL, 0, 2, err, 256),
                     -EINVAL);
    assert_int_equal(hv_topology_parse(&t, "1000", NULL, 0, 2, err, 256),
                     -EINVAL); /* not a page multiple */
    assert_int_equal(hv_topology_parse(&t, "1G-nocpu", NULL, 0, 2, err, 256),
                     -EINVAL); /* no CPUs anywhere */
    assert_int_equal(hv_topology_parse(&t, "2x1G", "5:3", 0, 2, err, 256),
                     -EINVAL); /* remote nearer than local */
    assert_int_equal(hv_topology_parse(&t, "host", NULL, 1 << 20, 2, err, 256),
                     0);
}

static void test_boundary_reservation(void **state)
{
    /* Node starts at 96M and 196M are not MAX_ORDER aligned. */
    struct hv *hv = pgalloc_model("numa", "96M+100M+0+60M");
    static struct hv_heap_info info;
    char err[256];

    assert_non_null(hv);
    assert_int_equal(hv_heap_check(hv, &info, err, sizeof(err)), 0);
    assert_int_equal(info.nr_nodes, 4);
    assert_int_equal(info.node_reserved[0], 1); /* MFN 0 */
    assert_int_equal(info.node_reserved[1], 1);
    assert_int_equal(info.node_reserved[2], 0);
    assert_int_equal(info.node_total[2], 0);
    assert_int_equal(info.node_reserved[3], 1);
    assert_int_equal(info.node_free[1], (100u << 8) - 1);
    hv_destroy(hv);
}

/* 10^6 random ops with zone layout @zones. */
static void random_million(unsigned int zones, uint64_t seed)
{
    struct hv *hv;
    struct hv_cpu *cpu;

    pgalloc_model_zones = zones;
    hv = pgalloc_model("numa", "12M+10M+0+8M");
    pgalloc_model_zones = HV_ZONES_DOM;
    assert_non_null(hv);
    cpu = hv_cpu_enter(hv, 0);
    assert_non_null(cpu);
    assert_int_equal(pgalloc_random_ops(hv, cpu, 6, 1000000, 10, 100000, seed),
                     0);
    hv_cpu_leave(cpu);
    hv_destroy(hv);
}

static void test_random_million(void **state)
{
    random_million(HV_ZONES_DOM, 2006);
}

/* The same with today's zones: no buddy across zones either. */
static void test_random_million_bitwidth(void **state)
{
    random_million(HV_ZONES_BITWIDTH, 1007);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_topology_parse),
        cmocka_unit_test(test_boundary_reservation),
        cmocka_unit_test(test_random_million),
        cmocka_unit_test(test_random_million_bitwidth),
    };

    if ( !tl_registry_init("unit-page-alloc") )
        return 1;
    return cmocka_run_group_tests_name("page-alloc", tests, NULL, NULL);
}
