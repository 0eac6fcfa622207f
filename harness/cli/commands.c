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

#define DOCS(...) ((const struct hvb_cmd_doc *const[]){__VA_ARGS__, NULL})

const struct hvb_cmd hvb_commands[] = {
    {"list", hvb_cmd_list,
     "list [plugins|workloads|slots|counters [--events E,...]] [--json]",
     "what can be run and switched", DOCS(&hvb_doc_list), 0},
    {"run", hvb_cmd_run,
     "run WORKLOAD [--plugin SLOT=A[,B...]]... [--param K=V[,V...]]...\n"
     "             [--threads N[,M...]] [--repetitions N] [--min-time S]\n"
     "             [--counters auto|hw|tsc|none] [--events E[,E...]]\n"
     "             [--instrument none|callgrind] [--iterations N] [--resume]\n"
     "             [--shard K/N] [--out FILE]\n"
     "             [--format console|json|csv|markdown]",
     "measure every cell of plugins x params x threads", DOCS(&hvb_doc_run), 0},
    {"compare", hvb_cmd_compare,
     "compare BASE.json NEW.json [--metric M] [--format console|markdown|json]\n"
     "compare --hosts RUN.json...",
     "per benchmark: ratio NEW/BASE with CI and verdict; or one matrix on "
     "several hosts, side by side",
     DOCS(&hvb_doc_compare, &hvb_doc_compare_hosts), 0},
    {"gate", hvb_cmd_gate_any,
     "gate BASE.json NEW.json [--metric M] [--max-regression P%] [--markdown "
     "FILE]\n"
     "gate --base-bin OLD/hvbench [gate options] -- WORKLOAD [run options]",
     "exit 1 on a regression, 3 when too unstable; --base-bin: two builds "
     "paired in one run (live workers, AB BA)",
     DOCS(&hvb_doc_gate, &hvb_doc_gate_bin), 0},
    {"review", hvb_cmd_review,
     "review [BASE] [HEAD] [--suite FILE | -- WORKLOAD [run options]]\n"
     "             [--metric M[,M...]] [--out DIR] [--markdown FILE]",
     "what a patch did: two revisions built, every cell paired, the moved "
     "ones explained",
     DOCS(&hvb_doc_review), 0},
    {"profile", hvb_cmd_profile,
     "profile WORKLOAD [run options] --out DIR [--diff SLOT=A,B]",
     "sample call stacks: folded, flame graphs, diffs", DOCS(&hvb_doc_profile),
     0},
    {"lockstat", hvb_cmd_lockstat, "lockstat WORKLOAD [run options]",
     "lock contention per lock class and call site", DOCS(&hvb_doc_lockstat),
     0},
    {"report", hvb_cmd_report, "report RESULT.json... --out DIR",
     "charts and an offline HTML page", DOCS(&hvb_doc_report), 0},
    {"xenstored", hvb_cmd_xenstored,
     "xenstored --socket PATH [--plugin quota=NAME] [--ro-socket PATH]\n"
     "          [--foreground] [--pid-file F] [--log F]",
     "serve the model's store to real xenstore clients",
     DOCS(&hvb_doc_xenstored), 0},
    {"merge", hvb_cmd_merge, "merge OUT.json SHARD.json...",
     "join the parts of 'run ... --shard K/N' (whole A/B groups) into one "
     "results file",
     DOCS(&hvb_doc_merge), 0},
    {"fleet", hvb_cmd_fleet,
     "fleet slurm [--partition P] [--constraint F] [--shards N] [--per-host]\n"
     "            [--dir DIR] [--dry-run] [--resume] -- run WORKLOAD [...]",
     "shards (or every host) as a Slurm job array", DOCS(&hvb_doc_fleet), 0},
    {"reproduce", hvb_cmd_reproduce,
     "reproduce [--quick] [--seed ID] --out DIR",
     "each seed's claims beside the figures measured here",
     DOCS(&hvb_doc_reproduce), 0},
    {"history", hvb_cmd_history,
     "history record|import|backfill|reference|export|detect|triage|publish [...]",
     "a memory across runs: results and reviews in SQLite, change points",
     DOCS(&hvb_doc_history), 0},
    {"bisect", hvb_cmd_bisect, "bisect GOOD BAD [--metric M] -- WORKLOAD ...",
     "the first commit whose paired verdict against GOOD differs",
     DOCS(&hvb_doc_bisect), 0},
    {"help", hvb_cmd_help, "help [--man] [COMMAND]",
     "this help, or a command's; --man: its manual page (roff)",
     DOCS(&hvb_doc_help), 0},
    {"completion", hvb_cmd_completion, "completion bash",
     "a bash completion script (commands, options, workloads, plugins)",
     DOCS(&hvb_doc_completion), 0},
    {"worker", hvb_cmd_worker, "worker WORKLOAD [run options]",
     "internal: the worker process of 'gate --base-bin'", DOCS(&hvb_doc_worker),
     HVB_CMD_HIDDEN},
    {NULL, NULL, NULL, NULL, NULL, 0},
};

const struct hvb_cmd *hvb_cmd_find(const char *name)
{
    const struct hvb_cmd *c;

    for ( c = hvb_commands; c->name != NULL; c++ )
        if ( strcmp(c->name, name) == 0 )
            return c;
    return NULL;
}

/* Print @s, each line after "\n" given @indent first. */
static void print_lines(FILE *f, const char *indent, const char *s)
{
    const char *nl;

    for ( ;; )
    {
        nl = strchr(s, '\n');
        fprintf(f, "%s%.*s\n", indent, nl ? (int)(nl - s) : (int)strlen(s), s);
        if ( nl == NULL )
            return;
        s = nl + 1;
    }
}

void hvb_cli_help(FILE *f)
{
    const struct hvb_cmd *c;

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
        print_lines(f, "  ", c->synopsis);
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
