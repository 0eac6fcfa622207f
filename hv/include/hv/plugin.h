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
 *  - ops objects are static const; the registry is a separate array of
 *    pointers (the "hv_plugins" linker section for built-ins);
 *  - an unknown or invalid plugin is a hard error, never a fallback;
 *  - options are a typed table ending in HV_OPT_END; offset 0 is valid.
 *
 * A built-in plugin ends its file with HV_REGISTER_PLUGIN(ops).  Built with
 * -DHV_PLUGIN_SHARED the same file instead exports hv_plugin_entry(), the
 * one symbol an external .so exposes.
 */
#ifndef HV_PLUGIN_H
#define HV_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>

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

enum hv_opt_type {
    HV_OPT_END = 0,
    HV_OPT_UINT, /* unsigned int, range [min, max] */
    HV_OPT_BOOL, /* bool: 0/1/true/false/yes/no */
    HV_OPT_ENUM, /* unsigned int index into choices ("a|b|c") */
};

struct hv_opt {
    const char *name;
    enum hv_opt_type type;
    size_t off;      /* offset in the plugin's option struct */
    const char *def; /* default, as text */
    const char *help;
    uint64_t min, max;   /* HV_OPT_UINT */
    const char *choices; /* HV_OPT_ENUM */
};

/* Table rows: field @f of option struct @st, an integer in [min, max]. */
/* clang-format off */
#define HV_OPT_UINT_ROW(st, f, name_, def_, min_, max_, help_)                 \
    { .name = (name_), .type = HV_OPT_UINT, .off = offsetof(st, f),           \
      .def = (def_), .help = (help_), .min = (min_), .max = (max_) }
#define HV_OPT_TABLE_END { .name = NULL, .type = HV_OPT_END }
/* clang-format on */

/* Plugin flags: declared capabilities and restrictions. */
#define HV_PF_TEST_ONLY (1u << 0) /* negative control, tests only */
#define HV_PF_NO_CHURN  (1u << 1) /* unsafe if objects die concurrently */
/*
 * A real reference: what lock() returns may be held across quiescent
 * states (Xen's get_domain_by_id for long-lived references).  Without it
 * the pin ends at the CPU's next quiescent state (rcu_lock_domain_by_id).
 */
#define HV_PF_LONG_REF (1u << 2)

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

/*
 * A slot: the model's description of one strategy point.  validate()
 * checks the slot-specific part of a plugin (mandatory hooks).
 */
struct hv_slot {
    unsigned int id; /* enum hv_slot_id */
    const char *name;
    const char *summary;
    const char *default_plugin; /* used when the user names none */
    size_t min_ops_size;        /* ABI v1 size of the ops struct */
    int (*validate)(const struct hv_plugin_hdr *hdr, char *err, size_t len);
};

/* A resolved plugin: the header plus its parsed options. */
struct hv_plugin_inst {
    const struct hv_plugin_hdr *hdr;
    void *opts;   /* malloc'd, opts_size bytes; NULL if opts_size == 0 */
    char *spec;   /* canonical "name:k=v,..." with every option */
    char *origin; /* "built-in" or the .so path */
};

/* Registry (hv/plugin.c). Errors are -errno with a one-line message. */
const struct hv_slot *hv_slot_find(const char *name);
const struct hv_slot *hv_slot_at(unsigned int i); /* NULL past the end */

/*
 * hv_plugin_registry_init - validate every built-in plugin once.
 * Return 0, or -EINVAL with @err naming the first invalid plugin.
 */
int HV_MUST_CHECK hv_plugin_registry_init(char *err, size_t len);

/* The i-th registered plugin (built-in or loaded), in registration order. */
const struct hv_plugin_hdr *hv_plugin_at(unsigned int i);
const struct hv_plugin_hdr *hv_plugin_find(const char *slot, const char *name);

/*
 * hv_plugin_load - dlopen an external plugin and register what it exports.
 * Checks magic, ABI version, ops size, slot and hooks; returns 0 or -errno
 * (-ENOENT, -ENOEXEC, -EPROTO, -EEXIST, -EINVAL) with @err set.
 * @out (initially NULL) receives the first header it registered.
 */
int HV_MUST_CHECK hv_plugin_load(const char *path,
                                 const struct hv_plugin_hdr **out, char *err,
                                 size_t len);

/*
 * hv_plugin_resolve - parse "name[:k=v[:k=v...]]" for @slot into @inst.
 * A name containing '/' or ending in ".so" is loaded as an external plugin.
 * Unknown names and options, and bad values, are -EINVAL with @err listing
 * the valid ones.
 */
int HV_MUST_CHECK hv_plugin_resolve(const char *slot, const char *spec,
                                    bool allow_test_only,
                                    struct hv_plugin_inst *inst, char *err,
                                    size_t len);
void hv_plugin_inst_free(struct hv_plugin_inst *inst);
int HV_MUST_CHECK hv_plugin_inst_copy(struct hv_plugin_inst *dst,
                                      const struct hv_plugin_inst *src);

/* "a, b, c": the valid names of @slot (test-only ones if asked). */
void hv_plugin_names(const char *slot, bool with_test_only, char *buf,
                     size_t len);

/*
 * hv_name_ok - a name of 1..32 characters of [a-z0-9] and @extra: the
 * rule for plugin, option, workload and parameter names.
 */
bool hv_name_ok(const char *s, const char *extra);

/* Typed option access for plugins' init hooks. */
static inline unsigned int hv_opt_uint(const void *opts, size_t off)
{
    return *(const unsigned int *)((const char *)opts + off);
}

#endif /* HV_PLUGIN_H */
