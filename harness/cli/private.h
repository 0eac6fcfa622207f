/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cli room (harness/cli/): the hvbench command line.  main.c checks
 * the registries and dispatches through the table of commands
 * (commands.c, hvb/cli.h); the commands too small for a room of their
 * own live here: list, report, profile (with profile_diff.c), lockstat,
 * help (cmd_docs.c, also the man pages) and completion.  Each feature
 * has a room below this one (docs/hacking.md, "A tour of the tree"):
 * cmdline (the option rows and their parser), session (run), fleet
 * (fleet, merge, compare --hosts), gate (compare, gate, worker) and
 * reproduce.  This room is the only one that sees every other.
 *
 * This header holds what the room's files share among themselves.
 */
#ifndef HVB_CLI_PRIVATE_H
#define HVB_CLI_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <hv/lockstat.h>
#include <hvb/matrix.h>
#include <hvb/symbols.h>
#include <hvb/wait_folded.h>

/* profile_diff.c: "profile --diff SLOT=A,B". */

/* The slot axis index and labels A, B of --diff @spec; -1 if malformed. */
int hvb_profile_diff_parse(const struct hvb_matrix *m, const char *spec,
                           size_t *slot, char *a, char *b, size_t len);

/* Do cells @x and @y differ in slot axis @slot alone? */
bool hvb_profile_same_but(const struct hvb_mcell *x, const struct hvb_mcell *y,
                          size_t slot);

/* 0, or the exit status (the message printed) for a bad --diff @diff. */
int hvb_profile_diff_check(const char *diff, const struct hvb_matrix *m);

/* profile_wait.c: "profile --view wait". */

struct hvb_wait_view {
    struct hv_lockstat_stack *stacks;
    size_t nr_stacks;
    struct hv_lockstat_row *rows; /* lockstat's, of the same run */
    size_t nr_rows;
    uint64_t dropped, stacks_dropped; /* acquisitions, waits not recorded */
};

struct hvb_wait_cell {
    struct hvb_wait_total t;
    double lockstat_ns_per_op; /* lockstat's rows of the cell, summed */
    uint64_t ops;
};

/* Reset the lock profiler and start it with its wait stacks. */
void hvb_wait_view_start(void);

/* Stop it and collect into @wv: 0, or the exit status (printed). */
int hvb_wait_view_stop(struct hvb_wait_view *wv);

/*
 * Write cell @c's (tag c + 1) wait stacks to @path, per op over its
 * @ops, into @out: 0, or the exit status (printed).
 */
int hvb_wait_view_cell(struct hvb_wait_view *wv, struct hvb_symbols *sym,
                       const char *path, size_t c, uint64_t ops,
                       struct hvb_wait_cell *out);

/* A cell's figures for results.json (cells[].profile). */
json_t *hvb_wait_view_json(const struct hvb_wait_cell *w);

void hvb_wait_view_free(struct hvb_wait_view *wv);

#endif /* HVB_CLI_PRIVATE_H */
