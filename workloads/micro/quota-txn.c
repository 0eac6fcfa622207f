/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * quota-txn: a guest runs a small transaction on its own subtree: start
 * (3 quota copies), write @writes nodes (0 copies: inside), commit (fast
 * path: nobody else commits here).  Cost per transaction vs the number
 * of domains holding quota: linear for hashtbl-copy, flat for persistent.
 * One operation = one transaction.
 */
#include <errno.h>
#include <stdlib.h>

#include <hv/hv.h>
#include <hv/xenstore.h>

#include "../lib/wl_xs.h"

/* The params (quota_txn_param_table[] below names each field). */
struct quota_txn_params {
    uint64_t writes;
    uint64_t batch;
    uint64_t domains;
};

struct quota_txn {
    unsigned int domains, writes, batch;
};

static int quota_txn_prepare(struct hvb_cell *c)
{
    const struct quota_txn_params *p = c->params;
    struct quota_txn *s = calloc(1, sizeof(*s));

    if ( s == NULL )
        return -ENOMEM;
    s->domains = p->domains;
    s->writes = p->writes;
    s->batch = p->batch;
    c->priv = s;
    return wl_xs_populate(c, s->domains, 4);
}

static void quota_txn_thread(struct hvb_thread *t)
{
    static const char *const node[] = {"data/0", "data/1", "data/2", "data/3"};
    const struct quota_txn *s = t->cell->priv;
    struct hv_xs *xs = hv_xs(t->cell->hv);
    unsigned int i, w, bad = 0;
    uint32_t tid;

    while ( hvb_keep_running_batch(t, s->batch) )
        for ( i = 0; i < s->batch; i++ )
        {
            domid_t id = WL_XS_FIRST_DOMID + hvb_rand_below(t, s->domains);
            int rc = hv_xs_txn_start(xs, id, &tid);

            for ( w = 0; rc == 0 && w < s->writes; w++ )
                rc = hv_xs_write(xs, id, tid, node[w % 4], "val");
            if ( rc == 0 )
                rc = hv_xs_txn_end(xs, id, tid, true);
            bad += rc != 0;
        }
    if ( bad )
        hvb_counter_add(t, "failed", bad, 0);
}

static const struct hv_opt quota_txn_param_table[] = {
    WL_XS_PARAM_DOMAINS(struct quota_txn_params, domains),
    HVB_PARAM_UINT_ROW(struct quota_txn_params, writes, "1", 0, 64,
                       "writes inside each transaction (data/0..3)"),
    HVB_PARAM_UINT_ROW(struct quota_txn_params, batch, "16", 1, 1000000,
                       "transactions per batch"),
    HVB_PARAM_TABLE_END,
};

static const char *const quota_txn_slots[] = {"quota", NULL};

HVB_REGISTER_WORKLOAD(quota_txn_workload) = {
    .name = "quota-txn",
    .kind = HVB_MICRO,
    .summary = "a guest's transaction: start (3 quota copies), write, "
               "commit (seed 000)",
    .slots = quota_txn_slots,
    .params = quota_txn_param_table,
    .params_size = sizeof(struct quota_txn_params),
    .prepare = quota_txn_prepare,
    .thread = quota_txn_thread,
    .cleanup = wl_free_priv,
    .smoke = "domains=16 writes=0,2",
};
