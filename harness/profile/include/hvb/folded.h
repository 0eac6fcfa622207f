/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The folded-stack writer of "hvbench profile" (FlameGraph's format: one
 * line per distinct stack, root first, frames joined by ';', then the
 * count), the input of profile/render/flamegraph.py and of the standard
 * tools.  E.g. two samples of one stack and one of another give
 *
 *   main;hvb_runner_body;lookup_thread;rcu_noref_get 2
 *   main;hvb_runner_body;lookup_thread;xorshift 1
 *
 * Lines are sorted, so two cells' files diff line by line.
 */
#ifndef HVB_FOLDED_H
#define HVB_FOLDED_H

#include <stddef.h>
#include <stdint.h>

#include <hvb/sampler.h>
#include <hvb/symbols.h>

/* @name as a file name: [A-Za-z0-9.=-] kept, anything else '_'. */
void hvb_folded_slug(const char *name, char *out, size_t len);

/*
 * hvb_folded_write - write to @path (atomically, hvb/outfile.h) the
 * stacks of @b's samples whose @owner (per sample, in order) is @c,
 * named through @sym; @samples and @mean_depth get their count and mean
 * depth.  0 or -errno.
 */
int hvb_folded_write(const char *path, const struct hvb_sample_buf *b,
                     struct hvb_symbols *sym, const size_t *owner, size_t c,
                     uint64_t *samples, double *mean_depth);

#endif /* HVB_FOLDED_H */
