/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * parallel-create: seed 003's test, "booting 1 VM vs booting 20 VMs in
 * parallel".  T client threads (--threads T) share `connections` RPC
 * connections to one libvirtd (a worker pool of max_workers + prio_workers,
 * max_client_requests in flight per connection).  In one iteration each
 * client defines and starts `rounds` new domains, one after the other
 * (virConnectDefineXML, virDomainCreateWithFlags, then a lookup by UUID
 * as a management tool polls), so later defines meet earlier creations in
 * flight.  `existing` shut-off domains lengthen every scan of the list.
 * After the clock stops, the domains are destroyed and undefined.
 *
 * Reported per API (define, create, lookup): p50/p90/p99/mean latency in
 * ms, client-side (queueing at the connection cap and in the worker pool
 * included); the pool's saturation: pool_busy_max and pool_busy_mean
 * (ordinary workers busy: most at once, and on average from the first
 * call to the last), pool_queued_frac (calls read while every
 * worker was taken), client_throttled_frac (calls held by the per-client
 * cap) and client_wait_ms_mean; and which costs are modelled
 * (wl_virt.h).  `hvbench lockstat parallel-create ...` ranks the lock
 * classes (virSecurityManager, virDomainObjList, virDomainObj, ...).
 *
 * Scale: the seed's costs / 100, calibrated on its own figures (docs/
 * seeds.md): a creation of one VM 1.8 s -> 18 ms, of which GenLabel
 * ("takes around 1s" for AppArmor: virt-aa-helper -c loads the profile)
 * -> a real helper spawn (~1 ms) + label_us=9000 modelled; SetAllLabel
 * runs no helper (setall_helper=0: AppArmor's SetAllLabel reloads only
 * when restoring from a file) but still takes the manager lock; the
 * interface's filter (nwfilter=1, as OpenStack's domains have one) under
 * the nwfilter driver's global locks, a real /bin/sh and nwfilter_us
 * (5 ms, modelled) of ebtables work (hv/virt_nwfilter.h); qemu_us=1500
 * (modelled) is what is left of the 1.8 s for the QEMU start.  A T = 1
 * creation spends ~10 of its ~18 ms under the manager lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/thread.h>
#include <hv/trace.h>
#include <hv/virt_rpc.h>

#include "../lib/wl_virt.h"

/* The params (pc_param_table[] below names each field). */
struct pc_params {
    uint64_t rounds;
    uint64_t existing;
    struct wl_virt_rpc_params rpc;
    struct wl_virt_params virt;
};

#define SEED_EXISTING 1000000ull
#define SEED_CLIENT   (1ull << 40)

enum api {
    API_DEFINE,
    API_CREATE,
    API_LOOKUP,
    API_NR
};
static const char *const api_names[API_NR] = {"define", "create", "lookup"};

struct pc {
    struct wl_libvirtd d;
    unsigned int rounds;
    struct wl_lat lat[API_NR];
    _Atomic uint64_t first_submit, last_end; /* the run's window */
};

static int (*const api_fn[API_NR])(void *) = {
    hv_virt_req_define, hv_virt_req_start, hv_virt_req_lookup};

/* Widen the run's window [first_submit, last_end] to @call. */
static void window(struct pc *s, const struct hv_rpc_call *call)
{
    uint64_t v = atomic_load(&s->first_submit);

    while (
        (v == 0 || call->t_submit < v) &&
        !atomic_compare_exchange_weak(&s->first_submit, &v, call->t_submit) )
        ;
    v = atomic_load(&s->last_end);
    while ( call->t_end > v &&
            !atomic_compare_exchange_weak(&s->last_end, &v, call->t_end) )
        ;
}

static int pc_prepare(struct hvb_cell *c)
{
    const struct pc_params *p = c->params;
    struct pc *s = calloc(1, sizeof(*s));
    unsigned int i;
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    s->rounds = p->rounds;
    rc = wl_libvirtd_open(c, &p->virt, &p->rpc, &s->d);
    if ( rc == 0 )
        rc =
            wl_virt_define_n(c, s->d.v, "existing", SEED_EXISTING, p->existing);
    if ( rc )
        return rc;
    for ( i = 0; i < API_NR; i++ )
        if ( wl_lat_init(&s->lat[i], (uint64_t)c->threads * s->rounds) )
            return -ENOMEM;
    return 0;
}

static void pc_thread(struct hvb_thread *t)
{
    struct pc *s = t->cell->priv;
    struct hv_rpc_client *conn = wl_libvirtd_conn(&s->d, t->index);
    struct hv_virt_req *reqs = calloc(s->rounds, sizeof(*reqs));
    unsigned int r, a;
    char was[16];

    HV_BUG_ON(reqs == NULL);
    /* A harness thread (thread 0 the main one): its name given back. */
    hv_thread_role_get(was, sizeof(was));
    hv_thread_role("client");
    hv_trace_name("client %u", t->index);
    for ( r = 0; r < s->rounds; r++ )
    {
        reqs[r].v = s->d.v;
        snprintf(reqs[r].name, sizeof(reqs[r].name), "vm-%u-%u", t->index, r);
        hv_virt_uuid(SEED_CLIENT + ((uint64_t)t->index << 20) + r,
                     reqs[r].uuid);
    }
    while ( hvb_keep_running_batch(t, s->rounds) )
        for ( r = 0; r < s->rounds; r++ )
            for ( a = 0; a < API_NR; a++ )
            {
                struct hv_rpc_call call = {.fn = api_fn[a], .arg = &reqs[r]};

                HV_BUG_ON(hv_rpc_call(conn, &call) != 0);
                wl_lat_add(&s->lat[a], call.t_end - call.t_submit);
                hv_trace_span("api", api_names[a], "round", r, call.t_submit,
                              call.t_end);
                window(s, &call);
            }
    /* Unmeasured: back to the prepared state for the next repetition. */
    for ( r = 0; r < s->rounds; r++ )
    {
        HV_BUG_ON(hv_virt_stop(s->d.v, reqs[r].uuid) != 0);
        HV_BUG_ON(hv_virt_undefine(s->d.v, reqs[r].uuid) != 0);
    }
    free(reqs);
    hv_thread_role(was);
}

static void pc_report(struct hvb_cell *c)
{
    const struct pc_params *p = c->params;
    struct pc *s = c->priv;
    struct hv_rpc_stats st;
    unsigned int a;

    for ( a = 0; a < API_NR; a++ )
        wl_lat_report(c, &s->lat[a], api_names[a]);
    hv_rpc_stats(s->d.srv, &st);
    hvb_counter_set(c, "pool_busy_max", st.busy_max, 0);
    /* Workers are busy only inside the window: its integral / length. */
    if ( atomic_load(&s->last_end) > atomic_load(&s->first_submit) )
        hvb_counter_set(c, "pool_busy_mean",
                        (double)st.busy_ns /
                            (double)(atomic_load(&s->last_end) -
                                     atomic_load(&s->first_submit)),
                        0);
    atomic_store(&s->first_submit, 0);
    atomic_store(&s->last_end, 0);
    if ( st.calls )
    {
        hvb_counter_set(c, "pool_queued_frac",
                        (double)st.queued / (double)st.calls, 0);
        hvb_counter_set(c, "client_throttled_frac",
                        (double)st.throttled / (double)st.calls, 0);
    }
    if ( st.throttled )
        hvb_counter_set(c, "client_wait_ms_mean",
                        (double)st.throttle_ns / (double)st.throttled / 1e6, 0);
    hv_rpc_stats_reset(s->d.srv);
    wl_virt_report_costs(c, &p->virt, s->d.v);
}

static void pc_cleanup(struct hvb_cell *c)
{
    struct pc *s = c->priv;
    unsigned int i;

    if ( s == NULL )
        return;
    wl_libvirtd_close(&s->d);
    for ( i = 0; i < API_NR; i++ )
        wl_lat_free(&s->lat[i]);
    free(s);
    c->priv = NULL;
}

static const struct hv_opt pc_param_table[] = {
    HVB_PARAM_UINT_ROW(struct pc_params, rounds, "3", 1, 1000,
                       "domains each client defines and starts per iteration"),
    HVB_PARAM_UINT_ROW(struct pc_params, existing, "20", 0, 100000,
                       "shut-off domains defined beforehand"),
    WL_VIRT_RPC_PARAMS(struct pc_params, rpc, "1"),
    WL_VIRT_PARAMS(struct pc_params, virt, "9000", "1500", "0"),
    WL_VIRT_NWFILTER_PARAMS(struct pc_params, virt, "1", "5000"),
    HVB_PARAM_TABLE_END,
};

static const char *const pc_slots[] = {"seclock", "namesearch", NULL};

HVB_REGISTER_WORKLOAD(parallel_create_workload) = {
    .name = "parallel-create",
    .kind = HVB_MACRO,
    .summary = "T clients define + start domains through libvirtd's RPC "
               "pool: per-API latency percentiles (seed 003)",
    .slots = pc_slots,
    .params = pc_param_table,
    .params_size = sizeof(struct pc_params),
    .flags = HVB_WF_ONE_SHOT,
    .prepare = pc_prepare,
    .thread = pc_thread,
    .report = pc_report,
    .cleanup = pc_cleanup,
    .smoke = "rounds=1 existing=2 label_us=0 qemu_us=0 define_us=0 "
             "nwfilter_us=0",
};
