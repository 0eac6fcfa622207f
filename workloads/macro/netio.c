/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netio: a netback model.  T backend threads each serve a guest: map a
 * batch of the guest's grants, copy a packet's worth of bytes per grant
 * (the data path), unmap the batch; meanwhile other domains are created
 * and destroyed in the background.  The lookup is one cost among several
 * here, as in the seed's profile (find_domain_by_id at 3.05% of cycles),
 * so the strategy's effect is diluted as it is on a real host.
 * One operation = one packet (a grant map, its copy and its unmap).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/hv.h>

#include "../lib/wl.h"
#include "../lib/wl_hc.h"

/* The params (netio_param_table[] below names each field). */
struct netio_params {
    uint64_t batch;
    uint64_t guests;
    uint64_t grants;
    uint64_t copy_bytes;
    uint64_t churn;
    uint64_t churn_domains;
    struct wl_grant_params grant;
};

#define BACKEND     0
#define FIRST_GUEST 1
#define CHURN_FIRST 1000 /* churn domids from here, past the guests */

struct netio {
    unsigned int batch, grants, guests, copy_bytes, churn_domains;
    domid_t churn_first; /* CHURN_FIRST, or after the last guest */
    uint64_t churn;
    unsigned char *pages; /* guest "frames": grants x 4 KiB */
};

static int netio_check(struct hvb_cell *c)
{
    const struct netio_params *p = c->params;

    return wl_check_churn(c, p->churn);
}

static void netio_configure(const struct hvb_cell *c, struct hv_config *cfg)
{
    const struct netio_params *p = c->params;

    wl_configure_grant(&p->grant, cfg);
}

static int netio_prepare(struct hvb_cell *c)
{
    const struct netio_params *p = c->params;
    struct netio *s = calloc(1, sizeof(*s));
    unsigned int g;
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    s->batch = p->batch;
    s->grants = p->grants;
    s->guests = p->guests;
    s->copy_bytes = p->copy_bytes;
    s->churn = p->churn;
    s->churn_domains = p->churn_domains;
    /* guests=1000 would reach domid 1000: churn starts after them. */
    s->churn_first = FIRST_GUEST + s->guests > CHURN_FIRST
                         ? (domid_t)(FIRST_GUEST + s->guests)
                         : CHURN_FIRST;
    s->pages = malloc((size_t)s->grants * 4096);
    if ( s->pages == NULL )
        return -ENOMEM;
    memset(s->pages, 0x5a, (size_t)s->grants * 4096);
    rc = wl_create_domains(c, BACKEND, 1 + s->guests, s->grants);
    for ( g = 0; rc == 0 && g < s->guests; g++ )
        rc = wl_grant_all(c, FIRST_GUEST + g, BACKEND, s->grants);
    if ( rc == 0 )
        rc = wl_create_domains(c, s->churn_first, s->churn_domains, 0);
    return rc;
}

static void netio_thread(struct hvb_thread *t)
{
    const struct netio *s = t->cell->priv;
    struct hv_gnttab_map_op *map = calloc(s->batch, sizeof(*map));
    struct hv_gnttab_unmap_op *unmap = calloc(s->batch, sizeof(*unmap));
    unsigned char *buf = malloc(s->copy_bytes ? s->copy_bytes : 1);
    domid_t guest = FIRST_GUEST + t->index % s->guests;
    unsigned int i;

    HV_BUG_ON(map == NULL || unmap == NULL || buf == NULL);
    hv_cpu_set_domain(t->cpu, BACKEND);
    wl_report_crossing(t);
    while ( hvb_keep_running_batch(t, s->batch) )
    {
        /* Map, copy each packet out of its frame, unmap. */
        HV_BUG_ON(wl_gnttab_round(t, map, unmap, guest, s->batch, s->grants) !=
                  0);
        for ( i = 0; i < s->batch; i++ )
            memcpy(buf, s->pages + (size_t)map[i].frame * 4096, s->copy_bytes);
        hv_do_not_optimize(buf);
    }
    free(buf);
    free(map);
    free(unmap);
}

static void netio_background(struct hvb_thread *t)
{
    const struct netio *s = t->cell->priv;

    wl_churn(t, s->churn_first, s->churn_domains, s->churn, 0);
}

static void netio_cleanup(struct hvb_cell *c)
{
    struct netio *s = c->priv;

    if ( s )
        free(s->pages);
    free(s);
    c->priv = NULL;
}

static const struct hv_opt netio_param_table[] = {
    HVB_PARAM_UINT_ROW(struct netio_params, batch, "64", 1, 4096,
                       "packets (grant ops) per hypercall"),
    HVB_PARAM_UINT_ROW(struct netio_params, guests, "1", 1, 1000,
                       "guest domains; thread i serves guest i mod guests "
                       "(1 = every thread on one hot domain)"),
    HVB_PARAM_UINT_ROW(struct netio_params, grants, "256", 1, 65536,
                       "grant entries each guest offers (the ring size)"),
    HVB_PARAM_UINT_ROW(struct netio_params, copy_bytes, "1500", 0, 4096,
                       "bytes copied per packet"),
    WL_GRANT_PARAMS(struct netio_params, grant),
    HVB_PARAM_UINT_ROW(struct netio_params, churn, "1000", 0, 1000000,
                       "background domain destroy+create pairs per second"),
    HVB_PARAM_UINT_ROW(struct netio_params, churn_domains, "100", 1, 10000,
                       "domains the churn recycles (domids 1000..)"),
    HVB_PARAM_TABLE_END,
};

static const char *const netio_slots[] = {"domlookup", NULL};

HVB_REGISTER_WORKLOAD(netio_workload) = {
    .name = "netio",
    .kind = HVB_MACRO,
    .summary = "netback: grant map, copy, unmap per packet on T threads "
               "with domain churn",
    .slots = netio_slots,
    .params = netio_param_table,
    .params_size = sizeof(struct netio_params),
    .check = netio_check,
    .configure = netio_configure,
    .prepare = netio_prepare,
    .thread = netio_thread,
    .background = netio_background,
    .cleanup = netio_cleanup,
    .smoke = "guests=2 grants=16 churn=0 boundary=none,syscall",
};
