/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command line: subcommands, exit codes, one-line errors and a small
 * option parser ("--name value", "--name=value", "-h").
 */
#ifndef HVB_CLI_H
#define HVB_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HVB_EXIT_OK         0
#define HVB_EXIT_FAIL       1 /* a run failed */
#define HVB_EXIT_USAGE      2 /* usage or input error */
#define HVB_EXIT_REGRESSION 1 /* gate: a regression */
#define HVB_EXIT_UNSTABLE   3 /* gate: too unstable to judge */

/* "hvbench: <message>" on stderr; return HVB_EXIT_USAGE / _FAIL. */
int hvb_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int hvb_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Top-level help. */
void hvb_cli_help(FILE *f);

struct hvb_optdef {
    const char *name; /* long name without "--" */
    char short_name;  /* or 0 */
    bool has_arg;
    int id; /* > 0 */
};

/* Parser state over argv[1..argc) of a subcommand. */
struct hvb_optparse {
    int argc;
    char **argv;
    int i;
    bool only_positional; /* after "--" */
    const char *cmd;      /* "run", for messages */
};

#define HVB_OPT_POSITIONAL 0
#define HVB_OPT_DONE       (-1)
#define HVB_OPT_ERROR      (-2)

/*
 * hvb_getopt - the next option: its id with its value in @val (NULL if it
 * takes none), HVB_OPT_POSITIONAL with the argument in @val, HVB_OPT_DONE,
 * or HVB_OPT_ERROR after printing the problem.
 */
int hvb_getopt(struct hvb_optparse *p, const struct hvb_optdef *defs,
               const char **val);

/* Parse helpers; false after printing "hvbench: bad value ..." */
bool hvb_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
                   uint64_t *out);
bool hvb_parse_seconds(const char *opt, const char *s, double min, double max,
                       double *out);
/*
 * Which of @names (NULL-terminated, e.g. {"none", "callgrind", NULL}) @s
 * is, into *@out; else "bad value 'x' for --instrument (none or
 * callgrind)".
 */
bool hvb_parse_choice(const char *opt, const char *s, const char *const *names,
                      int *out);

/* Subcommands: argv[0] is the subcommand's name.  Return an exit code. */
int hvb_cmd_list(int argc, char **argv);
int hvb_cmd_run(int argc, char **argv, int full_argc, char **full_argv);
int hvb_cmd_lockstat(int argc, char **argv, int full_argc, char **full_argv);
int hvb_cmd_profile(int argc, char **argv, int full_argc, char **full_argv);
int hvb_cmd_report(int argc, char **argv, int full_argc, char **full_argv);
int hvb_cmd_compare(int argc, char **argv);
int hvb_cmd_gate(int argc, char **argv);
/* shards of a run matrix and the Slurm engine (issue 16) */
int hvb_cmd_merge(int argc, char **argv);
int hvb_cmd_fleet(int argc, char **argv, int full_argc, char **full_argv);
/* cmd_reproduce.c: each seed's claims beside the figures measured here */
int hvb_cmd_reproduce(int argc, char **argv);
/* xenstored/cmd.c: the model's store behind the xenstore wire protocol */
int hvb_cmd_xenstored(int argc, char **argv);

#endif /* HVB_CLI_H */
