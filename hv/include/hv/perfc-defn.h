/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Model event counters (Xen's perfc_defn.h).  Included several times with
 * HV_PERFC defined to build the enum and the name/description tables.
 * Storage is per model CPU, so counting never shares a cache line.
 */
/* This file is intended to be included multiple times. */
HV_PERFC(dom_lookup, "domlookup: lookups")
HV_PERFC(dom_lookup_miss, "domlookup: lookups that found no domain")
HV_PERFC(dom_cas_retry, "domlookup: failed refcount CAS attempts")
HV_PERFC(gnttab_map, "gnttab: grant maps")
HV_PERFC(gnttab_unmap, "gnttab: grant unmaps")
HV_PERFC(gnttab_map_fail, "gnttab: grant maps that failed")
HV_PERFC(rcu_qs, "rcu: quiescent states reported")
