/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The page heap (Xen's xen/common/page_alloc.c) and the memory ops that
 * use it (increase/decrease_reservation of xen/common/memory.c).
 *
 * The machine's memory is one anonymous mapping reserved lazily
 * (MAP_NORESERVE: untouched pages cost nothing), bound node by node with
 * mbind on a real topology.  Frames are numbered from 0; the nodes lie one
 * after the other.  page_info[] is indexed by MFN.  Free blocks sit on
 * heap[node][zone][order] lists, zone = fls(mfn) as in Xen today, and
 * avail[node][zone] counts their pages, so a strategy can skip a node in
 * O(1).  Everything happens under ONE heap lock, as in Xen.
 *
 * Buddies merge only inside one node and one zone.  At init MFN 0 is
 * reserved (it would join every zone), and so is the first page of a node
 * whose start is not MAX_ORDER-aligned ("Reserving non-aligned node
 * boundary @ mfn ..."), so a buddy can never straddle two nodes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef HV_HAVE_LIBNUMA
#include <numaif.h>
#endif

#include "private.h"

static HV_LOCK_CLASS(heap_lock_class, "heap_lock");

#define PERFC(cpu, x)                \
    do                               \
    {                                \
        if ( (cpu) != NULL )         \
            hv_perfc_incr((cpu), x); \
    } while ( 0 )

/*
 * Zone of a frame: its bit width, fls(mfn), as in Xen today
 * (HV_ZONES_BITWIDTH); or, as in 2006, one zone for all domain memory
 * (HV_ZONES_DOM: zone 1, MFN 0 alone in zone 0).
 */
static inline unsigned int mfn_zone_of(bool bitwidth, uint32_t mfn)
{
    if ( mfn == 0 )
        return 0;
    return bitwidth ? 32u - (unsigned int)__builtin_clz(mfn) : 1;
}
#define mfn_zone(mfn) mfn_zone_of(hs->zones_bitwidth, (mfn))

static inline unsigned int phys_to_nid(const struct hv_heap_state *hs,
                                       uint32_t mfn)
{
    return hs->memnodemap[mfn >> hs->memnode_shift];
}

/* Doubly-linked MFN lists: free lists and a domain's extent list. */
static void mfn_list_add(struct hv_page_info *ft, uint32_t *head, uint32_t mfn)
{
    ft[mfn].prev = HV_MFN_NONE;
    ft[mfn].next = *head;
    if ( *head != HV_MFN_NONE )
        ft[*head].prev = mfn;
    *head = mfn;
}

static void mfn_list_del(struct hv_page_info *ft, uint32_t *head, uint32_t mfn)
{
    struct hv_page_info *pg = &ft[mfn];

    if ( pg->prev != HV_MFN_NONE )
        ft[pg->prev].next = pg->next;
    else
        *head = pg->next;
    if ( pg->next != HV_MFN_NONE )
        ft[pg->next].prev = pg->prev;
}

/* Put a block on its free list. */
static void heap_insert(struct hv_heap *h, uint32_t mfn, unsigned int node,
                        unsigned int zone, unsigned int order)
{
    struct hv_page_info *pg = &h->frame_table[mfn];

    pg->state = HV_PGS_FREE;
    pg->order = (uint8_t)order;
    mfn_list_add(h->frame_table, &h->heap[node][zone][order].head, mfn);
    h->avail[node][zone] += 1ull << order;
}

static void heap_remove(struct hv_heap *h, uint32_t mfn, unsigned int node,
                        unsigned int zone, unsigned int order)
{
    mfn_list_del(h->frame_table, &h->heap[node][zone][order].head, mfn);
    h->frame_table[mfn].state = HV_PGS_TAIL;
    h->avail[node][zone] -= 1ull << order;
}

struct hv_page_info *hv_heap_take(struct hv_heap *h, struct hv_cpu *cpu,
                                  unsigned int node, unsigned int zone,
                                  unsigned int order)
{
    uint32_t mfn;

    hv_perfc_incr(cpu, pgalloc_probe);
    if ( h->heap[node] == NULL ||
         (mfn = h->heap[node][zone][order].head) == HV_MFN_NONE )
        return NULL;
    heap_remove(h, mfn, node, zone, order);
    h->frame_table[mfn].order = (uint8_t)order;
    return &h->frame_table[mfn];
}

struct hv_page_info *hv_heap_take_from_node(struct hv_heap *h,
                                            struct hv_cpu *cpu,
                                            unsigned int node,
                                            unsigned int order)
{
    struct hv_page_info *pg;
    unsigned int zone, j;

    hv_perfc_incr(cpu, pgalloc_node_scan);
    if ( h->avail[node] == NULL )
        return NULL;
    for ( zone = h->zone_hi; zone >= h->zone_lo; zone-- )
    {
        /* Check if target node can support the allocation. */
        if ( h->avail[node][zone] < (1ull << order) )
            continue;
        for ( j = order; j <= HV_MAX_ORDER; j++ )
            if ( (pg = hv_heap_take(h, cpu, node, zone, j)) != NULL )
                return pg;
    }
    return NULL;
}

/* Merge with free buddies of the same node and zone, then list it. */
static void free_heap_pages(struct hv_heap_state *hs, struct hv_cpu *cpu,
                            uint32_t mfn, unsigned int order)
{
    struct hv_heap *h = &hs->h;
    struct hv_page_info *ft = h->frame_table;
    unsigned int node = phys_to_nid(hs, mfn), zone = mfn_zone(mfn);

    ft[mfn].state = HV_PGS_TAIL;
    while ( order < HV_MAX_ORDER )
    {
        uint32_t buddy = mfn ^ (1u << order);

        if ( buddy >= hs->total_pages || ft[buddy].state != HV_PGS_FREE ||
             ft[buddy].order != order || phys_to_nid(hs, buddy) != node ||
             mfn_zone(buddy) != zone )
            break;
        heap_remove(h, buddy, node, zone, order);
        if ( buddy < mfn )
            mfn = buddy;
        order++;
        PERFC(cpu, pgalloc_merge);
    }
    heap_insert(h, mfn, node, zone, order);
}

/* alloc_heap_pages + assign_pages: one extent for @d. */
static uint32_t alloc_domheap_pages(struct hv *hv, struct hv_cpu *cpu,
                                    struct hv_domain *d, unsigned int order,
                                    unsigned int memflags, unsigned long extent)
{
    struct hv_heap_state *hs = &hv->heap;
    struct hv_heap *h = &hs->h;
    const struct hv_alloc_req req = {
        .d = d,
        .cpu = cpu,
        .order = order,
        .memflags = memflags,
        .extent = extent,
    };
    struct hv_page_info *pg;
    unsigned int node, zone, j;
    uint32_t mfn;

    hv_spin_lock(&hs->lock);
    pg = hv->pgalloc->get_free_buddy(h, hv->pgalloc_priv, &req);
    if ( pg == NULL )
    {
        hv_spin_unlock(&hs->lock);
        hv_perfc_incr(cpu, pgalloc_enomem);
        return HV_MFN_NONE;
    }
    mfn = hv_page_to_mfn(h, pg);
    node = phys_to_nid(hs, mfn);
    zone = mfn_zone(mfn);
    j = pg->order;
    HV_BUG_ON(j < order || pg->state != HV_PGS_TAIL);
    while ( j > order )
    {
        j--;
        heap_insert(h, mfn + (1u << j), node, zone, j);
        hv_perfc_incr(cpu, pgalloc_split);
    }
    pg->state = HV_PGS_INUSE;
    pg->order = (uint8_t)order;
    pg->owner = d ? d->domain_id : DOMID_XEN;
    if ( d != NULL )
    {
        d->last_alloc_node = node;
        mfn_list_add(h->frame_table, &d->extent_head, mfn);
        /* Read unlocked by getdomaininfo: a relaxed store, no RMW. */
        __atomic_store_n(&d->tot_pages, d->tot_pages + (1ul << order),
                         __ATOMIC_RELAXED);
        if ( d->node_affinity && !(d->node_affinity & (1ull << node)) )
            hv_perfc_incr(cpu, pgalloc_remote);
    }
    hv_spin_unlock(&hs->lock);
    hv_perfc_incr(cpu, pgalloc_alloc);

    if ( hv->cfg.scrub && !(memflags & HV_MEMF_no_scrub) )
        memset(hv_mfn_to_virt(hv, mfn), 0, HV_PAGE_SIZE << order);
    return mfn;
}

int hv_increase_reservation(struct hv_cpu *cpu, struct hv_domain *d,
                            struct hv_memop *op)
{
    unsigned long i;

    if ( op->extent_order > HV_MAX_ORDER || cpu == NULL )
        return -EINVAL;
    for ( i = op->nr_done; i < op->nr_extents; i++ )
    {
        if ( i != op->nr_done && op->preempt && op->preempt(op->preempt_arg) )
        {
            op->nr_done = i;
            hv_perfc_incr(cpu, pgalloc_preempt);
            return -ERESTART;
        }
        if ( alloc_domheap_pages(d->hv, cpu, d, op->extent_order, op->memflags,
                                 i) == HV_MFN_NONE )
        {
            op->nr_done = i;
            return -ENOMEM;
        }
    }
    op->nr_done = i;
    return 0;
}

/* Heap lock held: the newest extent of @order, or HV_MFN_NONE. */
static uint32_t find_extent(struct hv_page_info *ft, struct hv_domain *d,
                            unsigned int order)
{
    uint32_t mfn = d->extent_head;

    while ( mfn != HV_MFN_NONE && ft[mfn].order != order )
        mfn = ft[mfn].next;
    return mfn;
}

int hv_decrease_reservation(struct hv_cpu *cpu, struct hv_domain *d,
                            struct hv_memop *op)
{
    struct hv_heap_state *hs = &d->hv->heap;
    struct hv_page_info *ft = hs->h.frame_table;
    unsigned long i;

    if ( op->extent_order > HV_MAX_ORDER )
        return -EINVAL;
    for ( i = op->nr_done; i < op->nr_extents; i++ )
    {
        uint32_t mfn;

        if ( i != op->nr_done && op->preempt && op->preempt(op->preempt_arg) )
        {
            op->nr_done = i;
            PERFC(cpu, pgalloc_preempt);
            return -ERESTART;
        }
        /* guest_remove_page -> free_domheap_pages: one lock per extent. */
        hv_spin_lock(&hs->lock);
        mfn = find_extent(ft, d, op->extent_order);
        if ( mfn == HV_MFN_NONE )
        {
            hv_spin_unlock(&hs->lock);
            op->nr_done = i;
            return -ENOENT;
        }
        mfn_list_del(ft, &d->extent_head, mfn);
        __atomic_store_n(&d->tot_pages,
                         d->tot_pages - (1ul << op->extent_order),
                         __ATOMIC_RELAXED);
        free_heap_pages(hs, cpu, mfn, op->extent_order);
        hv_spin_unlock(&hs->lock);
        PERFC(cpu, pgalloc_free);
    }
    op->nr_done = i;
    return 0;
}

void hv_domain_relinquish_memory(struct hv_cpu *cpu, struct hv_domain *d)
{
    struct hv_heap_state *hs = &d->hv->heap;
    struct hv_page_info *ft = hs->h.frame_table;

    if ( ft == NULL )
        return;
    hv_spin_lock(&hs->lock);
    while ( d->extent_head != HV_MFN_NONE )
    {
        uint32_t mfn = d->extent_head;
        unsigned int order = ft[mfn].order;

        mfn_list_del(ft, &d->extent_head, mfn);
        __atomic_store_n(&d->tot_pages, d->tot_pages - (1ul << order),
                         __ATOMIC_RELAXED);
        free_heap_pages(hs, cpu, mfn, order);
        PERFC(cpu, pgalloc_free);
    }
    hv_spin_unlock(&hs->lock);
}

void hv_domain_for_each_extent(struct hv_domain *d,
                               void (*fn)(void *arg, uint32_t mfn,
                                          unsigned int order),
                               void *arg)
{
    struct hv_page_info *ft = d->hv->heap.h.frame_table;
    uint32_t mfn;

    for ( mfn = d->extent_head; mfn != HV_MFN_NONE; mfn = ft[mfn].next )
        fn(arg, mfn, ft[mfn].order);
}

uint64_t hv_domain_node_pages(struct hv_domain *d,
                              uint64_t pages[HV_MAX_NUMNODES])
{
    struct hv_heap_state *hs = &d->hv->heap;
    struct hv_page_info *ft = hs->h.frame_table;
    uint64_t total = 0;
    uint32_t mfn;

    memset(pages, 0, sizeof(uint64_t) * HV_MAX_NUMNODES);
    hv_spin_lock(&hs->lock);
    for ( mfn = d->extent_head; mfn != HV_MFN_NONE; mfn = ft[mfn].next )
    {
        pages[phys_to_nid(hs, mfn)] += 1ull << ft[mfn].order;
        total += 1ull << ft[mfn].order;
    }
    hv_spin_unlock(&hs->lock);
    return total;
}

void *hv_mfn_to_virt(struct hv *hv, uint32_t mfn)
{
    return (char *)hv->heap.mem + ((size_t)mfn << HV_PAGE_SHIFT);
}

/* ---------------------------------------------------------------------- */
/* Init and teardown */

static int bind_memory(struct hv_heap_state *hs, const struct hv_topology *t)
{
#ifdef HV_HAVE_LIBNUMA
    unsigned int n;

    for ( n = 0; n < t->nr_nodes; n++ )
    {
        unsigned long mask[HV_MAX_NUMNODES / (8 * sizeof(long)) + 1] = {0};
        int hn = t->host_node[n];

        if ( hs->node_end[n] == hs->node_start[n] || hn < 0 )
            continue;
        mask[hn / (8 * sizeof(long))] |= 1ul << (hn % (8 * sizeof(long)));
        if ( mbind(hv_mfn_to_virt(container_of(hs, struct hv, heap),
                                  (uint32_t)hs->node_start[n]),
                   (hs->node_end[n] - hs->node_start[n]) << HV_PAGE_SHIFT,
                   MPOL_BIND, mask, HV_MAX_NUMNODES + 1, 0) )
            return -errno;
    }
    return 0;
#else
    return t->real ? -ENOTSUP : 0;
#endif
}

/* Give [s, e) of @node to the heap as maximal aligned blocks. */
static void init_heap_pages(struct hv_heap_state *hs, unsigned int node,
                            uint64_t s, uint64_t e)
{
    while ( s < e )
    {
        unsigned int order = s ? (unsigned int)__builtin_ctzll(s) : 0;
        unsigned int fit = 63u - (unsigned int)__builtin_clzll(e - s);

        if ( order > fit )
            order = fit;
        if ( order > HV_MAX_ORDER )
            order = HV_MAX_ORDER;
        heap_insert(&hs->h, (uint32_t)s, node, mfn_zone((uint32_t)s), order);
        s += 1ull << order;
    }
}

static void reserve(struct hv_heap_state *hs, unsigned int node, uint64_t mfn)
{
    hs->h.frame_table[mfn].state = HV_PGS_RESERVED;
    hs->reserved[node]++;
}

int hv_heap_init(struct hv *hv, char *err, size_t len)
{
    struct hv_heap_state *hs = &hv->heap;
    struct hv_heap *h = &hs->h;
    const struct hv_topology *t = &hv->topo;
    uint64_t total = 0, start;
    unsigned int n, shift = 31, z, o;
    int rc;

    hv_spin_init(&hs->lock, &heap_lock_class);
    hs->zones_bitwidth = hv->cfg.zones == HV_ZONES_BITWIDTH;
    h->topo = t;
    h->nr_nodes = t->nr_nodes;
    for ( n = 0; n < t->nr_nodes; n++ )
    {
        hs->node_start[n] = total;
        total += t->node_pages[n];
        hs->node_end[n] = total;
        h->online_mask |= 1ull << n;
        if ( t->node_pages[n] )
        {
            h->memory_mask |= 1ull << n;
            if ( hs->node_start[n] )
            {
                unsigned int tz =
                    (unsigned int)__builtin_ctzll(hs->node_start[n]);

                shift = tz < shift ? tz : shift;
            }
        }
    }
    hs->total_pages = total;
    hs->memnode_shift = shift;
    hs->memnodemap = calloc((total >> shift) + 1, 1);
    h->frame_table = calloc(total, sizeof(*h->frame_table));
    if ( hs->memnodemap == NULL || h->frame_table == NULL )
        goto nomem;
    hs->mem_len = total << HV_PAGE_SHIFT;
    hs->mem = mmap(NULL, hs->mem_len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if ( hs->mem == MAP_FAILED )
    {
        hs->mem = NULL;
        goto nomem;
    }
    if ( t->real && (rc = bind_memory(hs, t)) != 0 )
    {
        snprintf(err, len, "cannot bind the model's memory to host nodes: %s",
                 strerror(-rc));
        return rc;
    }

    h->zone_lo = 1;
    h->zone_hi = mfn_zone((uint32_t)(total - 1));
    for ( n = 0; n < t->nr_nodes; n++ )
    {
        uint64_t i, s = hs->node_start[n], e = hs->node_end[n];

        h->node_zone_lo[n] = h->node_zone_hi[n] = h->zone_hi;
        if ( s == e )
            continue;
        for ( i = s >> shift; i <= (e - 1) >> shift; i++ )
            hs->memnodemap[i] = (uint8_t)n;
        h->avail[n] = calloc(HV_NR_ZONES, sizeof(uint64_t));
        h->heap[n] = malloc(sizeof(*h->heap[n]) * HV_NR_ZONES);
        if ( h->avail[n] == NULL || h->heap[n] == NULL )
            goto nomem;
        for ( z = 0; z < HV_NR_ZONES; z++ )
            for ( o = 0; o <= HV_MAX_ORDER; o++ )
                h->heap[n][z][o].head = HV_MFN_NONE;
        start = s;
        if ( s == 0 || (s & ((1ull << HV_MAX_ORDER) - 1)) )
        {
            /* MFN 0, or a non-MAX_ORDER-aligned node boundary. */
            reserve(hs, n, s);
            start = s + 1;
        }
        init_heap_pages(hs, n, start, e);
        h->node_zone_lo[n] = mfn_zone((uint32_t)(s ? s : 1));
        h->node_zone_hi[n] = mfn_zone((uint32_t)(e - 1));
    }
    return 0;

nomem:
    snprintf(err, len, "out of memory creating the page heap (%llu pages)",
             (unsigned long long)total);
    return -ENOMEM;
}

void hv_heap_fini(struct hv *hv)
{
    struct hv_heap_state *hs = &hv->heap;
    unsigned int n;

    for ( n = 0; n < HV_MAX_NUMNODES; n++ )
    {
        free(hs->h.avail[n]);
        free(hs->h.heap[n]);
    }
    if ( hs->mem )
        munmap(hs->mem, hs->mem_len);
    free(hs->h.frame_table);
    free(hs->memnodemap);
    memset(hs, 0, sizeof(*hs));
}

/* ---------------------------------------------------------------------- */
/* The invariant checker (tests, debugging). */

#define FAIL(...)                        \
    do                                   \
    {                                    \
        snprintf(err, len, __VA_ARGS__); \
        return -EUCLEAN;                 \
    } while ( 0 )

/*
 * The free list of node @n, zone @z, order @o: linked both ways, every
 * block free, of order @o, aligned, inside node @n and zone @z, its buddy
 * not free beside it.  Its pages are added to *@zone_pages.
 */
static int check_free_list(const struct hv_heap_state *hs, unsigned int n,
                           unsigned int z, unsigned int o,
                           struct hv_heap_info *info, uint64_t *zone_pages,
                           char *err, size_t len)
{
    const struct hv_page_info *ft = hs->h.frame_table;
    uint32_t m = hs->h.heap[n][z][o].head, prev = HV_MFN_NONE;
    uint64_t steps = 0;

    for ( ; m != HV_MFN_NONE; prev = m, m = ft[m].next )
    {
        uint64_t last = (uint64_t)m + (1ull << o) - 1;
        uint32_t b = m ^ (1u << o);

        if ( ++steps > hs->total_pages || m >= hs->total_pages )
            FAIL("free list %u/%u/%u is corrupt", n, z, o);
        if ( ft[m].prev != prev )
            FAIL("mfn %u: bad prev link", m);
        if ( ft[m].state != HV_PGS_FREE || ft[m].order != o )
            FAIL("mfn %u on list order %u: state %u order %u", m, o,
                 ft[m].state, ft[m].order);
        if ( m & ((1u << o) - 1) )
            FAIL("mfn %u: not aligned to order %u", m, o);
        if ( m < hs->node_start[n] || last >= hs->node_end[n] ||
             phys_to_nid(hs, m) != n || phys_to_nid(hs, (uint32_t)last) != n )
            FAIL("block %u/%u crosses node %u's boundary", m, o, n);
        if ( mfn_zone(m) != z || mfn_zone((uint32_t)last) != z )
            FAIL("block %u/%u is not in zone %u", m, o, z);
        if ( o < HV_MAX_ORDER && b < hs->total_pages &&
             ft[b].state == HV_PGS_FREE && ft[b].order == o &&
             phys_to_nid(hs, b) == n && mfn_zone(b) == z )
            FAIL("free buddies %u and %u of order %u unmerged", m, b, o);
        *zone_pages += 1ull << o;
        info->node_blocks[n][o]++;
    }
    return 0;
}

/* Every node's free lists, each zone's pages equal to its avail[][]. */
static int check_free_lists(const struct hv_heap_state *hs,
                            struct hv_heap_info *info, char *err, size_t len)
{
    const struct hv_heap *h = &hs->h;
    unsigned int n, z, o;
    int rc;

    for ( n = 0; n < h->nr_nodes; n++ )
    {
        info->node_total[n] = hs->node_end[n] - hs->node_start[n];
        info->node_reserved[n] = hs->reserved[n];
        if ( h->heap[n] == NULL )
        {
            if ( info->node_total[n] )
                FAIL("node %u has memory but no heap", n);
            continue;
        }
        for ( z = 0; z < HV_NR_ZONES; z++ )
        {
            uint64_t zone_pages = 0;

            for ( o = 0; o <= HV_MAX_ORDER; o++ )
                if ( (rc = check_free_list(hs, n, z, o, info, &zone_pages, err,
                                           len)) != 0 )
                    return rc;
            if ( zone_pages != h->avail[n][z] )
                FAIL("avail[%u][%u] = %llu but lists hold %llu", n, z,
                     (unsigned long long)h->avail[n][z],
                     (unsigned long long)zone_pages);
            info->node_free[n] += zone_pages;
        }
    }
    return 0;
}

/*
 * Every page is in exactly one block or reserved: the pages of the free
 * blocks per node into @scan_free, of the allocated ones into @inuse.
 */
static int check_blocks(const struct hv_heap_state *hs, uint64_t *scan_free,
                        uint64_t *inuse, char *err, size_t len)
{
    const struct hv_page_info *ft = hs->h.frame_table;
    uint64_t mfn;

    for ( mfn = 0; mfn < hs->total_pages; )
    {
        const struct hv_page_info *pg = &ft[mfn];
        unsigned int node = phys_to_nid(hs, (uint32_t)mfn);
        uint64_t size;

        switch ( pg->state )
        {
        case HV_PGS_RESERVED:
            mfn++;
            continue;
        case HV_PGS_FREE:
        case HV_PGS_INUSE:
            size = 1ull << pg->order;
            if ( mfn + size > hs->node_end[node] )
                FAIL("block at mfn %llu crosses node %u's end",
                     (unsigned long long)mfn, node);
            if ( pg->state == HV_PGS_FREE )
                scan_free[node] += size;
            else
                inuse[node] += size;
            mfn += size;
            continue;
        default:
            FAIL("mfn %llu belongs to no block", (unsigned long long)mfn);
        }
    }
    return 0;
}

/* Per node: the lists hold the free blocks' pages, and the sum is whole. */
static int check_totals(const struct hv_heap_info *info,
                        const uint64_t *scan_free, const uint64_t *inuse,
                        char *err, size_t len)
{
    unsigned int n;

    for ( n = 0; n < info->nr_nodes; n++ )
    {
        if ( scan_free[n] != info->node_free[n] )
            FAIL("node %u: %llu free pages listed, %llu found", n,
                 (unsigned long long)info->node_free[n],
                 (unsigned long long)scan_free[n]);
        if ( info->node_free[n] + inuse[n] + info->node_reserved[n] !=
             info->node_total[n] )
            FAIL("node %u: free %llu + allocated %llu + reserved %llu != "
                 "total %llu",
                 n, (unsigned long long)info->node_free[n],
                 (unsigned long long)inuse[n],
                 (unsigned long long)info->node_reserved[n],
                 (unsigned long long)info->node_total[n]);
    }
    return 0;
}

int hv_heap_check(struct hv *hv, struct hv_heap_info *out, char *err,
                  size_t len)
{
    struct hv_heap_state *hs = &hv->heap;
    static struct hv_heap_info zero;
    struct hv_heap_info info = zero;
    uint64_t inuse[HV_MAX_NUMNODES] = {0}, scan_free[HV_MAX_NUMNODES] = {0};
    int rc;

    info.nr_nodes = hs->h.nr_nodes;
    info.total_pages = hs->total_pages;
    hv_spin_lock(&hs->lock);
    rc = check_free_lists(hs, &info, err, len);
    if ( rc == 0 )
        rc = check_blocks(hs, scan_free, inuse, err, len);
    if ( rc == 0 )
        rc = check_totals(&info, scan_free, inuse, err, len);
    hv_spin_unlock(&hs->lock);
    if ( out )
        *out = info;
    return rc;
}
