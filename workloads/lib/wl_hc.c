/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers of the hypercall workloads (wl_hc.h). */
#include <string.h>

#include <hv/hv.h>
#include <hv/topology.h>

#include "wl.h"
#include "wl_hc.h"

void wl_configure_grant(const struct wl_grant_params *g, struct hv_config *cfg)
{
    cfg->gnttab_map_cost_ns = g->map_cost_ns;
    cfg->boundary = g->boundary;
}

void wl_report_crossing(struct hvb_thread *t)
{
    if ( t->index == 0 )
        hvb_counter_add(t, "hypercall_crossing_ns",
                        hv_hypercall_crossing_ns(t->cell->hv), 0);
}

int wl_create_sparse(struct hvb_cell *c, unsigned int n, unsigned int vcpus)
{
    unsigned int cpus[HV_MAX_VCPUS], k, v;
    struct hv_domain *d;
    int rc;

    for ( v = 0; v < vcpus && v < HV_MAX_VCPUS; v++ )
        cpus[v] = v % hv_nr_cpus(c->hv);
    for ( k = 0; k < n; k++ )
    {
        rc = hv_domain_create(c->hv, wl_sparse_domid(k, n), 0, &d);
        if ( rc == 0 && vcpus )
            rc = hv_domain_set_vcpus(d, cpus, vcpus);
        if ( rc )
        {
            hvb_cell_error(c, "creating domain %u: %s", wl_sparse_domid(k, n),
                           strerror(-rc));
            return rc;
        }
    }
    return 0;
}
