/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The twobuild room's commands (harness/twobuild/): gate's form "gate
 * --base-bin" (two builds paired in one run; the gate of two results
 * files is the gate room's), and the hidden worker each build runs for
 * it.
 */
#ifndef HVB_TWOBUILD_H
#define HVB_TWOBUILD_H

/* gate --base-bin's pairs before its first look (--pairs). */
#define HVB_GATE_DEFAULT_PAIRS    8
#define HVB_GATE_DEFAULT_ROUNDS   100   /* per cell and pair */
#define HVB_GATE_DEFAULT_SAMPLE_S 0.001 /* seconds per sample */
/* Its bounds: --pairs and --max-pairs, --rounds, --sample-time. */
#define HVB_GATE_MAX_PAIRS    1000
#define HVB_GATE_MIN_ROUNDS   3
#define HVB_GATE_MAX_ROUNDS   10000
#define HVB_GATE_MIN_SAMPLE_S 0.0001
#define HVB_GATE_MAX_SAMPLE_S 10.0

struct hvb_cmd_ctx;
struct hvb_cmd_doc;

/* "hvbench gate --base-bin OLD ... -- WORKLOAD": gate's second form. */
int hvb_cmd_gate_bin(struct hvb_cmd_ctx *ctx);
/* "hvbench worker WORKLOAD [run options]" (hidden: the gate runs it). */
int hvb_cmd_worker(struct hvb_cmd_ctx *ctx);

/* gate's second form, and the worker's. */
extern const struct hvb_cmd_doc hvb_doc_gate_bin, hvb_doc_worker;

#endif /* HVB_TWOBUILD_H */
