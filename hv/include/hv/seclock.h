/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Slot "seclock": the locking around the security manager's label
 * operations (virSecurityManager*, seed 003).  The driver's create path
 * calls label() with the domain object locked and a job on it, as
 * qemuProcessStart does; what is held while the slow part (a helper
 * process: virt-aa-helper) runs is the strategy's business:
 *
 *   global      the manager lock around every label operation, with the
 *               object lock held: one slow label stalls every other
 *               creation and, through the object lock, every scan;
 *   per-domain  a label lock per domain for the slow part and a short
 *               driver lock for the shared label table only;
 *   job         the object lock is dropped around the operation (the job
 *               keeps other API calls off the object); the manager lock
 *               stays global.
 *
 * hv/virt_security.h has the steps a strategy composes.
 */
#ifndef HV_SECLOCK_H
#define HV_SECLOCK_H

#include <hv/plugin.h>
#include <hv/virt_security.h>

struct hv_seclock_ops {
    struct hv_plugin_hdr hdr;

    /* Per-manager state (optional).  @opts: the parsed option struct. */
    int (*init)(const void *opts, void **priv);
    void (*fini)(void *priv);

    /*
     * label - run @op on @obj.  Called with @obj locked and a job on it;
     * returns with @obj locked.  0 or the -errno of a step.
     */
    int (*label)(void *priv, struct hv_secmgr *mgr, struct hv_vobj *obj,
                 enum hv_label_op op);
};

/* ABI v1 ends at .label: hooks appended later are read with HV_OPS_HAS(). */
#define HV_SECLOCK_OPS_V1_SIZE HV_OPS_SIZE_UPTO(struct hv_seclock_ops, label)

#endif /* HV_SECLOCK_H */
