/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Slot "pgalloc": where a page allocation comes from (seed 001).  The
 * heap itself (free lists per node x zone x order, avail[node][zone], the
 * heap lock, split and merge) belongs to the model (hv/page_alloc.c); a
 * strategy is Xen's get_free_buddy(): it chooses the node order and
 * searches the free lists through the accessors below, which count every
 * list it probes (perfc pgalloc_probe), so the cost of a search shows.
 *
 * Dispatch happens once per extent, under the heap lock.
 */
#ifndef HV_PGALLOC_H
#define HV_PGALLOC_H

#include <hv/hv.h>
#include <hv/page_alloc.h>
#include <hv/plugin.h>

struct hv_page_info {
    uint32_t next, prev; /* free list, or the owner's extent list */
    uint16_t owner;      /* domid of an allocated extent */
    uint8_t order;       /* of a free or allocated head */
    uint8_t state;       /* HV_PGS_* */
};

enum {
    HV_PGS_TAIL = 0, /* inside a block; not a head */
    HV_PGS_FREE,     /* head of a free block on a free list */
    HV_PGS_INUSE,    /* head of an allocated extent */
    HV_PGS_RESERVED, /* never given to the heap */
};

struct hv_page_list {
    uint32_t head;
};

/* The heap, read by strategies through the accessors; the heap lock held. */
struct hv_heap {
    unsigned int nr_nodes;
    uint64_t online_mask; /* nodes of the topology */
    uint64_t memory_mask; /* nodes with memory */
    unsigned int zone_lo, zone_hi;
    /* per node: NULL for memory-less nodes (Xen's !avail[node]) */
    uint64_t *avail[HV_MAX_NUMNODES];
    struct hv_page_list (*heap[HV_MAX_NUMNODES])[HV_MAX_ORDER + 1];
    unsigned int node_zone_lo[HV_MAX_NUMNODES], node_zone_hi[HV_MAX_NUMNODES];
    struct hv_page_info *frame_table;
    const struct hv_topology *topo;
};

/* One allocation, as a strategy sees it. */
struct hv_alloc_req {
    struct hv_domain *d; /* may be NULL */
    struct hv_cpu *cpu;  /* the CPU asking: its node is "local" */
    unsigned int order;
    unsigned int memflags;
    unsigned long extent; /* index of the extent within its memory op */
};

struct hv_pgalloc_ops {
    struct hv_plugin_hdr hdr;

    /* Slot-wide state.  @opts is the parsed option struct (may be NULL). */
    int (*init)(struct hv *hv, const void *opts, void **priv);
    void (*fini)(struct hv *hv, void *priv);

    /*
     * get_free_buddy - find a free block of order >= req->order, take it
     * off its list with hv_heap_take() and return it (the model splits
     * it); NULL if none may be used.  A request with HV_MEMF_exact_node
     * must be served from that node or not at all.  Heap lock held.
     */
    struct hv_page_info *(*get_free_buddy)(struct hv_heap *h, void *priv,
                                           const struct hv_alloc_req *req);
};

/* ABI v1 ends at .get_free_buddy: hooks appended later are read with HV_OPS_HAS(). */
#define HV_PGALLOC_OPS_V1_SIZE \
    HV_OPS_SIZE_UPTO(struct hv_pgalloc_ops, get_free_buddy)

static inline uint32_t hv_page_to_mfn(const struct hv_heap *h,
                                      const struct hv_page_info *pg)
{
    return (uint32_t)(pg - h->frame_table);
}

static inline uint64_t hv_heap_avail(const struct hv_heap *h, unsigned int node,
                                     unsigned int zone)
{
    return h->avail[node] ? h->avail[node][zone] : 0;
}

static inline unsigned int hv_heap_cpu_to_node(const struct hv_heap *h,
                                               unsigned int cpu)
{
    return h->topo->cpu_to_node[cpu];
}

/*
 * hv_heap_list_empty - probe the free list (node, zone, order): one list
 * touched, counted.  Memory-less nodes have empty lists.
 */
static inline bool hv_heap_list_empty(struct hv_heap *h, struct hv_cpu *cpu,
                                      unsigned int node, unsigned int zone,
                                      unsigned int order)
{
    hv_perfc_incr(cpu, pgalloc_probe);
    return h->heap[node] == NULL ||
           h->heap[node][zone][order].head == HV_MFN_NONE;
}

/* Take the head of free list (node, zone, order), or NULL; one probe. */
struct hv_page_info *hv_heap_take(struct hv_heap *h, struct hv_cpu *cpu,
                                  unsigned int node, unsigned int zone,
                                  unsigned int order);

/*
 * hv_heap_take_from_node - Xen's per-node inner loop: for each zone, high
 * to low, skip it in O(1) unless avail[node][zone] can hold 2^@order pages,
 * else take the first non-empty list of order @order..MAX_ORDER.  Counts
 * the node (pgalloc_node_scan) and every list probed.  NULL if none.
 */
struct hv_page_info *hv_heap_take_from_node(struct hv_heap *h,
                                            struct hv_cpu *cpu,
                                            unsigned int node,
                                            unsigned int order);

/* Next node of @mask after @node, wrapping; HV_MAX_NUMNODES if empty. */
static inline unsigned int hv_cycle_node(unsigned int node, uint64_t mask)
{
    uint64_t after;

    if ( mask == 0 )
        return HV_MAX_NUMNODES;
    after = node + 1 < 64 ? mask & ~((2ull << node) - 1) : 0;
    return (unsigned int)__builtin_ctzll(after ? after : mask);
}

#endif /* HV_PGALLOC_H */
