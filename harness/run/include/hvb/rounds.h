/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Paired rounds: the A/B method (DESIGN §5).  Every cell of a group (the
 * cells differing only in plugins) runs the same number of operations per
 * repetition: one calibration run per cell to the minimum time, then the
 * group's count is the geometric mean of its cells' counts.  Repetitions
 * then run as rounds: round r runs every cell once, each group's cells in
 * a cyclic Latin-square order rotated by r and reversed every other
 * cycle (two variants: AB BA BA AB ..., the ABBA pattern), so drift hits
 * every variant alike and the ratio of one round to its reference is the
 * unit of comparison.  Each round is one Google Benchmark run with fixed
 * Iterations(n).
 *
 * allocs_per_op and frees_per_op (hvb/meter.h) come from one untimed
 * counting pass per process, after calibration and before the first
 * round: every cell once more for a tenth of its count, with jemalloc's
 * hooks installed around that run alone.  Every round's sample of a cell
 * then carries the pass's figures, so they travel with the samples
 * through --resume and --processes like every other counter.
 */
#ifndef HVB_ROUNDS_H
#define HVB_ROUNDS_H

#include <stdbool.h>
#include <stdint.h>

#include <hvb/engine.h>
#include <hvb/matrix.h>

struct hvb_rounds_opts {
    unsigned int rounds; /* repetitions, >= 1 */
    double min_time_s;   /* calibration target per repetition */
    int64_t iterations;  /* fixed per-thread count for all; 0: calibrate */
    unsigned int first;  /* rounds already in the result (--resume) */
    bool fixed_order;    /* --no-interleave: round 0 order every round */
    const char *argv0;
    bool quiet; /* no progress */
    /* Per cell, the body and argument to run (NULL: the runner's). */
    const struct hvb_engine_bench *bodies;
    /* Once the library's context is known (first engine run only). */
    void (*on_context)(void *ctx, const char *context_json);
    /* After each round; non-zero stops the run with that status. */
    int (*on_round)(void *ctx, unsigned int round,
                    const struct hvb_engine_result *so_far);
    void *ctx;
};

/*
 * hvb_rounds_run - calibrate (unless @iters[] is already set, or
 * o->iterations), then run rounds o->first .. o->rounds-1, appending
 * their samples to @res with bench = cell index, repetition_index =
 * round.  @iters[cell] is the per-thread count each cell ran (shared in
 * its group).  @order, if not NULL, gets per round the cell order run
 * (rounds x nr_cells).  0 or -errno with @err.
 */
int hvb_rounds_run(const struct hvb_matrix *m, const struct hvb_rounds_opts *o,
                   int64_t *iters, struct hvb_engine_result *res, char *err,
                   size_t len);

/* The cell order of round @r (writes m->nr_cells indices to @out). */
void hvb_rounds_order(const struct hvb_matrix *m, unsigned int r, size_t *out);

#endif /* HVB_ROUNDS_H */
