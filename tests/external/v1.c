/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domlookup/v1-sized: an external plugin built against its own copy of
 * struct hv_domlookup_ops as ABI v1 froze it (up to .retire), so that its
 * declared ops_size stays the v1 size when hooks are appended to the
 * model's struct: the loader must accept it (the slot's v1 size is a
 * frozen constant, HV_DOMLOOKUP_OPS_V1_SIZE, not today's sizeof), and the
 * model must read no hook past it (HV_OPS_HAS).  Built twice
 * (tests/CMakeLists.txt):
 *
 *   (default)     exactly the v1 struct                    "v1-sized"
 *   -DV1_LARGER   the v1 struct and eight more hooks:     "v1-larger"
 *                 a struct larger than the model's, also accepted
 *
 * Its hooks forward to the built-in rcu-ref, found through the registry
 * the executable exports, so the conformance suite can run on it.
 */
#include <errno.h>
#include <stddef.h>

#include <hv/domlookup.h>
#include <hv/hv.h>

/* The v1 layout, frozen: never edit (append to hv/domlookup.h instead). */
struct v1_domlookup_ops {
    struct hv_plugin_hdr hdr;
    int (*init)(struct hv *hv, const void *opts, void **priv);
    void (*fini)(struct hv *hv, void *priv);
    int (*domain_init)(struct hv *hv, void *priv, struct hv_domain *d);
    void (*domain_fini)(struct hv *hv, void *priv, struct hv_domain *d);
    int (*cpu_online)(struct hv_cpu *cpu, void *priv);
    void (*cpu_offline)(struct hv_cpu *cpu, void *priv);
    struct hv_domain *(*lock)(struct hv_cpu *cpu, void *priv, domid_t id);
    void (*unlock)(struct hv_cpu *cpu, void *priv, struct hv_domain *d);
    void (*write_begin)(struct hv *hv, void *priv);
    void (*write_end)(struct hv *hv, void *priv);
    void (*retire)(struct hv *hv, void *priv, struct hv_domain *d);
#ifdef V1_LARGER
    /* Hooks of a later build than the model's (NULL here). */
    void (*from_a_later_build[8])(void);
#endif
};

/* The copy and the model agree on v1 (an ABI break fails to build). */
_Static_assert(HV_OPS_SIZE_UPTO(struct v1_domlookup_ops, retire) ==
                   HV_DOMLOOKUP_OPS_V1_SIZE,
               "v1 layout of struct hv_domlookup_ops changed");
_Static_assert(offsetof(struct v1_domlookup_ops, lock) ==
                   offsetof(struct hv_domlookup_ops, lock),
               "v1 layout of struct hv_domlookup_ops changed");

static const struct hv_domlookup_ops *base; /* rcu-ref, set by init */

static int v1_init(struct hv *hv, const void *opts, void **priv)
{
    base = (const void *)hv_plugin_find("domlookup", "rcu-ref");
    return base && base->init ? base->init(hv, NULL, priv) : -ENOENT;
}

static struct hv_domain *v1_lock(struct hv_cpu *cpu, void *priv, domid_t id)
{
    return base->lock(cpu, priv, id);
}

static void v1_unlock(struct hv_cpu *cpu, void *priv, struct hv_domain *d)
{
    base->unlock(cpu, priv, d);
}

static void v1_retire(struct hv *hv, void *priv, struct hv_domain *d)
{
    base->retire(hv, priv, d);
}

#ifdef V1_LARGER
#define V1_NAME "v1-larger"
#else
#define V1_NAME "v1-sized"
#endif

static const struct v1_domlookup_ops v1_ops = {
    .hdr =
        {
            .magic = HV_PLUGIN_MAGIC,
            .abi_version = 1,
            .ops_size = sizeof(struct v1_domlookup_ops),
            .flags = HV_PF_LONG_REF,
            .slot = "domlookup",
            .name = V1_NAME,
            .summary = "rcu-ref behind a v1-sized ops struct (ABI tests)",
        },
    .init = v1_init,
    .lock = v1_lock,
    .unlock = v1_unlock,
    .retire = v1_retire,
};

HV_REGISTER_PLUGIN(v1_ops);
