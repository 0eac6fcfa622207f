/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the memory workloads (alloc-extent, increase-reservation,
 * balloon, memwrite): the topology parameters and the model config they
 * make, domains with a vCPU on a chosen node, memory ops issued as a guest
 * issues them (batches of extents, one hypercall each, continued when
 * preempted), and the allocator counters every one of them reports.
 */
#ifndef HVB_WL_MEM_H
#define HVB_WL_MEM_H

#include <hv/page_alloc.h>
#include <hv/topology.h>
#include <hvb/workload.h>

#include "wl.h"

/*
 * The topology params, spelt without commas so they survive --param
 * splitting: topology=2x1G (or 1G+0+1G-nocpu), distance=10:21.  A
 * workload embeds the struct as member @m of its param struct @st and
 * lists WL_MEM_PARAMS(st, m) in its table.
 */
struct wl_mem_params {
    char topology[HV_OPT_TEXT_MAX];
    char distance[HV_OPT_TEXT_MAX];
    unsigned int scrub; /* 0 off, 1 on */
    unsigned int zones; /* 0 dom, 1 bitwidth */
};
/* clang-format off */
#define WL_MEM_PARAMS(st, m)                                                   \
    HV_OPT_STR_ROW(st, m.topology, "topology", "host",                         \
                   "host, NxSIZE or SIZE+SIZE+... (0: memory-less node, "      \
                   "SIZE-nocpu: CPU-less node; K/M/G are powers of 1024)",     \
                   "NUMA topology: 'host' is the host's nodes if it has "      \
                   "several, else one node; anything else is emulated"),       \
    HV_OPT_STR_ROW(st, m.distance, "distance", "10:20",                        \
                   "LOCAL:REMOTE or N*N values row-major joined by ':'",       \
                   "SLIT distances of an emulated topology"),                  \
    HV_OPT_ENUM_ROW(st, m.scrub, "scrub", "off", "off|on",                     \
                    "zero every extent when it is allocated"),                 \
    HV_OPT_ENUM_ROW(st, m.zones, "zones", "dom", "dom|bitwidth",               \
                    "heap zones: dom = one zone of domain memory (2006); "     \
                    "bitwidth = zone fls(mfn) (Xen today)")
/* clang-format on */

/*
 * check(): the topology params @mp parse, @node is one of its nodes, and
 * an emulated topology holds the @need_bytes the cell allocates (else
 * -EINVAL with a cell error naming both figures).
 */
int wl_mem_check(struct hvb_cell *c, const struct wl_mem_params *mp,
                 uint64_t node, uint64_t need_bytes);

/*
 * mem_need(): the host memory of a cell whose model is sized for
 * @need_bytes (as wl_mem_configure() sizes it) and which writes
 * @touched_bytes of it: the model's memory is mapped but costs only what
 * is written; its frame table costs for every page.
 */
uint64_t wl_mem_need(const struct wl_mem_params *mp, uint64_t need_bytes,
                     uint64_t touched_bytes);

/* scrub=on: every allocated extent is written (zeroed). */
bool wl_mem_scrubbed(const struct wl_mem_params *mp);

/*
 * Model config from the params; a "host" topology gets @need_bytes plus
 * some slack (emulated ones are what the user wrote).
 */
void wl_mem_configure(const struct wl_mem_params *mp, struct hv_config *cfg,
                      uint64_t need_bytes);

/*
 * Domain @id with one vCPU on the first model CPU of @node (clamped to
 * the nodes that have CPUs).  0 or -errno.
 */
int wl_mem_domain(struct hvb_cell *c, domid_t id, unsigned int node,
                  struct hv_domain **out);

/*
 * Issue @nr extents of @order to @d as hypercalls of at most @batch
 * extents each (increase if @up, else decrease), continuing preempted
 * ones.  0, or -ENOMEM / -ENOENT.
 */
int wl_mem_op(struct hv_cpu *cpu, struct hv_domain *d, bool up,
              unsigned long nr, unsigned int order, unsigned long batch,
              unsigned int memflags);

/* A model CPU for prepare(): the machine's last one.  Leave it after. */
struct hv_cpu *wl_mem_prepare_cpu(struct hvb_cell *c);

/* The allocator counters of @cpu, before and after a measured stretch. */
struct wl_mem_snap {
    uint64_t v[HV_PERFC_NR];
};
void wl_mem_snap(const struct hv_cpu *cpu, struct wl_mem_snap *s);

/*
 * Report probes/extent, nodes/extent, splits and merges per extent since
 * @before as plain counters, averaged over the cell's threads.
 */
void wl_mem_counters(struct hvb_thread *t, const struct wl_mem_snap *before);

/*
 * Report the fraction of @d's pages on @node ("local_frac") and return
 * it; @pages receives the per-node counts.
 */
double wl_mem_locality(struct hvb_thread *t, struct hv_domain *d,
                       unsigned int node, uint64_t pages[HV_MAX_NUMNODES]);

/* The node the first vCPU of @d runs on. */
unsigned int wl_mem_vcpu_node(struct hv_domain *d);

#endif /* HVB_WL_MEM_H */
