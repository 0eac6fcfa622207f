/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command-line plumbing shared by the subcommands: one-line errors with
 * their exit codes, a small option parser over the commands' option rows
 * and value parsers that name the option and what it accepts.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/num.h>
#include <hv/strbuf.h>
#include <hvb/cmdline.h>

static void vmessage(const char *fmt, va_list ap)
{
    fflush(stdout);
    fputs("hvbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int hvb_usage_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    return HVB_EXIT_USAGE;
}

int hvb_failure(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    return HVB_EXIT_FAIL;
}

const struct hvb_optdef *
hvb_opt_each(const struct hvb_optdef *defs, bool unlisted,
             bool (*fn)(const struct hvb_optdef *d, void *ctx), void *ctx)
{
    const struct hvb_optdef *d, *r;

    for ( d = defs; d != NULL && (d->name != NULL || d->also != NULL); d++ )
    {
        if ( d->name != NULL )
        {
            if ( fn(d, ctx) )
                return d;
            continue;
        }
        if ( (d->flags & HVB_OPTF_UNLISTED) && !unlisted )
            continue;
        r = hvb_opt_each(d->also, unlisted, fn, ctx);
        if ( r != NULL )
            return r;
    }
    return NULL;
}

/* What an argument names: "--name[=...]" (@len of it) or "-c". */
struct opt_key {
    const char *name;
    size_t len;
    char short_name;
};

static bool key_matches(const struct hvb_optdef *d, void *ctx)
{
    const struct opt_key *k = ctx;

    if ( k->short_name )
        return d->short_name == k->short_name;
    return strlen(d->name) == k->len && strncmp(d->name, k->name, k->len) == 0;
}

/*
 * The row @arg ("-c" or "--name[=v]") names, or NULL; @eq: its '=';
 * @unlisted: the row is another command's (an HVB_OPT_UNLISTED table).
 */
static const struct hvb_optdef *find_row(const struct hvb_optdef *defs,
                                         const char *arg, const char **eq,
                                         bool *unlisted)
{
    struct opt_key k = {.name = arg + 2};
    const struct hvb_optdef *d;

    *eq = NULL;
    *unlisted = false;
    if ( arg[0] != '-' || arg[1] == '\0' )
        return NULL;
    if ( arg[1] != '-' )
    {
        /* One short option, alone: "-h". */
        if ( arg[2] != '\0' )
            return NULL;
        k.short_name = arg[1];
    }
    else
    {
        *eq = strchr(arg + 2, '=');
        k.len = *eq ? (size_t)(*eq - arg - 2) : strlen(arg + 2);
    }
    d = hvb_opt_each(defs, false, key_matches, &k);
    if ( d != NULL )
        return d;
    d = hvb_opt_each(defs, true, key_matches, &k);
    *unlisted = d != NULL;
    return d;
}

int hvb_opt_next(struct hvb_optparse *p, const struct hvb_optdef *defs,
                 const struct hvb_optdef **row, const char **val)
{
    const struct hvb_optdef *d;
    const char *arg, *eq;
    bool unlisted;

    *val = NULL;
    *row = NULL;
    if ( p->i >= p->argc )
        return HVB_OPT_DONE;
    arg = p->argv[p->i++];
    if ( p->only_positional || arg[0] != '-' || arg[1] == '\0' )
    {
        *val = arg;
        return HVB_OPT_POSITIONAL;
    }
    if ( strcmp(arg, "--") == 0 )
    {
        p->only_positional = true;
        return hvb_opt_next(p, defs, row, val);
    }
    d = find_row(defs, arg, &eq, &unlisted);
    if ( unlisted )
    {
        if ( d->elsewhere != NULL )
            hvb_usage_error("%s", d->elsewhere);
        else
            hvb_usage_error("--%s is not an option of %s", d->name, p->cmd);
        return HVB_OPT_ERROR;
    }
    if ( d == NULL )
    {
        int n = arg[1] == '-' ? (int)strcspn(arg, "=") : (int)strlen(arg);

        hvb_usage_error("unknown option '%.*s' for %s (see 'hvbench %s "
                        "--help')",
                        n, arg, p->cmd, p->cmd);
        return HVB_OPT_ERROR;
    }
    *row = d;
    if ( eq != NULL )
    {
        if ( d->arg == NULL )
        {
            hvb_usage_error("option --%s takes no value", d->name);
            return HVB_OPT_ERROR;
        }
        *val = eq + 1;
        return HVB_OPT_ROW;
    }
    if ( d->arg != NULL )
    {
        if ( p->i >= p->argc )
        {
            hvb_usage_error("option --%s needs a value", d->name);
            return HVB_OPT_ERROR;
        }
        *val = p->argv[p->i++];
    }
    return HVB_OPT_ROW;
}

/* "5%", "5", "0.5%" -> 0.05, 0.05, 0.005; false for anything else. */
static bool parse_pct(const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);

    if ( end == v || (*end != '\0' && strcmp(end, "%") != 0) || !(d > 0) ||
         d > 1000 )
        return false;
    *out = d / 100.0;
    return true;
}

/*
 * Which of @names (NULL-terminated) @s is, into *@out; else "bad value
 * 'x' for --instrument (none or callgrind)".
 */
static bool parse_choice(const char *opt, const char *s,
                         const char *const *names, int *out)
{
    struct hv_strbuf b;
    char list[256];
    int i;

    for ( i = 0; names[i] != NULL; i++ )
        if ( strcmp(s, names[i]) == 0 )
        {
            *out = i;
            return true;
        }
    hv_strbuf_init(&b, list, sizeof(list));
    for ( i = 0; names[i] != NULL; i++ )
        hv_strbuf_add(&b, "%s%s",
                      i == 0                 ? ""
                      : names[i + 1] == NULL ? " or "
                                             : ", ",
                      names[i]);
    hvb_usage_error("bad value '%s' for %s (%s)", s, opt, list);
    return false;
}

/*
 * Store @val for typed row @d in @state ("--name" in messages): true, or
 * false having printed why.
 */
static bool opt_store(const struct hvb_optdef *d, void *state, const char *val)
{
    char *field = (char *)state + d->off, opt[64];
    uint64_t u;
    int choice;

    snprintf(opt, sizeof(opt), "--%s", d->name);
    switch ( d->store )
    {
    case HVB_OPTS_STR:
        memcpy(field, &val, sizeof(val));
        return true;
    case HVB_OPTS_TRUE:
    case HVB_OPTS_FALSE:
        *(bool *)field = d->store == HVB_OPTS_TRUE;
        return true;
    case HVB_OPTS_UINT:
        if ( !hvb_parse_u64(opt, val, d->min, d->max, &u) )
            return false;
        *(unsigned int *)field = (unsigned int)u;
        return true;
    case HVB_OPTS_U64:
        return hvb_parse_u64(opt, val, d->min, d->max, (uint64_t *)field);
    case HVB_OPTS_I64:
        if ( !hvb_parse_u64(opt, val, d->min, d->max, &u) )
            return false;
        *(int64_t *)field = (int64_t)u;
        return true;
    case HVB_OPTS_SECONDS:
        return hvb_parse_seconds(opt, val, d->dmin, d->dmax, (double *)field);
    case HVB_OPTS_PCT:
        if ( parse_pct(val, (double *)field) )
            return true;
        hvb_usage_error("bad value '%s' for %s (a percentage, e.g. 5%%)", val,
                        opt);
        return false;
    case HVB_OPTS_CHOICE:
        if ( !parse_choice(opt, val, d->choices, &choice) )
            return false;
        *(int *)field = choice;
        return true;
    case HVB_OPTS_CALL:
        return d->call(state, opt, val);
    case HVB_OPTS_NONE:
    case HVB_OPTS_HELP:
        break;
    }
    hvb_failure("option %s stores nothing (a bug)", opt);
    return false;
}

int hvb_opt_parse(struct hvb_optparse *p, const struct hvb_optdef *defs,
                  void *state, const char **val)
{
    const struct hvb_optdef *d;
    int id;

    for ( ;; )
    {
        id = hvb_opt_next(p, defs, &d, val);
        if ( id != HVB_OPT_ROW )
            return id;
        if ( d->store == HVB_OPTS_HELP && p->doc == NULL )
        {
            hvb_failure("%s: --help without a doc (a bug)", p->cmd);
            return HVB_OPT_ERROR;
        }
        if ( d->store == HVB_OPTS_HELP )
        {
            hvb_cmd_doc_help(stdout, p->doc);
            return HVB_OPT_HELP_SHOWN;
        }
        if ( !opt_store(d, state, *val) )
            return HVB_OPT_ERROR;
    }
}

int hvb_opt_take(const struct hvb_optdef *defs, const struct hvb_cmd_doc *doc,
                 void *state, int argc, char **argv, int *i)
{
    bool unlisted;
    const char *val;
    const struct hvb_optdef *d = find_row(defs, argv[*i], &val, &unlisted);

    if ( d == NULL || unlisted )
        return 0;
    if ( val != NULL )
        val++; /* past the '=' */
    else if ( d->arg != NULL )
    {
        if ( *i + 1 >= argc )
        {
            hvb_usage_error("option --%s needs a value", d->name);
            return HVB_OPT_ERROR;
        }
        val = argv[++*i];
    }
    if ( d->store == HVB_OPTS_HELP )
    {
        hvb_cmd_doc_help(stdout, doc);
        return HVB_OPT_HELP_SHOWN;
    }
    return opt_store(d, state, val) ? 1 : HVB_OPT_ERROR;
}

bool hvb_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
                   uint64_t *out)
{
    char allowed[128];
    uint64_t v;

    if ( hv_num_parse(s, &v) == 0 && v >= min && v <= max )
    {
        *out = v;
        return true;
    }
    hv_num_allowed(min, max, allowed, sizeof(allowed));
    hvb_usage_error("bad value '%s' for %s (%s)", s, opt, allowed);
    return false;
}

/*
 * A plain decimal number at @s ("0.5", ".5", "1e3"; no sign, no "inf"),
 * then @suffix if given, then nothing: true with *@v.
 */
static bool plain_number(const char *s, const char *suffix, double *v)
{
    char *end;

    errno = 0;
    if ( !isdigit((unsigned char)*s) && *s != '.' )
        return false;
    *v = strtod(s, &end);
    if ( suffix != NULL && strcmp(end, suffix) == 0 )
        end += strlen(suffix);
    return errno == 0 && *end == '\0' && isfinite(*v);
}

bool hvb_parse_real(const char *opt, const char *s, double lo, double hi,
                    double *out)
{
    double v;

    if ( plain_number(s, NULL, &v) && v > lo && v < hi )
    {
        *out = v;
        return true;
    }
    hvb_usage_error("bad value '%s' for %s (a number between %g and %g, "
                    "e.g. 0.001)",
                    s, opt, lo, hi);
    return false;
}

bool hvb_parse_seconds(const char *opt, const char *s, double min, double max,
                       double *out)
{
    double v;

    if ( plain_number(s, "s", &v) && v >= min && v <= max )
    {
        *out = v;
        return true;
    }
    hvb_usage_error(
        "bad value '%s' for %s (seconds in [%g, %g], e.g. 0.5 or 0.5s)", s, opt,
        min, max);
    return false;
}
