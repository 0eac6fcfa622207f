/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seclock/job: label work done without holding the domain-object lock.
 * The caller's job keeps other API calls that change the domain off it
 * (they wait in hv_vobj_begin_job()), so the object lock can be dropped
 * around the label operation, as libvirt drops it around monitor calls.
 * The manager lock stays global: creations still queue behind one
 * another's helpers, but a scan that locks every object no longer waits
 * for them.
 */
#include <hv/seclock.h>
#include <hv/virt_domobj.h>

static int job_label(void *priv, struct hv_secmgr *mgr, struct hv_vobj *obj,
                     enum hv_label_op op)
{
    hv_mutex_t *lock = hv_secmgr_lock(mgr);
    int rc;

    HV_BUG_ON(!obj->job);
    hv_mutex_unlock(&obj->lock);
    hv_mutex_lock(lock);
    rc = hv_secmgr_label_steps(mgr, obj, op);
    hv_mutex_unlock(lock);
    hv_mutex_lock(&obj->lock);
    return rc;
}

static const struct hv_seclock_ops job_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("seclock", "job", struct hv_seclock_ops),
            .summary = "object lock dropped around label ops (a job holds "
                       "the domain); manager lock still global",
        },
    .label = job_label,
};

HV_REGISTER_PLUGIN(job_ops);
