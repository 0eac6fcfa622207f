/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The review room (harness/review/): what a patch did, in one command.
 * "hvbench review [BASE] [HEAD]" builds both revisions in the build
 * cache (the builds room, hvb/builds.h), gates every cell of a suite on
 * the two builds paired (the gate room's "gate --base-bin", run per
 * suite line), and explains the cells that moved: a differential flame
 * graph of the two builds (review_flame.c), a lock table delta
 * (review_locks.c) and a per-function instruction diff from callgrind
 * (review_explain.c); cmd_review.c sequences it and writes review.json,
 * review.md and index.html.
 */
#ifndef HVB_REVIEW_H
#define HVB_REVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include <hvb/builds.h>

struct hvb_cmd_ctx;
struct hvb_cmd_doc;

/* "hvbench review [BASE] [HEAD] [--suite FILE | -- WORKLOAD ...]". */
int hvb_cmd_review(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_review;

#endif /* HVB_REVIEW_H */
