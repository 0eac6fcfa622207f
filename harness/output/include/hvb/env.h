/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The environment ledger of a run (hvbench.environment in the results):
 * kernel, clocksource, hypervisor, vCPUs, governor, ASLR, steal time and
 * load average before and after, the cost of a hypercall crossing
 * (hypercall_boundary).  Compiler, flags, git commit and the
 * benchmark library's build type are in hvbench.build / hvbench.git.
 */
#ifndef HVB_ENV_H
#define HVB_ENV_H

#include <jansson.h>

/* The ledger as known now; call before measuring. */
json_t *hvb_env_before(void);

/*
 * What one hypercall crossing costs here, per boundary (hv/hypercall.h),
 * measured now: {"none": {"crossing_ns": 1.4}, ..., "kvm": {"error":
 * "boundary=kvm: /dev/kvm: ..."}}.  In the ledger as hypercall_boundary.
 */
json_t *hvb_env_boundary_costs(void);

/* Add the "after" values (load average, steal) to @env. */
void hvb_env_after(json_t *env);

#endif /* HVB_ENV_H */
