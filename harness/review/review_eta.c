/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How long the rest of a review takes: each step's seconds from a model
 * of what it runs, scaled by how long the steps of its kind done so far
 * took against the model (a busy machine, a slow workload).  Three
 * kinds: a sim_ gate (both builds under callgrind, one pair), a timed
 * gate (pairs of worker processes, their samples) and the explanation
 * of a line's moved cells (profile and lockstat rounds, two callgrind
 * runs).  The model's constants are this VM's process starts, measured
 * (2-vCPU Xeon VM, the default suite): they set the first estimate
 * only; the scale corrects them from the first step of each kind on.
 *
 * Example, the default suite (7 cells in 3 lines, 5 in the first), no
 * step done: a sim_ gate of the first line is 1.5 + 5 x 0.8 = 5.5 s, its
 * timed gate 2.75 x 8 pairs x (5 x 2 x 100 x 1 ms + 2 x 0.1 s) = 26 s,
 * the explanation of one moved cell 8 x (0.25 + 0.6) + 4 x (0.25 +
 * 0.7) + 2 x 1 = 12.6 s.  Once the sim_ gate of the first line took 11 s
 * (scale 2), the others of its kind are counted twice as long.  A
 * line's cells are counted before its gates by head's "run LINE --plan"
 * (a build too old for --plan: 1 cell, until the gate says).
 */
#include <stdlib.h>
#include <string.h>

#include <hvb/exec.h>
#include <hvb/twobuild.h>

#include "private.h"

#define SIM_START_S  1.5  /* a sim_ gate's two callgrind workers starting */
#define SIM_CELL_S   0.8  /* and each cell's rounds under callgrind */
#define WORKER_S     0.1  /* a pair's worker processes starting */
#define PROC_S       0.6  /* a profile or lockstat process */
#define LOCK_PROC_S  0.7  /* lockstat's, its tables collected */
#define CG_RUN_S     1.0  /* a callgrind run of a line's moved cells */
#define PAIRS_FACTOR 2.75 /* a timed gate's pairs over --pairs: 1.1-3.7 seen */

double hvb_review_eta_model(const struct review *rv, enum review_step k,
                            size_t cells)
{
    double pairs = rv->o.pairs ? rv->o.pairs : HVB_GATE_DEFAULT_PAIRS;
    double rounds = rv->o.rounds ? rv->o.rounds : HVB_GATE_DEFAULT_ROUNDS;
    double sample =
        rv->o.sample_time ? rv->o.sample_time : HVB_GATE_DEFAULT_SAMPLE_S;
    double ft = atof(rv->o.flame_time);

    switch ( k )
    {
    case STEP_SIM:
        return SIM_START_S + SIM_CELL_S * (double)cells;
    case STEP_TIMED:
        return PAIRS_FACTOR * pairs *
               ((double)cells * 2 * rounds * sample + 2 * WORKER_S);
    case STEP_EXPLAIN:
        return cells == 0
                   ? 0
                   : 2.0 * rv->o.flame_rounds * ((double)cells * ft + PROC_S) +
                         2.0 * rv->o.lock_rounds *
                             ((double)cells * ft + LOCK_PROC_S) +
                         2 * CG_RUN_S;
    case NR_STEPS:
        break;
    }
    return 0;
}

void hvb_review_eta_took(struct review *rv, enum review_step k, double model,
                         double seconds)
{
    rv->eta.model[k] += model;
    rv->eta.took[k] += seconds;
}

double hvb_review_eta_scaled(const struct review *rv, enum review_step k,
                             double model)
{
    return rv->eta.model[k] > 0 ? model * rv->eta.took[k] / rv->eta.model[k]
                                : model;
}

/* Line @l's cells as head's "run LINE --plan" counts them (0: unknown). */
static size_t planned(const struct review *rv, size_t l)
{
    const struct review_line *ln = &rv->lines[l];
    char **av = calloc(ln->nr + 4, sizeof(*av));
    struct hvb_exec c = {.argv = av, .timeout_s = 60, .max_out = 1u << 20};
    json_t *doc;
    size_t n = 0;

    if ( av == NULL )
        return 0;
    av[0] = (char *)rv->builds[1].bin;
    av[1] = "run";
    memcpy(av + 2, ln->words, ln->nr * sizeof(*av));
    av[ln->nr + 2] = "--plan";
    if ( hvb_exec_run(&c) == 0 && c.out != NULL &&
         (doc = json_loads(c.out, 0, NULL)) != NULL )
    {
        n = (size_t)json_integer_value(json_object_get(doc, "cells"));
        json_decref(doc);
    }
    hvb_exec_free(&c);
    free(av);
    return n;
}

void hvb_review_eta_plan(struct review *rv)
{
    size_t l;

    rv->eta.cells = calloc(rv->nr_lines + 1, sizeof(*rv->eta.cells));
    for ( l = 0; rv->eta.cells != NULL && l < rv->nr_lines; l++ )
        rv->eta.cells[l] = planned(rv, l);
}
