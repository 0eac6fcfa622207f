/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Deliberately invalid external domlookup plugins, one per check of the
 * loader (hv_plugin_load).  tests/CMakeLists.txt builds this file once per
 * variant, with one of:
 *
 *   -DBROKEN_MAGIC    bad magic                      -> -ENOEXEC
 *   -DBROKEN_ABI      an ABI version from the future -> -EPROTO
 *   -DBROKEN_SIZE     ops struct smaller than ABI v1 -> -EPROTO
 *   -DBROKEN_SLOT     a slot that does not exist     -> -EINVAL
 *   -DBROKEN_NAME     a name outside [a-z0-9-]       -> -EINVAL
 *   -DBROKEN_HOOK     no retire() hook (mandatory)   -> -EINVAL
 *   -DBROKEN_OPT      option default out of range    -> -EINVAL
 *   -DBROKEN_DUP      named "skeleton" like the template -> -EEXIST
 *   -DBROKEN_NOENTRY  exports no hv_plugin_entry()   -> -ENOEXEC
 *   -DBROKEN_ONEHDR   hv_plugin_entry() returns one header, not a
 *                     NULL-ended list of them (was SIGSEGV) -> -ENOEXEC
 *   -DBROKEN_WILDSLOT, -DBROKEN_WILDNAME, -DBROKEN_WILDSUMMARY,
 *   -DBROKEN_WILDOPTS, -DBROKEN_WILDHELP
 *                     right magic and ABI, but the slot, name or summary
 *                     string, the option table or an option's help text
 *                     points outside the .so (the first two were
 *                     SIGSEGV)                        -> -ENOEXEC
 *
 * Fields are spelled out rather than taken from HV_PLUGIN_HDR(), so a
 * variant can change one without overriding an initialiser.
 */
#include <stddef.h>

#include <hv/domlookup.h>
#include <hv/hv.h>

#define B_MAGIC   HV_PLUGIN_MAGIC
#define B_ABI     HV_PLUGIN_ABI_VERSION
#define B_SIZE    sizeof(struct hv_domlookup_ops)
#define B_SLOT    "domlookup"
#define B_RETIRE  broken_retire
#define B_OPTDEF  "1"
#define B_SUMMARY "deliberately invalid plugin (loader tests)"
#define B_OPTS    broken_opt_table
#define B_HELP    "an option whose default must lie in [0, 10]"

/* An address no shared object is loaded at (the zero page's). */
#define WILD ((const void *)0x10)

#if defined(BROKEN_MAGIC)
#undef B_MAGIC
#define B_MAGIC 0x12345678u
#define B_NAME  "broken-magic"
#elif defined(BROKEN_ABI)
#undef B_ABI
#define B_ABI  (HV_PLUGIN_ABI_VERSION + 1)
#define B_NAME "broken-abi"
#elif defined(BROKEN_SIZE)
#undef B_SIZE
#define B_SIZE sizeof(struct hv_plugin_hdr)
#define B_NAME "broken-size"
#elif defined(BROKEN_SLOT)
#undef B_SLOT
#define B_SLOT "no-such-slot"
#define B_NAME "broken-slot"
#elif defined(BROKEN_NAME)
#define B_NAME "Broken_Name"
#elif defined(BROKEN_HOOK)
#undef B_RETIRE
#define B_RETIRE NULL
#define B_NAME   "broken-hook"
#elif defined(BROKEN_OPT)
#undef B_OPTDEF
#define B_OPTDEF "1000"
#define B_NAME   "broken-opt"
#elif defined(BROKEN_DUP)
#define B_NAME "skeleton"
#elif defined(BROKEN_NOENTRY)
#define B_NAME "broken-noentry"
#elif defined(BROKEN_ONEHDR)
#define B_NAME "broken-onehdr"
#elif defined(BROKEN_WILDSLOT)
#undef B_SLOT
#define B_SLOT WILD
#define B_NAME "broken-wildslot"
#elif defined(BROKEN_WILDNAME)
#define B_NAME WILD
#elif defined(BROKEN_WILDSUMMARY)
#undef B_SUMMARY
#define B_SUMMARY WILD
#define B_NAME    "broken-wildsummary"
#elif defined(BROKEN_WILDOPTS)
#undef B_OPTS
#define B_OPTS WILD
#define B_NAME "broken-wildopts"
#elif defined(BROKEN_WILDHELP)
#undef B_HELP
#define B_HELP WILD
#define B_NAME "broken-wildhelp"
#else
#error "define one BROKEN_* variant"
#endif

struct broken_opts {
    unsigned int level;
};

/* clang-format off */
static const struct hv_opt broken_opt_table[] HV_UNUSED = {
    { .name = "level", .type = HV_OPT_UINT,
      .off = offsetof(struct broken_opts, level), .def = B_OPTDEF,
      .help = B_HELP,
      .min = 0, .max = 10 },
    HV_OPT_TABLE_END
};
/* clang-format on */

static struct hv_domain *broken_lock(struct hv_cpu *cpu, void *priv, domid_t id)
{
    return NULL;
}

static void broken_unlock(struct hv_cpu *cpu, void *priv, struct hv_domain *d)
{
}

static HV_UNUSED void broken_retire(struct hv *hv, void *priv,
                                    struct hv_domain *d)
{
    hv_domain_free_rcu(d);
}

/* clang-format off */
static const struct hv_domlookup_ops broken_ops = {
    .hdr = {
        .magic = B_MAGIC,
        .abi_version = B_ABI,
        .ops_size = B_SIZE,
        .slot = B_SLOT,
        .name = B_NAME,
        .summary = B_SUMMARY,
        .opts = B_OPTS,
        .opts_size = sizeof(struct broken_opts),
    },
    .lock = broken_lock,
    .unlock = broken_unlock,
    .retire = B_RETIRE,
};
/* clang-format on */

#ifdef BROKEN_NOENTRY
/* A shared object with code but without the entry point. */
__attribute__((visibility("default"))) const void *broken_not_an_entry(void);
const void *broken_not_an_entry(void)
{
    return &broken_ops;
}
#elif defined(BROKEN_ONEHDR)
/* The mistake: &ops.hdr where a list of header pointers belongs. */
__attribute__((visibility("default"))) const struct hv_plugin_hdr *const *
hv_plugin_entry(void);
const struct hv_plugin_hdr *const *hv_plugin_entry(void)
{
    return (const struct hv_plugin_hdr *const *)&broken_ops.hdr;
}
#else
HV_REGISTER_PLUGIN(broken_ops);
#endif
