/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The commands of hvbench, one table (Linux perf's struct cmd_struct
 * commands[] in tools/perf/perf.c): main.c dispatches through it, and
 * the top-level help, the "unknown command" list, its "did you mean",
 * the man pages and the shell completion (cmd_docs.c) are read from it
 * and from each command's option rows (struct hvb_cmd_doc).
 */
#include <stdio.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hv/suggest.h>
#include <hvb/cli.h>
#include <hvb/fleet.h>
#include <hvb/gate.h>
#include <hvb/hosts.h>
#include <hvb/merge.h>
#include <hvb/bisect.h>
#include <hvb/history.h>
#include <hvb/twobuild.h>
#include <hvb/reproduce.h>
#include <hvb/review.h>
#include <hvb/run.h>
#include <xsd/xenstored.h>

/* A command's forms, each picked by its option (struct hvb_cmd). */
/* A command's forms, each picked by its option (struct hvb_cmd). */
static const struct hvb_cmd compare_forms[] = {
    {.name = "--hosts",
     .fn = hvb_cmd_compare_hosts,
     .summary = "one matrix on several hosts, side by side",
     .doc = &hvb_doc_compare_hosts,
     .flags = HVB_CMD_FORM},
    {.name = NULL},
};
static const struct hvb_cmd gate_forms[] = {
    {.name = "--base-bin",
     .fn = hvb_cmd_gate_bin,
     .summary = "two builds paired in one run (live workers, AB BA)",
     .doc = &hvb_doc_gate_bin,
     .flags = HVB_CMD_FORM},
    {.name = NULL},
};

const struct hvb_cmd hvb_commands[] = {
    {.name = "list",
     .fn = hvb_cmd_list,
     .summary = "what can be run and switched",
     .doc = &hvb_doc_list},
    {.name = "run",
     .fn = hvb_cmd_run,
     .summary = "measure every cell of plugins x params x threads",
     .doc = &hvb_doc_run},
    {.name = "compare",
     .fn = hvb_cmd_compare,
     .summary =
         "per benchmark: ratio NEW/BASE with CI and verdict; or one matrix "
         "on several hosts, side by side",
     .doc = &hvb_doc_compare,
     .subs = compare_forms},
    {.name = "gate",
     .fn = hvb_cmd_gate,
     .summary = "exit 1 on a regression, 3 when too unstable; --base-bin: two "
                "builds paired in one run (live workers, AB BA)",
     .doc = &hvb_doc_gate,
     .subs = gate_forms},
    {.name = "review",
     .fn = hvb_cmd_review,
     .summary = "what a patch did: two revisions built, every cell paired, "
                "the moved ones explained",
     .doc = &hvb_doc_review},
    {.name = "profile",
     .fn = hvb_cmd_profile,
     .summary = "sample call stacks: folded, flame graphs, diffs",
     .doc = &hvb_doc_profile},
    {.name = "lockstat",
     .fn = hvb_cmd_lockstat,
     .summary = "lock contention per lock class and call site",
     .doc = &hvb_doc_lockstat},
    {.name = "report",
     .fn = hvb_cmd_report,
     .summary = "charts and an offline HTML page",
     .doc = &hvb_doc_report},
    {.name = "xenstored",
     .fn = hvb_cmd_xenstored,
     .summary = "serve the model's store to real xenstore clients",
     .doc = &hvb_doc_xenstored},
    {.name = "merge",
     .fn = hvb_cmd_merge,
     .summary = "join the parts of 'run ... --shard K/N' (whole A/B groups) "
                "into one results file",
     .doc = &hvb_doc_merge},
    {.name = "fleet",
     .fn = hvb_cmd_fleet,
     .summary = "shards (or every host) as a Slurm job array",
     .doc = &hvb_doc_fleet},
    {.name = "reproduce",
     .fn = hvb_cmd_reproduce,
     .summary = "each seed's claims beside the figures measured here",
     .doc = &hvb_doc_reproduce},
    {.name = "history",
     .summary = "a memory across runs: results and reviews in SQLite, change "
                "points",
     .doc = &hvb_doc_history,
     .subs = hvb_history_subs},
    {.name = "bisect",
     .fn = hvb_cmd_bisect,
     .summary = "the first commit whose paired verdict against GOOD differs",
     .doc = &hvb_doc_bisect},
    {.name = "help",
     .fn = hvb_cmd_help,
     .summary = "this help, or a command's; --man: its manual page (roff)",
     .doc = &hvb_doc_help},
    {.name = "completion",
     .fn = hvb_cmd_completion,
     .summary = "a bash completion script (commands, options, workloads, "
                "plugins)",
     .doc = &hvb_doc_completion},
    {.name = "worker",
     .fn = hvb_cmd_worker,
     .summary = "internal: the worker process of 'gate --base-bin'",
     .doc = &hvb_doc_worker,
     .flags = HVB_CMD_HIDDEN},
    {.name = NULL},
};

const struct hvb_cmd *hvb_cmd_find(const char *name)
{
    const struct hvb_cmd *c;

    for ( c = hvb_commands; c->name != NULL; c++ )
        if ( strcmp(c->name, name) == 0 )
            return c;
    return NULL;
}

/*
 * The lines of @usage that start a form ("gate BASE.json NEW.json ..."),
 * under @indent; " ..." where continuation lines were left out.
 */
static void synopsis_lines(FILE *f, const char *usage)
{
    const char *s = usage, *t;
    size_t n;

    while ( *s != '\0' )
    {
        n = strcspn(s, "\n");
        for ( t = s + n; t[0] == '\n' && t[1] == ' '; )
            t += 1 + strcspn(t + 1, "\n");
        fprintf(f, "  %.*s%s\n", (int)n, s, t > s + n ? " ..." : "");
        s = t + (*t == '\n');
    }
}

/* "  history record|import|...|publish ..." */
static void sub_synopsis(FILE *f, const struct hvb_cmd *c)
{
    const struct hvb_cmd *s;

    fprintf(f, "  %s ", c->name);
    for ( s = c->subs; s->name != NULL; s++ )
        fprintf(f, "%s%s", s == c->subs ? "" : "|", s->name);
    fputs(" ...\n", f);
}

void hvb_cli_help(FILE *f)
{
    const struct hvb_cmd *c, *s;

    fputs("usage: hvbench <command> [options]\n"
          "\n"
          "A benchmark suite around a reference hypervisor model: run\n"
          "workloads under switchable strategy plugins and compare them.\n"
          "\n"
          "commands:\n",
          f);
    for ( c = hvb_commands; c->name != NULL; c++ )
    {
        if ( c->flags & HVB_CMD_HIDDEN )
            continue;
        if ( hvb_cmd_has_subcommands(c) )
            sub_synopsis(f, c);
        else
            synopsis_lines(f, c->doc->usage);
        for ( s = c->subs; !hvb_cmd_has_subcommands(c) && s && s->name; s++ )
            synopsis_lines(f, s->doc->usage);
        fprintf(f, "%20s", "");
        hvb_help_wrapped(f, 20, 20, c->summary);
    }
    fputs("\n"
          "Every command takes --help; 'hvbench help --man COMMAND' is its\n"
          "manual page.  --version: the version, git commit and build type.\n"
          "Data goes to stdout; progress, notes and errors go to stderr.\n"
          "\n"
          "exit status: 0 success, 1 a run failed (gate: a regression),\n"
          "2 usage or input error, 3 (gate) too unstable to judge\n",
          f);
}

/* "unknown command" with the list of commands and the closest one. */
int hvb_cmd_unknown(const char *name)
{
    const struct hvb_cmd *c;
    struct hv_suggest sg;
    struct hv_strbuf b;
    char list[512], dym[96];

    hv_strbuf_init(&b, list, sizeof(list));
    hv_suggest_init(&sg, name);
    for ( c = hvb_commands; c->name != NULL; c++ )
    {
        if ( c->flags & HVB_CMD_HIDDEN )
            continue;
        hv_suggest_add(&sg, c->name);
        hv_strbuf_join(&b, ", ", "%s", c->name);
    }
    return hvb_usage_error("unknown command '%s' (commands: %s; see "
                           "'hvbench --help')%s",
                           name, list, hv_suggest_fmt(&sg, dym, sizeof(dym)));
}
