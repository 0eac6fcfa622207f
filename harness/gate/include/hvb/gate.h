/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The gate room's commands (harness/gate/): compare and gate of two
 * results files (cmd_compare.c); gate --base-bin of two builds paired in
 * one run is the twobuild room's (hvb/twobuild.h).  The statistics of
 * two results are hvb/compare.h.
 */
#ifndef HVB_GATE_H
#define HVB_GATE_H

#include <jansson.h>

struct hvb_cmd_ctx;
struct hvb_cmd_doc;
struct hvb_cmp;

int hvb_cmd_compare(struct hvb_cmd_ctx *ctx);
/* gate of two results files (its form gate --base-bin: hvb/twobuild.h). */
int hvb_cmd_gate(struct hvb_cmd_ctx *ctx);

extern const struct hvb_cmd_doc hvb_doc_compare, hvb_doc_gate;

/* The JSON view of comparison @c (compare --format json; report's). */
json_t *hvb_cmp_json(const struct hvb_cmp *c);

#endif /* HVB_GATE_H */
