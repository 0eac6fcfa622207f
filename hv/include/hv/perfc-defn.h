/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Model event counters (Xen's perfc_defn.h), each with what it counts.
 * Included several times with HV_PERFC defined to build the enum and the
 * names (hv_perfc_names: "perfc.NAME" in results).
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
HV_PERFC(pgalloc_alloc, "pgalloc: extents allocated")
HV_PERFC(pgalloc_free, "pgalloc: extents freed")
HV_PERFC(pgalloc_probe, "pgalloc: free lists probed")
HV_PERFC(pgalloc_node_scan, "pgalloc: nodes searched")
HV_PERFC(pgalloc_split, "pgalloc: buddy splits")
HV_PERFC(pgalloc_merge, "pgalloc: buddy merges")
HV_PERFC(pgalloc_remote, "pgalloc: extents off the domain's node affinity")
HV_PERFC(pgalloc_enomem, "pgalloc: allocations that failed")
HV_PERFC(pgalloc_preempt, "pgalloc: memory ops preempted")
HV_PERFC(hypercall, "hypercall: boundary crossings (hypercalls made)")
HV_PERFC(sysctl_list_step, "sysctl: domain-list entries walked")
HV_PERFC(sysctl_fill, "sysctl: getdomaininfo records filled")
HV_PERFC(sysctl_bounce_bytes, "sysctl: bytes copied through bounce buffers")
HV_PERFC(sysctl_walk_freed, "sysctl: freed domains the walk reached (bug)")
HV_PERFC(infolist_copy_bytes, "infolist: bytes the client copied into its list")
HV_PERFC(infolist_alloc, "infolist: client list allocations")
