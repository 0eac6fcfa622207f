/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The two-build verdicts on fixed samples: hvb_cmp_builds() (gate
 * --base-bin's look: the CI, p_beyond, the verdict against the band and
 * the Benjamini-Hochberg step over the cells of one gate) and
 * hvb_review_fdr() (review's step over the cells of every gate).
 *
 * A cell is made of pairs of processes, each of a few rounds, with the
 * base at 100 ns and the new build at 100 * RATIO * (1 + SPREAD * z),
 * z a fixed score per pair: the same samples, hence the same verdicts,
 * every run.  Example: one cell at 1.015 with no spread and a band of 1%
 * is "regressed" with CI [1.015, 1.015] and p_beyond 2 / (b + 1); the
 * same cell among 19 whose ratio is 1 stays regressed (its p_beyond is
 * the smallest), while a cell whose CI only just clears the band is
 * held back by the step among 20 and regressed alone.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include <hvb/compare.h>
#include <hvb/results_read.h>
#include <hvb/review.h>

#define PAIRS  8
#define ROUNDS 3
#define BAND   0.01
#define ALPHA  0.05

/* Fixed scores of the PAIRS pairs: mean 0, spread about 1. */
static const double z[PAIRS] = {-1.53, -0.89, -0.49, -0.16,
                                0.16,  0.49,  0.89,  1.53};

/* A cell's two entries (base, then new) appended to @cells. */
static void cell(json_t *cells, const char *name, double ratio, double spread)
{
    json_t *b = json_array(), *n = json_array();
    size_t p, r;

    for ( p = 0; p < PAIRS; p++ )
        for ( r = 0; r < ROUNDS; r++ )
        {
            json_array_append_new(b, json_real(100));
            json_array_append_new(n,
                                  json_real(100 * ratio * (1 + spread * z[p]) +
                                            0.001 * ((double)r - 1)));
        }
    json_array_append_new(cells, json_pack("{ss si so si}", HVB_RK_NAME, name,
                                           HVB_RK_VARIANT, 0, HVB_RK_SAMPLES, b,
                                           HVB_RK_PROCESSES, PAIRS));
    json_array_append_new(cells, json_pack("{ss si so si}", HVB_RK_NAME, name,
                                           HVB_RK_VARIANT, 1, HVB_RK_SAMPLES, n,
                                           HVB_RK_PROCESSES, PAIRS));
}

static json_t *doc_of(json_t *cells)
{
    return json_pack("{s{so s{si}}}", HVB_RK_HVBENCH, HVB_RK_CELLS, cells,
                     HVB_RK_RUN, HVB_RK_PROCESSES, PAIRS);
}

/*
 * hvb_cmp_builds() of @doc into @c; the rows borrow their names from
 * @doc, released by done().
 */
static void look(json_t *doc, struct hvb_cmp *c)
{
    char err[256] = "";

    memset(c, 0, sizeof(*c));
    if ( hvb_cmp_builds(doc, "time", BAND, ALPHA, c, err, sizeof(err)) )
        fail_msg("hvb_cmp_builds: %s", err);
}

static void done(json_t *doc, struct hvb_cmp *c)
{
    hvb_cmp_free(c);
    json_decref(doc);
}

static const char *say(enum hvb_verdict v)
{
    static const char *const s[] = {"same", "improved", "regressed", "unknown"};

    return s[v];
}

static void want(const struct hvb_cmp_row *r, enum hvb_verdict v, bool held)
{
    if ( r->verdict != v || r->held != held )
        fail_msg("%s: %s%s (ratio %.6f, CI [%.6f, %.6f], p_beyond %.6g), "
                 "want %s%s",
                 r->name, say(r->verdict), r->held ? " (held)" : "", r->ratio,
                 r->lo, r->hi, r->p_beyond, say(v), held ? " (held)" : "");
}

/* One cell: inside, at, beyond the band, and below it. */
static void test_band(void **state)
{
    static const struct {
        double ratio;
        enum hvb_verdict v;
    } t[] = {
        {1.005, HVB_UNCHANGED}, {1.01, HVB_UNCHANGED}, {1.015, HVB_REGRESSED},
        {0.985, HVB_IMPROVED},  {0.99, HVB_UNCHANGED}, {1.0, HVB_UNCHANGED},
    };
    size_t i;

    for ( i = 0; i < sizeof(t) / sizeof(t[0]); i++ )
    {
        json_t *cells = json_array(), *doc;
        struct hvb_cmp c;

        cell(cells, "x", t[i].ratio, 0);
        doc = doc_of(cells);
        look(doc, &c);
        assert_int_equal(c.nr_rows, 1);
        want(&c.rows[0], t[i].v, false);
        /* The rounds' offsets, -1e-5 to 1e-5, leave the median. */
        assert_true(fabs(c.rows[0].ratio - t[i].ratio) < 1e-4);
        assert_true(c.rows[0].lo <= c.rows[0].ratio &&
                    c.rows[0].ratio <= c.rows[0].hi);
        assert_true(c.rows[0].hi - c.rows[0].lo < 1e-4);
        if ( t[i].v == HVB_REGRESSED || t[i].v == HVB_IMPROVED )
            assert_true(c.rows[0].p_beyond < 0.001);
        else
            assert_true(c.rows[0].p_beyond == 1);
        done(doc, &c);
    }
}

/*
 * A spread whose CI is just beyond the band (lo about 1.0144, p_beyond
 * about 0.016): regressed alone.
 */
#define EDGE_RATIO  1.03
#define EDGE_SPREAD 0.022

static void test_edge_alone(void **state)
{
    json_t *cells = json_array(), *doc;
    struct hvb_cmp c;

    cell(cells, "edge", EDGE_RATIO, EDGE_SPREAD);
    doc = doc_of(cells);
    look(doc, &c);
    want(&c.rows[0], HVB_REGRESSED, false);
    assert_true(c.rows[0].lo > 1 + BAND && c.rows[0].lo < 1.02);
    /* Significant alone, not among 20 (above 3 * 0.05 / 20). */
    assert_true(c.rows[0].p_beyond < ALPHA / 2);
    assert_true(c.rows[0].p_beyond > 3 * ALPHA / 20);
    done(doc, &c);
}

/*
 * 20 cells: two clear regressions, the edge cell, 17 the same.  The
 * step keeps the clear ones and holds the edge one back (unknown).
 */
static void test_many(void **state)
{
    json_t *cells = json_array(), *doc;
    struct hvb_cmp c;
    char name[16];
    size_t i;

    cell(cells, "clear-a", 1.05, 0);
    cell(cells, "clear-b", 0.95, 0);
    cell(cells, "edge", EDGE_RATIO, EDGE_SPREAD);
    for ( i = 0; i < 17; i++ )
    {
        snprintf(name, sizeof(name), "same-%zu", i);
        cell(cells, name, 1.0, 0.001);
    }
    doc = doc_of(cells);
    look(doc, &c);
    assert_int_equal(c.nr_rows, 20);
    want(&c.rows[0], HVB_REGRESSED, false);
    want(&c.rows[1], HVB_IMPROVED, false);
    want(&c.rows[2], HVB_UNSTABLE, true);
    assert_true(c.rows[2].lo > 1 + BAND); /* beyond the band on its own */
    for ( i = 3; i < 20; i++ )
        want(&c.rows[i], HVB_UNCHANGED, false);
    assert_int_equal(c.nr[HVB_REGRESSED], 1);
    assert_int_equal(c.nr[HVB_IMPROVED], 1);
    assert_int_equal(c.nr[HVB_UNSTABLE], 1);
    assert_int_equal(c.nr[HVB_UNCHANGED], 17);
    done(doc, &c);
}

/* A gate document of review's: cells with a verdict and a p_beyond. */
static json_t *gate(const char *const *verdict, const double *p, size_t n)
{
    json_t *cells = json_array();
    size_t i;

    for ( i = 0; i < n; i++ )
    {
        json_t *c = json_pack("{ss}", "verdict", verdict[i]);

        if ( p[i] >= 0 )
            json_object_set_new(c, "p_beyond", json_real(p[i]));
        json_array_append_new(cells, c);
    }
    return json_pack("{so}", "cells", cells);
}

static const char *verdict_of(json_t *gates, size_t g, size_t i)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(json_array_get(gates, g), "cells"), i),
        "verdict"));
}

/*
 * Review: ten cells in two gates, p sorted 0.001 0.008 0.012 0.02 0.03
 * 0.04 0.045 0.2 0.5 and one with no p (1).  BH at 0.05 of 10: the
 * largest k with p(k) <= k * 0.005 is 4 (0.02), so "regressed" at 0.03,
 * 0.04 and 0.045 become unknown; a "same" cell and an "unknown" one are
 * left as they are, whatever their p.  Bonferroni (0.005) would keep one;
 * no step would keep all seven.
 */
static void test_review_fdr(void **state)
{
    static const char *const v1[] = {"regressed", "improved", "regressed",
                                     "improved", "regressed"};
    static const double p1[] = {0.001, 0.008, 0.012, 0.02, 0.03};
    static const char *const v2[] = {"regressed", "regressed", "same",
                                     "unknown", "same"};
    static const double p2[] = {0.04, 0.045, 0.2, 0.5, -1};
    static const char *const after[] = {
        "regressed", "improved", "regressed", "improved", "unknown",
        "unknown",   "unknown",  "same",      "unknown",  "same"};
    json_t *gates = json_array(), *one;
    size_t i;

    json_array_append_new(gates, gate(v1, p1, 5));
    json_array_append_new(gates, gate(v2, p2, 5));
    assert_int_equal(hvb_review_fdr(gates, 0.05), 10);
    for ( i = 0; i < 10; i++ )
        if ( strcmp(verdict_of(gates, i / 5, i % 5), after[i]) )
            fail_msg("cell %zu: %s, want %s", i,
                     verdict_of(gates, i / 5, i % 5), after[i]);
    one = json_object_get(
        json_array_get(json_object_get(json_array_get(gates, 0), "cells"), 4),
        "verdict_gate");
    assert_string_equal(json_string_value(one), "regressed");
    assert_null(json_object_get(
        json_array_get(json_object_get(json_array_get(gates, 1), "cells"), 3),
        "verdict_gate"));
    json_decref(gates);

    /* The cell at 0.03 alone: a discovery, kept. */
    gates = json_array();
    json_array_append_new(gates, gate(v1 + 4, p1 + 4, 1));
    assert_int_equal(hvb_review_fdr(gates, 0.05), 1);
    assert_string_equal(verdict_of(gates, 0, 0), "regressed");
    json_decref(gates);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_band),
        cmocka_unit_test(test_edge_alone),
        cmocka_unit_test(test_many),
        cmocka_unit_test(test_review_fdr),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
