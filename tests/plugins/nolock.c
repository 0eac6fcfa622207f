/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seclock/nolock: the negative control of the seclock slot.  It runs the
 * label steps in AppArmor's order (pick, helper, claim) with no lock at
 * all, so two creations whose helpers overlap pick the same free label
 * and both claim it:
 *
 *   A  pick -> label 0        B  pick -> label 0 (A has not claimed)
 *   A  helper ... claim 0     B  helper ... claim 0: A's label is B's
 *
 * The torture checks that a started domain's label is its own
 * (hv_secmgr_label_ok); if it does not catch this, that check proves
 * nothing.  Test-only (HV_PF_TEST_ONLY).
 */
#include <hv/seclock.h>

static int nolock_label(void *priv, struct hv_secmgr *mgr, struct hv_vobj *obj,
                        enum hv_label_op op)
{
    return hv_secmgr_label_steps(mgr, obj, op); /* THE BUG: no lock */
}

static const struct hv_seclock_ops nolock_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("seclock", "nolock", struct hv_seclock_ops),
            .flags = HV_PF_TEST_ONLY,
            .summary = "NEGATIVE CONTROL: label ops with no lock at all "
                       "(tests only)",
        },
    .label = nolock_label,
};

HV_REGISTER_PLUGIN(nolock_ops);
