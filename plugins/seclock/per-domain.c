/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seclock/per-domain: the locking pushed down into the driver, as the
 * seed thread proposes.  The slow helper runs under the domain's own
 * label lock ("virSecurityDomain"), so two domains never wait for each
 * other; the shared label table is touched under a short driver lock
 * ("virSecurityDriver"), with GenLabel's pick and claim in one critical
 * section before the helper (so no other domain can take the label while
 * the helper runs).  The object lock is still held, as in libvirt.
 */
#include <hv/seclock.h>
#include <hv/virt_domobj.h>

static int per_domain_label(void *priv, struct hv_secmgr *mgr,
                            struct hv_vobj *obj, enum hv_label_op op)
{
    hv_mutex_t *table = hv_secmgr_table_lock(mgr);
    int rc = 0, label;

    hv_mutex_lock(&obj->sec_lock);
    if ( op == HV_LABEL_GEN )
    {
        hv_mutex_lock(table);
        label = hv_secmgr_pick(mgr);
        if ( label >= 0 )
            hv_secmgr_claim(mgr, obj, label);
        hv_mutex_unlock(table);
        rc = label < 0 ? label : 0;
    }
    if ( rc == 0 )
        rc = hv_secmgr_helper(mgr, op);
    if ( op == HV_LABEL_RESTORE || (op == HV_LABEL_GEN && rc != 0) )
    {
        hv_mutex_lock(table);
        hv_secmgr_release(mgr, obj);
        hv_mutex_unlock(table);
    }
    hv_mutex_unlock(&obj->sec_lock);
    return rc;
}

static const struct hv_seclock_ops per_domain_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("seclock", "per-domain", struct hv_seclock_ops),
            .summary = "a label lock per domain for the helper, a short "
                       "driver lock for the label table",
        },
    .label = per_domain_label,
};

HV_REGISTER_PLUGIN(per_domain_ops);
