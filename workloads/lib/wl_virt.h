/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the libvirt workloads (define-domain, parallel-create): the
 * QEMU driver built from a cell's params and plugins, latency samples
 * with percentiles, and the counters that say which costs are modelled.
 */
#ifndef HVB_WL_VIRT_H
#define HVB_WL_VIRT_H

#include <hv/virt_qemu.h>
#include <hvb/workload.h>

/*
 * The modelled costs: a workload embeds the struct as member @m of its
 * param struct @st and lists WL_VIRT_PARAMS(st, m, label_def, qemu_def,
 * setall_def) in its table, with its defaults of label_us, qemu_us and
 * setall_helper (strings).
 */
struct wl_virt_params {
    uint64_t label_us, qemu_us, define_us, spawn, setall_helper;
    uint64_t nwfilter, nwfilter_us; /* WL_VIRT_NWFILTER_PARAMS */
};
#define WL_VIRT_PARAMS(st, m, label_def, qemu_def, setall_def)                 \
    HV_OPT_U64_ROW(st, m.label_us, "label_us", label_def, 0, 10000000,         \
                   "modelled helper work per label op that runs the "          \
                   "helper, after the real spawn (us; seed: GenLabel ~1 s "    \
                   "for AppArmor, /100)"),                                     \
        HV_OPT_U64_ROW(st, m.qemu_us, "qemu_us", qemu_def, 0, 10000000,        \
                       "modelled QEMU start, object unlocked (us)"),           \
        HV_OPT_U64_ROW(st, m.define_us, "define_us", "130", 0, 10000000,       \
                       "modelled XML parse of define (us; seed 13 ms, "        \
                       "/100)"),                                               \
        HV_OPT_U64_ROW(st, m.spawn, "spawn", "1", 0, 1,                        \
                       "spawn the label helper (/bin/true) for real per "      \
                       "label op that runs it"),                               \
        HV_OPT_U64_ROW(st, m.setall_helper, "setall_helper", setall_def, 0, 1, \
                       "SetAllLabel runs the helper too (0: AppArmor's "       \
                       "start path, only GenLabel and RestoreAll run "         \
                       "virt-aa-helper; the manager lock is taken either "     \
                       "way)")

/*
 * The interface's filter (hv/virt_nwfilter.h): whether a start
 * instantiates one, under the nwfilter driver's global locks, with the
 * defaults @on_def and @us_def (strings); member @m of @st as above.  A
 * workload that lists no such rows starts domains without a filter.
 */
#define WL_VIRT_NWFILTER_PARAMS(st, m, on_def, us_def)                        \
    HV_OPT_U64_ROW(st, m.nwfilter, "nwfilter", on_def, 0, 1,                  \
                   "the interface has a filterref: a start instantiates "     \
                   "it under the global nwfilter locks (/bin/sh spawned "     \
                   "for real)"),                                              \
        HV_OPT_U64_ROW(st, m.nwfilter_us, "nwfilter_us", us_def, 0, 10000000, \
                       "modelled ebtables work of the filter's script, "      \
                       "under the locks (us)")

/*
 * The RPC server's params (libvirtd.conf) and the clients' connections,
 * embedded as member @m of the param struct @st, with the default number
 * of connections @conn_def (a string).
 */
struct wl_virt_rpc_params {
    uint64_t max_workers, prio_workers, max_client_requests, connections;
};
#define WL_VIRT_RPC_PARAMS(st, m, conn_def)                                   \
    HV_OPT_U64_ROW(st, m.max_workers, "max_workers", "20", 1, 1024,           \
                   "libvirtd worker threads"),                                \
        HV_OPT_U64_ROW(st, m.prio_workers, "prio_workers", "5", 0, 1024,      \
                       "libvirtd priority workers"),                          \
        HV_OPT_U64_ROW(st, m.max_client_requests, "max_client_requests", "5", \
                       1, 1024, "calls in flight per connection"),            \
        HV_OPT_U64_ROW(st, m.connections, "connections", conn_def, 1, 1024,   \
                       "RPC connections the clients share (OpenStack: 1)")

struct hv_rpc_server;
struct hv_rpc_client;

/*
 * libvirtd as a workload drives it: the driver (wl_virt_create), the RPC
 * server and its connections (WL_VIRT_RPC_PARAMS).
 */
struct wl_libvirtd {
    struct hv_virt *v;
    struct hv_rpc_server *srv;
    struct hv_rpc_client **conn;
    unsigned int connections;
};

/* 0 or -errno with an error on @c; close even after a failure. */
int wl_libvirtd_open(struct hvb_cell *c, const struct wl_virt_params *vp,
                     const struct wl_virt_rpc_params *rp,
                     struct wl_libvirtd *d);
void wl_libvirtd_close(struct wl_libvirtd *d);

/* Client @i's connection (clients share them round robin). */
static inline struct hv_rpc_client *
wl_libvirtd_conn(const struct wl_libvirtd *d, unsigned int i)
{
    return d->conn[i % d->connections];
}

/* Build the driver of @c (its seclock and namesearch plugins). */
int wl_virt_create(struct hvb_cell *c, const struct wl_virt_params *vp,
                   struct hv_virt **out);

/* Define domains "<prefix>-<k>", k < @n, UUID seed @seed0 + k. */
int wl_virt_define_n(struct hvb_cell *c, struct hv_virt *v, const char *prefix,
                     uint64_t seed0, unsigned int n);

/* Latency samples, filled by any thread, read in report(). */
struct wl_lat {
    _Atomic uint64_t n;
    uint64_t cap;
    uint64_t *ns;
};

int wl_lat_init(struct wl_lat *l, uint64_t cap);
void wl_lat_free(struct wl_lat *l);
void wl_lat_add(struct wl_lat *l, uint64_t ns);
/*
 * From report(): counters <name>_p50_ms, _p90_ms, _p99_ms, _max_ms,
 * _mean_ms (and
 * <name>_dropped if the buffer overflowed), then forget the samples.
 */
void wl_lat_report(struct hvb_cell *c, struct wl_lat *l, const char *name);

/*
 * From report(): label_spawn_us_real (a spawn and wait, measured),
 * label_us_modelled, qemu_us_modelled, define_us_modelled, setall_helper
 * (the params: what is modelled, and by how much); with a filter,
 * nwfilter_us_modelled
 * and nwfilter_spawn_us_real.
 */
void wl_virt_report_costs(struct hvb_cell *c, const struct wl_virt_params *vp,
                          struct hv_virt *v);

#endif /* HVB_WL_VIRT_H */
