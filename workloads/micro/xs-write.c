/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xs-write: a guest rewrites one of its own nodes (relative "data/0"),
 * outside any transaction: 3 quota copies per request in oxenstored
 * (Transaction.make, then Store.copy before and after for History).
 * One operation = one write request.
 */
#include <errno.h>
#include <stdlib.h>

#include <hv/hv.h>
#include <hv/xenstore.h>

#include "../lib/wl_xs.h"

static void xs_write_thread(struct hvb_thread *t)
{
    const struct wl_xs_req *s = t->cell->priv;
    struct hv_xs *xs = hv_xs(t->cell->hv);
    unsigned int i, bad = 0;

    while ( hvb_keep_running_batch(t, s->batch) )
        for ( i = 0; i < s->batch; i++ )
        {
            domid_t id = WL_XS_FIRST_DOMID + hvb_rand_below(t, s->domains);

            bad += hv_xs_write(xs, id, 0, "data/0", "val") != 0;
        }
    if ( bad )
        hvb_counter_add(t, "failed", bad, 0);
}

static const struct hv_opt xs_write_param_table[] = {
    WL_XS_PARAM_DOMAINS(struct wl_xs_req_params, domains),
    HVB_PARAM_UINT_ROW(struct wl_xs_req_params, batch, "64", 1, 1000000,
                       "writes per batch"),
    HVB_PARAM_TABLE_END,
};

static const char *const xs_write_slots[] = {"quota", NULL};

HVB_REGISTER_WORKLOAD(xs_write_workload) = {
    .name = "xs-write",
    .kind = HVB_MICRO,
    .summary = "a guest rewrites its own xenstore node: 3 quota copies "
               "per request (seed 000)",
    .slots = xs_write_slots,
    .params = xs_write_param_table,
    .params_size = sizeof(struct wl_xs_req_params),
    .prepare = wl_xs_req_prepare,
    .thread = xs_write_thread,
    .cleanup = wl_free_priv,
    .smoke = "domains=16",
};
