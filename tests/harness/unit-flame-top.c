/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aside beside a review's flame graph (review_flame.c): the three
 * functions of flame.top that changed most, as markdown and as HTML.
 * E.g. a top of four, the first rcu_ref_lock 0.2 -> 56.1, gives
 *   Changed most (self CPU ns/op, base -> head): `rcu_ref_lock` 0.2 ->
 *   56.1 (+55.9); ... (+0.1, within the rounds' spread); ...
 * and the fourth nowhere; a name with '<' or '&' is escaped in HTML, one
 * with a backtick quoted by two in markdown; no top, no aside.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "private.h"

/* What @html (or markdown) writes for @fl, malloc'd. */
static char *aside(json_t *fl, int html)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    (html ? hvb_review_flame_top_html : hvb_review_flame_top_md)(f, fl);
    fclose(f);
    return buf;
}

static json_t *four(void)
{
    return json_pack(
        "{s:f, s:[{s:s, s:f, s:f, s:f, s:s, s:b}, {s:s, s:f, s:f, s:f, s:s, "
        "s:b}, {s:s, s:f, s:f, s:f, s:s, s:b}, {s:s, s:f, s:f, s:f, s:s, "
        "s:b}]}",
        "scale_ns_per_op", 56.0, "top", "name", "rcu_ref_lock", "base", 0.2,
        "head", 56.1, "change", 55.9, "kind", "grew", "within_spread", 0,
        "name", "a<b>&c", "base", 3.4, "head", 3.5, "change", 0.1, "kind",
        "grew", "within_spread", 1, "name", "x`y", "base", 0.0, "head", 1.5,
        "change", 1.5, "kind", "appeared", "within_spread", 0, "name",
        "fourth_fn", "base", 1.0, "head", 1.2, "change", 0.2, "kind", "grew",
        "within_spread", 1);
}

static void test_markdown(void **state)
{
    json_t *fl = four();
    char *s = aside(fl, 0);

    (void)state;
    assert_non_null(strstr(s, "\nChanged most (self CPU ns/op, base -> head):"
                              " `rcu_ref_lock` 0.200 -> 56.10 (+55.90);"));
    assert_non_null(strstr(s,
                           "`a<b>&c` 3.40 -> 3.50 (+0.100, within the rounds' "
                           "spread);"));
    assert_non_null(strstr(s, "`` x`y `` 0 -> 1.50 (+1.50, appeared)."));
    assert_non_null(strstr(s, "+-56.00 ns/op on every graph"));
    assert_null(strstr(s, "fourth_fn"));
    assert_int_equal(strchr(s + 1, '\n') - s, (long)strlen(s) - 1);
    free(s);
    json_decref(fl);
}

static void test_html(void **state)
{
    json_t *fl = four();
    char *s = aside(fl, 1);

    (void)state;
    assert_true(strncmp(s, "<aside class=\"flame-top\"", 24) == 0);
    assert_non_null(strstr(s,
                           "<li><code>rcu_ref_lock</code> 0.200 &rarr; 56.10 "
                           "(+55.90)</li>"));
    assert_non_null(strstr(s, "<code>a&lt;b&gt;&amp;c</code>"));
    assert_non_null(strstr(s, "within the rounds' spread"));
    assert_null(strstr(s, "fourth_fn"));
    assert_non_null(strstr(s, "</ol></aside>\n"));
    free(s);
    json_decref(fl);
}

/* A macro workload's figures, in the unit of the largest. */
static void test_unit(void **state)
{
    json_t *fl = json_pack("{s:f, s:[{s:s, s:f, s:f, s:f, s:s, s:b}]}",
                           "scale_ns_per_op", 27000.0, "top", "name", "free",
                           "base", 665300.0, "head", 48480.0, "change",
                           -616820.0, "kind", "shrank", "within_spread", 0);
    char *s = aside(fl, 0);

    (void)state;
    assert_non_null(strstr(s, "(self CPU µs/op, base -> head): `free` 665.3 -> "
                              "48.48 (-616.8). Colours: +-27.00 µs/op"));
    free(s);
    json_decref(fl);
}

static void test_no_top(void **state)
{
    json_t *fl = json_pack("{s:f, s:[]}", "scale_ns_per_op", 1.0, "top");
    char *s;

    (void)state;
    s = aside(fl, 0);
    assert_string_equal(s, "");
    free(s);
    s = aside(fl, 1);
    assert_string_equal(s, "");
    free(s);
    json_decref(fl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_html),
        cmocka_unit_test(test_unit),
        cmocka_unit_test(test_no_top),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
