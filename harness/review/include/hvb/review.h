/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The review room (harness/review/): what a patch did, in one command.
 * "hvbench review [BASE] [HEAD]" builds both revisions in the build
 * cache (the builds room, hvb/builds.h), gates every cell of a suite on
 * the two builds paired (the gate room's "gate --base-bin", run per
 * suite line), and explains the cells that moved: a differential flame
 * graph of the two builds (review_flame.c), a lock table delta
 * (review_locks.c) and a per-function instruction diff from callgrind
 * (hvb/irdiff.h) with its lines; cmd_review.c
 * sequences it and writes review.json, review.md and index.html.
 */
#ifndef HVB_REVIEW_H
#define HVB_REVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include <hvb/builds.h>

#include <jansson.h>

struct hvb_cmd_ctx;
struct hvb_cmd_doc;

/* "hvbench review [BASE] [HEAD] [--suite FILE | -- WORKLOAD ...]". */
int hvb_cmd_review(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_review;

/*
 * hvb_review_fdr - Benjamini-Hochberg at false discovery rate @q over
 * every cell of every gate document in @gates (each gate's "cells", a
 * cell's "p_beyond": the gate's p-value of a change beyond its
 * threshold, 1 where absent; hvb_bh_cut()).  A cell called "regressed"
 * or "improved" whose p_beyond is above the cut becomes "unknown", its
 * gate's verdict kept as "verdict_gate" and the reason as "why".  Every
 * cell counts as a hypothesis, "same" ones too.  Example: 20 cells at
 * q 0.05, p_beyond 0.0001, 0.0002, 0.03 (all "regressed") and 17 cells
 * "same" at 1: the cut is 0.0002 (0.03 > 3 * 0.05 / 20), so the third
 * cell becomes "unknown"; alone, it would stay "regressed".  Returns the
 * number of cells (0 out of memory).
 */
size_t hvb_review_fdr(json_t *gates, double q);

#endif /* HVB_REVIEW_H */
