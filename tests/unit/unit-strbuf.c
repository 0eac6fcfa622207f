/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the name lists of errors and tables: hv_strbuf (joins
 * that never run past the buffer, and say when they were cut) and
 * hv_suggest ("did you mean": the closest name within one edit in
 * three, none for a name far from all).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <hv/strbuf.h>
#include <hv/suggest.h>

static void test_join(void **state)
{
    struct hv_strbuf b;
    char buf[16];

    (void)state;
    hv_strbuf_init(&b, buf, sizeof(buf));
    assert_string_equal(buf, "");
    hv_strbuf_join(&b, ", ", "%s", "a");
    hv_strbuf_join(&b, ", ", "%s", "bb");
    hv_strbuf_join(&b, ", ", "%d", 3);
    assert_string_equal(buf, "a, bb, 3");
    assert_false(hv_strbuf_cut(&b));
    assert_int_equal(b.len, 8);
}

static void test_cut(void **state)
{
    struct hv_strbuf b;
    char buf[8];
    int i;

    (void)state;
    memset(buf, 'x', sizeof(buf));
    hv_strbuf_init(&b, buf, sizeof(buf));
    for ( i = 0; i < 10; i++ )
        hv_strbuf_join(&b, ",", "%s", "abc");
    assert_true(hv_strbuf_cut(&b));
    assert_int_equal(strlen(buf), sizeof(buf) - 1);
    assert_string_equal(buf, "abc,abc");
    assert_int_equal(b.len, 10 * 3 + 9);
    /* Exactly full is not cut; one more byte is. */
    hv_strbuf_init(&b, buf, 4);
    hv_strbuf_add(&b, "abc");
    assert_false(hv_strbuf_cut(&b));
    hv_strbuf_add(&b, "d");
    assert_true(hv_strbuf_cut(&b));
    assert_string_equal(buf, "abc");
}

static const char *closest(const char *typo, const char *const *names)
{
    struct hv_suggest s;

    hv_suggest_init(&s, typo);
    for ( ; *names != NULL; names++ )
        hv_suggest_add(&s, *names);
    return hv_suggest_best(&s);
}

static void test_suggest(void **state)
{
    static const char *const cmds[] = {"list", "run",     "compare",
                                       "gate", "profile", NULL};
    static const char *const plugins[] = {"knownalive", "percpu-ref",
                                          "rcu-noref", "rcu-ref", NULL};
    char buf[64];
    struct hv_suggest s;

    (void)state;
    assert_string_equal(closest("rnu", cmds), "run"); /* a swap */
    assert_string_equal(closest("compre", cmds), "compare");
    assert_string_equal(closest("gat", cmds), "gate");
    assert_null(closest("frobnicate", cmds));
    assert_null(closest("x", cmds));
    assert_null(closest("run", cmds)); /* not a typo */
    assert_string_equal(closest("rcu-nref", plugins), "rcu-noref");
    assert_null(closest("rcu", plugins));
    hv_suggest_init(&s, "lokup");
    hv_suggest_add(&s, "lookup");
    assert_string_equal(hv_suggest_fmt(&s, buf, sizeof(buf)),
                        "; did you mean 'lookup'?");
    hv_suggest_init(&s, "zzzzzz");
    hv_suggest_add(&s, "lookup");
    assert_string_equal(hv_suggest_fmt(&s, buf, sizeof(buf)), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_suggest),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
