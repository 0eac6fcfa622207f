/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kvm boundary's VM (hv/hypercall_kvm.c), private to the model: one
 * VM per machine, one vCPU per model CPU, created by the thread that
 * runs that CPU (KVM vCPU fds belong to a thread: KVM_RUN from another
 * thread works but pays a pid change and a synchronize_rcu()).
 */
#ifndef HV_HYPERCALL_KVM_H
#define HV_HYPERCALL_KVM_H

#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>

struct hv_kvm;

/*
 * hv_kvm_open - open the device ($HVB_KVM_DEVICE or /dev/kvm), create
 * the VM and its guest memory for up to @max_vcpus vCPUs.  0, or -errno
 * with @err naming the device and the step that failed.
 */
int HV_MUST_CHECK hv_kvm_open(struct hv_kvm **out, unsigned int max_vcpus,
                              char *err, size_t len);
void hv_kvm_close(struct hv_kvm *k);

/*
 * hv_kvm_vcpu_ready - make vCPU @id usable from the calling thread:
 * create it on first use, then cross once (so the first measured
 * crossing does not pay the thread change).  0 or -errno with @err.
 */
int HV_MUST_CHECK hv_kvm_vcpu_ready(struct hv_kvm *k, unsigned int id,
                                    char *err, size_t len);

/*
 * hv_kvm_cross - one VM entry and exit on vCPU @id carrying @op and
 * @nargs arguments through its block of guest memory.  0, or -EIO if
 * the guest did not come back through its one OUT.
 */
int HV_MUST_CHECK hv_kvm_cross(struct hv_kvm *k, unsigned int id, uint64_t op,
                               const uint64_t *args, unsigned int nargs);

#endif /* HV_HYPERCALL_KVM_H */
