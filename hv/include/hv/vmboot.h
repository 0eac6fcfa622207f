/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One VM booted end to end through every subsystem of the model, as a
 * management stack does it (libvirt + libxl + xenstored + Xen), and taken
 * down again.  The boot-storm workload runs many at once; the tests run a
 * few under the sanitizers.  hv_vmboot() on model CPU @cpu (the dom0
 * vCPU running the toolstack's thread), in order:
 *
 *   define    RPC virConnectDefineXML (slot namesearch), client-side time
 *             (the connection cap and the worker pool included)
 *   label     RPC virDomainCreateWithFlags: GenLabel + SetAllLabel (slot
 *             seclock) and the modelled QEMU start, client-side time
 *   create    XEN_DOMCTL_createdomain (the domain table's writer side,
 *             slot domlookup), one vCPU on node (first_node + domid) %
 *             nodes, then a
 *             domctl that looks the domain up (max_vcpus/unpause)
 *   populate  populate_physmap: increase_reservation hypercalls of at most
 *             @batch extents, each looking the domain up (slot domlookup)
 *             and allocating extent by extent (slot pgalloc); the memory
 *             goes where the strategy puts it (the vCPU's node under numa)
 *   xenstore  the guest grants its ring pages to dom0 (netfront), then ONE
 *             dom0 transaction writes the guest's home (owned by the guest:
 *             charged to its quota, slot quota) and its backends' entries
 *             under /local/domain/0/backend (dom0's): about @xs_nodes
 *             nodes; a conflicting commit (-EAGAIN) is retried; or, with
 *             @xs_boot set, whatever traffic that hook drives
 *
 * Worked example, xs_nodes = 60, 2 nodes, first_node 0, domid 7: the
 * vCPU is on node 1;
 * the transaction writes /local/domain/7 (then owner 7) and its 14 base
 * entries (15 writes), then vif devices of 1 + 10 frontend and 10 backend
 * writes while the total stays <= 60: 2 devices, 57 writes; the guest
 * owns 15 + 2 * 11 = 37 nodes (its quota), dom0 the 20 backend ones.
 *
 * hv_vmboot_teardown(): @xs_teardown if set, backends removed (dom0 rm), RPC virDomainDestroy
 * (RestoreAllLabel) and virDomainUndefine, then hv_domain_destroy (the
 * guest's xenstore home and quota go, its memory returns to the heap when
 * the domain is freed).
 */
#ifndef HV_VMBOOT_H
#define HV_VMBOOT_H

#include <stdint.h>

#include <hv/compiler.h>
#include <hv/types.h>

struct hv;
struct hv_cpu;
struct hv_virt;
struct hv_rpc_client;

#define HV_VMBOOT_XS_MIN 36   /* the base entries and one vif device */
#define HV_VMBOOT_XS_MAX 1000 /* at most maxent for the guest's part */

struct hv_vmboot_config {
    struct hv_virt *virt;        /* the libvirt driver */
    unsigned long mem_pages;     /* pages populated per VM */
    unsigned int extent_order;   /* of each extent (<= HV_MAX_ORDER) */
    unsigned int batch;          /* extents per populate hypercall */
    unsigned int xs_nodes;       /* HV_VMBOOT_XS_MIN .. HV_VMBOOT_XS_MAX */
    unsigned int nr_grants;      /* grant entries the guest grants dom0 */
    unsigned int xs_max_retries; /* commits tried before -EAGAIN */
    unsigned int first_node;     /* VM id's vCPU: node (first + id) % nodes */
    /*
     * The xenstore phase's traffic, when not the one transaction above
     * (NULL): @xs_boot writes VM @id's entries, @xs_teardown (may be
     * NULL) removes what domain destruction does not; 0 or -errno.
     * boot-storm's xs_profile=libxl drives a daemon over sockets here.
     */
    int (*xs_boot)(void *arg, struct hv_cpu *cpu, domid_t id);
    int (*xs_teardown)(void *arg, struct hv_cpu *cpu, domid_t id);
    void *xs_arg;
};

/* Wall time of each phase (ns), and what the boot made. */
enum hv_vmboot_phase {
    HV_VMBOOT_DEFINE,
    HV_VMBOOT_LABEL,
    HV_VMBOOT_CREATE,
    HV_VMBOOT_POPULATE,
    HV_VMBOOT_XENSTORE,
    HV_VMBOOT_NR_PHASES
};
extern const char *const hv_vmboot_phase_names[HV_VMBOOT_NR_PHASES];

struct hv_vmboot_result {
    uint64_t ns[HV_VMBOOT_NR_PHASES];
    unsigned int xs_written; /* nodes the transaction wrote */
    unsigned int xs_owned;   /* of them, the guest's (its quota) */
    unsigned int xs_retries; /* commits that met -EAGAIN */
    unsigned int node;       /* the vCPU's node */
    unsigned int hypercalls; /* populate hypercalls */
};

/*
 * hv_vmboot_host_init - what a host's dom0 has before its first guest:
 * the backend directories (/local/domain/0/backend/vif).  Call once
 * before booting; idempotent.  0 or -errno.
 */
int HV_MUST_CHECK hv_vmboot_host_init(struct hv *hv);

/* The VM's name and UUID from @id ("vm-<id>", hv_virt_uuid seed @id). */
void hv_vmboot_identity(domid_t id, char *name, unsigned int len,
                        unsigned char *uuid);

/*
 * hv_vmboot - boot VM @id (1 .. DOMID_FIRST_RESERVED - 1) through @conn.
 * 0 or -errno: -EINVAL (bad config), -EEXIST (defined or running),
 * -ENOMEM (heap or store), -ENOSPC (quota), -EAGAIN (the transaction
 * conflicted xs_max_retries times).  On error what was made is undone.
 */
int HV_MUST_CHECK hv_vmboot(struct hv_cpu *cpu, struct hv_rpc_client *conn,
                            const struct hv_vmboot_config *cfg, domid_t id,
                            struct hv_vmboot_result *res);

/* Take VM @id down and undefine it.  0 or the first -errno. */
int HV_MUST_CHECK hv_vmboot_teardown(struct hv_cpu *cpu,
                                     struct hv_rpc_client *conn,
                                     const struct hv_vmboot_config *cfg,
                                     domid_t id);

#endif /* HV_VMBOOT_H */
