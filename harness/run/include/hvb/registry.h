/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The workload registry: every workload linked into the binary, found
 * through the "hvb_workloads" linker section (HVB_REGISTER_WORKLOAD) and
 * validated once at start, as the model validates its plugins.
 */
#ifndef HVB_REGISTRY_H
#define HVB_REGISTRY_H

#include <stddef.h>

#include <hvb/workload.h>

/*
 * hvb_workload_registry_check - validate every registered workload (name,
 * hooks, slots known to the model, parameter table and its defaults,
 * duplicate names).  Return 0 or -EINVAL with @err naming the first
 * invalid workload.
 */
int hvb_workload_registry_check(char *err, size_t len);

/* The i-th workload, sorted by name; NULL past the end. */
const struct hvb_workload *hvb_workload_at(size_t i);
const struct hvb_workload *hvb_workload_find(const char *name);

/* "a, b, c": every workload name, or "none". */
void hvb_workload_names(char *buf, size_t len);

/* "a, b": the slots @w exercises, or "none". */
void hvb_workload_slot_names(const struct hvb_workload *w, char *buf,
                             size_t len);

#endif /* HVB_REGISTRY_H */
