/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Joining the results of "run --shard K/N" (hvb/shard.h) into one
 * document that compare, gate and report read like any other.
 *
 * Every shard must come from the same command line (less --shard, --out,
 * --quiet and --format, which differ between shards or do not change a
 * measurement), the same build (version, git commit and dirty flag,
 * compiler, flags, build type) and the same run settings; the first
 * difference is exit 2 naming both files and the field.  Each cell keeps
 * the index it has in the whole matrix and gains "host" (the machine
 * that measured it) and "shard" (its K); hvbench.hosts holds each host's
 * environment ledger and counter probe, hvbench.merged what was joined:
 *
 *   "merged": {"n": 4, "cells_total": 48, "cells": 36,
 *              "shards": [{"k": 1, "file": "shard-1.json", "host": "n1",
 *                          "cells": 12}, ...],
 *              "missing_shards": [3], "complete": false}
 *
 * A shard not given is missing (named in the output; the document is
 * still written, with what there is, and the status is 1); a cell in two
 * files is exit 2.
 */
#ifndef HVB_MERGE_H
#define HVB_MERGE_H

#include <stdbool.h>
#include <stddef.h>

struct hvb_merge_result {
    unsigned int n;        /* shards of the matrix */
    unsigned int *missing; /* the K of each missing shard (malloc'd) */
    unsigned int nr_missing;
    size_t cells, cells_total;
};

/*
 * hvb_merge_files - merge the @nr shard files @paths into @out (written
 * atomically).  Returns the exit status (0; 1 shards missing, @res says
 * which; 2 input error), having printed why on stderr.
 */
int hvb_merge_files(const char *out, char *const *paths, size_t nr, bool quiet,
                    struct hvb_merge_result *res);

void hvb_merge_result_free(struct hvb_merge_result *res);

struct hvb_cmd_ctx;
struct hvb_cmd_doc;

/* "hvbench merge SHARD.json... --out FILE" (cmd_merge.c). */
int hvb_cmd_merge(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_merge;

#endif /* HVB_MERGE_H */
