/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The strategy-plugin ABI.  A slot is one switchable strategy point of the
 * model; each slot has one const ops struct type (hv/<slot>.h) whose first
 * member is struct hv_plugin_hdr.  Rules, learned from fio, Xen's scheduler
 * registry and sqlite's VFS:
 *
 *  - magic first, checked before any other field is read;
 *  - the ABI only grows at the end: abi_version is bumped when a field is
 *    appended, ops_size says how much of the struct the plugin saw;
 *    the registry accepts any ops_size from the slot's frozen v1 size up
 *    (struct hv_slot's min_ops_size, HV_OPS_SIZE_UPTO() of its last v1
 *    hook, never today's sizeof), and the model reads a hook appended
 *    after v1 only where HV_OPS_HAS() says the plugin's struct covers it;
 *  - ops objects are static const; the registry is a separate array of
 *    pointers (the "hv_plugins" linker section for built-ins);
 *  - an unknown or invalid plugin is a hard error, never a fallback;
 *  - options are a typed table ending in HV_OPT_END; offset 0 is valid.
 *
 * A built-in plugin ends its file with HV_REGISTER_PLUGIN(ops).  Built with
 * -DHV_PLUGIN_SHARED the same file instead exports hv_plugin_entry(), the
 * one symbol an external .so exposes.
 *
 * This header is the ABI a plugin (built-in or .so) includes, with its
 * slot's ops header and the option rows of hv/opt.h; the registry that
 * validates, loads and resolves plugins is hv/plugin_registry.h.
 */
#ifndef HV_PLUGIN_H
#define HV_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>
#include <hv/opt.h>

#define HV_PLUGIN_MAGIC       0x48565047u /* "HVPG" */
#define HV_PLUGIN_ABI_VERSION 2u

/* The slots of the model (hv/slots.c describes each). */
enum hv_slot_id {
    HV_SLOT_DOMLOOKUP,
    HV_SLOT_QUOTA,
    HV_SLOT_PGALLOC,
    HV_SLOT_SECLOCK,    /* libvirt security manager locking (seed 003) */
    HV_SLOT_NAMESEARCH, /* libvirt domain-object search by name */
    HV_SLOT_INFOLIST,   /* xenctrl domain_getinfolist (seed 002) */
    HV_SLOT_NR
};

/* Plugin flags: declared capabilities and restrictions. */
#define HV_PF_TEST_ONLY (1u << 0) /* negative control, tests only */
#define HV_PF_NO_CHURN  (1u << 1) /* unsafe if objects die concurrently */
/*
 * A real reference: what lock() returns may be held across quiescent
 * states (Xen's get_domain_by_id for long-lived references).  Without it
 * the pin ends at the CPU's next quiescent state (rcu_lock_domain_by_id).
 */
#define HV_PF_LONG_REF (1u << 2)
/*
 * ThreadSanitizer cannot see this plugin's synchronisation: it orders its
 * accesses through a library built without TSan (urcu-ref: liburcu's
 * call_rcu thread, futexes and membarrier()), so TSan reports races that
 * are not there.  The sanitizer tests run it under ASan only.
 */
#define HV_PF_TSAN_BLIND (1u << 3)

struct hv_plugin_hdr {
    uint32_t magic;            /* HV_PLUGIN_MAGIC */
    uint32_t abi_version;      /* HV_PLUGIN_ABI_VERSION when built */
    uint32_t ops_size;         /* sizeof the slot's ops struct when built */
    uint32_t flags;            /* HV_PF_* */
    const char *slot;          /* "domlookup" */
    const char *name;          /* "rcu-noref" */
    const char *summary;       /* one line for `hvbench list` */
    const struct hv_opt *opts; /* may be NULL */
    size_t opts_size;          /* sizeof the plugin's option struct */
};

/*
 * HV_OPS_SIZE_UPTO - the size of ops struct @type up to and including
 * member @last: a slot's frozen ABI v1 size is this of its last v1 hook,
 * so appending a hook does not reject every v1 .so.
 */
#define HV_OPS_SIZE_UPTO(type, last) \
    (offsetof(type, last) + sizeof(((type *)0)->last))

/*
 * HV_OPS_HAS - does the struct @ops (a slot's ops pointer) that its
 * plugin declared (hdr.ops_size) cover member @hook?  A hook appended
 * after v1 is read only if so; a v1 .so's struct ends before it.
 */
#define HV_OPS_HAS(ops, hook) \
    ((ops)->hdr.ops_size >= HV_OPS_SIZE_UPTO(__typeof__(*(ops)), hook))

#define HV_PLUGIN_HDR(slot_, name_, ops_type_)                      \
    .magic = HV_PLUGIN_MAGIC, .abi_version = HV_PLUGIN_ABI_VERSION, \
    .ops_size = sizeof(ops_type_), .slot = (slot_), .name = (name_)

#ifdef HV_PLUGIN_SHARED
#define HV_REGISTER_PLUGIN(ops)                                                \
    __attribute__((visibility("default"))) const struct hv_plugin_hdr *const * \
    hv_plugin_entry(void);                                                     \
    const struct hv_plugin_hdr *const *hv_plugin_entry(void)                   \
    {                                                                          \
        static const struct hv_plugin_hdr *const list[] = {&(ops).hdr, NULL};  \
        return list;                                                           \
    }
#else
#define HV_REGISTER_PLUGIN(ops)                                    \
    static const struct hv_plugin_hdr *const hv_plugin_entry_##ops \
        __attribute__((used, retain, section("hv_plugins"))) = &(ops).hdr
#endif

/* The symbol an external plugin exports. */
#define HV_PLUGIN_ENTRY_SYMBOL "hv_plugin_entry"
typedef const struct hv_plugin_hdr *const *(*hv_plugin_entry_fn)(void);

#endif /* HV_PLUGIN_H */
