/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit-external: external plugins.  The skeleton template (skeleton.so)
 * loads through hv_plugin_resolve("domlookup", "<dir>/skeleton.so"),
 * exports nothing but hv_plugin_entry(), and passes the domlookup
 * conformance suite with both of its modes; each broken variant
 * (broken.c) is rejected with the right -errno and a message naming the
 * file and the problem, and is not registered; a plugin whose ops struct
 * is ABI v1's (v1.c) loads and conforms, and so does a larger one.
 *
 *   unit-external DIR        DIR holds skeleton.so and broken-*.so
 *
 * This executable contains no built-in plugin: it exports the whole model
 * (linked whole-archive, -rdynamic) for the .so files to call into, as
 * hvbench does.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <hv/domlookup.h>
#include <hv/plugin.h>
#include <hv/plugin_registry.h>

#include "domlookup-suite.h"

static const char *so_dir = ".";
static char err[1024];

static const char *so_path(const char *file)
{
    static char buf[4][1024];
    static unsigned int next;
    char *p = buf[next++ % 4];

    snprintf(p, sizeof(buf[0]), "%s/%s", so_dir, file);
    return p;
}

static void test_skeleton_loads(void **state)
{
    const char *path = so_path("skeleton.so");
    const struct hv_plugin_hdr *h = NULL, *again = NULL;
    struct hv_plugin_inst inst;
    char spec[1100];

    err[0] = '\0';
    assert_int_equal(
        hv_plugin_resolve("domlookup", path, false, &inst, err, sizeof(err)),
        0);
    assert_non_null(inst.hdr);
    assert_string_equal(inst.hdr->slot, "domlookup");
    assert_string_equal(inst.hdr->name, "skeleton");
    assert_string_equal(inst.spec, "skeleton:ref=true");
    assert_string_equal(inst.origin, path);
    h = inst.hdr;
    hv_plugin_inst_free(&inst);

    /* Registered under its name; loading it again is a no-op. */
    assert_ptr_equal(hv_plugin_find("domlookup", "skeleton"), h);
    assert_int_equal(hv_plugin_load(path, &again, err, sizeof(err)), 0);
    assert_ptr_equal(again, h);

    /* Options after the path. */
    snprintf(spec, sizeof(spec), "%s:ref=false", path);
    assert_int_equal(
        hv_plugin_resolve("domlookup", spec, false, &inst, err, sizeof(err)),
        0);
    assert_string_equal(inst.spec, "skeleton:ref=false");
    hv_plugin_inst_free(&inst);
    snprintf(spec, sizeof(spec), "%s:ref=maybe", path);
    assert_int_equal(
        hv_plugin_resolve("domlookup", spec, false, &inst, err, sizeof(err)),
        -EINVAL);
    assert_non_null(strstr(err, "maybe"));
}

static void test_skeleton_exports_one_symbol(void **state)
{
    void *dl = dlopen(so_path("skeleton.so"), RTLD_NOW | RTLD_NOLOAD);

    assert_non_null(dl); /* loaded by the previous test */
    assert_non_null(dlsym(dl, HV_PLUGIN_ENTRY_SYMBOL));
    assert_null(dlsym(dl, "skeleton_ops"));
    assert_null(dlsym(dl, "skeleton_lock"));
    assert_null(dlsym(dl, "skeleton_init"));
    /* Never closed: the registry keeps pointers into it. */
}

struct broken_case {
    const char *file;
    int rc;
    const char *needle;
    const char *name; /* must not be registered afterwards */
};

static const struct broken_case broken_cases[] = {
    {"broken-magic.so", -ENOEXEC, "bad magic", "broken-magic"},
    {"broken-abi.so", -EPROTO, "ABI version", "broken-abi"},
    {"broken-size.so", -EPROTO, "ops size", "broken-size"},
    {"broken-slot.so", -EINVAL, "unknown slot 'no-such-slot'", "broken-slot"},
    {"broken-name.so", -EINVAL, "name", "Broken_Name"},
    {"broken-hook.so", -EINVAL, "misses .retire", "broken-hook"},
    {"broken-opt.so", -EINVAL, "bad value '1000'", "broken-opt"},
    {"broken-noentry.so", -ENOEXEC, "hv_plugin_entry", "broken-noentry"},
    {"broken-onehdr.so", -ENOEXEC, "not a NULL-ended list", "broken-onehdr"},
    /* Right magic and ABI, a pointer outside the .so (SIGSEGV before). */
    {"broken-wildslot.so", -ENOEXEC, "its slot string is not inside",
     "broken-wildslot"},
    {"broken-wildname.so", -ENOEXEC, "its name string is not inside",
     "broken-wildname"},
    {"broken-wildsummary.so", -ENOEXEC, "its summary string is not inside",
     "broken-wildsummary"},
    {"broken-wildopts.so", -ENOEXEC, "its option table is not inside",
     "broken-wildopts"},
    {"broken-wildhelp.so", -ENOEXEC, "option row 0's text is not",
     "broken-wildhelp"},
    {"no-such-file.so", -ENOENT, "cannot load", "no-such-file"},
};

static void test_broken_plugins_rejected(void **state)
{
    unsigned int i;

    for ( i = 0; i < HV_ARRAY_SIZE(broken_cases); i++ )
    {
        const struct broken_case *c = &broken_cases[i];
        const char *path = so_path(c->file);
        const struct hv_plugin_hdr *h = NULL;
        struct hv_plugin_inst inst;
        int rc;

        err[0] = '\0';
        rc = hv_plugin_load(path, &h, err, sizeof(err));
        print_message("  %-20s %4d  %s\n", c->file, rc, err);
        if ( rc != c->rc )
            fail_msg("%s: rc %d, expected %d (%s)", c->file, rc, c->rc, err);
        /* The message must say what is wrong and with which plugin: the
         * file, or the slot/name the file registers. */
        if ( strstr(err, c->needle) == NULL ||
             (strstr(err, c->file) == NULL && strstr(err, c->name) == NULL) )
            fail_msg("%s: message '%s' lacks '%s' or the plugin", c->file, err,
                     c->needle);
        assert_null(h);
        assert_null(hv_plugin_find("domlookup", c->name));

        /* Resolving it by path reports the same error. */
        rc = hv_plugin_resolve("domlookup", path, false, &inst, err,
                               sizeof(err));
        assert_int_equal(rc, c->rc);
        assert_non_null(strstr(err, c->needle));
        assert_null(inst.hdr);
    }
}

static void test_duplicate_name_rejected(void **state)
{
    const struct hv_plugin_hdr *skel = NULL, *h = NULL;
    const char *path = so_path("broken-dup.so");

    assert_int_equal(
        hv_plugin_load(so_path("skeleton.so"), &skel, err, sizeof(err)), 0);
    err[0] = '\0';
    assert_int_equal(hv_plugin_load(path, &h, err, sizeof(err)), -EEXIST);
    print_message("  %-20s %4d  %s\n", "broken-dup.so", -EEXIST, err);
    assert_non_null(strstr(err, "already registered"));
    assert_non_null(strstr(err, "skeleton.so")); /* who has it */
    assert_null(h);
    /* The first one keeps the name. */
    assert_ptr_equal(hv_plugin_find("domlookup", "skeleton"), skel);
}

/*
 * A .so whose ops struct is ABI v1's (v1.c) loads: the slot's size check
 * is the frozen v1 size, not today's sizeof, which the first appended
 * hook would grow past it; a struct larger than the model's loads too.
 */
static void test_v1_sized_loads(void **state)
{
    const struct hv_slot *slot = hv_slot_find("domlookup");
    const struct hv_domlookup_ops *ops;
    struct hv_plugin_inst inst;

    err[0] = '\0';
    assert_int_equal(hv_plugin_resolve("domlookup", so_path("v1-sized.so"),
                                       false, &inst, err, sizeof(err)),
                     0);
    assert_string_equal(inst.spec, "v1-sized");
    ops = (const void *)inst.hdr;
    assert_int_equal(ops->hdr.ops_size, slot->min_ops_size);
    assert_int_equal(ops->hdr.ops_size, HV_DOMLOOKUP_OPS_V1_SIZE);
    assert_true(HV_OPS_HAS(ops, retire));
    hv_plugin_inst_free(&inst);

    assert_int_equal(hv_plugin_resolve("domlookup", so_path("v1-larger.so"),
                                       false, &inst, err, sizeof(err)),
                     0);
    ops = (const void *)inst.hdr;
    assert_true(ops->hdr.ops_size > sizeof(struct hv_domlookup_ops));
    hv_plugin_inst_free(&inst);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skeleton_loads),
        cmocka_unit_test(test_skeleton_exports_one_symbol),
        cmocka_unit_test(test_broken_plugins_rejected),
        cmocka_unit_test(test_duplicate_name_rejected),
        cmocka_unit_test(test_v1_sized_loads),
    };
    char spec[1100];
    int failed, rc;

    if ( argc > 2 )
    {
        fprintf(stderr, "usage: %s [DIR]\n", argv[0]);
        return 2;
    }
    if ( argc == 2 )
        so_dir = argv[1];
    failed = cmocka_run_group_tests_name("external", tests, NULL, NULL);

    /* The template must conform, in both modes. */
    rc = domlookup_suite_run(so_path("skeleton.so"), "skeleton.so");
    failed += rc < 0 ? 1 : rc;
    snprintf(spec, sizeof(spec), "%s:ref=false", so_path("skeleton.so"));
    rc = domlookup_suite_run(spec, "skeleton.so:ref=false");
    failed += rc < 0 ? 1 : rc;
    /* So must a v1-sized plugin: the model reads only what it declared. */
    rc = domlookup_suite_run(so_path("v1-sized.so"), "v1-sized.so");
    failed += rc < 0 ? 1 : rc;
    return failed ? 1 : 0;
}
