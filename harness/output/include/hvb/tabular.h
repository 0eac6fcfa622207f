/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench run --format csv|markdown": one row per cell of a results
 * document (median, MAD, CV, min, max, n, paired ratio with CI, noise
 * flags, counter medians).
 */
#ifndef HVB_TABULAR_H
#define HVB_TABULAR_H

#include <stdio.h>

#include <jansson.h>

void hvb_tabular_csv(FILE *f, const json_t *root);
/*
 * One CSV text field: quoted, '"' doubled; one beginning with = + - @,
 * a tab or a carriage return gets a leading ' so that a spreadsheet
 * shows it and never runs it as a formula ("=HYPERLINK(...)" as a cell
 * or commit field).
 */
void hvb_csv_field(FILE *f, const char *s);
void hvb_tabular_markdown(FILE *f, const json_t *root);

#endif /* HVB_TABULAR_H */
