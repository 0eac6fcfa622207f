/* SPDX-License-Identifier: GPL-2.0-only */
/* The wait view's folded stacks; see hvb/wait_folded.h. */
#include <stdio.h>
#include <string.h>

#include <hvb/folded.h>
#include <hvb/wait_folded.h>

int hvb_wait_folded_write(const char *path, const struct hv_lockstat_stack *v,
                          size_t nr, unsigned int tag, uint64_t ops,
                          struct hvb_symbols *sym, struct hvb_wait_total *t)
{
    struct hvb_folded_line *lines = NULL;
    size_t n = 0, cap = 0, i, k;
    uint64_t depth = 0;
    int rc = 0;

    memset(t, 0, sizeof(*t));
    for ( i = 0; i < nr && ops > 0; i++ )
    {
        uint64_t chain[HV_LOCKSTAT_STACK_DEPTH];
        char leaf[256];

        if ( v[i].tag != tag )
            continue;
        for ( k = 0; k < v[i].depth; k++ )
            chain[k] = (uintptr_t)v[i].pc[k];
        snprintf(leaf, sizeof(leaf), "[wait] %s", v[i].cls);
        rc = hvb_folded_push(
            &lines, &n, &cap,
            hvb_folded_stack(sym, chain, v[i].depth, false, leaf),
            (double)v[i].wait_ns / (double)ops);
        if ( rc )
            break;
        t->wait_ns += v[i].wait_ns;
        t->contended += v[i].contended;
        depth += v[i].depth;
    }
    if ( rc == 0 )
        rc = hvb_folded_emit(path, lines, n, false);
    t->stacks = n;
    t->mean_depth = n ? (double)depth / (double)n : 0;
    t->wait_ns_per_op = ops ? (double)t->wait_ns / (double)ops : 0;
    hvb_folded_free(lines, n);
    return rc;
}
