/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command line's parts that every command room shares (room cmdline,
 * harness/cmdline/): exit codes, one-line errors, the option rows and
 * their parser ("--name value", "--name=value", "-h"), a command's
 * documented forms and the help printed from them.  The table of
 * commands itself is the cli room's (hvb/cli.h).
 */
#ifndef HVB_CMDLINE_H
#define HVB_CMDLINE_H

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

/* The value of macro @x as a string, for defaults in help text. */
#define HVB_STR_(x) #x
#define HVB_STR(x)  HVB_STR_(x)

/*
 * One option of a command.  The parser, --help, the man page and the
 * shell completion all read these rows, so an option is one row (and
 * the case of its id in the command's switch).  A row with no name
 * continues with the table @also (rows shared between commands); with
 * HVB_OPTF_UNLISTED those are parsed but not shown (compare knows gate's
 * options only to say they are gate's).  The table ends at HVB_OPT_END.
 */
struct hvb_optdef {
    const char *name; /* long name without "--" */
    char short_name;  /* or 0 */
    const char *arg;  /* its value, as the help names it, or NULL: a flag */
    int id;           /* > 0 */
    const char *help; /* one paragraph, unwrapped: "(default 5)" in it */
    const struct hvb_optdef *also;
    unsigned int flags;
};
#define HVB_OPTF_UNLISTED 1u

#define HVB_OPT(name, s, arg, id, help) \
    {                                   \
        name, s, arg, id, help, NULL, 0 \
    }
#define HVB_OPT_FLAG(name, s, id, help)  \
    {                                    \
        name, s, NULL, id, help, NULL, 0 \
    }
#define HVB_OPT_HELP(id) HVB_OPT_FLAG("help", 'h', id, "this help")
#define HVB_OPT_ALSO(table)              \
    {                                    \
        NULL, 0, NULL, 0, NULL, table, 0 \
    }
#define HVB_OPT_UNLISTED(table)                          \
    {                                                    \
        NULL, 0, NULL, 0, NULL, table, HVB_OPTF_UNLISTED \
    }
#define HVB_OPT_END                     \
    {                                   \
        NULL, 0, NULL, 0, NULL, NULL, 0 \
    }

/*
 * hvb_opt_each - call @fn on each row of @defs, those of its @also tables
 * in their place (unlisted ones too when @unlisted), until @fn returns
 * true; returns that row, or NULL.
 */
const struct hvb_optdef *
hvb_opt_each(const struct hvb_optdef *defs, bool unlisted,
             bool (*fn)(const struct hvb_optdef *d, void *ctx), void *ctx);

/*
 * What "hvbench CMD --help" prints and the man page hvbench-CMD(1) is
 * made of: one form of a command (gate has two, the second "gate
 * --base-bin").
 */
struct hvb_cmd_doc {
    /*
     * The synopsis after "hvbench ", a form a line; a line that starts
     * with a blank continues the one before.
     */
    const char *usage;
    const char *text;      /* the description: paragraphs, wrapped */
    void (*more)(FILE *f); /* lines known at run time (the workloads) */
    const struct hvb_optdef *opts;
    const char *inherits; /* also takes this command's options ("run") */
    const char *notes;    /* after the options: "exit status: ..." */
};

struct hvb_cmd_ctx;

/* A command (perf's struct cmd_struct); the table is in commands.c. */
struct hvb_cmd {
    const char *name;
    int (*fn)(struct hvb_cmd_ctx *ctx);
    const char *synopsis; /* its lines in the top-level help */
    const char *summary;  /* one line, there and in the man page's NAME */
    const struct hvb_cmd_doc *const *docs; /* its forms, NULL-ended */
    unsigned int flags;
};
#define HVB_CMD_HIDDEN 1u /* not listed: internal (worker) */

/* What a command is given. */
struct hvb_cmd_ctx {
    const struct hvb_cmd *cmd;
    int argc; /* argv[0] is the command's name */
    char **argv;
    int full_argc; /* hvbench's whole command line, for the results */
    char **full_argv;
};

/*
 * hvb_help_wrapped - the words of @s from column @col on, wrapped at 78
 * columns to column @indent, and a newline.
 */
void hvb_help_wrapped(FILE *f, int col, int indent, const char *s);

/* "hvbench CMD --help" of form @d. */
void hvb_cmd_doc_help(FILE *f, const struct hvb_cmd_doc *d);

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

/*
 * hvb_opt_take - does @argv[*@i] name a row of @defs ("--out DIR",
 * "--out=DIR", "-o DIR")?  Its id with its value in @val (*@i past a
 * separate value), 0 if it is no row of @defs (left to another parser),
 * HVB_OPT_ERROR after printing that the value is missing.
 */
int hvb_opt_take(const struct hvb_optdef *defs, int argc, char **argv, int *i,
                 const char **val);

#endif /* HVB_CMDLINE_H */
