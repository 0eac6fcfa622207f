/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hypervisor side of the toolstack's domain enumeration (Xen's
 * xen/common/sysctl.c, XEN_SYSCTL_getdomaininfolist; seed 002).
 *
 * Every sysctl runs under ONE global sysctl_lock (an hv_ lock of class
 * "sysctl_lock", so lockstat sees it) and, for the walk, an RCU read
 * section.  getdomaininfolist walks the domid-sorted domain list FROM THE
 * HEAD on every call, skipping the domains below first_domain: the call
 * that starts at the k-th domain pays k list steps before its first
 * record, so enumerating N domains c at a time costs about N^2 / (2c)
 * steps.  Each record is filled by an O(vcpus) loop and copied into the
 * caller's buffer (copy_to_guest: a real memcpy of 112 bytes).
 *
 * Worked example (domains 0, 32, 64, 96; first 64, max 2):
 *   walk 0 (skip), 32 (skip), 64 (fill, copy), 96 (fill, copy): 4 steps,
 *   num_domains 2.  The next call (first 97) walks all 4 again, returns 0.
 *
 * HV_GDIL_RESUME (not in Xen; the `cursor` strategy's extension): the
 * caller says first_domain - 1 is the last domain it got, and the walk
 * starts after that domain, found through its hash bucket, instead of at
 * the head; if it is gone the walk starts at the head as before.
 *
 * The walk holds hv_domain_walk_begin(): the model's RCU read section
 * plus what the domlookup strategy's free path requires (rwlock-ref: the
 * domlist read lock, as Xen before 2007 walked under read_lock; urcu-ref:
 * a liburcu read section), so it is safe against concurrent destruction
 * under every strategy.  A walk that reaches a freed (quarantined)
 * domain counts it in perfc sysctl_walk_freed, which tests assert is 0.
 */
#ifndef HV_SYSCTL_H
#define HV_SYSCTL_H

#include <stdint.h>

#include <hv/compiler.h>
#include <hv/types.h>

struct hv_cpu;

#define XEN_SYSCTL_getdomaininfolist 6

/* x86 struct xen_domctl_getdomaininfo: 112 bytes. */
struct hv_domaininfo {
    domid_t domain;
    uint16_t pad1;
    uint32_t flags; /* HV_DOMINF_* */
    uint64_t tot_pages;
    uint64_t max_pages;
    uint64_t outstanding_pages;
    uint64_t shr_pages;
    uint64_t paged_pages;
    uint64_t shared_info_frame;
    uint64_t cpu_time;
    uint32_t nr_online_vcpus;
    uint32_t max_vcpu_id;
    uint32_t ssidref;
    uint8_t handle[16];
    uint32_t cpupool;
    uint8_t gpaddr_bits;
    uint8_t pad2[7];
    uint32_t arch_emulation_flags;
    uint32_t arch_misc_flags;
};
_Static_assert(sizeof(struct hv_domaininfo) == 112, "x86 getdomaininfo");

#define HV_DOMINF_dying (1u << 0)

/* Flags of the request. */
#define HV_GDIL_RESUME (1u << 0)

struct hv_sysctl_getdomaininfolist {
    domid_t first_domain;         /* IN */
    uint32_t max_domains;         /* IN */
    uint32_t flags;               /* IN: HV_GDIL_* */
    struct hv_domaininfo *buffer; /* IN: max_domains records */
    uint32_t num_domains;         /* OUT */
};

/*
 * hv_sysctl_getdomaininfolist - one hypercall on @cpu (it crosses the
 * machine's boundary once).  0, or -EFAULT (no buffer with max_domains
 * > 0) or -EINVAL (unknown flags).
 */
int HV_MUST_CHECK hv_sysctl_getdomaininfolist(
    struct hv_cpu *cpu, struct hv_sysctl_getdomaininfolist *op);

#endif /* HV_SYSCTL_H */
