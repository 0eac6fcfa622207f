/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/session/shard.c: every cell in exactly one shard, groups never split,
 * balanced by cost, the same shards for the same command line, bad
 * --shard values and more shards than groups refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hv/plugin.h>
#include <hvb/matrix.h>
#include <hvb/registry.h>
#include <hvb/shard.h>

#include "testlib.h"

/* lookup: 2 plugins x 3 domain counts x 2 thread counts: 6 groups of 2. */
static const char *const plugins[] = {"domlookup=rwlock-ref,rcu-noref"};
static const char *const params[] = {"domains=10,100,1000"};
static const unsigned int threads[] = {1, 2};

static struct hvb_matrix *build(unsigned int k, unsigned int n,
                                const char *costs, int *rc)
{
    struct hvb_matrix_spec s = {
        .w = hvb_workload_find("lookup"),
        .plugin_args = plugins,
        .nr_plugin_args = 1,
        .param_args = params,
        .nr_param_args = 1,
        .threads = threads,
        .nr_threads = 2,
        .seed = 1,
        .shard_k = k,
        .shard_n = n,
        .shard_costs = costs,
        .shard_select = hvb_shard_select,
    };
    struct hvb_matrix *m = NULL;
    char err[512] = "";

    assert_non_null(s.w);
    *rc = hvb_matrix_build(&s, &m, err, sizeof(err));
    if ( *rc )
        print_message("(expected) %s\n", err);
    return m;
}

/* Over K = 1..N: each cell of the whole matrix once, groups whole. */
static void check_partition(unsigned int n)
{
    int seen[64] = {0}, owner_of_group[32];
    struct hvb_matrix *whole, *m;
    unsigned int k;
    size_t i, nr = 0;
    int rc;

    whole = build(0, 0, NULL, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(whole->nr_cells, 12);
    for ( i = 0; i < 32; i++ )
        owner_of_group[i] = -1;
    for ( k = 1; k <= n; k++ )
    {
        m = build(k, n, NULL, &rc);
        assert_int_equal(rc, 0);
        assert_true(m->nr_cells > 0);
        assert_int_equal(m->full_cells, 12);
        assert_int_equal(m->full_groups, 6);
        for ( i = 0; i < m->nr_cells; i++ )
        {
            const struct hvb_mcell *mc = &m->cells[i];
            size_t g = whole->cells[mc->full_index].group;

            assert_int_equal(mc->index, i);
            assert_true(mc->full_index < 12);
            seen[mc->full_index]++;
            /* The same cell as in the whole matrix, by name. */
            assert_string_equal(mc->name, whole->cells[mc->full_index].name);
            assert_int_equal(mc->variant, whole->cells[mc->full_index].variant);
            /* Its group lives in this shard alone. */
            if ( owner_of_group[g] == -1 )
                owner_of_group[g] = (int)k;
            assert_int_equal(owner_of_group[g], (int)k);
            /* Groups are numbered as a run of these cells alone. */
            assert_true(mc->group < m->nr_groups);
            if ( i > 0 )
                assert_true(mc->group == m->cells[i - 1].group ||
                            mc->group == m->cells[i - 1].group + 1);
            nr++;
        }
        hvb_matrix_free(m);
    }
    for ( i = 0; i < 12; i++ )
        assert_int_equal(seen[i], 1);
    assert_int_equal(nr, 12);
    hvb_matrix_free(whole);
}

static void test_partition(void **state)
{
    (void)state;
    check_partition(1);
    check_partition(2);
    check_partition(4);
    check_partition(6);
}

/* The same command line, the same shards; the worked example of shard.h. */
static void test_deterministic(void **state)
{
    static const size_t want[4][4] = {
        {0, 1, 8, 9}, {2, 3, 10, 11}, {4, 5}, {6, 7}};
    static const size_t nr_want[4] = {4, 4, 2, 2};
    unsigned int k, rep;
    size_t i;
    int rc;

    (void)state;
    for ( rep = 0; rep < 2; rep++ )
        for ( k = 1; k <= 4; k++ )
        {
            struct hvb_matrix *m = build(k, 4, NULL, &rc);

            assert_int_equal(rc, 0);
            assert_int_equal(m->nr_cells, nr_want[k - 1]);
            for ( i = 0; i < m->nr_cells; i++ )
                assert_int_equal(m->cells[i].full_index, want[k - 1][i]);
            hvb_matrix_free(m);
        }
}

/* hvb_shard_assign(@cost, @nr, @n) gives group g to shard want[g]. */
static void assigns(const double *cost, size_t nr, unsigned int n,
                    const unsigned int *want)
{
    unsigned int o[16];
    size_t g;

    hvb_shard_assign(cost, nr, n, o);
    for ( g = 0; g < nr; g++ )
        if ( o[g] != want[g] )
            fail_msg("group %zu in shard %u, want %u", g, o[g], want[g]);
}

/* Longest first to the least loaded shard, ties to the lower one. */
static void test_assign(void **state)
{
    static const double equal[6] = {2, 2, 2, 2, 2, 2};
    static const double skew[6] = {2, 2, 2, 2, 2, 6};
    static const double big[7] = {9, 1, 1, 1, 1, 1, 1};
    /* shard.h's examples: {0,4} {1,5} {2} {3}, then {5} {0,3} {1,4} {2}. */
    static const unsigned int want_equal[6] = {0, 1, 2, 3, 0, 1};
    static const unsigned int want_skew[6] = {1, 2, 3, 1, 2, 0};
    /* One long group alone; the six short ones share the other shard. */
    static const unsigned int want_big[7] = {0, 1, 1, 1, 1, 1, 1};

    (void)state;
    assigns(equal, 6, 4, want_equal);
    assigns(skew, 6, 4, want_skew);
    assigns(big, 7, 2, want_big);
}

static void test_refused(void **state)
{
    unsigned int k, n;
    char err[256];
    int rc;

    (void)state;
    assert_int_equal(hvb_shard_parse("3/4", &k, &n, err, sizeof(err)), 0);
    assert_int_equal(k, 3);
    assert_int_equal(n, 4);
    assert_int_equal(hvb_shard_parse("1/1", &k, &n, err, sizeof(err)), 0);
    static const char *const bad[] = {"0/4",  "5/4",  "4",    "/4",   "1/",
                                      "a/4",  "1/0",  "-1/4", "1/4x", "1/99999",
                                      "1//4", "+1/4", ""};
    for ( size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        assert_int_equal(hvb_shard_parse(bad[i], &k, &n, err, sizeof(err)),
                         -22);
        assert_non_null(strstr(err, "--shard"));
    }
    /* 7 shards of 6 groups: one would be empty. */
    assert_null(build(1, 7, NULL, &rc));
    assert_int_equal(rc, -22);
    /* A costs file that is not results. */
    assert_null(build(1, 2, "/nonexistent/costs.json", &rc));
    assert_int_equal(rc, -22);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_assign),
        cmocka_unit_test(test_refused),
    };

    if ( !tl_registry_init("unit-shard") )
        return 1;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
