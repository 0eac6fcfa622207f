/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU model counters; see perfc-defn.h. */
#ifndef HV_PERFC_H
#define HV_PERFC_H

#include <stdint.h>

enum hv_perfc {
#define HV_PERFC(name, descr) HV_PERFC_##name,
#include <hv/perfc-defn.h>
#undef HV_PERFC
    HV_PERFC_NR
};

extern const char *const hv_perfc_names[HV_PERFC_NR];

#define hv_perfc_incr(cpu, x)   ((cpu)->perfc[HV_PERFC_##x]++)
#define hv_perfc_add(cpu, x, n) ((cpu)->perfc[HV_PERFC_##x] += (n))

#endif /* HV_PERFC_H */
