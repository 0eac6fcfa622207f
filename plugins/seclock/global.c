/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seclock/global: libvirt's virSecurityManager wrappers (seed 003).  One
 * manager lock around every label operation, taken while the caller holds
 * its domain-object lock:
 *
 *   virObjectLock(mgr);
 *   ret = mgr->drv->domainSetSecurityAllLabel(mgr, vm, stdin_path);
 *   virObjectUnlock(mgr);
 *
 * A creation whose helper runs for label_ms keeps every other creation
 * waiting here, each with its own object locked.
 */
#include <hv/seclock.h>

static int global_label(void *priv, struct hv_secmgr *mgr, struct hv_vobj *obj,
                        enum hv_label_op op)
{
    hv_mutex_t *lock = hv_secmgr_lock(mgr);
    int rc;

    hv_mutex_lock(lock);
    rc = hv_secmgr_label_steps(mgr, obj, op);
    hv_mutex_unlock(lock);
    return rc;
}

static const struct hv_seclock_ops global_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("seclock", "global", struct hv_seclock_ops),
            .summary = "one manager lock around every label op, object "
                       "lock held (libvirt 2013, seed 003)",
        },
    .label = global_label,
};

HV_REGISTER_PLUGIN(global_ops);
