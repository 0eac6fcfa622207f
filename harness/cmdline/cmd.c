/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A command's rows (struct hvb_cmd, hvb/cmdline.h): which one runs, and
 * the help of a command that has sub-commands.
 *
 * E.g. with the rows
 *
 *   {"gate", cmd_gate, ..., .subs = (struct hvb_cmd[]){
 *       {"--base-bin", cmd_gate_bin, ..., .flags = HVB_CMD_FORM}, {NULL}}}
 *   {"history", NULL, ..., .subs = (struct hvb_cmd[]){
 *       {"record", history_record, ...}, {"detect", ...}, {NULL}}}
 *
 * "gate a.json b.json" runs cmd_gate, "gate --base-bin=old -- lookup"
 * and "gate -t 2 --base-bin old -- lookup" run cmd_gate_bin (argv as
 * given: the form parses its own option), "gate a.json -- --base-bin"
 * runs cmd_gate (after "--" is the workload's); "history record x.json"
 * runs history_record with argv {"record", "x.json"} and ctx->name
 * "history record"; "history recrod" is "unknown sub-command 'recrod'
 * of history (...) did you mean 'record'?" (exit 2); "history" alone
 * or "history --help" prints hvb_cmd_print_help().
 */
#include <stdio.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hv/suggest.h>
#include <hvb/cmdline.h>

bool hvb_cmd_has_subcommands(const struct hvb_cmd *c)
{
    return c->subs != NULL && c->subs[0].name != NULL &&
           !(c->subs[0].flags & HVB_CMD_FORM);
}

/* The form of @c whose option argv names before any "--", or NULL. */
static const struct hvb_cmd *form_of(const struct hvb_cmd *c, int argc,
                                     char **argv)
{
    const struct hvb_cmd *f;
    size_t n;
    int i;

    for ( i = 1; i < argc && strcmp(argv[i], "--") != 0; i++ )
        for ( f = c->subs; f->name != NULL; f++ )
        {
            n = strlen(f->name);
            if ( strncmp(argv[i], f->name, n) == 0 &&
                 (argv[i][n] == '\0' || argv[i][n] == '=') )
                return f;
        }
    return NULL;
}

/* --help or -h before any "--". */
static bool help_asked(int argc, char **argv)
{
    int i;

    for ( i = 1; i < argc && strcmp(argv[i], "--") != 0; i++ )
        if ( strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 )
            return true;
    return false;
}

static const struct hvb_cmd *sub_named(const struct hvb_cmd *c,
                                       const char *name)
{
    const struct hvb_cmd *s;

    for ( s = c->subs; s->name != NULL; s++ )
        if ( strcmp(s->name, name) == 0 )
            return s;
    return NULL;
}

/* "record, import, ... or publish" into @buf. */
static const char *sub_list(const struct hvb_cmd *c, char *buf, size_t len)
{
    const struct hvb_cmd *s;
    struct hv_strbuf b;

    hv_strbuf_init(&b, buf, len);
    for ( s = c->subs; s->name != NULL; s++ )
        hv_strbuf_add(&b, "%s%s",
                      s == c->subs        ? ""
                      : s[1].name == NULL ? " or "
                                          : ", ",
                      s->name);
    return buf;
}

static int unknown_sub(const struct hvb_cmd *c, const char *name)
{
    const struct hvb_cmd *s;
    struct hv_suggest sg;
    char list[512], dym[96];

    hv_suggest_init(&sg, name);
    for ( s = c->subs; s->name != NULL; s++ )
        hv_suggest_add(&sg, s->name);
    return hvb_usage_error("unknown sub-command '%s' of %s (%s; see "
                           "'hvbench %s --help')%s",
                           name, c->name, sub_list(c, list, sizeof(list)),
                           c->name, hv_suggest_fmt(&sg, dym, sizeof(dym)));
}

int hvb_cmd_dispatch(const struct hvb_cmd *c, struct hvb_cmd_ctx *ctx)
{
    const struct hvb_cmd *s;
    char list[512];

    ctx->cmd = c;
    snprintf(ctx->name, sizeof(ctx->name), "%s", c->name);
    if ( c->subs == NULL || c->subs[0].name == NULL )
        return c->fn(ctx);
    if ( !hvb_cmd_has_subcommands(c) )
    {
        s = form_of(c, ctx->argc, ctx->argv);
        ctx->cmd = s ? s : c;
        if ( s == NULL && help_asked(ctx->argc, ctx->argv) )
        {
            hvb_cmd_print_help(stdout, c);
            return HVB_EXIT_OK;
        }
        return ctx->cmd->fn(ctx);
    }
    if ( ctx->argc >= 2 && (strcmp(ctx->argv[1], "--help") == 0 ||
                            strcmp(ctx->argv[1], "-h") == 0) )
    {
        hvb_cmd_print_help(stdout, c);
        return HVB_EXIT_OK;
    }
    if ( ctx->argc < 2 || ctx->argv[1][0] == '-' )
        return hvb_usage_error("%s needs a sub-command: %s (see 'hvbench %s "
                               "--help')",
                               c->name, sub_list(c, list, sizeof(list)),
                               c->name);
    s = sub_named(c, ctx->argv[1]);
    if ( s == NULL )
        return unknown_sub(c, ctx->argv[1]);
    ctx->cmd = s;
    ctx->argc--;
    ctx->argv++;
    snprintf(ctx->name, sizeof(ctx->name), "%s %s", c->name, s->name);
    return s->fn(ctx);
}

static bool row_named(const struct hvb_optdef *d, void *ctx)
{
    return strcmp(d->name, ctx) == 0;
}

/*
 * Form @s of @c after @c's help: "  gate --base-bin OLD/hvbench ..." and
 * its summary, with how to ask for its help.
 */
static void form_note(FILE *f, const struct hvb_cmd *c, const struct hvb_cmd *s)
{
    const struct hvb_optdef *d =
        hvb_opt_each(s->doc->opts, false, row_named, (void *)(s->name + 2));
    size_t n = strcspn(s->doc->usage, "\n");
    char more[256];

    snprintf(more, sizeof(more), "%s: 'hvbench %s %s%s --help'", s->summary,
             c->name, s->name, d != NULL && d->arg != NULL ? " X" : "");
    fprintf(f, "%s  hvbench %.*s%s\n%20s",
            s == c->subs ? "\nits other form:\n" : "", (int)n, s->doc->usage,
            s->doc->usage[n] ? " ..." : "", "");
    hvb_help_wrapped(f, 20, 20, more);
}

/* The first sub-command of @c that takes the options @s takes. */
static const struct hvb_cmd *first_of(const struct hvb_cmd *c,
                                      const struct hvb_cmd *s)
{
    const struct hvb_cmd *t;

    for ( t = c->subs; t->doc->opts != s->doc->opts; t++ )
        ;
    return t;
}

void hvb_cmd_print_help(FILE *f, const struct hvb_cmd *c)
{
    const struct hvb_cmd *s, *t;
    bool first = true;

    if ( !hvb_cmd_has_subcommands(c) )
    {
        hvb_cmd_doc_help(f, c->doc);
        for ( s = c->subs; s != NULL && s->name != NULL; s++ )
            form_note(f, c, s);
        return;
    }
    for ( s = c->subs; s->name != NULL; s++ )
        hvb_help_usage(f, s->doc->usage, &first);
    if ( c->doc != NULL && c->doc->text != NULL )
        fprintf(f, "\n%s\n", c->doc->text);
    fputs("\nsub-commands:\n", f);
    for ( s = c->subs; s->name != NULL; s++ )
    {
        int col = fprintf(f, "  %-10s", s->name);

        hvb_help_wrapped(f, col, 12, s->summary);
    }
    for ( s = c->subs; s->name != NULL; s++ )
        if ( s->doc->opts != NULL && first_of(c, s) == s )
        {
            fputs("\noptions of ", f);
            for ( t = s; t->name != NULL; t++ )
                if ( t->doc->opts == s->doc->opts )
                    fprintf(f, "%s'%s %s'", t == s ? "" : ", ", c->name,
                            t->name);
            fputs(":\n", f);
            hvb_cmd_doc_options(f, s->doc);
        }
    fprintf(f, "\n'hvbench %s SUB-COMMAND --help' has one's description.\n",
            c->name);
    if ( c->doc != NULL && c->doc->notes != NULL )
        fprintf(f, "\n%s\n", c->doc->notes);
}
