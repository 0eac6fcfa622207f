/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command-line plumbing shared by the subcommands: one-line errors with
 * their exit codes, the top-level help, a small option parser and value
 * parsers that name the option and what it accepts.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/cli.h>

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

void hvb_cli_help(FILE *f)
{
    fputs(
        "usage: hvbench <command> [options]\n"
        "\n"
        "A benchmark suite around a reference hypervisor model: run\n"
        "workloads under switchable strategy plugins and compare them.\n"
        "\n"
        "commands:\n"
        "  list [plugins|workloads|slots|counters [--events E,...]] [--json]\n"
        "                    what can be run and switched\n"
        "  run WORKLOAD [--plugin SLOT=A[,B...]]... [--param K=V[,V...]]...\n"
        "               [--threads N[,M...]] [--repetitions N] [--min-time S]\n"
        "               [--counters auto|hw|tsc|none] [--events E[,E...]]\n"
        "               [--instrument none|callgrind] [--iterations N] [--resume]\n"
        "               [--out FILE] [--format console|json|csv|markdown]\n"
        "                    measure every cell of plugins x params x threads\n"
        "  compare BASE.json NEW.json [--metric M] [--format console|markdown|json]\n"
        "                    per benchmark: ratio NEW/BASE with CI and verdict\n"
        "  gate BASE.json NEW.json [--metric M] [--max-regression P%] [--markdown FILE]\n"
        "                    exit 1 on a regression, 3 when too unstable\n"
        "  gate --base-bin OLD/hvbench [gate options] -- WORKLOAD [run options]\n"
        "                    two builds paired in one run (live workers, AB BA)\n"
        "  profile WORKLOAD [run options] --out DIR [--diff SLOT=A,B]\n"
        "                    sample call stacks: folded, flame graphs, diffs\n"
        "  lockstat WORKLOAD [run options]\n"
        "                    lock contention per lock class and call site\n"
        "  report RESULT.json... --out DIR\n"
        "                    charts and an offline HTML page\n"
        "  xenstored --socket PATH [--plugin quota=NAME] [--ro-socket PATH]\n"
        "            [--foreground] [--pid-file F] [--log F]\n"
        "                    serve the model's store to real xenstore clients\n"
        "  run ... --shard K/N;  merge OUT.json SHARD.json...\n"
        "                    one part of a run matrix (whole A/B groups);\n"
        "                    join the parts into one results file\n"
        "  fleet slurm [--partition P] [--constraint F] [--shards N] [--per-host]\n"
        "              [--dir DIR] [--dry-run] [--resume] -- run WORKLOAD [...]\n"
        "                    shards (or every host) as a Slurm job array\n"
        "  compare --hosts RUN.json...\n"
        "                    one matrix on several hosts, side by side\n"
        "  reproduce [--quick] [--seed ID] --out DIR\n"
        "                    each seed's claims beside the figures measured here\n"
        "  help [COMMAND]    this help, or a command's\n"
        "\n"
        "Every command takes --help.  Data goes to stdout; progress, notes\n"
        "and errors go to stderr.\n"
        "\n"
        "exit status: 0 success, 1 a run failed (gate: a regression),\n"
        "2 usage or input error, 3 (gate) too unstable to judge\n",
        f);
}

int hvb_getopt(struct hvb_optparse *p, const struct hvb_optdef *defs,
               const char **val)
{
    const struct hvb_optdef *d;
    const char *arg, *eq;
    size_t n;

    *val = NULL;
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
        return hvb_getopt(p, defs, val);
    }
    if ( arg[1] != '-' )
    {
        /* One short option, alone: "-h". */
        for ( d = defs; d->name != NULL; d++ )
            if ( d->short_name && arg[1] == d->short_name && arg[2] == '\0' )
                break;
        if ( d->name == NULL )
        {
            hvb_usage_error(
                "unknown option '%s' for %s (see 'hvbench %s --help')", arg,
                p->cmd, p->cmd);
            return HVB_OPT_ERROR;
        }
    }
    else
    {
        eq = strchr(arg + 2, '=');
        n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        for ( d = defs; d->name != NULL; d++ )
            if ( strlen(d->name) == n && strncmp(d->name, arg + 2, n) == 0 )
                break;
        if ( d->name == NULL )
        {
            hvb_usage_error(
                "unknown option '%.*s' for %s (see 'hvbench %s --help')",
                (int)(n + 2), arg, p->cmd, p->cmd);
            return HVB_OPT_ERROR;
        }
        if ( eq != NULL )
        {
            if ( !d->has_arg )
            {
                hvb_usage_error("option --%s takes no value", d->name);
                return HVB_OPT_ERROR;
            }
            *val = eq + 1;
            return d->id;
        }
    }
    if ( d->has_arg )
    {
        if ( p->i >= p->argc )
        {
            hvb_usage_error("option --%s needs a value", d->name);
            return HVB_OPT_ERROR;
        }
        *val = p->argv[p->i++];
    }
    return d->id;
}

bool hvb_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
                   uint64_t *out)
{
    unsigned long long v;
    char *end;

    errno = 0;
    if ( !isdigit((unsigned char)*s) )
        goto bad;
    v = strtoull(s, &end, 10);
    if ( errno || *end != '\0' || v < min || v > max )
        goto bad;
    *out = v;
    return true;
bad:
    hvb_usage_error("bad value '%s' for %s (an integer in [%" PRIu64
                    ", %" PRIu64 "])",
                    s, opt, min, max);
    return false;
}

bool hvb_parse_seconds(const char *opt, const char *s, double min, double max,
                       double *out)
{
    char *end;
    double v;

    errno = 0;
    if ( !isdigit((unsigned char)*s) && *s != '.' )
        goto bad;
    v = strtod(s, &end);
    if ( *end == 's' )
        end++;
    if ( errno || *end != '\0' || !isfinite(v) || v < min || v > max )
        goto bad;
    *out = v;
    return true;
bad:
    hvb_usage_error(
        "bad value '%s' for %s (seconds in [%g, %g], e.g. 0.5 or 0.5s)", s, opt,
        min, max);
    return false;
}

bool hvb_parse_choice(const char *opt, const char *s, const char *const *names,
                      int *out)
{
    char list[256];
    size_t o = 0;
    int i;

    for ( i = 0; names[i] != NULL; i++ )
        if ( strcmp(s, names[i]) == 0 )
        {
            *out = i;
            return true;
        }
    list[0] = '\0';
    for ( i = 0; names[i] != NULL; i++ )
    {
        int w = snprintf(list + o, sizeof(list) - o, "%s%s",
                         i == 0                 ? ""
                         : names[i + 1] == NULL ? " or "
                                                : ", ",
                         names[i]);

        if ( w < 0 || (size_t)w >= sizeof(list) - o )
            break;
        o += (size_t)w;
    }
    hvb_usage_error("bad value '%s' for %s (%s)", s, opt, list);
    return false;
}
