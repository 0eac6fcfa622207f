/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the one number grammar (hv/num.c): decimal digits, then
 * at most one suffix k/K, M, G (x1000 each step), nothing else, at most
 * UINT64_MAX; and that its three readers agree on every input: the
 * parser itself, the option engine (plugin options, workload params)
 * and the command line's hvb_parse_u64 (--repetitions N), which says
 * what a number is in one line naming the option.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <hv/num.h>
#include <hv/opt.h>
#include <hvb/cmdline.h>

struct t_opts {
    uint64_t n;
};

static const struct hv_opt row[] = {
    HV_OPT_U64_ROW(struct t_opts, n, "n", "0", 0, UINT64_MAX, "a number"),
    HV_OPT_TABLE_END,
};

/* Inputs and what the grammar makes of them: the value, or -errno. */
static const struct {
    const char *text;
    int rc;
    uint64_t v;
} cases[] = {
    {"0", 0, 0},
    {"7", 0, 7},
    {"010", 0, 10}, /* decimal: not octal */
    {"0010", 0, 10},
    {"2k", 0, 2000},
    {"2K", 0, 2000},
    {"3M", 0, 3000000},
    {"4G", 0, 4000000000ull},
    {"0k", 0, 0},
    {"18446744073709551615", 0, UINT64_MAX},
    {"18446744073709551k", 0, 18446744073709551000ull},
    {"18446744073G", 0, 18446744073000000000ull},
    /* overflow: in the digits, or by the suffix */
    {"18446744073709551616", -ERANGE, 0},
    {"99999999999999999999", -ERANGE, 0},
    {"18446744073709552k", -ERANGE, 0},
    {"18446744074G", -ERANGE, 0},
    /* not a number of this grammar */
    {"", -EINVAL, 0},
    {"k", -EINVAL, 0},
    {"-1", -EINVAL, 0},
    {"+1", -EINVAL, 0},
    {" 1", -EINVAL, 0},
    {"1 ", -EINVAL, 0},
    {"1\n", -EINVAL, 0},
    {"0x10", -EINVAL, 0},
    {"1.5k", -EINVAL, 0},
    {"1e3", -EINVAL, 0},
    {"1kk", -EINVAL, 0},
    {"1k1", -EINVAL, 0},
    {"1m", -EINVAL, 0},
    {"1g", -EINVAL, 0},
    {"1Ki", -EINVAL, 0},
    {"12q", -EINVAL, 0},
};

static void test_grammar(void **state)
{
    unsigned int i;

    for ( i = 0; i < sizeof(cases) / sizeof(cases[0]); i++ )
    {
        uint64_t v = 12345;
        int rc = hv_num_parse(cases[i].text, &v);

        if ( rc != cases[i].rc )
            fail_msg("'%s': %d, want %d", cases[i].text, rc, cases[i].rc);
        if ( rc == 0 && v != cases[i].v )
            fail_msg("'%s': %llu, want %llu", cases[i].text,
                     (unsigned long long)v, (unsigned long long)cases[i].v);
        if ( rc != 0 && v != 12345 )
            fail_msg("'%s': refused but stored %llu", cases[i].text,
                     (unsigned long long)v);
    }
}

static void test_allowed(void **state)
{
    char buf[128];

    hv_num_allowed(1, 1000, buf, sizeof(buf));
    assert_string_equal(buf, "an integer in [1, 1000]; k/M/G suffixes "
                             "multiply by 1000");
    hv_num_allowed(0, UINT64_MAX, buf, sizeof(buf));
    assert_string_equal(buf, "an integer in [0, 18446744073709551615]; k/M/G "
                             "suffixes multiply by 1000");
}

/* What hvb_parse_u64() says on stderr, for @text in [@min, @max]. */
static bool cli_parse(const char *text, uint64_t min, uint64_t max, uint64_t *v,
                      char *msg, size_t len)
{
    FILE *f = tmpfile();
    int saved = dup(STDERR_FILENO);
    size_t n;
    bool ok;

    assert_non_null(f);
    assert_true(saved >= 0);
    fflush(stderr);
    assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
    ok = hvb_parse_u64("--n", text, min, max, v);
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    rewind(f);
    n = fread(msg, 1, len - 1, f);
    msg[n] = '\0';
    fclose(f);
    return ok;
}

/* The option engine and the command line take the same numbers. */
static void test_one_grammar(void **state)
{
    char msg[256], want[256];
    struct hv_opt_val ov;
    unsigned int i;

    for ( i = 0; i < sizeof(cases) / sizeof(cases[0]); i++ )
    {
        const char *t = cases[i].text;
        int opt_rc = hv_opt_parse(row, t, &ov);
        uint64_t cv = 12345;
        bool cli_ok = cli_parse(t, 0, UINT64_MAX, &cv, msg, sizeof(msg));

        if ( (opt_rc == 0) != (cases[i].rc == 0) )
            fail_msg("option engine on '%s': %d", t, opt_rc);
        if ( cli_ok != (cases[i].rc == 0) )
            fail_msg("command line on '%s': %s", t, cli_ok ? "taken" : msg);
        if ( cli_ok && (cv != cases[i].v || ov.u != cases[i].v || msg[0]) )
            fail_msg("'%s': engine %llu, command line %llu '%s'", t,
                     (unsigned long long)ov.u, (unsigned long long)cv, msg);
        if ( !cli_ok )
        {
            snprintf(want, sizeof(want),
                     "hvbench: bad value '%s' for --n (an integer in [0, "
                     "18446744073709551615]; k/M/G suffixes multiply by "
                     "1000)\n",
                     t);
            assert_string_equal(msg, want);
        }
    }
}

/* The range is the reader's: "2k" is a number, but not a repetition count. */
static void test_cli_range(void **state)
{
    char msg[256];
    uint64_t v = 0;

    assert_true(cli_parse("1k", 1, 1000, &v, msg, sizeof(msg)));
    assert_true(v == 1000);
    assert_false(cli_parse("2k", 1, 1000, &v, msg, sizeof(msg)));
    assert_string_equal(msg, "hvbench: bad value '2k' for --n (an integer in "
                             "[1, 1000]; k/M/G suffixes multiply by 1000)\n");
    assert_false(cli_parse("0", 1, 1000, &v, msg, sizeof(msg)));
    assert_true(v == 1000); /* nothing stored */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar),
        cmocka_unit_test(test_allowed),
        cmocka_unit_test(test_one_grammar),
        cmocka_unit_test(test_cli_range),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
