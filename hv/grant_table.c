/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Grant tables (Xen's xen/common/grant_table.c, v1 entries).  The map and
 * unmap hypercalls loop over their batch and look up the granting domain
 * once per op, as Xen does, so that the loop could be preempted between
 * ops; that per-op lookup is what makes the domlookup strategy matter.
 * Under the remote domain's grant-table lock an op validates the shared
 * entry, sets its in-use bit with a cmpxchg as Xen's _set_status() does,
 * pins the active entry and fills a maptrack handle.  The page-table
 * update is modelled by spinning cfg.gnttab_map_cost_ns.
 */
#include <errno.h>
#include <stdlib.h>

#include <hv/hypercall.h>

#include "private.h"

static HV_LOCK_CLASS(gnttab_class, "grant_table_lock");

struct hv_grant_table *hv_gnttab_alloc(unsigned int nr_entries)
{
    struct hv_grant_table *gt = calloc(1, sizeof(*gt));

    if ( gt == NULL )
        return NULL;
    hv_spin_init(&gt->lock, &gnttab_class);
    gt->nr_entries = nr_entries;
    if ( nr_entries )
    {
        gt->shared = calloc(nr_entries, sizeof(*gt->shared));
        gt->active = calloc(nr_entries, sizeof(*gt->active));
        if ( gt->shared == NULL || gt->active == NULL )
        {
            hv_gnttab_free(gt);
            return NULL;
        }
    }
    return gt;
}

void hv_gnttab_free(struct hv_grant_table *gt)
{
    if ( gt == NULL )
        return;
    free(gt->shared);
    free(gt->active);
    free(gt);
}

int hv_gnttab_grant_access(struct hv_cpu *cpu, domid_t owner, grant_ref_t ref,
                           domid_t grantee, uint32_t frame, bool readonly)
{
    struct hv_domain *d = hv_domain_lock_by_id(cpu, owner);
    struct hv_grant_table *gt;
    int rc = 0;

    if ( d == NULL )
        return -ESRCH;
    gt = d->grant_table;
    hv_spin_lock(&gt->lock);
    if ( ref >= gt->nr_entries )
        rc = -EINVAL;
    else if ( gt->active[ref].pin )
        rc = -EBUSY;
    else
    {
        /* The guest writes domid and frame before the flags. */
        gt->shared[ref].domid = grantee;
        gt->shared[ref].frame = frame;
        atomic_store_explicit(&gt->shared[ref].flags,
                              HV_GTF_permit_access |
                                  (readonly ? HV_GTF_readonly : 0),
                              memory_order_release);
    }
    hv_spin_unlock(&gt->lock);
    hv_domain_unlock(cpu, d);
    return rc;
}

static uint32_t maptrack_get(struct hv_cpu *cpu)
{
    uint32_t h = cpu->maptrack_free;

    if ( h != UINT32_MAX )
    {
        cpu->maptrack_free = cpu->maptrack[h].next_free;
        cpu->maptrack[h].in_use = true;
    }
    return h;
}

static void maptrack_put(struct hv_cpu *cpu, uint32_t h)
{
    cpu->maptrack[h].in_use = false;
    cpu->maptrack[h].next_free = cpu->maptrack_free;
    cpu->maptrack_free = h;
}

/* One map op: __gnttab_map_grant_ref(). */
static void map_one(struct hv_cpu *cpu, struct hv_gnttab_map_op *op)
{
    struct hv *hv = cpu->hv;
    struct hv_domain *rd;
    struct hv_grant_table *gt;
    struct hv_grant_entry *e;
    uint16_t flags, want;
    uint32_t handle;

    rd = hv_domain_lock_by_id(cpu, op->dom);
    if ( unlikely(rd == NULL) )
    {
        op->status = GNTST_bad_domain;
        return;
    }
    handle = maptrack_get(cpu);
    if ( unlikely(handle == UINT32_MAX) )
    {
        op->status = GNTST_no_device_space;
        goto out;
    }
    gt = rd->grant_table;
    hv_spin_lock(&gt->lock);
    if ( unlikely(op->ref >= gt->nr_entries) )
    {
        op->status = GNTST_bad_gntref;
        goto unlock;
    }
    e = &gt->shared[op->ref];
    flags = atomic_load_explicit(&e->flags, memory_order_acquire);
    if ( unlikely(
             !(flags & HV_GTF_permit_access) ||
             e->domid != cpu->current_domain ||
             ((flags & HV_GTF_readonly) && !(op->flags & HV_GNTMAP_readonly))) )
    {
        op->status = GNTST_permission_denied;
        goto unlock;
    }
    /* _set_status(): mark the entry in use, racing with the guest. */
    want = flags |
           ((op->flags & HV_GNTMAP_readonly) ? HV_GTF_reading : HV_GTF_writing);
    while ( !atomic_compare_exchange_weak_explicit(
        &e->flags, &flags, want, memory_order_acq_rel, memory_order_acquire) )
        want = flags | (want & (HV_GTF_reading | HV_GTF_writing));
    gt->active[op->ref].pin++;
    gt->active[op->ref].domid = cpu->current_domain;
    gt->active[op->ref].frame = e->frame;
    op->frame = e->frame;
    hv_spin_ns(hv, hv->cfg.gnttab_map_cost_ns);
    hv_spin_unlock(&gt->lock);

    cpu->maptrack[handle].dom = op->dom;
    cpu->maptrack[handle].ref = op->ref;
    op->handle = handle;
    op->status = GNTST_okay;
    hv_perfc_incr(cpu, gnttab_map);
    hv_domain_unlock(cpu, rd);
    return;

unlock:
    hv_spin_unlock(&gt->lock);
    maptrack_put(cpu, handle);
out:
    hv_perfc_incr(cpu, gnttab_map_fail);
    hv_domain_unlock(cpu, rd);
}

unsigned int hv_gnttab_map(struct hv_cpu *cpu, struct hv_gnttab_map_op *ops,
                           unsigned int count)
{
    const uint64_t args[HV_HC_NR_ARGS] = {0 /* GNTTABOP_map_grant_ref */,
                                          count};
    unsigned int i;

    hv_hypercall(cpu, HV_HC_GRANT_TABLE_OP, args);
    for ( i = 0; i < count; i++ )
        map_one(cpu, &ops[i]);
    return count;
}

static void unmap_one(struct hv_cpu *cpu, struct hv_gnttab_unmap_op *op)
{
    struct hv *hv = cpu->hv;
    struct hv_maptrack *m;
    struct hv_domain *rd;
    struct hv_grant_table *gt;
    uint16_t clear;

    if ( op->handle >= hv->cfg.maptrack_entries ||
         !cpu->maptrack[op->handle].in_use )
    {
        op->status = GNTST_bad_handle;
        return;
    }
    m = &cpu->maptrack[op->handle];
    rd = hv_domain_lock_by_id(cpu, m->dom);
    if ( rd == NULL )
    {
        /* The granter died under us: Xen still releases the handle. */
        maptrack_put(cpu, op->handle);
        op->status = GNTST_bad_domain;
        return;
    }
    gt = rd->grant_table;
    hv_spin_lock(&gt->lock);
    if ( unlikely(m->ref >= gt->nr_entries || gt->active[m->ref].pin == 0) )
    {
        /* Same domid, new domain: the mapping died with the old one. */
        hv_spin_unlock(&gt->lock);
        hv_domain_unlock(cpu, rd);
        maptrack_put(cpu, op->handle);
        op->status = GNTST_general_error;
        return;
    }
    if ( --gt->active[m->ref].pin == 0 )
    {
        clear = HV_GTF_reading | HV_GTF_writing;
        atomic_fetch_and_explicit(&gt->shared[m->ref].flags, (uint16_t)~clear,
                                  memory_order_release);
    }
    hv_spin_ns(hv, hv->cfg.gnttab_map_cost_ns);
    hv_spin_unlock(&gt->lock);
    hv_domain_unlock(cpu, rd);
    maptrack_put(cpu, op->handle);
    op->status = GNTST_okay;
    hv_perfc_incr(cpu, gnttab_unmap);
}

unsigned int hv_gnttab_unmap(struct hv_cpu *cpu, struct hv_gnttab_unmap_op *ops,
                             unsigned int count)
{
    const uint64_t args[HV_HC_NR_ARGS] = {1 /* GNTTABOP_unmap_grant_ref */,
                                          count};
    unsigned int i;

    hv_hypercall(cpu, HV_HC_GRANT_TABLE_OP, args);
    for ( i = 0; i < count; i++ )
        unmap_one(cpu, &ops[i]);
    return count;
}
