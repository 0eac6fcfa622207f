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
#include <stddef.h>
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
 * shell completion all read these rows, so an option is one row: a typed
 * row (HVB_OPT_STR, _UINT, _CHOICE, ...) names the field of the
 * command's state its value goes to, and hvb_opt_parse() checks and
 * stores it there (HVB_OPT_CALL: a function of the command's, for the
 * few whose value is not one field).  A row with no name continues with the table @also (rows shared between
 * commands); with HVB_OPTF_UNLISTED those are parsed but not shown
 * (compare knows gate's options only to say they are gate's).  The
 * table ends at HVB_OPT_END.
 *
 * E.g. with "struct st { unsigned int reps; const char *out; }":
 *
 *   HVB_OPT_UINT("repetitions", 'r', "N", struct st, reps, 1, 1000,
 *                "repetitions per cell (default 5)"),
 *   HVB_OPT_STR("out", 'o', "FILE", struct st, out, "write FILE"),
 *
 * "-r 7 --out=x.json" sets reps = 7 and out = "x.json"; "-r 0" prints
 * "hvbench: bad value '0' for --repetitions (an integer in [1, 1000];
 * k/M/G suffixes multiply by 1000)" and is HVB_OPT_ERROR.  A field of
 * the wrong type is a compiler warning (an error with -Werror).  Each
 * typed macro takes more of the row's fields at its end: ".flags =
 * HVB_OPTF_PARENT", ".elsewhere = "--markdown is a gate option"".
 */
enum hvb_optstore {
    HVB_OPTS_NONE = 0, /* no option: HVB_OPT_ALSO's link, HVB_OPT_END */
    HVB_OPTS_HELP,     /* print the form's help (hvb_optparse.doc) */
    HVB_OPTS_STR,      /* const char *: the value itself */
    HVB_OPTS_TRUE,     /* bool: set (a flag) */
    HVB_OPTS_FALSE,    /* bool: cleared (a "--no-..." flag) */
    HVB_OPTS_UINT,     /* unsigned int in [min, max] */
    HVB_OPTS_U64,      /* uint64_t in [min, max] */
    HVB_OPTS_I64,      /* int64_t in [min, max] (min >= 0) */
    HVB_OPTS_SECONDS,  /* double in [dmin, dmax]: "0.5" or "0.5s" */
    HVB_OPTS_PCT,      /* double: "5%" or "5" -> 0.05 */
    HVB_OPTS_CHOICE,   /* int (an enum): the index of the value in choices */
    HVB_OPTS_CALL,     /* call(state, "--name", value): false having said why */
};

struct hvb_optdef {
    const char *name; /* long name without "--" */
    char short_name;  /* or 0 */
    const char *arg;  /* its value, as the help names it, or NULL: a flag */
    const char *help; /* one paragraph, unwrapped: "(default 5)" in it */
    const struct hvb_optdef *also;
    unsigned int flags;
    enum hvb_optstore store;
    size_t off; /* the field's offset in the command's state */
    uint64_t min, max;
    double dmin, dmax;
    const char *const *choices; /* NULL-ended, also for completion */
    bool (*call)(void *state, const char *opt, const char *val);
    /*
     * Reached through an HVB_OPT_UNLISTED table: the error to print (the
     * option is another command's), or NULL for "--NAME is not an
     * option of CMD".
     */
    const char *elsewhere;
};
#define HVB_OPTF_UNLISTED 1u
#define HVB_OPTF_PARENT   2u /* run: not passed to a --processes child */

/* offsetof(T, f), with a warning if f is not of type @type. */
#define HVB_OPT_FIELD_(T, f, type) \
    (offsetof(T, f) + 0 * sizeof((type *){&((T *)0)->f}))
/* offsetof(T, f) of an enum or int field f. */
#define HVB_OPT_INTFIELD_(T, f) \
    (offsetof(T, f) +           \
     0 * sizeof(char[sizeof(((T *)0)->f) == sizeof(int) ? 1 : -1]))

#define HVB_OPT_STR(name_, s, arg_, T, f, help_, ...)                     \
    {                                                                     \
        .name = name_, .short_name = s, .arg = arg_, .help = help_,       \
        .store = HVB_OPTS_STR, .off = HVB_OPT_FIELD_(T, f, const char *), \
        __VA_ARGS__                                                       \
    }
#define HVB_OPT_SET(name_, s, T, f, help_, ...)                                \
    {                                                                          \
        .name = name_, .short_name = s, .help = help_, .store = HVB_OPTS_TRUE, \
        .off = HVB_OPT_FIELD_(T, f, bool), __VA_ARGS__                         \
    }
#define HVB_OPT_CLEAR(name_, s, T, f, help_, ...)                   \
    {                                                               \
        .name = name_, .short_name = s, .help = help_,              \
        .store = HVB_OPTS_FALSE, .off = HVB_OPT_FIELD_(T, f, bool), \
        __VA_ARGS__                                                 \
    }
#define HVB_OPT_UINT(name_, s, arg_, T, f, lo, hi, help_, ...)             \
    {                                                                      \
        .name = name_, .short_name = s, .arg = arg_, .help = help_,        \
        .store = HVB_OPTS_UINT, .off = HVB_OPT_FIELD_(T, f, unsigned int), \
        .min = lo, .max = hi, __VA_ARGS__                                  \
    }
#define HVB_OPT_U64(name_, s, arg_, T, f, lo, hi, help_, ...)         \
    {                                                                 \
        .name = name_, .short_name = s, .arg = arg_, .help = help_,   \
        .store = HVB_OPTS_U64, .off = HVB_OPT_FIELD_(T, f, uint64_t), \
        .min = lo, .max = hi, __VA_ARGS__                             \
    }
#define HVB_OPT_I64(name_, s, arg_, T, f, lo, hi, help_, ...)        \
    {                                                                \
        .name = name_, .short_name = s, .arg = arg_, .help = help_,  \
        .store = HVB_OPTS_I64, .off = HVB_OPT_FIELD_(T, f, int64_t), \
        .min = lo, .max = hi, __VA_ARGS__                            \
    }
#define HVB_OPT_SECONDS(name_, s, arg_, T, f, lo, hi, help_, ...)       \
    {                                                                   \
        .name = name_, .short_name = s, .arg = arg_, .help = help_,     \
        .store = HVB_OPTS_SECONDS, .off = HVB_OPT_FIELD_(T, f, double), \
        .dmin = lo, .dmax = hi, __VA_ARGS__                             \
    }
#define HVB_OPT_PCT(name_, s, arg_, T, f, help_, ...)               \
    {                                                               \
        .name = name_, .short_name = s, .arg = arg_, .help = help_, \
        .store = HVB_OPTS_PCT, .off = HVB_OPT_FIELD_(T, f, double), \
        __VA_ARGS__                                                 \
    }
#define HVB_OPT_CHOICE(name_, s, arg_, T, f, names, help_, ...)     \
    {                                                               \
        .name = name_, .short_name = s, .arg = arg_, .help = help_, \
        .store = HVB_OPTS_CHOICE, .off = HVB_OPT_INTFIELD_(T, f),   \
        .choices = names, __VA_ARGS__                               \
    }
#define HVB_OPT_CALL(name_, s, arg_, fn, help_, ...)                \
    {                                                               \
        .name = name_, .short_name = s, .arg = arg_, .help = help_, \
        .store = HVB_OPTS_CALL, .call = fn, __VA_ARGS__             \
    }
#define HVB_OPT_HELP                                            \
    {                                                           \
        .name = "help", .short_name = 'h', .help = "this help", \
        .store = HVB_OPTS_HELP                                  \
    }
#define HVB_OPT_ALSO(table) \
    {                       \
        .also = table       \
    }
#define HVB_OPT_UNLISTED(table)                   \
    {                                             \
        .also = table, .flags = HVB_OPTF_UNLISTED \
    }
#define HVB_OPT_END  \
    {                \
        .name = NULL \
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
 * made of: one row of the command table (a command, a sub-command or a
 * form).
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

/*
 * A row of the command table (Linux perf's struct cmd_struct; the table
 * is the cli room's, harness/cli/commands.c): a command, or one of the
 * rows of its @subs, which are either all sub-commands or all forms:
 *
 * - a sub-command is picked by the word after the command: "history
 *   detect" runs the row "detect" of history's @subs, its argv starting
 *   at "detect";
 * - a form (HVB_CMD_FORM) is picked by its option given before any
 *   "--": "gate --base-bin OLD ..." runs the row "--base-bin" of gate's
 *   @subs with the whole command line; without one, the command's own
 *   @fn runs.
 *
 * hvb_cmd_dispatch() reads them; the help, the manual pages, the shell
 * completion and the docs test walk the same rows, so adding a
 * sub-command is one row and one function.
 */
struct hvb_cmd {
    const char *name; /* "history", "detect", or a form's "--base-bin" */
    int (*fn)(struct hvb_cmd_ctx *ctx); /* NULL: a sub-command is needed */
    const char *summary; /* one line: top-level help, man NAME, sub lists */
    const struct hvb_cmd_doc *doc;
    const struct hvb_cmd *subs; /* sub-commands or forms, NULL name ends */
    unsigned int flags;
};
#define HVB_CMD_HIDDEN 1u /* not listed: internal (worker) */
#define HVB_CMD_FORM   2u /* a form, picked by the option @name */

/* What a command is given. */
struct hvb_cmd_ctx {
    const struct hvb_cmd *cmd; /* the row that runs */
    char name[64];             /* "history detect", "gate", for messages */
    int argc;                  /* argv[0] is the (sub-)command's name */
    char **argv;
    int full_argc; /* hvbench's whole command line, for the results */
    char **full_argv;
};

/*
 * hvb_cmd_dispatch - run command @c on @ctx (argv[0] its name): its
 * sub-command or form if it has them (a missing or unknown sub-command,
 * or "--help" in its place, answered here), else its own function.
 */
int hvb_cmd_dispatch(const struct hvb_cmd *c, struct hvb_cmd_ctx *ctx);

/* Are @c's @subs sub-commands (not forms)? */
bool hvb_cmd_has_subcommands(const struct hvb_cmd *c);

/*
 * "hvbench CMD --help" of command @c: its own form's, or for a command
 * with sub-commands the synopsis of each, the description, and each
 * sub-command's options.
 */
void hvb_cmd_print_help(FILE *f, const struct hvb_cmd *c);

/*
 * hvb_help_wrapped - the words of @s from column @col on, wrapped at 78
 * columns to column @indent, and a newline.
 */
void hvb_help_wrapped(FILE *f, int col, int indent, const char *s);

/* "hvbench CMD --help" of form @d. */
void hvb_cmd_doc_help(FILE *f, const struct hvb_cmd_doc *d);

/* @usage's lines, "usage: hvbench " before the first (*@first). */
void hvb_help_usage(FILE *f, const char *usage, bool *first);

/* @d's option rows, one a line, and the command it takes those of. */
void hvb_cmd_doc_options(FILE *f, const struct hvb_cmd_doc *d);

/* Parser state over argv[1..argc) of a subcommand. */
struct hvb_optparse {
    int argc;
    char **argv;
    int i;
    bool only_positional; /* after "--" */
    const char *cmd;      /* "run", for messages */
    /* hvb_opt_parse: --help prints this form's help (and HELP_SHOWN). */
    const struct hvb_cmd_doc *doc;
};

#define HVB_OPT_POSITIONAL 0
#define HVB_OPT_ROW        1 /* hvb_opt_next: an option of the rows */
#define HVB_OPT_DONE       (-1)
#define HVB_OPT_ERROR      (-2)
#define HVB_OPT_HELP_SHOWN (-3) /* hvb_opt_parse: --help printed: exit 0 */

/*
 * hvb_opt_next - the next argument, not stored: HVB_OPT_ROW with the row
 * in @row and its value in @val (NULL if it takes none),
 * HVB_OPT_POSITIONAL with the argument in @val, HVB_OPT_DONE, or
 * HVB_OPT_ERROR after printing the problem.  For a parser that sorts
 * the options before they are stored (run's --processes parent).
 */
int hvb_opt_next(struct hvb_optparse *p, const struct hvb_optdef *defs,
                 const struct hvb_optdef **row, const char **val);

/*
 * hvb_opt_parse - read options until the next one the command must see:
 * each typed row's value is checked and stored in @state (the struct the
 * rows' fields belong to), --help is printed from p->doc.  Returns
 * HVB_OPT_POSITIONAL (@val), HVB_OPT_DONE, HVB_OPT_HELP_SHOWN, or
 * HVB_OPT_ERROR having said why.
 */
int hvb_opt_parse(struct hvb_optparse *p, const struct hvb_optdef *defs,
                  void *state, const char **val);

/* Parse helpers; false after printing "hvbench: bad value ..." */
/* A number as hv/num.h reads it ("2k" is 2000), in [@min, @max]. */
bool hvb_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
                   uint64_t *out);
bool hvb_parse_seconds(const char *opt, const char *s, double min, double max,
                       double *out);
/* A plain decimal number strictly between @lo and @hi ("0.01abc": no). */
bool hvb_parse_real(const char *opt, const char *s, double lo, double hi,
                    double *out);

/*
 * hvb_opt_take - does @argv[*@i] name a typed row of @defs ("--out DIR",
 * "--out=DIR", "-o DIR")?  Then its value is stored in @state (*@i past
 * a separate value) and 1 returned; 0 if it is no row of @defs (left to
 * another parser: profile passes run's options on); HVB_OPT_HELP_SHOWN
 * having printed @doc's help; HVB_OPT_ERROR having said why.
 */
int hvb_opt_take(const struct hvb_optdef *defs, const struct hvb_cmd_doc *doc,
                 void *state, int argc, char **argv, int *i);

#endif /* HVB_CMDLINE_H */
