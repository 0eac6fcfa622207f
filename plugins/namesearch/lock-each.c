/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * namesearch/lock-each: libvirt's virDomainObjListSearchName (~1.0, seed
 * 003).  With the list lock held, every object is locked in turn to read
 * its name:
 *
 *   virObjectLock(obj);
 *   if (STREQ(obj->def->name, (const char *)data)) want = 1;
 *   virObjectUnlock(obj);
 *
 * An object locked for a slow operation (a label helper) stalls the
 * scan, and every lookup behind the list lock with it: the convoy.
 */
#include <string.h>

#include <hv/namesearch.h>
#include <hv/virt_domobj.h>

static bool search_name(struct hv_vobj *obj, const void *name)
{
    bool want;

    hv_mutex_lock(&obj->lock);
    want = strcmp(obj->name, name) == 0;
    hv_mutex_unlock(&obj->lock);
    return want;
}

static struct hv_vobj *lock_each_find(void *priv, struct hv_vobjlist *l,
                                      const char *name)
{
    return hv_vobjlist_search(l, search_name, name);
}

static const struct hv_namesearch_ops lock_each_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("namesearch", "lock-each", struct hv_namesearch_ops),
            .summary = "scan every domain object, locking each (libvirt "
                       "2013: the convoy, seed 003)",
        },
    .find = lock_each_find,
};

HV_REGISTER_PLUGIN(lock_each_ops);
