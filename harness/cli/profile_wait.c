/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench profile --view wait": instead of sampling, the lock profiler
 * (hv/lockstat.h) runs with its wait stacks on, and each cell gets
 * DIR/<cell>-wait.folded (hvb/wait_folded.h: weights in wait ns per op,
 * the lock class as the leaf), drawn by cmd_profile.c as the cpu view's
 * files are.  The lockstat rows of the same run are summed per cell
 * beside the stacks, so a stack lost (a full table) shows as a gap
 * between the two totals: e.g. lock-hold at hold_ns=20000 gives
 * wait_ns_per_op 20480 and lockstat_wait_ns_per_op 20480.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/lockstat.h>
#include <hvb/cli.h>
#include <hvb/wait_folded.h>

#include "private.h"

void hvb_wait_view_start(void)
{
    hv_lockstat_reset();
    hv_lockstat_stacks(true);
    hv_lockstat_enable(true);
}

int hvb_wait_view_stop(struct hvb_wait_view *wv)
{
    long n;

    hv_lockstat_enable(false);
    hv_lockstat_stacks(false);
    hv_lockstat_set_tag(0);
    n = hv_lockstat_collect_stacks(&wv->stacks, &wv->stacks_dropped);
    wv->nr_stacks = n < 0 ? 0 : (size_t)n;
    if ( n >= 0 )
        n = hv_lockstat_collect(&wv->rows, &wv->dropped);
    wv->nr_rows = n < 0 ? 0 : (size_t)n;
    if ( n < 0 )
        return hvb_failure("profile: out of memory collecting wait stacks");
    return 0;
}

int hvb_wait_view_cell(struct hvb_wait_view *wv, struct hvb_symbols *sym,
                       const char *path, size_t c, uint64_t ops,
                       struct hvb_wait_cell *out)
{
    uint64_t wait = 0;
    size_t i;
    int rc;

    out->ops = ops;
    for ( i = 0; i < wv->nr_rows; i++ )
        if ( wv->rows[i].tag == c + 1 )
            wait += wv->rows[i].wait_ns;
    out->lockstat_ns_per_op = ops ? (double)wait / (double)ops : 0;
    rc = hvb_wait_folded_write(path, wv->stacks, wv->nr_stacks,
                               (unsigned int)c + 1, ops, sym, &out->t);
    if ( rc )
        return hvb_failure("profile: writing %s: %s", path, strerror(-rc));
    return 0;
}

json_t *hvb_wait_view_json(const struct hvb_wait_cell *w)
{
    return json_pack(
        "{s:s, s:I, s:f, s:f, s:I, s:I, s:I, s:f}", "unit", "wait ns/op", "ops",
        (json_int_t)w->ops, "wait_ns_per_op", w->t.wait_ns_per_op,
        "lockstat_wait_ns_per_op", w->lockstat_ns_per_op, "wait_ns_total",
        (json_int_t)w->t.wait_ns, "contended", (json_int_t)w->t.contended,
        "stacks", (json_int_t)w->t.stacks, "mean_stack_depth", w->t.mean_depth);
}

void hvb_wait_view_free(struct hvb_wait_view *wv)
{
    free(wv->stacks);
    free(wv->rows);
    memset(wv, 0, sizeof(*wv));
}
