/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The page allocator of the model (Xen's xen/common/page_alloc.c and the
 * memory ops of xen/common/memory.c): 4 KiB pages over real memory, an
 * MFN-indexed page_info array, free lists per node x zone x order, one
 * global heap lock.  Which node an allocation comes from is the pgalloc
 * strategy's business (hv/pgalloc.h).
 */
#ifndef HV_PAGE_ALLOC_H
#define HV_PAGE_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include <hv/compiler.h>
#include <hv/topology.h>

struct hv;
struct hv_cpu;
struct hv_domain;

#define HV_MAX_ORDER 18 /* x86: 1 GiB */
#define HV_NR_ZONES  41 /* PADDR_BITS 52 - PAGE_SHIFT 12 + 1: zone = fls(mfn) */
#define HV_MFN_NONE  UINT32_MAX

/* Memory flags (Xen's MEMF_*): a requested node, and "that node only". */
#define HV_MEMF_NODE_SHIFT  8
#define HV_MEMF_node(n)     ((((unsigned int)(n) + 1) & 0xFF) << 8)
#define HV_MEMF_get_node(f) ((((f) >> 8) - 1) & 0xFF) /* 0xFF: none */
#define HV_MEMF_exact_node  (1u << 4)
#define HV_MEMF_no_scrub    (1u << 5)

/*
 * One memory op (increase or decrease_reservation), resumable as a
 * preempted hypercall is: nr_done is the progress, kept across calls.
 */
struct hv_memop {
    unsigned long nr_extents;
    unsigned int extent_order; /* <= HV_MAX_ORDER */
    unsigned int memflags;     /* HV_MEMF_* */
    unsigned long nr_done;     /* in/out */
    /* hypercall_preempt_check(): asked between extents; may be NULL. */
    bool (*preempt)(void *arg);
    void *preempt_arg;
};

/*
 * hv_increase_reservation - populate @d with op->nr_extents extents of
 * 2^extent_order pages, one heap-lock acquisition per extent.
 * Return 0 when all are done, -ERESTART if preempted (call again with the
 * same op), -ENOMEM when the heap cannot satisfy an extent (nr_done says
 * how far it got), -EINVAL for a bad order.
 */
int HV_MUST_CHECK hv_increase_reservation(struct hv_cpu *cpu,
                                          struct hv_domain *d,
                                          struct hv_memop *op);

/*
 * hv_decrease_reservation - give back op->nr_extents extents of
 * extent_order, most recently allocated first, merging buddies.
 * Return 0, -ERESTART, or -ENOENT if @d holds no more such extents.
 */
int HV_MUST_CHECK hv_decrease_reservation(struct hv_cpu *cpu,
                                          struct hv_domain *d,
                                          struct hv_memop *op);

/* Free every page @d holds (domain destruction).  @cpu may be NULL. */
void hv_domain_relinquish_memory(struct hv_cpu *cpu, struct hv_domain *d);

/* Iterate over @d's extents (heap lock held inside): fn(mfn, order). */
void hv_domain_for_each_extent(struct hv_domain *d,
                               void (*fn)(void *arg, uint32_t mfn,
                                          unsigned int order),
                               void *arg);

/* Address of machine frame @mfn in the model's memory. */
void *hv_mfn_to_virt(struct hv *hv, uint32_t mfn);

/* Heap statistics for tests and workloads. */
struct hv_heap_info {
    unsigned int nr_nodes;
    uint64_t total_pages;
    uint64_t node_total[HV_MAX_NUMNODES];    /* pages given to the heap */
    uint64_t node_free[HV_MAX_NUMNODES];     /* on free lists */
    uint64_t node_reserved[HV_MAX_NUMNODES]; /* boundary + MFN 0 */
    /* blocks on the free lists per node and order (fragmentation) */
    uint64_t node_blocks[HV_MAX_NUMNODES][HV_MAX_ORDER + 1];
};

/*
 * hv_heap_check - walk every free list and every page: lists well formed,
 * every free block aligned, inside one node and one zone, avail[][] equal
 * to the lists, free + allocated + reserved == total per node, no free
 * buddy pair left unmerged.  Fills @out (may be NULL).  0 or -EUCLEAN
 * (@err says what).  Takes the heap lock; O(pages).
 */
int HV_MUST_CHECK hv_heap_check(struct hv *hv, struct hv_heap_info *out,
                                char *err, size_t len);

/* Pages of @d on each node (locality); returns @d's total. */
uint64_t hv_domain_node_pages(struct hv_domain *d,
                              uint64_t pages[HV_MAX_NUMNODES]);

#endif /* HV_PAGE_ALLOC_H */
