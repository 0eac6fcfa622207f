/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hypercall boundary: what it costs a toolstack or a backend to enter
 * the hypervisor.  Every hypercall of the model (grant map and unmap,
 * sysctl) crosses it once on its way in, so that call counts cost what
 * they cost (seed 002: 500 x 1000 hypercalls per poll instead of 1000).
 *
 *   none     a function call: the default, today's figures do not move
 *   syscall  one real system call per hypercall (getppid(2): glibc does
 *            not cache it, so every call is a kernel entry and exit)
 *   kvm      one real VM entry and exit per hypercall on /dev/kvm: each
 *            model CPU owns a vCPU of one tiny VM whose guest loops on
 *            "inc dword [bx]; out dx, al": the model writes the call's
 *            number and arguments into the vCPU's block of guest memory,
 *            KVM_RUN enters the guest, the OUT exits back
 *            (KVM_EXIT_IO), and the model checks that the guest ran
 *            exactly once (its counter in the block moved by one) and
 *            reads the arguments back from guest memory
 *
 * Worked example (kvm, CPU 1, a getdomaininfolist sysctl):
 *   block[1] = {count 7, op HV_HC_SYSCTL, arg {first 0, max 1024}}
 *   KVM_RUN(vcpu 1): guest count 7 -> 8, OUT port 0x10 -> exit IO
 *   model: exit_reason IO, port 0x10, count 8 == 7 + 1: crossed once
 *
 * The device is /dev/kvm, or $HVB_KVM_DEVICE (tests point it at a missing
 * file).  A missing, unopenable or unusable device is an error naming
 * the reason at hv_create(), never a quiet fallback to another boundary.
 * hv_create() also measures one crossing of the chosen boundary (the
 * median of 9 batches of 64 crossings) so results can say what a
 * hypercall cost on this machine.
 */
#ifndef HV_HYPERCALL_H
#define HV_HYPERCALL_H

#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>

struct hv;
struct hv_cpu;

enum hv_boundary {
    HV_BOUNDARY_NONE = 0,
    HV_BOUNDARY_SYSCALL,
    HV_BOUNDARY_KVM,
    HV_BOUNDARY_NR
};

/* "none|syscall|kvm", in enum order: workloads' param choices. */
#define HV_BOUNDARY_CHOICES   "none|syscall|kvm"

#define HV_KVM_DEVICE_ENV     "HVB_KVM_DEVICE"
#define HV_KVM_DEVICE_DEFAULT "/dev/kvm"

/* Hypercall numbers, as the model's entry point records them. */
enum hv_hypercall_op {
    HV_HC_GRANT_TABLE_OP = 20, /* __HYPERVISOR_grant_table_op */
    HV_HC_SYSCTL = 35,         /* __HYPERVISOR_sysctl */
};

#define HV_HC_NR_ARGS 4

const char *hv_boundary_name(enum hv_boundary b);

/*
 * hv_hypercall - cross the machine's boundary once, on @cpu, carrying
 * @op and @args (HV_HC_NR_ARGS values) into the hypervisor.  Counts
 * perfc hypercall.  A kvm crossing that does not come back as the
 * guest's one OUT is a broken invariant (HV_BUG_ON): the VM was set up
 * and checked at hv_create() and hv_cpu_enter().
 */
void hv_hypercall(struct hv_cpu *cpu, enum hv_hypercall_op op,
                  const uint64_t *args);

/* One crossing of the machine's boundary, measured at hv_create() (ns). */
double hv_hypercall_crossing_ns(const struct hv *hv);
enum hv_boundary hv_hypercall_boundary(const struct hv *hv);

/*
 * hv_boundary_measure - set up boundary @b on its own (a VM of one vCPU
 * for kvm), measure one crossing as hv_create() does, tear it down.
 * 0 and *@ns, or -errno with @err naming why (for kvm: the device and
 * the failing step).  For `hvbench list counters`.
 */
int HV_MUST_CHECK hv_boundary_measure(enum hv_boundary b, double *ns, char *err,
                                      size_t len);

#endif /* HV_HYPERCALL_H */
