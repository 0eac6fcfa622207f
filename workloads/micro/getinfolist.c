/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * getinfolist: the toolstack enumerates every domain with xenctrl's
 * domain_getinfolist (seed 002), built by the infolist strategy out of
 * XEN_SYSCTL_getdomaininfolist hypercalls across the cell's boundary.
 * `domains` domains with domids spread over 0..32751 (sparse below
 * 32752), `vcpus` each (the fill loop is O(vcpus)).  One operation = one
 * full enumeration; every one is checked: all domains, in order.
 *
 * Per enumeration: perfc.hypercall (calls), perfc.sysctl_list_step
 * (Xen's list walk), perfc.sysctl_bounce_bytes and
 * perfc.infolist_copy_bytes (bytes copied), perfc.infolist_alloc and
 * allocs_per_op / alloc_bytes_per_op (allocations), and
 * hypercall_crossing_ns (one crossing of the boundary, measured).
 */
#include <errno.h>
#include <stdlib.h>

#include <hv/hv.h>
#include <hv/xenctrl.h>

#include "../lib/wl.h"
#include "../lib/wl_hc.h"

/* The params (getinfolist_param_table[] below names each field). */
struct getinfolist_params {
    uint64_t domains;
    uint64_t vcpus;
    unsigned int boundary; /* enum hv_boundary */
};

struct getinfolist {
    unsigned int domains;
};

static void getinfolist_configure(const struct hvb_cell *c,
                                  struct hv_config *cfg)
{
    const struct getinfolist_params *p = c->params;

    cfg->boundary = p->boundary;
}

static int getinfolist_prepare(struct hvb_cell *c)
{
    const struct getinfolist_params *p = c->params;
    struct getinfolist *s = calloc(1, sizeof(*s));

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    s->domains = p->domains;
    return wl_create_sparse(c, s->domains, p->vcpus);
}

static void getinfolist_thread(struct hvb_thread *t)
{
    const struct getinfolist *s = t->cell->priv;
    struct hv_dominfo_list l;
    struct hv_xc xc;
    unsigned int i;

    hv_xc_open(&xc, t->cpu);
    wl_report_crossing(t);
    while ( hvb_keep_running_batch(t, 1) )
    {
        HV_BUG_ON(hv_xc_domain_getinfolist_all(&xc, 0, &l) != 0);
        HV_BUG_ON(l.n != s->domains);
        for ( i = 0; i < l.n; i++ )
            HV_BUG_ON(l.info[i].domain != wl_sparse_domid(i, s->domains));
        free(l.info);
        hv_rcu_quiescent(t->cpu);
    }
    hv_xc_close(&xc);
}

static const struct hv_opt getinfolist_param_table[] = {
    HVB_PARAM_UINT_ROW(struct getinfolist_params, domains, "1000", 1,
                       DOMID_FIRST_RESERVED,
                       "domains to enumerate (domids k * 32752 / domains)"),
    HVB_PARAM_UINT_ROW(struct getinfolist_params, vcpus, "1", 0, 8,
                       "vCPUs per domain (getdomaininfo sums them)"),
    WL_PARAM_BOUNDARY(struct getinfolist_params, boundary),
    HVB_PARAM_TABLE_END,
};

static const char *const getinfolist_slots[] = {"infolist", NULL};

HVB_REGISTER_WORKLOAD(getinfolist_workload) = {
    .name = "getinfolist",
    .kind = HVB_MICRO,
    .summary = "xenctrl domain_getinfolist: one enumeration of N sparse "
               "domains through getdomaininfolist hypercalls (seed 002)",
    .slots = getinfolist_slots,
    .params = getinfolist_param_table,
    .params_size = sizeof(struct getinfolist_params),
    .configure = getinfolist_configure,
    .prepare = getinfolist_prepare,
    .thread = getinfolist_thread,
    .cleanup = wl_free_priv,
    .smoke = "domains=16 boundary=none,syscall",
};
