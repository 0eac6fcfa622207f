/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reviewer's view (harness/view/) on two review documents of seven
 * cells (fixtures/): review-spin.json, a spin added to rcu_ref_lock (one
 * cell regressed in time, sim_instructions and sim_cycles), and
 * review-aa.json, an A/A review whose blocking metrics are the same in
 * every cell while time is unknown in two (a busy machine, a budget).
 *
 *   unit-view FIXTURES OUTDIR
 *
 * checks the verdict rule, the answer's sentences, the comment's length,
 * the mail's 72 columns, hostile text kept in code spans, and bad
 * documents refused; it leaves spin.md, spin.txt, spin.junit.xml,
 * aa.junit.xml in OUTDIR for the schema and GFM checks (CMakeLists.txt).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvb/view.h>

static const char *fixtures, *outdir;

static void load(const char *name, struct hvb_view *v)
{
    char path[4096], err[256];
    json_error_t je;
    json_t *doc;

    snprintf(path, sizeof(path), "%s/%s", fixtures, name);
    doc = json_load_file(path, 0, &je);
    assert_non_null(doc);
    assert_int_equal(hvb_view_decode(doc, v, err, sizeof(err)), 0);
    json_decref(doc);
}

/* @fn rendered of @v into OUTDIR/@name and back as a string. */
static char *rendered(const struct hvb_view *v,
                      void (*fn)(FILE *, const struct hvb_view *),
                      const char *name)
{
    char path[4096], *text;
    long n;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", outdir, name);
    f = fopen(path, "w+");
    assert_non_null(f);
    fn(f, v);
    n = ftell(f);
    rewind(f);
    text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}

static size_t lines_of(const char *s)
{
    size_t n = 0;

    for ( ; *s; s++ )
        n += *s == '\n';
    return n;
}

static void test_spin_answer(void **state)
{
    struct hvb_view v;
    char s[1024];

    (void)state;
    load("review-spin.json", &v);
    assert_int_equal(v.nr_cells, 7);
    assert_int_equal(v.nr_changed, 1);
    assert_int_equal(v.verdict, HVB_VIEW_REGRESSED);
    assert_int_equal(v.status, 1);
    assert_string_equal(v.cells[1].title, "lookup rcu-ref, 1 thread");
    assert_string_equal(v.cells[5].title, "xs-read, 1 thread");
    assert_string_equal(
        hvb_view_sentence(&v, &v.cells[1], s, sizeof(s)),
        "lookup rcu-ref, 1 thread: 43.8% slower (5.76 -> 8.28 ns/op, 99% CI "
        "+38.9 to +51.3%); +56 instructions per op (+24.3%), all in "
        "rcu_ref_lock (plugins/domlookup/rcu-ref.c:31-40); +60 simulated "
        "cycles per op (+15.0%)");
    assert_string_equal(hvb_view_sentence(&v, &v.cells[0], s, sizeof(s)), "");
    /* A macro workload's time, in the unit of the larger figure. */
    v.cells[1].figs[0].base = 20008122;
    v.cells[1].figs[0].head = 16141116;
    assert_non_null(strstr(hvb_view_sentence(&v, &v.cells[1], s, sizeof(s)),
                           "(20.01 -> 16.14 ms/op, 99% CI"));
    assert_string_equal(hvb_view_rest(&v, s, sizeof(s)),
                        "6 other cells unchanged.");
    hvb_view_free(&v);
}

static void test_spin_comment(void **state)
{
    struct hvb_view v;
    char *md;

    (void)state;
    load("review-spin.json", &v);
    md = rendered(&v, hvb_view_markdown, "spin.md");
    /* The answer first: the heading, then the changed cell, the rest. */
    assert_non_null(strstr(md, "## hvbench review: regressed\n\n- lookup "
                               "rcu-ref, 1 thread: 43.8% slower"));
    assert_non_null(strstr(md, "\n- 6 other cells unchanged.\n"));
    assert_non_null(strstr(md, "5.760 → 8.280 +43.75% [+38.90, +51.30]"));
    /* Hostile text stays inside a code span, the table's '|' escaped. */
    assert_non_null(strstr(md, "`` domlookup: spin in `rcu_ref_lock` "
                               "<script>alert(1)</script> | a subject"));
    assert_true(lines_of(md) <= 24);
    free(md);
    free(rendered(&v, hvb_view_junit, "spin.junit.xml"));
    /* GitHub's workflow command: '%' in the message is "%25". */
    md = rendered(&v, hvb_view_annotations, "spin.annotations");
    assert_string_equal(
        md, "::error file=plugins/domlookup/rcu-ref.c,line=31,endLine=40,"
            "title=hvbench review%3A lookup rcu-ref%2C 1 thread::lookup "
            "rcu-ref, 1 thread: 43.8%25 slower (5.76 -> 8.28 ns/op, 99%25 CI "
            "+38.9 to +51.3%25); +56 instructions per op (+24.3%25), all in "
            "rcu_ref_lock (plugins/domlookup/rcu-ref.c:31-40); +60 "
            "simulated cycles per op (+15.0%25)\n");
    free(md);
    hvb_view_free(&v);
}

static void test_mail_columns(void **state)
{
    struct hvb_view v;
    char *txt, *line, *save = NULL;

    (void)state;
    load("review-spin.json", &v);
    txt = rendered(&v, hvb_view_mail, "spin.txt");
    assert_non_null(strstr(txt, "* lookup rcu-ref, 1 thread: 43.8% slower"));
    assert_non_null(strstr(txt, "rcu_ref_lock"));
    /* The top function's changed lines, the spin loop's among them. */
    assert_non_null(
        strstr(txt, "         26      new -> 196.00   while ( spin < 64 )\n"));
    for ( line = strtok_r(txt, "\n", &save); line != NULL;
          line = strtok_r(NULL, "\n", &save) )
    {
        if ( strlen(line) > HVB_VIEW_MAIL_COLS )
            fail_msg("a line of %zu columns: %s", strlen(line), line);
        if ( line[0] == '>' || strncmp(line, "From ", 5) == 0 )
            fail_msg("a line a mail reader would mangle: %s", line);
    }
    free(txt);
    hvb_view_free(&v);
}

/* An A/A review: blocking metrics the same, time unknown: exit 0. */
static void test_aa(void **state)
{
    struct hvb_view v;
    char s[1024], *md;

    (void)state;
    load("review-aa.json", &v);
    assert_int_equal(v.nr_changed, 0);
    assert_int_equal(v.verdict, HVB_VIEW_SAME);
    assert_int_equal(v.status, 0);
    assert_non_null(strstr(hvb_view_sentence(&v, &v.cells[2], s, sizeof(s)),
                           "time not decided: workers descheduled"));
    assert_non_null(strstr(hvb_view_sentence(&v, &v.cells[3], s, sizeof(s)),
                           "about 25 more would likely decide it"));
    assert_string_equal(hvb_view_rest(&v, s, sizeof(s)),
                        "5 other cells unchanged.");
    assert_string_equal(hvb_view_blocking(&v, false, s, sizeof(s)),
                        "sim_instructions, sim_cycles decide the exit "
                        "status; time is reported.");
    md = rendered(&v, hvb_view_markdown, "aa.md");
    assert_non_null(strstr(md, "## hvbench review: same\n"));
    free(md);
    free(rendered(&v, hvb_view_junit, "aa.junit.xml"));
    hvb_view_free(&v);
}

/* Were time blocking, the same A/A review could not be told: exit 3. */
static void test_aa_time_blocking(void **state)
{
    struct hvb_view v;
    char path[4096], err[256];
    json_error_t je;
    json_t *doc;

    (void)state;
    snprintf(path, sizeof(path), "%s/review-aa.json", fixtures);
    doc = json_load_file(path, 0, &je);
    assert_non_null(doc);
    json_array_append_new(
        json_object_get(json_object_get(doc, "review"), "blocking"),
        json_string("time"));
    assert_int_equal(hvb_view_decode(doc, &v, err, sizeof(err)), 0);
    assert_int_equal(v.verdict, HVB_VIEW_UNKNOWN);
    assert_int_equal(v.status, 3);
    hvb_view_free(&v);
    json_decref(doc);
}

static void test_bad_documents(void **state)
{
    struct hvb_view v;
    char err[256];
    json_t *doc = json_pack("{s:{}}", "review");

    (void)state;
    assert_int_equal(hvb_view_decode(doc, &v, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "not a review"));
    hvb_view_free(&v);
    json_decref(doc);
    doc = json_pack("{s:{s:[s]}, s:[{s:s, s:{s:{s:s}}}]}", "review", "metrics",
                    "time", "cells", "name", "x/threads:1", "verdicts", "time",
                    "verdict", "maybe");
    assert_int_equal(hvb_view_decode(doc, &v, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "verdict 'maybe'"));
    hvb_view_free(&v);
    json_decref(doc);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spin_answer),
        cmocka_unit_test(test_spin_comment),
        cmocka_unit_test(test_mail_columns),
        cmocka_unit_test(test_aa),
        cmocka_unit_test(test_aa_time_blocking),
        cmocka_unit_test(test_bad_documents),
    };

    if ( argc != 3 )
    {
        fprintf(stderr, "usage: unit-view FIXTURES OUTDIR\n");
        return 2;
    }
    fixtures = argv[1];
    outdir = argv[2];
    return cmocka_run_group_tests(tests, NULL, NULL);
}
