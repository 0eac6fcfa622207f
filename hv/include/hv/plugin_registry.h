/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The plugin registry (hv/plugin.c, hv/slots.c): the slots of the model,
 * built-in plugins validated once, external ones loaded from a .so, and
 * plugin specs ("name[:k=v[:k=v...]]") resolved into instances with
 * parsed options.  The model and the harness include this; a plugin
 * includes only the ABI, hv/plugin.h.
 */
#ifndef HV_PLUGIN_REGISTRY_H
#define HV_PLUGIN_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include <hv/compiler.h>
#include <hv/plugin.h>

/*
 * A slot: the model's description of one strategy point.  validate()
 * checks the slot-specific part of a plugin (mandatory hooks).
 */
struct hv_slot {
    unsigned int id; /* enum hv_slot_id */
    const char *name;
    const char *summary;
    const char *default_plugin; /* used when the user names none */
    size_t min_ops_size;        /* frozen ABI v1 size (HV_OPS_SIZE_UPTO) */
    int (*validate)(const struct hv_plugin_hdr *hdr, char *err, size_t len);
};

/* A resolved plugin: the header plus its parsed options. */
struct hv_plugin_inst {
    const struct hv_plugin_hdr *hdr;
    void *opts;   /* malloc'd, opts_size bytes; NULL if opts_size == 0 */
    char *spec;   /* canonical "name:k=v,..." with every option */
    char *origin; /* "built-in" or the .so path */
    char *label;  /* canonical "name[:k=v...]": the options the spec gave */
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
 * Values are read by the option engine (hv/opt.h).  Unknown names and
 * options, and bad values, are -EINVAL with @err listing the valid ones.
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

#endif /* HV_PLUGIN_REGISTRY_H */
