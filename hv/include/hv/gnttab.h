/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Grant tables.  A domain grants access to its pages through entries of
 * its own table; another domain maps them with a batched hypercall.  As in
 * Xen's gnttab_map_grant_ref(), the batch loops over its ops and each op
 * looks up the granting (remote) domain again, takes that domain's
 * grant-table lock, validates and pins the entry, records a maptrack handle
 * for the mapping domain and performs the mapping.  The page-table update
 * itself is not modelled; its cost is a calibrated spin of map_cost_ns
 * (a modelled time constant, reported as such).
 */
#ifndef HV_GNTTAB_H
#define HV_GNTTAB_H

#include <stdint.h>

#include <hv/compiler.h>
#include <hv/lock.h>
#include <hv/types.h>

struct hv;
struct hv_cpu;
struct hv_domain;

typedef uint32_t grant_ref_t;
typedef uint32_t grant_handle_t;

#define HV_GTF_permit_access 0x1u
#define HV_GTF_readonly      0x4u
#define HV_GTF_reading       0x8u
#define HV_GTF_writing       0x10u

/* Status codes, Xen's values. */
#define GNTST_okay              0
#define GNTST_general_error     (-1)
#define GNTST_bad_domain        (-2)
#define GNTST_bad_gntref        (-4)
#define GNTST_bad_handle        (-5)
#define GNTST_no_device_space   (-7)
#define GNTST_permission_denied (-8)

#define HV_GNTMAP_readonly      0x4u

struct hv_grant_entry { /* the guest-shared entry (v1) */
    _Atomic uint16_t flags;
    domid_t domid; /* who may map it */
    uint32_t frame;
};

struct hv_active_grant { /* hypervisor-private, under gt lock */
    uint32_t pin;
    domid_t domid;
    uint32_t frame;
};

struct hv_grant_table {
    hv_spinlock_t lock;
    unsigned int nr_entries;
    struct hv_grant_entry *shared;
    struct hv_active_grant *active;
};

struct hv_gnttab_map_op {  /* gnttab_map_grant_ref */
    domid_t dom;           /* in: granting domain */
    grant_ref_t ref;       /* in */
    uint32_t flags;        /* in: HV_GNTMAP_* */
    int16_t status;        /* out: GNTST_* */
    grant_handle_t handle; /* out */
    uint32_t frame;        /* out */
};

struct hv_gnttab_unmap_op {
    grant_handle_t handle; /* in */
    int16_t status;        /* out */
};

/* Table set-up inside hv_domain_create / hv_domain_free. */
struct hv_grant_table *hv_gnttab_alloc(unsigned int nr_entries);
void hv_gnttab_free(struct hv_grant_table *gt);

/*
 * hv_gnttab_grant_access - @owner grants @grantee access to its entry @ref
 * for frame @frame.  Return 0, -ESRCH, -EINVAL (ref out of range), -EBUSY.
 */
int HV_MUST_CHECK hv_gnttab_grant_access(struct hv_cpu *cpu, domid_t owner,
                                         grant_ref_t ref, domid_t grantee,
                                         uint32_t frame, bool readonly);

/*
 * hv_gnttab_map - map @count grants for the domain running on @cpu
 * (cpu's current domain, see hv_cpu_set_domain).  One remote-domain
 * lookup per op.  Returns the number of ops processed (== @count); each op
 * has its own status.
 */
unsigned int hv_gnttab_map(struct hv_cpu *cpu, struct hv_gnttab_map_op *ops,
                           unsigned int count);
unsigned int hv_gnttab_unmap(struct hv_cpu *cpu, struct hv_gnttab_unmap_op *ops,
                             unsigned int count);

#endif /* HV_GNTTAB_H */
