/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the workloads that make hypercalls (gnttab-map, netio,
 * getinfolist, xenopsd-poll): the `boundary` param (hv/hypercall.h) and
 * the measured cost of one crossing as a counter; the toolstack
 * workloads' sparse domain set.
 */
#ifndef HVB_WL_HC_H
#define HVB_WL_HC_H

#include <hv/hypercall.h>
#include <hvb/workload.h>

/* The `boundary` param, field @f (unsigned int) of param struct @st. */
#define WL_PARAM_BOUNDARY(st, f)                                          \
    HV_OPT_ENUM_ROW(st, f, "boundary", "none", HV_BOUNDARY_CHOICES,       \
                    "hypercall boundary: none (a call), syscall (a real " \
                    "kernel entry), kvm (a real VM exit on /dev/kvm or "  \
                    "$" HV_KVM_DEVICE_ENV ")")

/* The params of the grant workloads: member @m of param struct @st. */
struct wl_grant_params {
    uint64_t map_cost_ns;  /* modelled page-table update */
    unsigned int boundary; /* enum hv_boundary */
};
#define WL_GRANT_PARAMS(st, m)                                              \
    HV_OPT_U64_ROW(st, m.map_cost_ns, "map_cost_ns", "200", 0, 1000000,     \
                   "modelled page-table update under the grant lock (ns)"), \
        WL_PARAM_BOUNDARY(st, m.boundary)

/* The model config of @g (map cost and boundary). */
void wl_configure_grant(const struct wl_grant_params *g, struct hv_config *cfg);

/*
 * Thread 0 of a run: add counter hypercall_crossing_ns, what one
 * crossing of the cell's boundary cost (measured at hv_create()).
 */
void wl_report_crossing(struct hvb_thread *t);

/*
 * The domid of domain @k of @n spread over the whole domid space
 * (k * 32752 / n: dom0 first, sparse below n = 32752, dense at it).
 */
static inline domid_t wl_sparse_domid(unsigned int k, unsigned int n)
{
    return (domid_t)((uint64_t)k * DOMID_FIRST_RESERVED / n);
}

/*
 * Create the @n sparse domains (no grants), each with @vcpus vCPUs on
 * model CPUs 0, 1, ... (0: none).  0 or -errno with an error on @c.
 */
int wl_create_sparse(struct hvb_cell *c, unsigned int n, unsigned int vcpus);

#endif /* HVB_WL_HC_H */
