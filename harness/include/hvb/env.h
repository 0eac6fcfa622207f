/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The environment ledger of a run (hvbench.environment in the results):
 * kernel, clocksource, hypervisor, vCPUs, governor, ASLR, steal time and
 * load average before and after.  Compiler, flags, git commit and the
 * benchmark library's build type are in hvbench.build / hvbench.git.
 */
#ifndef HVB_ENV_H
#define HVB_ENV_H

#include <jansson.h>

/* The ledger as known now; call before measuring. */
json_t *hvb_env_before(void);

/* Add the "after" values (load average, steal) to @env. */
void hvb_env_after(json_t *env);

#endif /* HVB_ENV_H */
