/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gnttab-map: the backend (dom0) maps a batch of grants from one guest
 * and unmaps them again, one hypercall each way, as netback does for a
 * ring of requests.  Every op of a batch looks the guest up again
 * (seed 004: find_domain_by_id once per grant op).  One operation = one
 * grant map or one grant unmap.
 */
#include <errno.h>
#include <stdlib.h>

#include <hv/hv.h>

#include "../lib/wl.h"
#include "../lib/wl_hc.h"

#define BACKEND 0
#define GUEST   1

struct gnttab_map {
    unsigned int batch;
    unsigned int grants;
};

static int gnttab_map_prepare(struct hvb_cell *c)
{
    struct gnttab_map *s = calloc(1, sizeof(*s));
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    s->batch = hvb_param_uint(c, "batch");
    s->grants = hvb_param_uint(c, "grants");
    c->priv = s;
    rc = wl_create_domains(c, BACKEND, 2, s->grants);
    if ( rc == 0 )
        rc = wl_grant_all(c, GUEST, BACKEND, s->grants);
    return rc;
}

static void gnttab_map_thread(struct hvb_thread *t)
{
    const struct gnttab_map *s = t->cell->priv;
    struct hv_gnttab_map_op *map = calloc(s->batch, sizeof(*map));
    struct hv_gnttab_unmap_op *unmap = calloc(s->batch, sizeof(*unmap));

    HV_BUG_ON(map == NULL || unmap == NULL);
    hv_cpu_set_domain(t->cpu, BACKEND);
    wl_report_crossing(t);
    while ( hvb_keep_running_batch(t, 2 * s->batch) )
        HV_BUG_ON(wl_gnttab_round(t, map, unmap, GUEST, s->batch, s->grants) !=
                  0);
    free(map);
    free(unmap);
}

static const struct hvb_param gnttab_map_params[] = {
    HVB_PARAM_UINT_ROW("batch", "16", 1, 4096, "grant ops per hypercall"),
    HVB_PARAM_UINT_ROW("grants", "1024", 1, 1u << 20,
                       "grant entries the guest offers"),
    WL_PARAM_MAP_COST,
    WL_PARAM_BOUNDARY,
    HVB_PARAM_TABLE_END,
};

static const char *const gnttab_map_slots[] = {"domlookup", NULL};

HVB_REGISTER_WORKLOAD(gnttab_map_workload) = {
    .name = "gnttab-map",
    .kind = HVB_MICRO,
    .summary = "batched grant map + unmap, one domain lookup per op",
    .slots = gnttab_map_slots,
    .params = gnttab_map_params,
    .configure = wl_configure_grant,
    .prepare = gnttab_map_prepare,
    .thread = gnttab_map_thread,
    .cleanup = wl_free_priv,
    .smoke = "grants=64 boundary=none,syscall",
};
