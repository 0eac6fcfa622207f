/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The commands of hvbench, one table (commands.c), and the commands of
 * the cli room itself.  Each feature room declares its own commands in
 * its public header (hvb/run.h, hvb/fleet.h, hvb/merge.h, hvb/hosts.h,
 * hvb/gate.h, hvb/reproduce.h); the parts every command shares are in
 * hvb/cmdline.h.
 */
#ifndef HVB_CLI_H
#define HVB_CLI_H

#include <stdio.h>

#include <hvb/cmdline.h>

extern const struct hvb_cmd hvb_commands[]; /* ends at name NULL */

/* The command called @name, or NULL. */
const struct hvb_cmd *hvb_cmd_find(const char *name);

/* "unknown command" with the commands and the closest; HVB_EXIT_USAGE. */
int hvb_cmd_unknown(const char *name);

/* Top-level help, from the table. */
void hvb_cli_help(FILE *f);

/* The cli room's commands; each returns an exit code. */
int hvb_cmd_list(struct hvb_cmd_ctx *ctx);
int hvb_cmd_lockstat(struct hvb_cmd_ctx *ctx);
int hvb_cmd_profile(struct hvb_cmd_ctx *ctx);
int hvb_cmd_report(struct hvb_cmd_ctx *ctx);
int hvb_cmd_help(struct hvb_cmd_ctx *ctx); /* also --man */
int hvb_cmd_completion(struct hvb_cmd_ctx *ctx);

extern const struct hvb_cmd_doc hvb_doc_list, hvb_doc_lockstat, hvb_doc_profile,
    hvb_doc_report, hvb_doc_help, hvb_doc_completion;

#endif /* HVB_CLI_H */
