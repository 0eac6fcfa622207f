/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xs-read: a guest reads one of its own nodes (relative path "data/0"),
 * outside any transaction.  oxenstored copies the quota once for it
 * (Transaction.make), so under quota=hashtbl-copy the cost grows with the
 * number of domains holding quota, under quota=persistent it does not
 * (seed 000: ~40% of CPU in Quota.copy, even for read-only commands).
 * One operation = one read request.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/xenstore.h>

#include "../lib/wl_xs.h"

static void xs_read_thread(struct hvb_thread *t)
{
    const struct wl_xs_req *s = t->cell->priv;
    struct hv_xs *xs = hv_xs(t->cell->hv);
    unsigned int i, bad = 0;
    char buf[64];

    while ( hvb_keep_running_batch(t, s->batch) )
        for ( i = 0; i < s->batch; i++ )
        {
            domid_t id = WL_XS_FIRST_DOMID + hvb_rand_below(t, s->domains);

            bad += hv_xs_read(xs, id, 0, "data/0", buf, sizeof(buf), NULL) != 0;
        }
    if ( bad )
        hvb_counter_add(t, "failed", bad, 0);
}

static const struct hv_opt xs_read_param_table[] = {
    WL_XS_PARAM_DOMAINS(struct wl_xs_req_params, domains),
    HVB_PARAM_UINT_ROW(struct wl_xs_req_params, batch, "64", 1, 1000000,
                       "reads per batch"),
    HVB_PARAM_TABLE_END,
};

static const char *const xs_read_slots[] = {"quota", NULL};

HVB_REGISTER_WORKLOAD(xs_read_workload) = {
    .name = "xs-read",
    .kind = HVB_MICRO,
    .summary = "a guest reads its own xenstore node: 1 quota copy per "
               "request (seed 000)",
    .slots = xs_read_slots,
    .params = xs_read_param_table,
    .params_size = sizeof(struct wl_xs_req_params),
    .prepare = wl_xs_req_prepare,
    .thread = xs_read_thread,
    .cleanup = wl_free_priv,
    .smoke = "domains=16",
};
