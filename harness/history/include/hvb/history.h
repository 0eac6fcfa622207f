/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The history room: "hvbench history record|detect|publish|..." (issue
 * 22), a series per benchmark cell, metric and kind (the absolute figure
 * of a run, or the paired ratio of a review against its base) kept in
 * SQLite or PostgreSQL, and change points found in them by E-divisive
 * means.
 */
#ifndef HVB_HISTORY_H
#define HVB_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hvb/changes.h>
#include <hvb/cmdline.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "hvbench history SUB ...": its sub-commands' rows and its own doc. */
extern const struct hvb_cmd hvb_history_subs[];
extern const struct hvb_cmd_doc hvb_doc_history;

#ifdef __cplusplus
}
#endif

#endif /* HVB_HISTORY_H */
