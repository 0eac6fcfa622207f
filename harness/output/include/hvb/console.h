/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Console output of a run: the machine context and notes (stderr), the
 * table of cells (stdout: data), and noise warnings (stderr).
 */
#ifndef HVB_CONSOLE_H
#define HVB_CONSOLE_H

#include <stdio.h>

#include <jansson.h>

#include <hvb/matrix.h>
#include <hvb/summary.h>

/* CV at or above this is reported as noisy (as hyperfine/pyperf do). */
#define HVB_NOISY_CV 0.10

/* Counters shown per row of the table. */
#define HVB_CONSOLE_COUNTERS 8

/*
 * One line on the machine from Google Benchmark's context object, plus
 * one-line notes: a debug-built library, CPU frequency scaling.
 */
void hvb_console_context(FILE *err, const json_t *context);

/*
 * The table: one row per cell with its median ns/op, CV, iterations per
 * repetition, the ratio of its median to its group's reference (the
 * first plugin combination), and its non-zero counters.
 */
void hvb_console_table(FILE *out, const struct hvb_matrix *m,
                       const struct hvb_summary *s);

/* One line per noisy cell and per failed cell. */
void hvb_console_warnings(FILE *err, const struct hvb_matrix *m,
                          const struct hvb_summary *s);

#endif /* HVB_CONSOLE_H */
