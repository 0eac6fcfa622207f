/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * conformance-pgalloc: the pgalloc conformance suite (pgalloc-suite.c) run once
 * for EVERY registered plugin of the slot, then the locality test of
 * seed 001: on an emulated 2-node topology a domain whose vCPU is on node
 * 1 gets >= 95% of its pages there from `numa`, and not from
 * `first-node`, which fills node 0 first.
 *
 * Exit 0 if every test passed, 1 otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <hv/page_alloc.h>
#include <hv/plugin.h>
#include <hv/plugin_registry.h>

#include "pgalloc-suite.h"
#include "testlib.h"

/* Fraction of a 32 MiB domain on its vCPU's node (1) under @spec. */
static double locality(const char *spec)
{
    struct hv *hv = pgalloc_model(spec, "2x64M");
    struct hv_cpu *cpu;
    struct hv_domain *d;
    struct hv_memop op = {.nr_extents = 8192, .extent_order = 0};
    uint64_t pages[HV_MAX_NUMNODES], total;

    assert_non_null(hv);
    cpu = hv_cpu_enter(hv, 0);
    assert_non_null(cpu);
    d = pgalloc_domain(hv, 1, 1);
    assert_non_null(d);
    assert_int_equal(hv_increase_reservation(cpu, d, &op), 0);
    total = hv_domain_node_pages(d, pages);
    hv_cpu_leave(cpu);
    hv_destroy(hv);
    printf("    %s: %.1f%% of %llu pages on the vCPU's node\n", spec,
           100.0 * (double)pages[1] / (double)total, (unsigned long long)total);
    return (double)pages[1] / (double)total;
}

static void test_locality(void **state)
{
    assert_true(locality("numa") >= 0.95);
    assert_true(locality("numa-2006") >= 0.95);
    assert_true(locality("first-node") < 0.95);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locality),
    };
    const struct hv_plugin_hdr *h;
    unsigned int i, ran = 0;
    int failed = 0, rc;

    if ( !tl_registry_init("conformance-pgalloc") )
        return 1;
    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
    {
        if ( strcmp(h->slot, "pgalloc") != 0 || (h->flags & HV_PF_TEST_ONLY) )
            continue;
        rc = pgalloc_suite_run(h->name, h->name);
        failed += rc < 0 ? 1 : rc;
        ran++;
    }
    if ( ran < 3 )
    {
        fprintf(stderr, "conformance-pgalloc: only %u pgalloc plugins\n", ran);
        failed++;
    }
    failed +=
        cmocka_run_group_tests_name("pgalloc/locality", tests, NULL, NULL);
    /* The negative control is part of the suite, not optional. */
    printf("conformance-pgalloc: negative control, failures expected:\n");
    if ( hv_plugin_find("pgalloc", "pgalloc-inexact") == NULL ||
         pgalloc_suite_run("pgalloc-inexact", "negative-control") <= 0 )
    {
        fprintf(stderr,
                "conformance-pgalloc: pgalloc-inexact was not caught\n");
        failed++;
    }
    printf("conformance-pgalloc: %u plugins, %d failed tests\n", ran, failed);
    return failed ? 1 : 0;
}
