/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One model CPU: the per-CPU state that the hot paths touch (RCU nesting,
 * perf counters, the maptrack free list).  Its own header so that the
 * read-side primitives in hv/rcu.h can be inline, as Xen's and liburcu's
 * (_LGPL_SOURCE) are: an out-of-line call on a ~5 ns lookup path costs
 * more than the nesting count it wraps.
 */
#ifndef HV_CPU_H
#define HV_CPU_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hv/compiler.h>
#include <hv/perfc.h>
#include <hv/types.h>

struct hv;
struct hv_maptrack;

/* One model CPU.  Written by its own thread only (perfc, rcu nesting). */
struct hv_cpu {
    struct hv *hv;
    unsigned int id;
    domid_t current_domain; /* "current->domain" */
    unsigned int rcu_nesting;
    unsigned int rcu_qs_count;
    struct hv_maptrack *maptrack;
    uint32_t maptrack_free;
    uint64_t perfc[HV_PERFC_NR];
    _Atomic bool online;
} __hv_cacheline_aligned;

#endif /* HV_CPU_H */
