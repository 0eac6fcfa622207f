/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The slots of the model: one entry per switchable strategy point, with
 * the hooks every plugin of the slot must provide.  Adding a slot means
 * adding its ops header, its subsystem and one entry here.
 *
 * min_ops_size is the slot's frozen ABI v1 size, HV_<SLOT>_OPS_V1_SIZE
 * (its ops header): HV_OPS_SIZE_UPTO() its last v1 hook, which stays put
 * when a hook is appended (sizeof would grow and reject every v1 .so); a
 * hook appended later is read with HV_OPS_HAS() (hv/plugin.h).
 */
#include <stdio.h>
#include <string.h>

#include <hv/domlookup.h>
#include <hv/infolist.h>
#include <hv/namesearch.h>
#include <hv/pgalloc.h>
#include <hv/plugin.h>
#include <hv/plugin_registry.h>
#include <hv/quota.h>
#include <hv/seclock.h>

#define REQUIRE(ops, hook)                                                 \
    do                                                                     \
    {                                                                      \
        if ( (ops)->hook == NULL )                                         \
        {                                                                  \
            snprintf(err, len, "plugin %s/%s misses .%s", (ops)->hdr.slot, \
                     (ops)->hdr.name, #hook);                              \
            return -1;                                                     \
        }                                                                  \
    } while ( 0 )

static int domlookup_validate(const struct hv_plugin_hdr *hdr, char *err,
                              size_t len)
{
    const struct hv_domlookup_ops *ops = (const void *)hdr;

    REQUIRE(ops, lock);
    REQUIRE(ops, unlock);
    REQUIRE(ops, retire);
    return 0;
}

static int quota_validate(const struct hv_plugin_hdr *hdr, char *err,
                          size_t len)
{
    const struct hv_quota_ops *ops = (const void *)hdr;

    REQUIRE(ops, create);
    REQUIRE(ops, copy);
    REQUIRE(ops, release);
    REQUIRE(ops, get);
    REQUIRE(ops, add);
    REQUIRE(ops, del);
    REQUIRE(ops, foreach);
    REQUIRE(ops, size);
    return 0;
}

static int pgalloc_validate(const struct hv_plugin_hdr *hdr, char *err,
                            size_t len)
{
    const struct hv_pgalloc_ops *ops = (const void *)hdr;

    REQUIRE(ops, get_free_buddy);
    return 0;
}

static int seclock_validate(const struct hv_plugin_hdr *hdr, char *err,
                            size_t len)
{
    const struct hv_seclock_ops *ops = (const void *)hdr;

    REQUIRE(ops, label);
    return 0;
}

static int namesearch_validate(const struct hv_plugin_hdr *hdr, char *err,
                               size_t len)
{
    const struct hv_namesearch_ops *ops = (const void *)hdr;

    REQUIRE(ops, find);
    return 0;
}

static int infolist_validate(const struct hv_plugin_hdr *hdr, char *err,
                             size_t len)
{
    const struct hv_infolist_ops *ops = (const void *)hdr;

    REQUIRE(ops, getlist);
    return 0;
}

static const struct hv_slot slots[] = {
    {
        .id = HV_SLOT_DOMLOOKUP,
        .name = "domlookup",
        .summary = "find a domain by id and pin it for one operation "
                   "(seed 004)",
        .default_plugin = "rcu-noref",
        .min_ops_size = HV_DOMLOOKUP_OPS_V1_SIZE,
        .validate = domlookup_validate,
    },
    {
        .id = HV_SLOT_QUOTA,
        .name = "quota",
        .summary = "xenstore per-domain quota map and its per-request "
                   "copy (seed 000)",
        .default_plugin = "persistent",
        .min_ops_size = HV_QUOTA_OPS_V1_SIZE,
        .validate = quota_validate,
    },
    {
        .id = HV_SLOT_PGALLOC,
        .name = "pgalloc",
        .summary = "choose the node a page allocation comes from and search "
                   "the free lists (seed 001)",
        .default_plugin = "numa",
        .min_ops_size = HV_PGALLOC_OPS_V1_SIZE,
        .validate = pgalloc_validate,
    },
    {
        .id = HV_SLOT_SECLOCK,
        .name = "seclock",
        .summary = "locks held around libvirt's security label operations "
                   "(seed 003)",
        .default_plugin = "global",
        .min_ops_size = HV_SECLOCK_OPS_V1_SIZE,
        .validate = seclock_validate,
    },
    {
        .id = HV_SLOT_NAMESEARCH,
        .name = "namesearch",
        .summary = "find a libvirt domain object by name at define and "
                   "lookup (seed 003)",
        .default_plugin = "name-hash",
        .min_ops_size = HV_NAMESEARCH_OPS_V1_SIZE,
        .validate = namesearch_validate,
    },
    {
        .id = HV_SLOT_INFOLIST,
        .name = "infolist",
        .summary = "xenctrl domain_getinfolist: chunk size and list "
                   "building over getdomaininfolist hypercalls (seed 002)",
        .default_plugin = "chunked",
        .min_ops_size = HV_INFOLIST_OPS_V1_SIZE,
        .validate = infolist_validate,
    },
};

_Static_assert(HV_ARRAY_SIZE(slots) == HV_SLOT_NR, "one entry per slot id");

const struct hv_slot *hv_slot_at(unsigned int i)
{
    return i < HV_ARRAY_SIZE(slots) ? &slots[i] : NULL;
}

const struct hv_slot *hv_slot_find(const char *name)
{
    unsigned int i;

    for ( i = 0; i < HV_ARRAY_SIZE(slots); i++ )
        if ( strcmp(slots[i].name, name) == 0 )
            return &slots[i];
    return NULL;
}
