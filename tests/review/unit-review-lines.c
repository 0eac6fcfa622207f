/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/irdiff/irdiff_lines.c on a small synthetic pair of callgrind
 * dumps and source trees: per-line Ir/op of the changed functions, base
 * and head lines matched by their text, the largest changes listed, the
 * markdown and HTML blocks, and bad input said in one line.
 *
 * Base f.c has g() at lines 2-8; head inserts a loop of two lines after
 * line 4 (base 5-8 are head 7-10) and adds m() at lines 12-20.  Per op
 * (10 ops): head's loop lines 5 and 6 are new (9.00, 8.00), base 7 is
 * head 9 ("return y;", 2.00 -> 2.50), base 6 is head 8 (3.00 both, not
 * listed); a header inlined into g (x.h, where g spends most, alike in
 * both) and a call's cost do not count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>

#include <hvb/irdiff.h>

static char dir[] = "/tmp/unit-review-lines-XXXXXX";
static char bsrc[256], hsrc[256], bcg[256], hcg[256];

static const char base_c[] = "/* f.c */\n"
                             "int g(int x)\n"
                             "{\n"
                             "    int y = x;\n"
                             "\n"
                             "    y += 2;\n"
                             "    return y;\n"
                             "}\n";

static const char head_c[] = "/* f.c */\n"
                             "int g(int x)\n"
                             "{\n"
                             "    int y = x;\n"
                             "    for ( int i = 0; i < 8; i++ )\n"
                             "        y++;\n"
                             "\n"
                             "  y += 2;\n" /* reindented: the same line */
                             "    return y;\n"
                             "}\n"
                             "\n"
                             "int m(void)\n"
                             "{\n"
                             "    int a = 1;\n"
                             "    a++;\n"
                             "    a++;\n"
                             "    a++;\n"
                             "    a++;\n"
                             "    return a;\n"
                             "}\n";

/* Base's paths are its tree's; head's another entry's (ccache). */
static const char base_cg[] = "# callgrind format\n"
                              "version: 1\n"
                              "positions: line\n"
                              "events: Ir Dr\n"
                              "\n"
                              "ob=(1) /bin/x\n"
                              "fl=(1) @BASE@/f.c\n"
                              "fn=(1) g\n"
                              "3 20\n"
                              "+1 10 10\n"
                              "fi=(2) /usr/include/x.h\n"
                              "40 1000\n"
                              "fe=(1)\n"
                              "6 30\n"
                              "cfn=(2) h\n"
                              "calls=10 50\n"
                              "7 500\n"
                              "* 20\n"
                              "fl=(3) ???\n"
                              "fn=(3) memcpy\n"
                              "0 70\n"
                              "totals: 1680\n";

static const char head_cg[] = "# callgrind format\n"
                              "version: 1\n"
                              "positions: line\n"
                              "events: Ir Dr\n"
                              "fl=(1) /other/entry/src/f.c\n"
                              "fn=(1) g\n"
                              "3 20\n"
                              "+1 10\n"
                              "+1 90\n"
                              "+1 80 80\n"
                              "+2 30\n"
                              "fi=(2) /usr/include/x.h\n"
                              "40 1000\n"
                              "fe=(1)\n"
                              "9 25\n"
                              "cfn=(2) h\n"
                              "calls=10 50\n"
                              "9 500\n"
                              "fn=(4) m\n"
                              "14 10\n+1 20\n+1 30\n+1 40\n+1 50\n+1 60\n"
                              "+1 70\n"
                              "fl=(3) ???\n"
                              "fn=(3) memcpy\n"
                              "0 90\n";

/* @s as file @path, its "@BASE@" replaced by base's tree. */
static void put(const char *path, const char *s)
{
    const char *at = strstr(s, "@BASE@");
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fwrite(s, 1, at ? (size_t)(at - s) : strlen(s), f);
    if ( at != NULL )
        fprintf(f, "%s%s", bsrc, at + strlen("@BASE@"));
    fclose(f);
}

static int setup(void **state)
{
    char p[300], x_h[45 * 7 + 1] = "";
    int k;

    for ( k = 0; k < 45; k++ ) /* line 40 is costly, alike in both */
        strcat(x_h, "int x;\n");
    (void)state;
    if ( mkdtemp(dir) == NULL )
        return -1;
    snprintf(bsrc, sizeof(bsrc), "%s/base", dir);
    snprintf(hsrc, sizeof(hsrc), "%s/head", dir);
    snprintf(bcg, sizeof(bcg), "%s/base.cg", dir);
    snprintf(hcg, sizeof(hcg), "%s/head.cg", dir);
    mkdir(bsrc, 0755);
    mkdir(hsrc, 0755);
    snprintf(p, sizeof(p), "%s/f.c", bsrc);
    put(p, base_c);
    snprintf(p, sizeof(p), "%s/f.c", hsrc);
    put(p, head_c);
    for ( k = 0; k < 2; k++ )
    {
        snprintf(p, sizeof(p), "%s/x.h", k ? hsrc : bsrc);
        put(p, x_h);
    }
    put(bcg, base_cg);
    put(hcg, head_cg);
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd);
}

/*
 * The rows g (x.h, where head spends most, as hvb_irdiff_functions() says),
 * m (an absolute path of another tree), memcpy.
 */
static json_t *run(const char *head_dump, int want_rc, char *err)
{
    char *dumps[2] = {bcg, (char *)head_dump}, *srcs[2] = {bsrc, hsrc};
    const double ops[2] = {10, 10};
    json_t *fns =
        json_pack("[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}]", "function", "g",
                  "file", "x.h", "function", "m", "file", "/nowhere/src/f.c",
                  "function", "memcpy", "file", "???");

    assert_int_equal(hvb_irdiff_lines(dumps, srcs, ops, fns, err, 1024),
                     want_rc);
    return fns;
}

static void line_is(json_t *l, json_int_t b, json_int_t h, const char *src,
                    double base, double head)
{
    json_t *bl = json_object_get(l, "base_line");
    json_t *hl = json_object_get(l, "head_line");

    if ( b )
        assert_int_equal(json_integer_value(bl), b);
    else
        assert_true(json_is_null(bl));
    if ( h )
        assert_int_equal(json_integer_value(hl), h);
    else
        assert_true(json_is_null(hl));
    assert_string_equal(json_string_value(json_object_get(l, "src")), src);
    assert_float_equal(json_number_value(json_object_get(l, "base")), base,
                       1e-9);
    assert_float_equal(json_number_value(json_object_get(l, "head")), head,
                       1e-9);
}

static void test_matched(void **state)
{
    char err[1024];
    json_t *fns = run(hcg, 0, err), *g = json_array_get(fns, 0), *a;

    (void)state;
    a = json_object_get(g, "lines");
    /* Its file: where its Ir/op moved (f.c), not where it is largest. */
    assert_string_equal(json_string_value(json_object_get(g, "file")), "f.c");
    assert_string_equal(json_string_value(json_object_get(g, "head_lines")),
                        "3-9");
    assert_string_equal(json_string_value(json_object_get(g, "base_lines")),
                        "3-7");
    assert_int_equal(json_array_size(a), 3);
    line_is(json_array_get(a, 0), 0, 5, "for ( int i = 0; i < 8; i++ )", 0, 9);
    line_is(json_array_get(a, 1), 0, 6, "y++;", 0, 8);
    line_is(json_array_get(a, 2), 7, 9, "return y;", 2, 2.5);
    assert_int_equal(json_integer_value(json_object_get(g, "lines_more")), 0);
    json_decref(fns);
}

/* m is new: its 5 largest of 7 lines, "2 more"; memcpy has no lines. */
static void test_new_and_more(void **state)
{
    char err[1024];
    json_t *fns = run(hcg, 0, err), *m = json_array_get(fns, 1), *a;

    (void)state;
    a = json_object_get(m, "lines");
    assert_null(json_object_get(m, "base_lines"));
    assert_string_equal(json_string_value(json_object_get(m, "head_lines")),
                        "14-20");
    assert_int_equal(json_array_size(a), HVB_IRDIFF_TOP_LINES);
    line_is(json_array_get(a, 0), 0, 16, "a++;", 0, 3);
    line_is(json_array_get(a, 4), 0, 20, "}", 0, 7);
    assert_int_equal(json_integer_value(json_object_get(m, "lines_more")), 2);
    /* Its file was another tree's: now relative to the trees. */
    assert_string_equal(json_string_value(json_object_get(m, "file")), "f.c");
    assert_non_null(strstr(json_string_value(json_object_get(
                               json_array_get(fns, 2), "lines_error")),
                           "no line numbers"));
    json_decref(fns);
}

static char *render(json_t *fns, bool html)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);

    assert_non_null(f);
    if ( html )
        hvb_irdiff_html_lines(f, fns, 10);
    else
        hvb_irdiff_md_lines(f, fns, 10);
    fclose(f);
    return buf;
}

static void test_render(void **state)
{
    char err[1024], *md, *html;
    json_t *fns = run(hcg, 0, err);

    (void)state;
    md = render(fns, false);
    html = render(fns, true);
    assert_non_null(strstr(md, "\n```text\ng (f.c:3-9), Ir/op by line\n"));
    assert_non_null(strstr(md, "  new     5           -        9.00     +9.00"
                               "  for ( int i = 0; i < 8; i++ )\n"));
    assert_non_null(strstr(md, "    7     9        2.00        2.50     +0.50"
                               "  return y;\n```\n"));
    assert_non_null(strstr(md, "(2 more changed lines)\n```\n"));
    assert_non_null(strstr(html, "<table class=\"lines\">"));
    assert_non_null(strstr(html, "<code>for ( int i = 0; i &lt; 8; i++ )"));
    assert_null(strstr(md, "memcpy"));
    free(md);
    free(html);
    json_decref(fns);
}

/* A malformed dump: one line naming the file and line, every row told. */
static void test_malformed(void **state)
{
    static const char *bad[] = {
        "events: Ir\nfl=(1) f.c\nfn=(1) g\n3 20\nthis is no dump\n",
        "events: Ir\nfl=(1) f.c\nfn=(7)\n3 20\n",
        "events: Ir\nfl=(1) f.c\nfn=(1) g\n3 2x0\n",
        "fl=(1) f.c\nfn=(1) g\n3 20\n",
    };
    char err[1024], p[300];
    json_t *fns;
    size_t i;

    (void)state;
    snprintf(p, sizeof(p), "%s/bad.cg", dir);
    for ( i = 0; i < sizeof(bad) / sizeof(*bad); i++ )
    {
        put(p, bad[i]);
        fns = run(p, -EINVAL, err);
        assert_non_null(strstr(err, p));
        assert_null(strchr(err, '\n'));
        assert_string_equal(json_string_value(json_object_get(
                                json_array_get(fns, 0), "lines_error")),
                            err);
        json_decref(fns);
    }
    fns = run("/nonexistent/cg.out", -ENOENT, err);
    assert_non_null(strstr(err, "/nonexistent/cg.out"));
    json_decref(fns);
}

/* Head's source missing: the rows say so, the others are unaffected. */
static void test_no_source(void **state)
{
    char err[1024], p[300], q[300];
    json_t *fns;

    (void)state;
    snprintf(p, sizeof(p), "%s/f.c", hsrc);
    snprintf(q, sizeof(q), "%s/f.c.away", hsrc);
    assert_int_equal(rename(p, q), 0);
    fns = run(hcg, 0, err);
    assert_int_equal(rename(q, p), 0);
    assert_non_null(strstr(json_string_value(json_object_get(
                               json_array_get(fns, 0), "lines_error")),
                           "f.c: No such file"));
    json_decref(fns);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matched),   cmocka_unit_test(test_new_and_more),
        cmocka_unit_test(test_render),    cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_no_source),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
