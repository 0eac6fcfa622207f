/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The option loop of a command that takes files and a few flags
 * ("merge OUT.json SHARD.json... [-q]", "compare --hosts RUN.json...").
 */
#ifndef HVB_CLI_FILES_H
#define HVB_CLI_FILES_H

#include <stddef.h>
#include <stdio.h>

#include <hvb/cmdline.h>

#define HVB_FILES_GO_ON (-1)

/*
 * hvb_cli_files - parse @argv with @doc's rows (typed rows only, their
 * fields in @state; --help prints @doc's help on stdout), the positional
 * arguments to @files (malloc'd, free it).  HVB_FILES_GO_ON to carry
 * on, or the exit status to return (help: 0, a bad option: 2, out of
 * memory: 1), @files then freed.
 */
int hvb_cli_files(int argc, char **argv, const char *cmd,
                  const struct hvb_cmd_doc *doc, void *state, char ***files,
                  size_t *nr);

#endif /* HVB_CLI_FILES_H */
