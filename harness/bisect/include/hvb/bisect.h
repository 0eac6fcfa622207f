/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bisect room: "hvbench bisect GOOD BAD -- WORKLOAD ..." (issue 22),
 * the first commit whose paired verdict against GOOD differs, by binary
 * search a review at a time (cmd_bisect.c) or k-ary on Slurm
 * (bisect_kary.c); each step a review of the kind history backfill runs
 * (room hstore, hvb/hreview.h).
 */
#ifndef HVB_BISECT_H
#define HVB_BISECT_H

struct hvb_cmd_ctx;

int hvb_cmd_bisect(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_bisect;

#endif /* HVB_BISECT_H */
