/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers of the libvirt workloads; see wl_virt.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/virt_rpc.h>

#include "wl_virt.h"

int wl_virt_create(struct hvb_cell *c, const struct wl_virt_params *vp,
                   struct hv_virt **out)
{
    struct hv_virt_config cfg;
    char err[256] = "";
    int rc;

    hv_virt_config_init(&cfg);
    cfg.sec.delay_us = vp->label_us;
    cfg.sec.setall_helper = vp->setall_helper != 0;
    cfg.qemu_start_us = vp->qemu_us;
    cfg.define_us = vp->define_us;
    if ( !vp->spawn )
        cfg.sec.helper = NULL;
    cfg.nwfilter = vp->nwfilter;
    cfg.nwf.delay_us = vp->nwfilter_us;
    cfg.seclock = hv_slot_plugin(c->hv, HV_SLOT_SECLOCK);
    cfg.namesearch = hv_slot_plugin(c->hv, HV_SLOT_NAMESEARCH);
    rc = hv_virt_create(&cfg, out, err, sizeof(err));
    if ( rc )
        hvb_cell_error(c, "libvirt driver: %s", err[0] ? err : strerror(-rc));
    return rc;
}

int wl_libvirtd_open(struct hvb_cell *c, const struct wl_virt_params *vp,
                     const struct wl_virt_rpc_params *rp, struct wl_libvirtd *d)
{
    struct hv_rpc_config cfg;
    char err[256] = "";
    unsigned int i;
    int rc;

    memset(d, 0, sizeof(*d));
    rc = wl_virt_create(c, vp, &d->v);
    if ( rc )
        return rc;
    hv_rpc_config_init(&cfg);
    cfg.max_workers = rp->max_workers;
    cfg.prio_workers = rp->prio_workers;
    cfg.max_client_requests = rp->max_client_requests;
    rc = hv_rpc_server_create(&cfg, &d->srv, err, sizeof(err));
    if ( rc )
    {
        hvb_cell_error(c, "%s", err[0] ? err : strerror(-rc));
        return rc;
    }
    d->connections = rp->connections;
    d->conn = calloc(d->connections, sizeof(*d->conn));
    if ( d->conn == NULL )
        return -ENOMEM;
    for ( i = 0; i < d->connections; i++ )
        if ( (d->conn[i] = hv_rpc_client_open(d->srv)) == NULL )
            return -ENOMEM;
    return 0;
}

void wl_libvirtd_close(struct wl_libvirtd *d)
{
    unsigned int i;

    for ( i = 0; d->conn && i < d->connections; i++ )
        if ( d->conn[i] )
            hv_rpc_client_close(d->conn[i]);
    free(d->conn);
    if ( d->srv )
        hv_rpc_server_destroy(d->srv);
    if ( d->v )
        hv_virt_destroy(d->v);
    memset(d, 0, sizeof(*d));
}

int wl_virt_define_n(struct hvb_cell *c, struct hv_virt *v, const char *prefix,
                     uint64_t seed0, unsigned int n)
{
    unsigned char uuid[HV_VIRT_UUID_LEN];
    char name[HV_VIRT_NAME_MAX];
    unsigned int k;
    int rc;

    for ( k = 0; k < n; k++ )
    {
        snprintf(name, sizeof(name), "%s-%u", prefix, k);
        hv_virt_uuid(seed0 + k, uuid);
        rc = hv_virt_define(v, name, uuid);
        if ( rc )
        {
            hvb_cell_error(c, "defining %s: %s", name, strerror(-rc));
            return rc;
        }
    }
    return 0;
}

int wl_lat_init(struct wl_lat *l, uint64_t cap)
{
    atomic_init(&l->n, 0);
    l->cap = cap ? cap : 1;
    l->ns = calloc(l->cap, sizeof(*l->ns));
    return l->ns ? 0 : -ENOMEM;
}

void wl_lat_free(struct wl_lat *l)
{
    free(l->ns);
    l->ns = NULL;
}

void wl_lat_add(struct wl_lat *l, uint64_t ns)
{
    uint64_t i = atomic_fetch_add_explicit(&l->n, 1, memory_order_relaxed);

    if ( i < l->cap )
        l->ns[i] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least p% at or below it. */
static double pct_ms(const uint64_t *v, uint64_t n, unsigned int p)
{
    uint64_t rank = (n * p + 99) / 100;

    return (double)v[rank ? rank - 1 : 0] / 1e6;
}

void wl_lat_report(struct hvb_cell *c, struct wl_lat *l, const char *name)
{
    uint64_t n = atomic_load(&l->n), i;
    char key[64];
    double sum = 0;

    if ( n > l->cap )
    {
        snprintf(key, sizeof(key), "%s_dropped", name);
        hvb_counter_set(c, key, (double)(n - l->cap), 0);
        n = l->cap;
    }
    if ( n == 0 )
        return;
    qsort(l->ns, n, sizeof(*l->ns), cmp_u64);
    for ( i = 0; i < n; i++ )
        sum += (double)l->ns[i];
    snprintf(key, sizeof(key), "%s_p50_ms", name);
    hvb_counter_set(c, key, pct_ms(l->ns, n, 50), 0);
    snprintf(key, sizeof(key), "%s_p90_ms", name);
    hvb_counter_set(c, key, pct_ms(l->ns, n, 90), 0);
    snprintf(key, sizeof(key), "%s_p99_ms", name);
    hvb_counter_set(c, key, pct_ms(l->ns, n, 99), 0);
    snprintf(key, sizeof(key), "%s_max_ms", name);
    hvb_counter_set(c, key, (double)l->ns[n - 1] / 1e6, 0);
    snprintf(key, sizeof(key), "%s_mean_ms", name);
    hvb_counter_set(c, key, sum / (double)n / 1e6, 0);
    atomic_store(&l->n, 0);
}

void wl_virt_report_costs(struct hvb_cell *c, const struct wl_virt_params *vp,
                          struct hv_virt *v)
{
    struct hv_secmgr_stats st;

    hv_secmgr_stats(hv_virt_secmgr(v), &st);
    if ( st.spawns )
        hvb_counter_set(c, "label_spawn_us_real",
                        (double)st.spawn_ns / (double)st.spawns / 1e3, 0);
    hvb_counter_set(c, "label_us_modelled", (double)vp->label_us, 0);
    hvb_counter_set(c, "qemu_us_modelled", (double)vp->qemu_us, 0);
    hvb_counter_set(c, "define_us_modelled", (double)vp->define_us, 0);
    hvb_counter_set(c, "setall_helper", (double)vp->setall_helper, 0);
    if ( hv_virt_nwfilter(v) != NULL )
    {
        struct hv_nwfilter_stats nf;

        hv_nwfilter_stats(hv_virt_nwfilter(v), &nf);
        hvb_counter_set(c, "nwfilter_us_modelled", (double)vp->nwfilter_us, 0);
        if ( nf.spawns )
            hvb_counter_set(c, "nwfilter_spawn_us_real",
                            (double)nf.spawn_ns / (double)nf.spawns / 1e3, 0);
    }
}
