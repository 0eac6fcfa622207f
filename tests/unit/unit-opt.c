/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the option engine (hv/opt.c), which reads plugin options
 * and workload parameters alike: decimal numbers only ("010" is ten,
 * "0x10" is refused), k/M/G suffixes on every integer type, bounds
 * (an unsigned int field capped at UINT_MAX), booleans, choices, words,
 * canonical text that reads back to the same value, one message shape
 * for a bad value, and the table checks with the defaults applied.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <hv/compiler.h>
#include <hv/opt.h>

struct t_opts {
    unsigned int small;
    uint64_t big;
    bool flag;
    unsigned int mode;
    char word[HV_OPT_TEXT_MAX];
    unsigned int capped;
};

/* clang-format off */
static const struct hv_opt table[] = {
    HV_OPT_UINT_ROW(struct t_opts, small, "small", "8", 1, 256, "a count"),
    HV_OPT_U64_ROW(struct t_opts, big, "big", "2k", 0, UINT64_MAX, "a size"),
    HV_OPT_BOOL_ROW(struct t_opts, flag, "flag", "yes", "a switch"),
    HV_OPT_ENUM_ROW(struct t_opts, mode, "mode", "hot", "hot|uniform|zipf",
                    "a choice"),
    HV_OPT_STR_ROW(struct t_opts, word, "word", "host", "NxSIZE", "a spec"),
    HV_OPT_UINT_ROW(struct t_opts, capped, "capped", "0", 0, UINT64_MAX,
                    "an unsigned int whose row allows more"),
    HV_OPT_TABLE_END,
};
/* clang-format on */

#define ROW(name) hv_opt_find(table, name)

/* @text parses for row @name with canonical text @canon and value @u. */
static void expect_val(const char *name, const char *text, const char *canon,
                       uint64_t u)
{
    struct hv_opt_val v, back;

    if ( hv_opt_parse(ROW(name), text, &v) )
        fail_msg("%s=%s refused", name, text);
    assert_string_equal(v.text, canon);
    assert_true(v.u == u);
    /* The canonical text reads back to the same value. */
    assert_int_equal(hv_opt_parse(ROW(name), v.text, &back), 0);
    assert_true(back.u == v.u);
    assert_string_equal(back.text, v.text);
}

static void expect_bad(const char *name, const char *text)
{
    struct hv_opt_val v;

    if ( hv_opt_parse(ROW(name), text, &v) != -EINVAL )
        fail_msg("%s=%s accepted as '%s'", name, text, v.text);
}

static void test_decimal_only(void **state)
{
    expect_val("small", "10", "10", 10);
    expect_val("small", "010", "10", 10); /* was 8: strtoull base 0 */
    expect_val("small", "0010", "10", 10);
    expect_val("big", "0", "0", 0);
    expect_bad("small", "0x10"); /* was 16 */
    expect_bad("small", "0X10");
    expect_bad("small", "-1");
    expect_bad("small", "+1");
    expect_bad("small", " 1");
    expect_bad("small", "1 ");
    expect_bad("small", "");
    expect_bad("small", "1.5");
    expect_bad("big", "99999999999999999999"); /* > UINT64_MAX */
}

static void test_suffixes(void **state)
{
    expect_val("big", "2k", "2000", 2000);
    expect_val("big", "2K", "2000", 2000);
    expect_val("big", "3M", "3000000", 3000000);
    expect_val("big", "4G", "4000000000", 4000000000ull);
    expect_val("big", "18446744073709551615", "18446744073709551615",
               UINT64_MAX);
    expect_bad("big", "18446744073709552k"); /* overflows */
    expect_bad("big", "1m");
    expect_bad("big", "1kk");
    expect_bad("big", "k");
    /* The same suffixes on an unsigned int field. */
    expect_val("capped", "4G", "4000000000", 4000000000ull);
    expect_bad("small", "0k"); /* 0: below the minimum */
}

static void test_bounds(void **state)
{
    char buf[256];

    expect_val("small", "1", "1", 1);
    expect_val("small", "256", "256", 256);
    expect_bad("small", "257");
    expect_bad("small", "0");
    expect_bad("small", "1k");
    /* An unsigned int holds at most UINT_MAX, whatever the row says. */
    expect_val("capped", "4294967295", "4294967295", UINT_MAX);
    expect_bad("capped", "4294967296");
    hv_opt_allowed(ROW("capped"), buf, sizeof(buf));
    assert_non_null(strstr(buf, "[0, 4294967295]"));
    hv_opt_range(ROW("small"), buf, sizeof(buf));
    assert_string_equal(buf, "[1, 256]");
}

static void test_bool_enum_word(void **state)
{
    expect_val("flag", "1", "true", 1);
    expect_val("flag", "on", "true", 1);
    expect_val("flag", "yes", "true", 1);
    expect_val("flag", "false", "false", 0);
    expect_val("flag", "off", "false", 0);
    expect_bad("flag", "maybe");
    expect_bad("flag", "TRUE");
    expect_val("mode", "hot", "hot", 0);
    expect_val("mode", "zipf", "zipf", 2);
    expect_bad("mode", "ho");
    expect_bad("mode", "hot|uniform");
    expect_bad("mode", "");
    expect_val("word", "2x1G+0", "2x1G+0", 0);
    expect_val("word", "10:20", "10:20", 0);
    expect_bad("word", "");
    expect_bad("word", "a b");
    expect_bad("word", "a,b");
    expect_bad("word", "0123456789012345678901234567890123456789"
                       "012345678901234567890123"); /* 64 long */
}

/* Store, load: the struct holds the value, its text is the canonical. */
static void test_store_load(void **state)
{
    struct t_opts o;
    struct hv_opt_val v;
    char err[512];

    memset(&o, 0xa5, sizeof(o));
    assert_int_equal(hv_opt_defaults(table, &o, sizeof(o), "option", "test",
                                     err, sizeof(err)),
                     0);
    assert_int_equal(o.small, 8);
    assert_true(o.big == 2000);
    assert_true(o.flag);
    assert_int_equal(o.mode, 0);
    assert_string_equal(o.word, "host");
    assert_int_equal(o.capped, 0);

    assert_int_equal(
        hv_opt_set(ROW("small"), "012", &o, "option", "test", err, sizeof(err)),
        0);
    assert_int_equal(o.small, 12);
    hv_opt_load(ROW("small"), &o, &v);
    assert_string_equal(v.text, "12");
    assert_int_equal(hv_opt_set(ROW("mode"), "uniform", &o, "option", "test",
                                err, sizeof(err)),
                     0);
    hv_opt_load(ROW("mode"), &o, &v);
    assert_string_equal(v.text, "uniform");
    hv_opt_load(ROW("flag"), &o, &v);
    assert_string_equal(v.text, "true");
    hv_opt_load(ROW("big"), &o, &v);
    assert_string_equal(v.text, "2000");
}

/* One message shape: "bad value 'V' for KIND NAME of OWNER (ALLOWED)". */
static void test_messages(void **state)
{
    struct t_opts o;
    char err[512];

    memset(&o, 0, sizeof(o));
    assert_int_equal(hv_opt_set(ROW("small"), "0x10", &o, "option",
                                "plugin domlookup/percpu-ref", err,
                                sizeof(err)),
                     -EINVAL);
    assert_string_equal(err, "bad value '0x10' for option small of plugin "
                             "domlookup/percpu-ref (an integer in [1, 256]; "
                             "k/M/G suffixes multiply by 1000)");
    assert_int_equal(hv_opt_set(ROW("small"), "0x10", &o, "param",
                                "workload lookup", err, sizeof(err)),
                     -EINVAL);
    assert_string_equal(err, "bad value '0x10' for param small of workload "
                             "lookup (an integer in [1, 256]; k/M/G "
                             "suffixes multiply by 1000)");
    assert_int_equal(o.small, 0); /* nothing stored */
    assert_int_equal(
        hv_opt_set(ROW("mode"), "warm", &o, "param", "w", err, sizeof(err)),
        -EINVAL);
    assert_string_equal(err, "bad value 'warm' for param mode of w (one of: "
                             "hot, uniform, zipf)");
    assert_int_equal(
        hv_opt_set(ROW("flag"), "maybe", &o, "option", "p", err, sizeof(err)),
        -EINVAL);
    assert_string_equal(err, "bad value 'maybe' for option flag of p (true or "
                             "false)");
    assert_int_equal(
        hv_opt_set(ROW("word"), "a b", &o, "param", "w", err, sizeof(err)),
        -EINVAL);
    assert_string_equal(err, "bad value 'a b' for param word of w (NxSIZE)");
}

static void expect_table_error(const struct hv_opt *t, size_t size,
                               const char *needle)
{
    char scratch[256], err[512];

    err[0] = '\0';
    assert_int_equal(
        hv_opt_defaults(t, scratch, size, "param", "workload x", err, 512),
        -EINVAL);
    if ( strstr(err, needle) == NULL )
        fail_msg("'%s' lacks '%s'", err, needle);
}

static void test_table_checks(void **state)
{
    /* clang-format off */
    const struct hv_opt twice[] = {
        HV_OPT_UINT_ROW(struct t_opts, small, "n", "1", 0, 9, "h"),
        HV_OPT_UINT_ROW(struct t_opts, capped, "n", "1", 0, 9, "h"),
        HV_OPT_TABLE_END,
    };
    const struct hv_opt bad_default[] = {
        HV_OPT_UINT_ROW(struct t_opts, small, "n", "10", 0, 9, "h"),
        HV_OPT_TABLE_END,
    };
    const struct hv_opt bad_name[] = {
        HV_OPT_UINT_ROW(struct t_opts, small, "N", "1", 0, 9, "h"),
        HV_OPT_TABLE_END,
    };
    const struct hv_opt bad_bounds[] = {
        HV_OPT_UINT_ROW(struct t_opts, small, "n", "1", 9, 0, "h"),
        HV_OPT_TABLE_END,
    };
    const struct hv_opt no_choices[] = {
        HV_OPT_ENUM_ROW(struct t_opts, mode, "m", "a", "", "h"),
        HV_OPT_TABLE_END,
    };
    const struct hv_opt outside[] = {
        HV_OPT_U64_ROW(struct t_opts, big, "n", "1", 0, 9, "h"),
        HV_OPT_TABLE_END,
    };
    /* clang-format on */

    expect_table_error(twice, sizeof(struct t_opts),
                       "workload x: param n "
                       "twice");
    expect_table_error(bad_default, sizeof(struct t_opts),
                       "bad value '10' for param n of workload x");
    expect_table_error(bad_name, sizeof(struct t_opts),
                       "workload x: bad param table entry 'N'");
    expect_table_error(bad_bounds, sizeof(struct t_opts), "entry 'n'");
    expect_table_error(no_choices, sizeof(struct t_opts), "entry 'm'");
    /* The field must lie inside the struct the table describes. */
    expect_table_error(outside, offsetof(struct t_opts, big) + 4, "entry 'n'");
}

static void test_names(void **state)
{
    char buf[256];

    hv_opt_names(table, buf, sizeof(buf));
    assert_string_equal(buf, "small, big, flag, mode, word, capped");
    hv_opt_names(NULL, buf, sizeof(buf));
    assert_string_equal(buf, "none");
    assert_int_equal(hv_opt_count(table), 6);
    assert_null(hv_opt_find(table, "nosuch"));
    assert_string_equal(hv_opt_type_name(HV_OPT_U64), "uint");
    assert_string_equal(hv_opt_type_name(HV_OPT_UINT), "uint");
    assert_string_equal(hv_opt_type_name(HV_OPT_STR), "string");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decimal_only),
        cmocka_unit_test(test_suffixes),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_bool_enum_word),
        cmocka_unit_test(test_store_load),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_table_checks),
        cmocka_unit_test(test_names),
    };

    return cmocka_run_group_tests_name("opt", tests, NULL, NULL);
}
