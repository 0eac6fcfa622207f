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

#include <hvb/matrix.h>

/* profile_diff.c: "profile --diff SLOT=A,B". */

/* The slot axis index and labels A, B of --diff @spec; -1 if malformed. */
int hvb_profile_diff_parse(const struct hvb_matrix *m, const char *spec,
                           size_t *slot, char *a, char *b, size_t len);

/* Do cells @x and @y differ in slot axis @slot alone? */
bool hvb_profile_same_but(const struct hvb_mcell *x, const struct hvb_mcell *y,
                          size_t slot);

/* 0, or the exit status (the message printed) for a bad --diff @diff. */
int hvb_profile_diff_check(const char *diff, const struct hvb_matrix *m);

#endif /* HVB_CLI_PRIVATE_H */
