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

#include <stdbool.h>
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

/*
 * hvb_folded_sample_chain - sample @r's frames (hvb/sampler.h's record)
 * into @chain, innermost first, at most @max: the leaf, its caller where
 * the frame walk skipped it (hvb_symbols_leaf_caller()), the rest.
 * Returns their number.
 */
size_t hvb_folded_sample_chain(struct hvb_symbols *sym, const uint64_t *r,
                               uint64_t *chain, size_t max);

/*
 * hvb_folded_pair_name - the file name part for slugs @a -> @b:
 * "A--vs--B", or where that is longer than HVB_FOLDED_NAME_MAX (a file
 * name has 255 bytes, the drawing adds suffixes), A cut to half of it,
 * the part of B that differs from A (a slot's plugin, mostly) and a hash
 * of B, e.g. "boot-storm_..._quota=hashtbl-copy_...--vs--persistent-1a2b3c4d".
 */
#define HVB_FOLDED_NAME_MAX 180
void hvb_folded_pair_name(const char *a, const char *b, char *out, size_t len);

/* One stack line ("root;...;leaf") and its weight, while a file is made. */
struct hvb_folded_line {
    char *stack;
    double weight;
};

/*
 * hvb_folded_stack - @chain[0..nf) (innermost first) named through @sym,
 * root first, joined by ';', then @leaf if not NULL: a malloc'd line, or
 * NULL.  @chain[0] is an instruction pointer when @leaf_ip (a sample),
 * else a return address like the rest (a walked stack).
 */
char *hvb_folded_stack(struct hvb_symbols *sym, const uint64_t *chain,
                       size_t nf, bool leaf_ip, const char *leaf);

/*
 * Append @stack (taken; NULL: out of memory) with @weight to @v (@nr
 * used, @cap allocated).  0 or -ENOMEM (@stack freed).
 */
int hvb_folded_push(struct hvb_folded_line **v, size_t *nr, size_t *cap,
                    char *stack, double weight);

/*
 * hvb_folded_emit - sort @v, merge equal stacks (weights summed) and
 * write them to @path atomically: weights as integers when @integral
 * (sample counts), else with 4 decimals (ns per op).  0 or -errno.
 */
int hvb_folded_emit(const char *path, struct hvb_folded_line *v, size_t nr,
                    bool integral);

void hvb_folded_free(struct hvb_folded_line *v, size_t nr);

#endif /* HVB_FOLDED_H */
