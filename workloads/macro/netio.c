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

#define BACKEND     0
#define FIRST_GUEST 1
#define CHURN_FIRST 1000

struct netio {
    unsigned int batch, grants, guests, copy_bytes, churn_domains;
    uint64_t churn;
    unsigned char *pages; /* guest "frames": grants x 4 KiB */
};

static int netio_check(struct hvb_cell *c)
{
    return wl_check_churn(c, hvb_param_uint(c, "churn"));
}

static void netio_configure(const struct hvb_cell *c, struct hv_config *cfg)
{
    cfg->gnttab_map_cost_ns = hvb_param_uint(c, "map_cost_ns");
}

static int netio_prepare(struct hvb_cell *c)
{
    struct netio *s = calloc(1, sizeof(*s));
    unsigned int g;
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    s->batch = hvb_param_uint(c, "batch");
    s->grants = hvb_param_uint(c, "grants");
    s->guests = hvb_param_uint(c, "guests");
    s->copy_bytes = hvb_param_uint(c, "copy_bytes");
    s->churn = hvb_param_uint(c, "churn");
    s->churn_domains = hvb_param_uint(c, "churn_domains");
    s->pages = malloc((size_t)s->grants * 4096);
    if ( s->pages == NULL )
        return -ENOMEM;
    memset(s->pages, 0x5a, (size_t)s->grants * 4096);
    rc = wl_create_domains(c, BACKEND, 1 + s->guests, s->grants);
    for ( g = 0; rc == 0 && g < s->guests; g++ )
        rc = wl_grant_all(c, FIRST_GUEST + g, BACKEND, s->grants);
    if ( rc == 0 )
        rc = wl_create_domains(c, CHURN_FIRST, s->churn_domains, 0);
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

    wl_churn(t, CHURN_FIRST, s->churn_domains, s->churn, 0);
}

static void netio_cleanup(struct hvb_cell *c)
{
    struct netio *s = c->priv;

    if ( s )
        free(s->pages);
    free(s);
    c->priv = NULL;
}

static const struct hvb_param netio_params[] = {
    {.name = "batch",
     .type = HVB_PARAM_UINT,
     .def = "64",
     .help = "packets (grant ops) per hypercall",
     .min = 1,
     .max = 4096},
    {.name = "guests",
     .type = HVB_PARAM_UINT,
     .def = "1",
     .help = "guest domains; thread i serves guest i mod guests "
             "(1 = every thread on one hot domain)",
     .min = 1,
     .max = 1000},
    {.name = "grants",
     .type = HVB_PARAM_UINT,
     .def = "256",
     .help = "grant entries each guest offers (the ring size)",
     .min = 1,
     .max = 65536},
    {.name = "copy_bytes",
     .type = HVB_PARAM_UINT,
     .def = "1500",
     .help = "bytes copied per packet (0..4096)",
     .min = 0,
     .max = 4096},
    {.name = "map_cost_ns",
     .type = HVB_PARAM_UINT,
     .def = "200",
     .help = "modelled page-table update under the grant lock (ns)",
     .min = 0,
     .max = 1000000},
    {.name = "churn",
     .type = HVB_PARAM_UINT,
     .def = "1000",
     .help = "background domain destroy+create pairs per second",
     .min = 0,
     .max = 1000000},
    {.name = "churn_domains",
     .type = HVB_PARAM_UINT,
     .def = "100",
     .help = "domains the churn recycles (domids 1000..)",
     .min = 1,
     .max = 10000},
    HVB_PARAM_TABLE_END};

static const char *const netio_slots[] = {"domlookup", NULL};

HVB_REGISTER_WORKLOAD(netio_workload) = {
    .name = "netio",
    .kind = HVB_MACRO,
    .summary = "netback: grant map, copy, unmap per packet on T threads "
               "with domain churn",
    .slots = netio_slots,
    .params = netio_params,
    .check = netio_check,
    .configure = netio_configure,
    .prepare = netio_prepare,
    .thread = netio_thread,
    .background = netio_background,
    .cleanup = netio_cleanup,
};
