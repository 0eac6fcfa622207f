/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run room (harness/run/): what to run and running it.  What: the
 * workload registry (registry.c), parameter values (params.c), the
 * matrix of cells from --plugin, --param and --threads (matrix.c), the
 * cells checked and their models created (matrix_models.c), the
 * workload's view of its cell (cell.c, hvb/workload.h).  Running: the
 * engine, a C face on Google Benchmark (gbench/shim.cc, hvb/engine.h);
 * the body every measured thread runs in each engine run (runner.c: it
 * brackets the loop with measure's meter); paired rounds, every cell once
 * per round in a shuffled order (rounds.c); thread placement
 * (affinity.c), SIGINT/SIGTERM (watch.c) and the progress bar
 * (progress.c).  It sees measure below it and nothing above: output
 * formats what it produces, cli sequences it.
 *
 * E.g. "lookup --plugin domlookup=rcu-noref,rwlock-ref --threads 1,2":
 * matrix.c makes 4 cells in 2 groups (threads:1, threads:2), variant 0
 * rcu-noref; rounds.c runs each round as one engine run of the 4 cells,
 * each group's two in AB BA BA AB ... order over the rounds; runner.c
 * enters model CPU i on each measured thread i.
 *
 * This header is the room's own.  The progress bar (progress.c) is
 * public, hvb/progress.h: rounds.c draws it, and so do the cli's fleet
 * and reproduce commands.
 */
#ifndef HVB_RUN_PRIVATE_H
#define HVB_RUN_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <hvb/progress.h>

#endif /* HVB_RUN_PRIVATE_H */
