/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libvirt security manager (virSecurityManager + an AppArmor-like
 * driver, seed 003).  A label operation has two parts:
 *
 *  - the shared label table: GenLabel picks a free label (first fit)
 *    and later claims it; RestoreAll releases it.  The table is shared
 *    by every domain, so these steps need a lock the strategy chooses;
 *  - the helper: a real process spawn (posix_spawn of @helper, then
 *    waitpid: virt-aa-helper forks in libvirt) plus a tunable sleep
 *    for what the helper would do (parse the XML, run apparmor_parser).
 *    The spawn is measured (spawn_ns, real); the sleep is modelled
 *    (delay_ns).  Both are in hv_secmgr_stats().
 *
 * hv_secmgr_label_steps() runs one operation in AppArmor's order, with no
 * lock of its own: GenLabel = pick, helper, claim (the name is checked
 * before the helper loads the profile); SetAllLabel = helper (unless
 * !setall_helper: then nothing); RestoreAll = helper, release.  Run unlocked by two threads at once,
 * GenLabel hands both the same label: that is why the manager locks.
 *
 * The seclock slot (hv/seclock.h) decides the locks around the steps;
 * hv_secmgr_label() dispatches to it, once per operation.
 */
#ifndef HV_VIRT_SECURITY_H
#define HV_VIRT_SECURITY_H

#include <stdbool.h>
#include <stdint.h>

#include <hv/compiler.h>
#include <hv/lock.h>
#include <hv/plugin.h>
#include <hv/plugin_registry.h>

struct hv_vobj;
struct hv_secmgr;

enum hv_label_op {
    HV_LABEL_GEN,     /* virSecurityManagerGenLabel */
    HV_LABEL_SETALL,  /* virSecurityManagerSetAllLabel */
    HV_LABEL_RESTORE, /* virSecurityManagerRestoreAllLabel */
    HV_LABEL_NR
};

struct hv_secmgr_config {
    const char *helper;       /* spawned per operation; NULL: none */
    unsigned int delay_us;    /* modelled helper work per operation */
    unsigned int label_space; /* labels in the table (>= running VMs) */
    /*
     * SetAllLabel runs the helper too (spawn + delay_us).  false:
     * AppArmor's start path, where only GenLabel (virt-aa-helper -c) and
     * RestoreAll (-R) run it: its SetAllLabel reloads the profile only
     * when a start restores from a file (stdin_path).
     */
    bool setall_helper;
};

struct hv_secmgr_stats {
    uint64_t ops[HV_LABEL_NR];
    uint64_t spawns, spawn_ns; /* real: posix_spawn to waitpid */
    uint64_t delay_ns;         /* modelled: the sleeps */
};

/* 0, -EINVAL (@err), -ENOMEM.  @seclock: resolved; NULL: the default. */
int HV_MUST_CHECK hv_secmgr_create(const struct hv_secmgr_config *cfg,
                                   const struct hv_plugin_inst *seclock,
                                   struct hv_secmgr **out, char *err,
                                   size_t len);
void hv_secmgr_destroy(struct hv_secmgr *mgr);

/* Run @op on @obj (locked, with a job) under the seclock strategy. */
int HV_MUST_CHECK hv_secmgr_label(struct hv_secmgr *mgr, struct hv_vobj *obj,
                                  enum hv_label_op op);

void hv_secmgr_stats(struct hv_secmgr *mgr, struct hv_secmgr_stats *st);

/*
 * hv_secmgr_label_ok - @obj holds a label and the table says it is
 * @obj's (two domains never share one).  Any thread, no lock needed.
 */
bool hv_secmgr_label_ok(struct hv_secmgr *mgr, const struct hv_vobj *obj);
/* Labels the table holds now. */
unsigned int hv_secmgr_labels_held(struct hv_secmgr *mgr);

/* The steps, for seclock strategies. */
int HV_MUST_CHECK hv_secmgr_label_steps(struct hv_secmgr *mgr,
                                        struct hv_vobj *obj,
                                        enum hv_label_op op);
int HV_MUST_CHECK hv_secmgr_pick(struct hv_secmgr *mgr); /* or -ENOSPC */
void hv_secmgr_claim(struct hv_secmgr *mgr, struct hv_vobj *obj, int label);
void hv_secmgr_release(struct hv_secmgr *mgr, struct hv_vobj *obj);
int HV_MUST_CHECK hv_secmgr_helper(struct hv_secmgr *mgr, enum hv_label_op op);
/* The manager lock ("virSecurityManager") and the driver's table lock. */
hv_mutex_t *hv_secmgr_lock(struct hv_secmgr *mgr);
hv_mutex_t *hv_secmgr_table_lock(struct hv_secmgr *mgr);

/* Sleep @us microseconds (modelled costs of the toolstack). */
void hv_virt_sleep_us(unsigned int us);

/* 0 if @path is NULL or an executable file, else -EINVAL with @err. */
int HV_MUST_CHECK hv_virt_check_exec(const char *what, const char *path,
                                     char *err, size_t len);

/*
 * hv_virt_spawn - run @path with @argv for real (posix_spawn, then
 * waitpid, as virCommandRun forks and waits) and add the time from the
 * spawn to the wait's return to @ns.  0; -EIO if it did not exit 0 (@ns
 * counted); the spawn's or the wait's -errno (@ns not counted).
 */
int HV_MUST_CHECK hv_virt_spawn(const char *path, char *const argv[],
                                uint64_t *ns);

#endif /* HV_VIRT_SECURITY_H */
