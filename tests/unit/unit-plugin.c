/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the plugin registry (hv/plugin.c, hv/slots.c): built-ins
 * validate, slots and plugins are found by name, specs resolve to a
 * canonical form with every option, and every error is -EINVAL with one
 * line that lists the valid names (never a fallback to a default).
 * Test-only plugins (negative controls) are hidden unless asked for.
 *
 * registry_matches_sources: the registered plugins are exactly the plugin
 * source files, plugins/<slot>/<name>.c for built-ins and
 * tests/plugins/<name>.c for test-only ones, so a file that forgets
 * HV_REGISTER_PLUGIN, or a registration under another name, fails here.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hv/domlookup.h>
#include <hv/hv.h>
#include <hv/plugin.h>
#include <hv/plugin_registry.h>

#ifndef HVB_SOURCE_DIR
#error "HVB_SOURCE_DIR must name the source tree"
#endif

static char err[1024];

static int resolve(const char *slot, const char *spec, bool test_only,
                   struct hv_plugin_inst *inst)
{
    err[0] = '\0';
    return hv_plugin_resolve(slot, spec, test_only, inst, err, sizeof(err));
}

/* Resolving @spec fails with -EINVAL and a message holding @needle. */
static void expect_einval(const char *spec, const char *needle)
{
    struct hv_plugin_inst inst;

    assert_int_equal(resolve("domlookup", spec, false, &inst), -EINVAL);
    if ( strstr(err, needle) == NULL )
        fail_msg("spec '%s': message '%s' lacks '%s'", spec, err, needle);
    assert_null(inst.hdr);
    assert_null(inst.spec);
}

static void test_registry_init_validates(void **state)
{
    const struct hv_plugin_hdr *h, *g;
    unsigned int i, j, n = 0;

    err[0] = '\0';
    assert_int_equal(hv_plugin_registry_init(err, sizeof(err)), 0);
    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
    {
        const struct hv_slot *slot = hv_slot_find(h->slot);

        assert_int_equal(h->magic, HV_PLUGIN_MAGIC);
        assert_true(h->abi_version >= 1 &&
                    h->abi_version <= HV_PLUGIN_ABI_VERSION);
        assert_non_null(slot);
        assert_true(h->ops_size >= slot->min_ops_size);
        assert_non_null(h->name);
        assert_non_null(h->summary);
        assert_true((h->opts == NULL) == (h->opts_size == 0));
        for ( j = 0; j < i; j++ )
        {
            g = hv_plugin_at(j);
            if ( strcmp(g->slot, h->slot) == 0 )
                assert_string_not_equal(g->name, h->name);
        }
        if ( strcmp(h->slot, "domlookup") == 0 )
        {
            const struct hv_domlookup_ops *ops = (const void *)h;

            assert_non_null(ops->lock);
            assert_non_null(ops->unlock);
            assert_non_null(ops->retire);
            n++;
        }
        assert_ptr_equal(hv_plugin_find(h->slot, h->name), h);
    }
    assert_true(n >= 2);
    assert_null(hv_plugin_find("domlookup", "no-such-plugin"));
    assert_null(hv_plugin_find("no-such-slot", "rcu-noref"));
}

static void test_slots(void **state)
{
    const struct hv_slot *s = hv_slot_find("domlookup");
    struct hv_plugin_inst inst;
    unsigned int i;

    assert_non_null(s);
    assert_non_null(s->validate);
    assert_non_null(s->summary);
    assert_null(hv_slot_find("no-such-slot"));
    for ( i = 0; hv_slot_at(i) != NULL; i++ )
        assert_ptr_equal(hv_slot_find(hv_slot_at(i)->name), hv_slot_at(i));
    assert_true(i >= 1);
    /* The default of every slot is a real, non-test-only plugin. */
    for ( i = 0; (s = hv_slot_at(i)) != NULL; i++ )
    {
        assert_int_equal(resolve(s->name, s->default_plugin, false, &inst), 0);
        hv_plugin_inst_free(&inst);
    }
}

static void test_unknown_slot(void **state)
{
    struct hv_plugin_inst inst;

    assert_int_equal(resolve("no-such-slot", "rcu-noref", false, &inst),
                     -EINVAL);
    assert_non_null(strstr(err, "no-such-slot"));
    assert_non_null(strstr(err, "domlookup")); /* the valid ones */
    assert_null(inst.hdr);
}

static void test_unknown_plugin_lists_valid_names(void **state)
{
    const struct hv_plugin_hdr *h;
    struct hv_plugin_inst inst;
    unsigned int i;

    assert_int_equal(resolve("domlookup", "no-such-plugin", false, &inst),
                     -EINVAL);
    assert_non_null(strstr(err, "no-such-plugin"));
    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
    {
        if ( strcmp(h->slot, "domlookup") != 0 )
            continue;
        if ( h->flags & HV_PF_TEST_ONLY )
            assert_null(strstr(err, h->name));
        else if ( strstr(err, h->name) == NULL )
            fail_msg("'%s' does not list %s", err, h->name);
    }
    expect_einval("", "unknown plugin");
    /* No silent fallback: an option alone names no plugin. */
    expect_einval(":ncpus=2", "unknown plugin");
}

static void test_bad_options(void **state)
{
    expect_einval("percpu-ref:bogus=1", "bogus");
    expect_einval("percpu-ref:bogus=1", "ncpus"); /* lists valid ones */
    expect_einval("rcu-noref:ncpus=1", "none");   /* it has no options */
    expect_einval("percpu-ref:ncpus", "needs a value");
    expect_einval("percpu-ref:ncpus=", "ncpus");
    expect_einval("percpu-ref:ncpus=abc", "bad value 'abc'");
    expect_einval("percpu-ref:ncpus=-1", "bad value '-1'");
    expect_einval("percpu-ref:ncpus=2x", "bad value '2x'");
    expect_einval("percpu-ref:ncpus=257", "[0, 256]");
    expect_einval("percpu-ref:ncpus=99999999999999999999", "ncpus");
}

static void test_canonical_spec(void **state)
{
    struct hv_plugin_inst inst, copy;
    struct hv_config cfg;
    struct hv *hv;

    assert_int_equal(resolve("domlookup", "percpu-ref:ncpus=2", false, &inst),
                     0);
    assert_string_equal(inst.spec, "percpu-ref:ncpus=2");
    assert_string_equal(inst.origin, "built-in");
    assert_string_equal(inst.hdr->name, "percpu-ref");
    assert_non_null(inst.opts);
    assert_int_equal(hv_opt_uint(inst.opts, inst.hdr->opts[0].off), 2);

    /* A deep copy, as hv_create() keeps one. */
    assert_int_equal(hv_plugin_inst_copy(&copy, &inst), 0);
    assert_ptr_equal(copy.hdr, inst.hdr);
    assert_ptr_not_equal(copy.spec, inst.spec);
    assert_ptr_not_equal(copy.opts, inst.opts);
    assert_string_equal(copy.spec, inst.spec);
    assert_memory_equal(copy.opts, inst.opts, inst.hdr->opts_size);

    /* The model records what it resolved. */
    hv_config_init(&cfg);
    cfg.nr_cpus = 4;
    cfg.plugins[HV_SLOT_DOMLOOKUP] = inst;
    assert_int_equal(hv_create(&cfg, &hv, err, sizeof(err)), 0);
    assert_string_equal(hv_slot_plugin(hv, HV_SLOT_DOMLOOKUP)->spec,
                        "percpu-ref:ncpus=2");
    assert_ptr_not_equal(hv_slot_plugin(hv, HV_SLOT_DOMLOOKUP)->spec,
                         inst.spec);
    hv_destroy(hv);
    hv_plugin_inst_free(&inst);
    assert_null(inst.spec);
    hv_plugin_inst_free(&copy);

    /* Defaults are spelled out; numbers are normalised. */
    assert_int_equal(resolve("domlookup", "percpu-ref", false, &inst), 0);
    assert_string_equal(inst.spec, "percpu-ref:ncpus=0");
    hv_plugin_inst_free(&inst);
    /* Decimal only (the option engine, hv/opt.h): 010 is ten, not 8. */
    assert_int_equal(resolve("domlookup", "percpu-ref:ncpus=010", false, &inst),
                     0);
    assert_string_equal(inst.spec, "percpu-ref:ncpus=10");
    assert_string_equal(inst.label, "percpu-ref:ncpus=10");
    hv_plugin_inst_free(&inst);
    expect_einval("percpu-ref:ncpus=0x10", "bad value '0x10' for option ncpus "
                                           "of plugin domlookup/percpu-ref");
    /* k/M/G suffixes, as for workload params. */
    assert_int_equal(
        resolve("namesearch", "name-hash:buckets=2k", false, &inst), 0);
    assert_string_equal(inst.spec, "name-hash:buckets=2000");
    hv_plugin_inst_free(&inst);
    assert_int_equal(
        resolve("namesearch", "name-hash:buckets=1M", false, &inst), 0);
    assert_string_equal(inst.label, "name-hash:buckets=1000000");
    hv_plugin_inst_free(&inst);
    /* The label: only the options the spec gave, canonical. */
    assert_int_equal(resolve("domlookup", "percpu-ref", false, &inst), 0);
    assert_string_equal(inst.label, "percpu-ref");
    assert_int_equal(hv_plugin_inst_copy(&copy, &inst), 0);
    assert_string_equal(copy.label, "percpu-ref");
    hv_plugin_inst_free(&copy);
    hv_plugin_inst_free(&inst);

    /* No options: no option struct. */
    assert_int_equal(resolve("domlookup", "rcu-noref", false, &inst), 0);
    assert_string_equal(inst.spec, "rcu-noref");
    assert_null(inst.opts);
    hv_plugin_inst_free(&inst);

    /* Copying an empty instance. */
    memset(&inst, 0, sizeof(inst));
    assert_int_equal(hv_plugin_inst_copy(&copy, &inst), 0);
    assert_null(copy.hdr);
}

/*
 * The ABI size rule: a slot accepts any ops struct from its frozen v1
 * size (which today's struct covers) up, and a hook appended after v1 is
 * read only where the plugin's declared size covers it.
 */
struct t_ops {
    struct hv_plugin_hdr hdr;
    void (*v1_hook)(void);
    void (*appended)(void);
};

static void test_abi_sizes(void **state)
{
    const struct hv_slot *s;
    struct t_ops ops = {.hdr = {.ops_size = sizeof(struct t_ops)}};
    unsigned int i;

    for ( i = 0; (s = hv_slot_at(i)) != NULL; i++ )
    {
        assert_true(s->min_ops_size > sizeof(struct hv_plugin_hdr));
        assert_true(s->min_ops_size % sizeof(void *) == 0);
    }
    assert_true(hv_slot_find("domlookup")->min_ops_size <=
                sizeof(struct hv_domlookup_ops));
    assert_int_equal(HV_OPS_SIZE_UPTO(struct t_ops, v1_hook),
                     offsetof(struct t_ops, appended));
    assert_true(HV_OPS_HAS(&ops, appended));
    ops.hdr.ops_size = HV_OPS_SIZE_UPTO(struct t_ops, v1_hook); /* a v1 .so */
    assert_true(HV_OPS_HAS(&ops, v1_hook));
    assert_false(HV_OPS_HAS(&ops, appended));
}

static void test_test_only_hidden(void **state)
{
    const struct hv_plugin_hdr *h = hv_plugin_find("domlookup", "rcu-broken");
    struct hv_plugin_inst inst;
    char names[512];

    assert_non_null(h);
    assert_true(h->flags & HV_PF_TEST_ONLY);
    expect_einval("rcu-broken", "unknown plugin 'rcu-broken'");
    assert_null(strstr(strchr(err, '('), "rcu-broken"));

    assert_int_equal(resolve("domlookup", "rcu-broken", true, &inst), 0);
    assert_ptr_equal(inst.hdr, h);
    hv_plugin_inst_free(&inst);

    hv_plugin_names("domlookup", false, names, sizeof(names));
    assert_null(strstr(names, "rcu-broken"));
    assert_non_null(strstr(names, "rcu-noref"));
    hv_plugin_names("domlookup", true, names, sizeof(names));
    assert_non_null(strstr(names, "rcu-broken"));
    assert_non_null(strstr(names, "rcu-noref"));

    /* The names list truncates, never overflows. */
    hv_plugin_names("domlookup", true, names, 8);
    assert_true(strlen(names) < 8);
}

static void test_load_missing(void **state)
{
    const struct hv_plugin_hdr *h = NULL;
    struct hv_plugin_inst inst;

    assert_int_equal(
        hv_plugin_load("/nonexistent/plugin.so", &h, err, sizeof(err)),
        -ENOENT);
    assert_null(h);
    assert_non_null(strstr(err, "/nonexistent/plugin.so"));
    assert_int_equal(resolve("domlookup", "./no-such-plugin.so", false, &inst),
                     -ENOENT);
    assert_non_null(strstr(err, "no-such-plugin.so"));
    assert_null(inst.hdr);
}

/* Source files seen: "slot/name" (built-in) or "name" (tests/plugins). */
struct src {
    char id[96];
    bool test_only;
    bool matched;
};

static unsigned int scan_c_files(const char *dir, const char *slot,
                                 bool test_only, struct src *out,
                                 unsigned int n, unsigned int max)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if ( d == NULL )
        fail_msg("cannot open %s", dir);
    while ( (e = readdir(d)) != NULL )
    {
        size_t l = strlen(e->d_name);

        if ( l < 3 || strcmp(e->d_name + l - 2, ".c") != 0 )
            continue;
        assert_true(n < max);
        if ( slot )
            snprintf(out[n].id, sizeof(out[n].id), "%s/%.*s", slot,
                     (int)(l - 2), e->d_name);
        else
            snprintf(out[n].id, sizeof(out[n].id), "%.*s", (int)(l - 2),
                     e->d_name);
        out[n].test_only = test_only;
        out[n].matched = false;
        n++;
    }
    closedir(d);
    return n;
}

static void test_registry_matches_sources(void **state)
{
    struct src src[128];
    const struct hv_plugin_hdr *h;
    unsigned int n = 0, i, j, bad = 0;
    struct dirent *e;
    char path[512];
    DIR *d;

    d = opendir(HVB_SOURCE_DIR "/plugins");
    assert_non_null(d);
    while ( (e = readdir(d)) != NULL )
    {
        if ( e->d_name[0] == '.' )
            continue;
        if ( hv_slot_find(e->d_name) == NULL )
        {
            print_error("plugins/%s/: not a slot\n", e->d_name);
            bad++;
            continue;
        }
        snprintf(path, sizeof(path), "%s/plugins/%s", HVB_SOURCE_DIR,
                 e->d_name);
        n = scan_c_files(path, e->d_name, false, src, n, HV_ARRAY_SIZE(src));
    }
    closedir(d);
    n = scan_c_files(HVB_SOURCE_DIR "/tests/plugins", NULL, true, src, n,
                     HV_ARRAY_SIZE(src));

    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
    {
        char id[96];
        bool found = false;

        if ( h->flags & HV_PF_TEST_ONLY )
            snprintf(id, sizeof(id), "%s", h->name);
        else
            snprintf(id, sizeof(id), "%s/%s", h->slot, h->name);
        for ( j = 0; j < n; j++ )
            if ( src[j].test_only == !!(h->flags & HV_PF_TEST_ONLY) &&
                 strcmp(src[j].id, id) == 0 )
            {
                src[j].matched = found = true;
            }
        if ( !found )
        {
            print_error(
                "registered %s%s/%s has no source file %s%s.c\n",
                h->flags & HV_PF_TEST_ONLY ? "test-only " : "", h->slot,
                h->name,
                h->flags & HV_PF_TEST_ONLY ? "tests/plugins/" : "plugins/", id);
            bad++;
        }
    }
    for ( j = 0; j < n; j++ )
        if ( !src[j].matched )
        {
            print_error("%s%s.c registers no plugin of that name%s\n",
                        src[j].test_only ? "tests/plugins/" : "plugins/",
                        src[j].id,
                        src[j].test_only ? " (with HV_PF_TEST_ONLY)" : "");
            bad++;
        }
    assert_true(n >= 2);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_init_validates),
        cmocka_unit_test(test_slots),
        cmocka_unit_test(test_unknown_slot),
        cmocka_unit_test(test_unknown_plugin_lists_valid_names),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_canonical_spec),
        cmocka_unit_test(test_abi_sizes),
        cmocka_unit_test(test_test_only_hidden),
        cmocka_unit_test(test_load_missing),
        cmocka_unit_test(test_registry_matches_sources),
    };

    return cmocka_run_group_tests_name("plugin", tests, NULL, NULL);
}
