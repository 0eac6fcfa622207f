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

/* The params (gnttab_map_param_table[] below names each field). */
struct gnttab_map_params {
    uint64_t batch;
    uint64_t grants;
    struct wl_grant_params grant;
};

#define BACKEND 0
#define GUEST   1

struct gnttab_map {
    unsigned int batch;
    unsigned int grants;
};

static void gnttab_map_configure(const struct hvb_cell *c,
                                 struct hv_config *cfg)
{
    const struct gnttab_map_params *p = c->params;

    wl_configure_grant(&p->grant, cfg);
}

static int gnttab_map_prepare(struct hvb_cell *c)
{
    const struct gnttab_map_params *p = c->params;
    struct gnttab_map *s = calloc(1, sizeof(*s));
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    s->batch = p->batch;
    s->grants = p->grants;
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

static const struct hv_opt gnttab_map_param_table[] = {
    HVB_PARAM_UINT_ROW(struct gnttab_map_params, batch, "16", 1, 4096,
                       "grant ops per hypercall"),
    HVB_PARAM_UINT_ROW(struct gnttab_map_params, grants, "1024", 1, 1u << 20,
                       "grant entries the guest offers"),
    WL_GRANT_PARAMS(struct gnttab_map_params, grant),
    HVB_PARAM_TABLE_END,
};

static const char *const gnttab_map_slots[] = {"domlookup", NULL};

HVB_REGISTER_WORKLOAD(gnttab_map_workload) = {
    .name = "gnttab-map",
    .kind = HVB_MICRO,
    .summary = "batched grant map + unmap, one domain lookup per op",
    .slots = gnttab_map_slots,
    .params = gnttab_map_param_table,
    .params_size = sizeof(struct gnttab_map_params),
    .configure = gnttab_map_configure,
    .prepare = gnttab_map_prepare,
    .thread = gnttab_map_thread,
    .cleanup = wl_free_priv,
    .smoke = "grants=64 boundary=none,syscall",
};
