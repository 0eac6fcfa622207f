/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * define-domain: virConnectDefineXML against `existing` defined domains
 * while `inflight` creations run beside it (seed 003's convoy, reduced to
 * the call that suffered most).  In the background, `inflight` threads
 * each start and stop one domain of their own in a loop (GenLabel and
 * SetAllLabel under the seclock strategy, QEMU start, RestoreAllLabel),
 * so at any time about that many domain objects are held for label work.
 * Each measured thread defines a domain of its own name, then undefines
 * it; one operation = one define + undefine, called on the driver (no
 * RPC layer).  define_p50_ms .. define_mean_ms are the define alone.
 * creations_per_s is what the background achieved.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/thread.h>

#include "../lib/wl_virt.h"

/* The params (dd_param_table[] below names each field). */
struct dd_params {
    uint64_t existing;
    uint64_t inflight;
    struct wl_virt_params virt;
};

#define SEED_EXISTING 2000000ull
#define SEED_PROBE    (1ull << 41)
#define LAT_CAP       (1u << 20)

struct dd {
    struct hv_virt *v;
    unsigned int existing, inflight;
    struct wl_lat lat;
};

struct creator {
    struct dd *s;
    const struct hvb_thread *bg;
    unsigned int k;
    uint64_t done;
    pthread_t tid;
};

static int dd_check(struct hvb_cell *c)
{
    const struct dd_params *p = c->params;

    if ( p->inflight > p->existing )
    {
        hvb_cell_error(c, "inflight must not exceed existing (the creations "
                          "start existing domains)");
        return -EINVAL;
    }
    return 0;
}

static int dd_prepare(struct hvb_cell *c)
{
    const struct dd_params *p = c->params;
    struct dd *s = calloc(1, sizeof(*s));
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    s->existing = p->existing;
    s->inflight = p->inflight;
    rc = wl_lat_init(&s->lat, LAT_CAP);
    if ( rc == 0 )
        rc = wl_virt_create(c, &p->virt, &s->v);
    if ( rc == 0 )
        rc = wl_virt_define_n(c, s->v, "existing", SEED_EXISTING, s->existing);
    return rc;
}

static void *creator_main(void *arg)
{
    struct creator *cr = arg;
    unsigned char uuid[HV_VIRT_UUID_LEN];

    hv_thread_role("creator");
    hv_virt_uuid(SEED_EXISTING + cr->k, uuid);
    while ( !hvb_bg_should_stop(cr->bg) )
    {
        HV_BUG_ON(hv_virt_start(cr->s->v, uuid) != 0);
        HV_BUG_ON(hv_virt_stop(cr->s->v, uuid) != 0);
        cr->done++;
    }
    return NULL;
}

static void dd_background(struct hvb_thread *t)
{
    struct dd *s = t->cell->priv;
    struct creator *cr = calloc(s->inflight ? s->inflight : 1, sizeof(*cr));
    uint64_t t0 = hv_now_ns(), done = 0;
    unsigned int k, started = 0;

    HV_BUG_ON(cr == NULL);
    for ( k = 0; k < s->inflight; k++, started++ )
    {
        cr[k] = (struct creator){.s = s, .bg = t, .k = k};
        if ( pthread_create(&cr[k].tid, NULL, creator_main, &cr[k]) != 0 )
            break;
    }
    for ( k = 0; k < started; k++ )
    {
        pthread_join(cr[k].tid, NULL);
        done += cr[k].done;
    }
    if ( started )
        hvb_counter_add(t, "creations_per_s",
                        (double)done * 1e9 / (double)(hv_now_ns() - t0), 0);
    free(cr);
}

static void dd_thread(struct hvb_thread *t)
{
    struct dd *s = t->cell->priv;
    unsigned char uuid[HV_VIRT_UUID_LEN];
    char name[HV_VIRT_NAME_MAX];

    snprintf(name, sizeof(name), "probe-%u", t->index);
    hv_virt_uuid(SEED_PROBE + t->index, uuid);
    while ( hvb_keep_running_batch(t, 1) )
    {
        uint64_t t0 = hv_now_ns();

        HV_BUG_ON(hv_virt_define(s->v, name, uuid) != 0);
        wl_lat_add(&s->lat, hv_now_ns() - t0);
        HV_BUG_ON(hv_virt_undefine(s->v, uuid) != 0);
    }
}

static void dd_report(struct hvb_cell *c)
{
    const struct dd_params *p = c->params;
    struct dd *s = c->priv;

    wl_lat_report(c, &s->lat, "define");
    wl_virt_report_costs(c, &p->virt, s->v);
}

static void dd_cleanup(struct hvb_cell *c)
{
    struct dd *s = c->priv;

    if ( s == NULL )
        return;
    hv_virt_destroy(s->v);
    wl_lat_free(&s->lat);
    free(s);
    c->priv = NULL;
}

static const struct hv_opt dd_param_table[] = {
    HVB_PARAM_UINT_ROW(struct dd_params, existing, "100", 0, 100000,
                       "domains defined beforehand (the scan's length)"),
    HVB_PARAM_UINT_ROW(struct dd_params, inflight, "4", 0, 1024,
                       "creations in flight beside the defines (threads "
                       "starting and stopping existing domains)"),
    WL_VIRT_PARAMS(struct dd_params, virt, "5000", "8000", "1"),
    WL_VIRT_NWFILTER_PARAMS(struct dd_params, virt, "0", "0"),
    HVB_PARAM_TABLE_END,
};

static const char *const dd_slots[] = {"seclock", "namesearch", NULL};

HVB_REGISTER_WORKLOAD(define_domain_workload) = {
    .name = "define-domain",
    .kind = HVB_MICRO,
    .summary = "define latency against N domains while K creations are in "
               "flight (seed 003)",
    .slots = dd_slots,
    .params = dd_param_table,
    .params_size = sizeof(struct dd_params),
    .check = dd_check,
    .prepare = dd_prepare,
    .thread = dd_thread,
    .background = dd_background,
    .report = dd_report,
    .cleanup = dd_cleanup,
    .smoke = "existing=2 inflight=1 label_us=0 qemu_us=0 define_us=0",
};
