/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench help [--man] [COMMAND]" and "hvbench completion bash": the
 * help, the manual pages (roff: hvbench(1), hvbench-COMMAND(1)) and the
 * bash completion, all from the command table and the option rows
 * (hvb/cli.h).  The build writes them with "help --man-dir DIR" and
 * "completion bash" (harness/CMakeLists.txt: build/man/man1/,
 * build/completion/hvbench).  The completion script asks "hvbench
 * completion words ..." at completion time for the registry's names.
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hv/plugin_registry.h>
#include <hvb/buildinfo.h>
#include <hvb/cli.h>
#include <hvb/registry.h>

#include <hvb/workload.h>

/* roff text: '-' as \-, '\' as \e, no line starting with '.' or '\''. */
static void roff_text(FILE *f, const char *s, size_t n)
{
    bool bol = true;
    size_t i;

    for ( i = 0; i < n && s[i] != '\0'; i++ )
    {
        if ( bol && (s[i] == '.' || s[i] == '\'') )
            fputs("\\&", f);
        bol = s[i] == '\n';
        if ( s[i] == '-' )
            fputs("\\-", f);
        else if ( s[i] == '\\' )
            fputs("\\e", f);
        else
            fputc(s[i], f);
    }
}

static void roff_str(FILE *f, const char *s)
{
    roff_text(f, s, strlen(s));
}

/*
 * Paragraphs of @s (blank-line separated): one whose lines start with a
 * blank is kept as it is laid out (.nf), the others filled.
 */
static void roff_paras(FILE *f, const char *s)
{
    while ( *s != '\0' )
    {
        const char *end = strstr(s, "\n\n");
        size_t n = end ? (size_t)(end - s) : strlen(s);

        fputs(s[0] == ' ' ? ".PP\n.nf\n" : ".PP\n", f);
        roff_text(f, s, n);
        fputs(s[0] == ' ' ? "\n.fi\n" : "\n", f);
        s += n;
        while ( *s == '\n' )
            s++;
    }
}

/* What @fn writes, as roff paragraphs. */
static void roff_more(FILE *f, void (*fn)(FILE *f))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);

    if ( m == NULL )
        return;
    fn(m);
    fclose(m);
    fputs(".PP\n.nf\n", f);
    roff_str(f, buf);
    fputs(".fi\n", f);
    free(buf);
}

static bool roff_row(const struct hvb_optdef *d, void *ctx)
{
    FILE *f = ctx;

    fputs(".TP\n", f);
    if ( d->short_name )
        fprintf(f, "\\fB\\-%c\\fR, ", d->short_name);
    fputs("\\fB\\-\\-", f);
    roff_str(f, d->name);
    fputs("\\fR", f);
    if ( d->arg != NULL )
    {
        fputs(" \\fI", f);
        roff_str(f, d->arg);
        fputs("\\fR", f);
    }
    fputc('\n', f);
    roff_str(f, d->help ? d->help : "");
    fputc('\n', f);
    return false;
}

static void roff_synopsis(FILE *f, const char *usage)
{
    const char *s = usage;

    fputs(".nf\n", f);
    while ( *s != '\0' )
    {
        size_t n = strcspn(s, "\n");

        if ( s[0] != ' ' )
            fputs("\\fBhvbench\\fR ", f);
        roff_text(f, s, n);
        fputc('\n', f);
        s += n;
        if ( *s == '\n' )
            s++;
    }
    fputs(".fi\n", f);
}

static void roff_header(FILE *f, const char *page, const char *name,
                        const char *summary)
{
    fprintf(f,
            ".TH %s 1 \"\" \"hvbench %s\" \"hvbench manual\"\n.nh\n.ad l\n"
            ".SH NAME\n",
            page, hvb_version());
    roff_str(f, name);
    fputs(" \\- ", f);
    roff_str(f, summary);
    fputc('\n', f);
}

/* A section of hvbench-CMD(1): a form's or sub-command's doc @d. */
static void man_section(FILE *f, const struct hvb_cmd_doc *d, bool first)
{
    if ( d->text != NULL )
        roff_paras(f, d->text);
    if ( d->more != NULL )
        roff_more(f, d->more);
    if ( d->opts != NULL )
    {
        fputs(first ? ".SH OPTIONS\n" : ".SS Options\n", f);
        hvb_opt_each(d->opts, false, roff_row, f);
    }
    if ( d->inherits != NULL )
        fprintf(f, ".PP\nAnd the options of \\fBhvbench\\-%s\\fR(1).\n",
                d->inherits);
    if ( d->notes != NULL )
        roff_paras(f, d->notes);
}

/*
 * hvbench-CMD(1): the synopsis of each form or sub-command, the
 * description, then a section per form or sub-command ("gate
 * --base-bin", "history record").
 */
static void man_cmd(FILE *f, const struct hvb_cmd *c)
{
    const struct hvb_cmd *s;
    char page[64], name[64];
    size_t i;

    snprintf(name, sizeof(name), "hvbench-%s", c->name);
    for ( i = 0; name[i] != '\0' && i < sizeof(page) - 1; i++ )
        page[i] =
            name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i];
    page[i] = '\0';
    roff_header(f, page, name, c->summary);
    fputs(".SH SYNOPSIS\n", f);
    if ( c->doc->usage != NULL )
        roff_synopsis(f, c->doc->usage);
    for ( s = c->subs; s != NULL && s->name != NULL; s++ )
        roff_synopsis(f, s->doc->usage);
    fputs(".SH DESCRIPTION\n", f);
    man_section(f, c->doc, true);
    for ( s = c->subs; s != NULL && s->name != NULL; s++ )
    {
        fprintf(f, ".SH \"%s ", c->name);
        roff_str(f, s->name);
        fputs("\"\n", f);
        man_section(f, s->doc, false);
    }
    fputs(".SH SEE ALSO\n\\fBhvbench\\fR(1)", f);
    if ( c->doc->inherits != NULL )
        fprintf(f, ", \\fBhvbench\\-%s\\fR(1)", c->doc->inherits);
    for ( s = c->subs; s != NULL && s->name != NULL; s++ )
        if ( s->doc->inherits != NULL &&
             (s == c->subs ? !c->doc->inherits : !s[-1].doc->inherits) )
            fprintf(f, ", \\fBhvbench\\-%s\\fR(1)", s->doc->inherits);
    fputc('\n', f);
}

/* hvbench(1). */
static void man_top(FILE *f)
{
    const struct hvb_cmd *c;

    roff_header(f, "HVBENCH", "hvbench",
                "a benchmark suite around a reference hypervisor model");
    fputs(".SH SYNOPSIS\n.nf\n\\fBhvbench\\fR \\fICOMMAND\\fR [options]\n"
          "\\fBhvbench\\fR \\-\\-help | \\-\\-version\n.fi\n"
          ".SH DESCRIPTION\n"
          ".PP\nRun workloads of a compact Xen-like hypervisor model under "
          "switchable strategy plugins (domain lookup, quota, allocators), "
          "measure every cell of plugins x params x threads with paired, "
          "interleaved rounds, and compare or gate the results.\n"
          ".PP\nData goes to stdout; progress, notes and errors go to "
          "stderr.\n"
          ".SH COMMANDS\n",
          f);
    for ( c = hvb_commands; c->name != NULL; c++ )
    {
        if ( c->flags & HVB_CMD_HIDDEN )
            continue;
        fprintf(f, ".TP\n\\fBhvbench\\-%s\\fR(1)\n", c->name);
        roff_str(f, c->summary);
        fputc('\n', f);
    }
    fputs(".SH OPTIONS\n.TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nthe commands\n"
          ".TP\n\\fB\\-\\-version\\fR\nthe version, git commit and build type\n"
          ".SH \"EXIT STATUS\"\n.PP\n0 success, 1 a run failed (gate: a "
          "regression), 2 usage or input error, 3 (gate) too unstable to "
          "judge.\n"
          ".SH SEE ALSO\n",
          f);
    for ( c = hvb_commands; c->name != NULL; c++ )
        if ( !(c->flags & HVB_CMD_HIDDEN) )
            fprintf(f, "%s\\fBhvbench\\-%s\\fR(1)",
                    c == hvb_commands ? "" : ", ", c->name);
    fputc('\n', f);
}

/* Every page into @dir/hvbench*.1. */
static int man_dir(const char *dir)
{
    const struct hvb_cmd *c;
    char path[4096];
    FILE *f;

    if ( mkdir(dir, 0777) && errno != EEXIST )
        return hvb_failure("help: cannot create '%s': %s", dir,
                           strerror(errno));
    for ( c = NULL;; c = c ? c + 1 : hvb_commands )
    {
        if ( c != NULL && c->name == NULL )
            break;
        if ( c != NULL && (c->flags & HVB_CMD_HIDDEN) )
            continue;
        snprintf(path, sizeof(path), "%s/hvbench%s%s.1", dir, c ? "-" : "",
                 c ? c->name : "");
        f = fopen(path, "w");
        if ( f == NULL )
            return hvb_failure("help: cannot write '%s': %s", path,
                               strerror(errno));
        if ( c != NULL )
            man_cmd(f, c);
        else
            man_top(f);
        if ( fclose(f) )
            return hvb_failure("help: cannot write '%s': %s", path,
                               strerror(errno));
    }
    return HVB_EXIT_OK;
}

struct help_args {
    bool man;
    const char *man_dir;
};

static const struct hvb_optdef help_opts[] = {
    HVB_OPT_SET("man", 0, struct help_args, man,
                "the manual page of COMMAND (or hvbench(1)) in roff, for "
                "'man -l -'"),
    HVB_OPT_STR("man-dir", 0, "DIR", struct help_args, man_dir,
                "write every manual page into DIR as hvbench.1 and "
                "hvbench-COMMAND.1 (what the build installs)"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};

const struct hvb_cmd_doc hvb_doc_help = {
    .usage = "help [--man] [COMMAND]\nhelp --man-dir DIR",
    .text = "The top-level help, or COMMAND's (as 'hvbench COMMAND --help');\n"
            "with --man its manual page.  Help, manual pages and shell\n"
            "completion are all made from one table of commands and each\n"
            "command's option rows.",
    .opts = help_opts,
};

int hvb_cmd_help(struct hvb_cmd_ctx *ctx)
{
    struct hvb_optparse p = {.argc = ctx->argc,
                             .argv = ctx->argv,
                             .i = 1,
                             .cmd = "help",
                             .doc = &hvb_doc_help};
    struct help_args h = {.man = false};
    const struct hvb_cmd *c = NULL;
    const char *val, *name = NULL;
    bool man;
    int id;

    while ( (id = hvb_opt_parse(&p, help_opts, &h, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        if ( name != NULL )
            return hvb_usage_error("help takes one COMMAND");
        name = val;
    }
    if ( h.man_dir != NULL )
        return man_dir(h.man_dir);
    man = h.man;
    if ( name != NULL && (c = hvb_cmd_find(name)) == NULL )
        return hvb_cmd_unknown(name);
    if ( man && c != NULL )
        man_cmd(stdout, c);
    else if ( man )
        man_top(stdout);
    else if ( c != NULL )
        hvb_cmd_print_help(stdout, c);
    else
        hvb_cli_help(stdout);
    return HVB_EXIT_OK;
}
