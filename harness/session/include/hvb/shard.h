/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shards of a run matrix: "hvbench run ... --shard K/N" measures the K-th
 * of N parts (K from 1), "hvbench merge" joins the parts' results again
 * (harness/fleet/cmd_merge.c).  A shard is a set of whole groups (the cells of
 * one A/B: same parameters and threads, other plugins), so that every
 * group's cells still run in one process, round by round, and their
 * per-round ratios pair as in an unsharded run.
 *
 * Groups go to shards by expected cost, longest first, each to the shard
 * with the least cost so far (ties: the lower group, the lower shard), so
 * the same command line always gives the same shards.  The cost of a cell:
 *
 *   estimated   every cell the same: a calibrated cell runs --min-time per
 *               round whatever its plugins or threads (a one-shot macro
 *               cell runs one iteration: the same again, to first order)
 *   calibrated  --shard-costs FILE (an earlier run of the same matrix):
 *               the cell's measured time per round, the sum over its
 *               rounds of ns/op x iterations; a cell FILE lacks costs the
 *               mean of those it has
 *
 * Worked example: lookup with --plugin domlookup=A,B --threads 1,2
 * --param ndomains=10,100,1000 is 6 groups of 2 cells.  Estimated, --shard
 * K/4 gives groups {0,4} {1,5} {2} {3}: 4, 4, 2 and 2 cells.  Calibrated,
 * with group 5 (ndomains=1000, 2 threads) three times as long as the
 * others: {5} {0,3} {1,4} {2}.
 *
 * A shard's results carry hvbench.shard: {k, n, cells_total,
 * groups_total, cells: [the full matrix's index of each cell]}.
 */
#ifndef HVB_SHARD_H
#define HVB_SHARD_H

#include <stddef.h>
#include <stdio.h>

#include <hvb/matrix.h>

#define HVB_SHARD_MAX 4096

/*
 * hvb_shard_parse - "K/N" with 1 <= K <= N <= HVB_SHARD_MAX.  0, or
 * -EINVAL with a one-line @err.
 */
int hvb_shard_parse(const char *s, unsigned int *k, unsigned int *n, char *err,
                    size_t len);

/*
 * hvb_shard_assign - owner[g] (0 .. n-1) of each of @nr groups of cost
 * cost[g] (>= 0), longest first to the least loaded shard.
 */
void hvb_shard_assign(const double *cost, size_t nr, unsigned int n,
                      unsigned int *owner);

/*
 * hvb_shard_select - keep only the groups of shard @k of @n (from 1) in
 * @m (built, models not yet created), costed from @costs_path (a results
 * file) or estimated when it is NULL.  Cells keep their names; cell and
 * group numbers become those of a run of the kept cells alone (0 ..
 * kept-1), full_index says where each cell was.  0, or -EINVAL (more shards than groups, a bad costs file)
 * or -ENOMEM with @err.
 */
int hvb_shard_select(struct hvb_matrix *m, unsigned int k, unsigned int n,
                     const char *costs_path, char *err, size_t len);

/*
 * hvb_shard_plan_print - "run --plan": {"workload", "cells", "groups",
 * "cells_total", "groups_total", "shard": {k, n} or null, "list": [{index,
 * full_index, group, name}]} on @f.  The exit status.
 */
int hvb_shard_plan_print(FILE *f, const struct hvb_matrix *m);

#endif /* HVB_SHARD_H */
