/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench CMD --help" from a command's documented form (struct
 * hvb_cmd_doc, hvb/cmdline.h): its synopsis, its description, then one
 * row per option, each wrapped at 78 columns under column 22.  The man
 * pages (cli/cmd_docs.c) are made from the same rows.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <hvb/cmdline.h>

#define HELP_WIDTH  78
#define HELP_INDENT 22 /* of an option's help */

void hvb_help_wrapped(FILE *f, int col, int indent, const char *s)
{
    bool first = true;

    while ( *s == ' ' )
        s++;
    while ( *s != '\0' )
    {
        int n = (int)strcspn(s, " ");

        if ( !first && col + 1 + n > HELP_WIDTH )
        {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        }
        else if ( !first )
        {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", n, s);
        first = false;
        col += n;
        s += n;
        while ( *s == ' ' )
            s++;
    }
    fputc('\n', f);
}

static bool print_row(const struct hvb_optdef *d, void *ctx)
{
    FILE *f = ctx;
    char shortopt[8] = "";
    int col;

    if ( d->short_name )
        snprintf(shortopt, sizeof(shortopt), "-%c, ", d->short_name);
    col = fprintf(f, "  %s--%s%s%s", shortopt, d->name, d->arg ? " " : "",
                  d->arg ? d->arg : "");
    if ( col + 2 <= HELP_INDENT )
    {
        fprintf(f, "%*s", HELP_INDENT - col, "");
        col = HELP_INDENT;
    }
    else
    {
        fputs("  ", f);
        col += 2;
    }
    hvb_help_wrapped(f, col, HELP_INDENT, d->help ? d->help : "");
    return false;
}

void hvb_help_usage(FILE *f, const char *usage, bool *first)
{
    const char *s = usage, *nl;

    for ( ;; )
    {
        nl = strchr(s, '\n');
        fprintf(f, "%s%.*s\n",
                s[0] == ' ' ? ""
                : *first    ? "usage: hvbench "
                            : "       hvbench ",
                nl ? (int)(nl - s) : (int)strlen(s), s);
        *first = false;
        if ( nl == NULL )
            return;
        s = nl + 1;
    }
}

void hvb_cmd_doc_options(FILE *f, const struct hvb_cmd_doc *d)
{
    if ( d->opts != NULL )
        hvb_opt_each(d->opts, false, print_row, f);
    if ( d->inherits != NULL )
        fprintf(f,
                "and the options of 'hvbench %s' (see 'hvbench %s --help')\n",
                d->inherits, d->inherits);
}

void hvb_cmd_doc_help(FILE *f, const struct hvb_cmd_doc *d)
{
    bool first = true;

    hvb_help_usage(f, d->usage, &first);
    if ( d->text != NULL )
        fprintf(f, "\n%s\n", d->text);
    if ( d->more != NULL )
    {
        fputc('\n', f);
        d->more(f);
    }
    if ( d->opts != NULL )
        fputs("\noptions:\n", f);
    else if ( d->inherits != NULL )
        fputc('\n', f);
    hvb_cmd_doc_options(f, d);
    if ( d->notes != NULL )
        fprintf(f, "\n%s\n", d->notes);
}
