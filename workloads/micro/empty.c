/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * empty: the empty-op baseline.  Each "operation" is nothing but a
 * compiler barrier, so its ns/op is the harness's own cost per op: the
 * keep-running call of each batch (Google Benchmark's KeepRunningBatch
 * plus hvbench's counter bracket check) divided by the batch, plus the
 * loop.  With --param batch=1 it is the cost of one keep-running call.
 * It exercises no slot; the model is built but never entered.
 */
#include <hv/hv.h>

#include "../lib/wl.h"

/* The params (empty_param_table[] below names each field). */
struct empty_params {
    uint64_t batch;
};

static void empty_thread(struct hvb_thread *t)
{
    const struct empty_params *p = t->cell->params;
    uint64_t batch = p->batch, i;

    while ( hvb_keep_running_batch(t, batch) )
        for ( i = 0; i < batch; i++ )
            __asm__ volatile("" ::: "memory");
}

static const struct hv_opt empty_param_table[] = {
    HVB_PARAM_UINT_ROW(struct empty_params, batch, "1000", 1, 100000000,
                       "operations per keep-running call"),
    HVB_PARAM_TABLE_END,
};

static const char *const empty_slots[] = {NULL};

HVB_REGISTER_WORKLOAD(empty_workload) = {
    .name = "empty",
    .kind = HVB_MICRO,
    .summary = "the empty-op baseline: harness overhead per op",
    .slots = empty_slots,
    .params = empty_param_table,
    .params_size = sizeof(struct empty_params),
    .thread = empty_thread,
    .smoke = "batch=100",
};
