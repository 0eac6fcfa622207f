/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench fleet slurm [options] -- run WORKLOAD [run options]": the
 * engine-independent part of the fleet (hvb/fleet.h): check the run
 * command here first ("run --plan"), prepare the fleet directory, stage
 * the binary and plugin .so files, write the job script, submit, follow
 * the tasks (pending / running / done; a bar with ETA on a TTY), then
 * merge the shards (hvb/merge.h) or, with --per-host, show the hosts side
 * by side (hvb/hosts.h).
 *
 * Worked example (4 shards, task 3 cancelled with scancel 12_3):
 *
 *   $ hvbench fleet slurm --shards 4 --dir /shared/f -- run lookup ...
 *   hvbench: fleet: 12 cells in 6 groups, 4 shards; job 12
 *   hvbench: fleet: 0 pending, 1 running, 3 done
 *   hvbench: fleet: shard 3/4 failed or was cancelled (log:
 *   /shared/f/logs/shard-3.log)
 *   hvbench: merge: 10 of 12 cells from 3 of 4 shards ...
 *   hvbench: merge: shard 3/4 missing: ...
 *   $ hvbench fleet slurm --resume --dir /shared/f -- run lookup ...
 *   hvbench: fleet: resuming /shared/f: shards 3 of 4 to run; job 13
 *
 * and the second merge has all 12 cells, exit 0.  Shards already
 * complete are never run again; a --resume with another command line
 * than the fleet's (fleet.json) is exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <hvb/cmdline.h>
#include <hvb/fleet.h>
#include <hvb/hosts.h>
#include <hvb/merge.h>
#include <hvb/progress.h>
#include <hvb/results.h>
#include <hvb/results_read.h>

#include "private.h"

/* One "fleet" command line being read: what its options (before "--") set. */
struct fleet_args {
    struct fleet fl;
    const char *engine, *dir;
    int first_run; /* argv index of "run", or -1 */
};

#define R struct fleet_args
static const struct hvb_optdef fleet_opts[] = {
    HVB_OPT_STR("partition", 'p', "P", R, fl.partition,
                "submit to partition P (and take its nodes)"),
    HVB_OPT_STR("constraint", 'C', "F", R, fl.constraint,
                "only nodes with features F (sbatch's --constraint: numa&pmu, "
                "intel|amd)"),
    HVB_OPT_UINT("shards", 'n', "N", R, fl.shards, 1, 4096,
                 "shards (default: the nodes selected, at most the matrix's "
                 "groups)"),
    HVB_OPT_SET("per-host", 0, R, fl.per_host,
                "the whole matrix on every selected node: DIR/host-NODE.json "
                "each, then a table of the hosts (environment and ratios) "
                "side by side"),
    HVB_OPT_STR("dir", 'd', "DIR", R, dir,
                "the fleet directory, on a path every node sees (default "
                "./" FLEET_DEFAULT_DIR "): staged binary, job.sh, "
                "shard-K.json, logs/"),
    HVB_OPT_STR("out", 'o', "FILE", R, fl.out,
                "the merged results (default DIR/merged.json)"),
    HVB_OPT_SET("dry-run", 0, R, fl.dry_run,
                "print the job script and the sbatch command; write and "
                "submit nothing"),
    HVB_OPT_SET("resume", 0, R, fl.resume,
                "submit only the shards (hosts) of DIR that have no complete "
                "results, then merge all"),
    HVB_OPT_CLEAR("no-stage", 0, R, fl.stage,
                  "run this hvbench and the plugin .so files where they are (a "
                  "shared path) instead of copies in DIR"),
    HVB_OPT_SECONDS("poll", 0, "S", R, fl.poll_s, 0.05, 3600,
                    "seconds between looks at the queue (default 2)"),
    HVB_OPT_SECONDS("slurm-timeout", 0, "S", R, fl.cmd_timeout_s, 0.01, 86400,
                    "kill a Slurm command (sinfo, sbatch, squeue) that has not "
                    "ended within S seconds, and say so (default "
                    "$" FLEET_CMD_TIMEOUT_ENV
                    " or " HVB_STR(FLEET_CMD_TIMEOUT) ")"),
    HVB_OPT_SET("quiet", 'q', R, fl.quiet, "no progress on stderr"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef R

const struct hvb_cmd_doc hvb_doc_fleet = {
    .usage = "fleet slurm [options] -- run WORKLOAD [run options]",
    .text =
        "Run a matrix on a Slurm cluster: one job-array task per shard\n"
        "(hvbench run --shard K/N: whole A/B groups, balanced by cost), each\n"
        "alone on its node (--exclusive), followed to the end and merged\n"
        "(hvbench merge).  With --per-host, the whole matrix once on each\n"
        "selected node instead, and the hosts side by side.",
    .opts = fleet_opts,
    .inherits = "run",
    .notes =
        "The run options are run's (see 'hvbench run --help'), less\n"
        "--shard, --out and --resume, which the fleet sets.  Any other\n"
        "scheduler or plain ssh does the same with 'run --shard K/N' on\n"
        "each machine and 'hvbench merge' (docs/fleet.md).\n"
        "\n"
        "exit status: 0 all merged, 1 a task failed (named; --resume reruns\n"
        "it), 2 usage or input error (also Slurm not reachable)",
};

/* "run ... --plan" with this binary: the run command is valid here. */
static int plan(struct fleet *fl, const char *self)
{
    char **av = calloc(fl->run_argc + 3, sizeof(*av));
    struct hvb_exec c = {.timeout_s = fl->cmd_timeout_s, .max_out = 1 << 20};
    json_t *o;
    size_t i;
    int rc;

    if ( av == NULL )
        return hvb_failure("out of memory");
    av[0] = (char *)self;
    for ( i = 0; i < fl->run_argc; i++ )
        av[i + 1] = fl->run_argv[i];
    av[i + 1] = "--plan";
    c.argv = av;
    rc = hvb_exec_run(&c); /* its stderr passes */
    free(av);
    if ( rc != 0 )
    {
        hvb_exec_free(&c);
        if ( rc == -ETIMEDOUT )
            return hvb_failure("fleet: '%s run ... --plan' did not answer "
                               "within %g s: killed (--slurm-timeout)",
                               self, fl->cmd_timeout_s);
        if ( rc < 0 )
            return hvb_failure("fleet: cannot run %s: %s", self, strerror(-rc));
        return hvb_usage_error("fleet: the run command is not valid here "
                               "(above); nothing submitted");
    }
    o = json_loads(c.out, 0, NULL);
    hvb_exec_free(&c);
    fl->groups = (size_t)json_integer_value(json_object_get(o, "groups"));
    fl->cells = (size_t)json_integer_value(json_object_get(o, HVB_RK_CELLS));
    json_decref(o);
    if ( fl->groups == 0 )
        return hvb_failure("fleet: 'run --plan' said no groups");
    return HVB_EXIT_OK;
}

/*
 * One fleet, as named phases (fleet_slurm() below): plan (the run
 * command is valid here: "run --plan"), select (--resume: the fleet's
 * state; else the nodes and the shard count), stage (the directory, the
 * binary and the .so files), script (the job and its script; --dry-run
 * prints them), submit (fleet.json, job.sh, sbatch), follow (squeue to
 * the end), merge (the shards, or the hosts side by side).
 */
struct fleet_run {
    struct hvb_fleet_job job;
    unsigned int *todo; /* tasks without complete results, from 0 */
    size_t nr_todo, total;
    char **ids; /* job ids submitted */
    size_t nr_ids;
    char *script;
    char self[PATH_MAX], path[PATH_MAX + 32]; /* this hvbench; job.sh */
};

/* --resume: the fleet's state; else the nodes and the shards.  Status. */
static int select_phase(struct fleet *fl, char *const *orig, size_t argc)
{
    char path[PATH_MAX + 32];
    json_t *state;
    size_t t;
    int status;

    if ( fl->resume )
    {
        state = fleet_state_json(fl, orig, argc);
        status =
            state ? fleet_load_state(fl, state) : hvb_failure("out of memory");
        json_decref(state);
        if ( status == HVB_EXIT_OK && !fl->dry_run )
            status = fleet_still_queued(fl);
        return status;
    }
    if ( fl->per_host || fl->shards == 0 )
    {
        status = fleet_select_nodes(fl);
        if ( status )
            return status;
    }
    if ( fl->shards == 0 )
        fl->shards = (unsigned int)fl->nr_hosts;
    if ( fl->shards > fl->groups )
    {
        if ( !fl->quiet )
            fprintf(stderr,
                    "hvbench: fleet: %u shards asked, but a shard is "
                    "whole groups and the matrix has %zu: %zu shards\n",
                    fl->shards, fl->groups, fl->groups);
        fl->shards = (unsigned int)fl->groups;
    }
    if ( !fl->per_host )
    {
        for ( t = 0; t < fl->nr_hosts; t++ )
            free(fl->hosts[t]);
        free(fl->hosts);
        fl->hosts = NULL;
        fl->nr_hosts = 0;
    }
    snprintf(path, sizeof(path), "%s/" FLEET_STATE, fl->dir);
    if ( !fl->dry_run && access(path, F_OK) == 0 )
        return hvb_usage_error("fleet: %s already holds a fleet: finish "
                               "it with --resume, or use another --dir",
                               fl->dir);
    return HVB_EXIT_OK;
}

/* The tasks to run: all, or (--resume) those without results.  Status. */
static int todo_tasks(const struct fleet *fl, struct fleet_run *r)
{
    char path[PATH_MAX + 32];
    size_t t;

    r->total = fl->per_host ? fl->nr_hosts : fl->shards;
    r->todo = calloc(r->total + 1, sizeof(*r->todo));
    if ( r->todo == NULL )
        return hvb_failure("out of memory");
    for ( t = 0; t < r->total; t++ )
    {
        fleet_task_path(fl, t, path, sizeof(path));
        if ( !fl->resume || !fleet_complete_file(path) )
            r->todo[r->nr_todo++] = (unsigned int)t;
    }
    return HVB_EXIT_OK;
}

/* DIR and DIR/logs; the binary and the .so files into DIR.  Status. */
static int stage_phase(struct fleet *fl, const char *self)
{
    char path[PATH_MAX + 32];
    int rc;

    /* Staging rewrites run_argv's .so paths; fleet.json keeps the user's. */
    snprintf(path, sizeof(path), "%s", fl->dir);
    rc = fl->dry_run ? 0 : hvb_mkdirs(path);
    if ( rc == 0 && !fl->dry_run )
    {
        snprintf(path, sizeof(path), "%s/logs", fl->dir);
        rc = hvb_mkdirs(path);
    }
    if ( rc )
        return hvb_usage_error("fleet: cannot create %s: %s", path,
                               strerror(errno));
    if ( fl->stage )
        snprintf(fl->binary, sizeof(fl->binary), "%s/bin/hvbench", fl->dir);
    else
        snprintf(fl->binary, sizeof(fl->binary), "%s", self);
    if ( !fl->stage || fl->dry_run )
        return HVB_EXIT_OK;
    snprintf(path, sizeof(path), "%s/bin", fl->dir);
    rc = hvb_mkdirs(path);
    rc = rc ?: hvb_copy_file(self, fl->binary, 0755);
    if ( rc )
        return hvb_usage_error("fleet: cannot stage %s into %s: %s", self,
                               fl->binary, strerror(-rc));
    return fleet_stage_plugins(fl);
}

/* The job of the tasks to run and its script.  Status. */
static int script_phase(const struct fleet *fl, struct fleet_run *r)
{
    struct hvb_fleet_job *j = &r->job;
    size_t t;

    j->dir = fl->dir;
    j->partition = fl->partition;
    j->constraint = fl->constraint;
    j->per_host = fl->per_host;
    j->shards = fl->shards;
    j->run_argv = fl->run_argv;
    j->run_argc = fl->run_argc;
    j->binary = fl->binary;
    j->tasks = r->todo;
    j->nr_tasks = r->nr_todo;
    if ( fl->per_host )
    {
        char **hs = calloc(r->nr_todo + 1, sizeof(*hs));

        for ( t = 0; hs != NULL && t < r->nr_todo; t++ )
            hs[t] = fl->hosts[r->todo[t]];
        j->hosts = hs;
    }
    else
        for ( t = 0; t < r->nr_todo; t++ )
            r->todo[t]++; /* array task K = shard K, from 1 */
    r->script = hvb_slurm_script(j);
    if ( r->script == NULL || (fl->per_host && j->hosts == NULL) )
        return hvb_failure("out of memory");
    snprintf(r->path, sizeof(r->path), "%s/job.sh", fl->dir);
    return HVB_EXIT_OK;
}

/* --dry-run: the script and the sbatch command on stdout. */
static void print_dry_run(const struct fleet *fl, const struct fleet_run *r)
{
    size_t t;

    fputs(r->script, stdout);
    printf("# submitted with:\n");
    if ( fl->per_host )
        for ( t = 0; t < r->nr_todo; t++ )
            printf("#   sbatch --parsable --nodelist=%s %s\n", r->job.hosts[t],
                   r->path);
    else
    {
        printf("#   sbatch --parsable --array=");
        for ( t = 0; t < r->nr_todo; t++ )
            printf("%s%u", t ? "," : "", r->todo[t]);
        printf(" %s\n", r->path);
    }
    printf("# %zu cells in %zu groups; %zu of %zu %s to run\n", fl->cells,
           fl->groups, r->nr_todo, r->total, fl->per_host ? "hosts" : "shards");
}

/* fleet.json (a new fleet) and job.sh into DIR.  Status. */
static int write_phase(const struct fleet *fl, const struct fleet_run *r,
                       char *const *orig, size_t argc)
{
    char st[PATH_MAX + 32];
    json_t *state;
    FILE *f;

    if ( !fl->resume )
    {
        state = fleet_state_json(fl, orig, argc);
        snprintf(st, sizeof(st), "%s/" FLEET_STATE, fl->dir);
        if ( state == NULL ||
             json_dump_file(state, st, JSON_INDENT(2) | JSON_SORT_KEYS) )
        {
            json_decref(state);
            return hvb_usage_error("fleet: cannot write %s", st);
        }
        json_decref(state);
    }
    f = fopen(r->path, "w");
    if ( f == NULL || fputs(r->script, f) == EOF || fclose(f) ||
         chmod(r->path, 0755) )
        return hvb_usage_error("fleet: cannot write %s: %s", r->path,
                               strerror(errno));
    return HVB_EXIT_OK;
}

/* sbatch, the ids into DIR/jobs, and the line that names them.  Status. */
static int submit_phase(const struct fleet *fl, struct fleet_run *r)
{
    char err[512] = "";
    size_t t;

    if ( hvb_slurm_submit(&r->job, r->path, &r->ids, &r->nr_ids, err,
                          sizeof(err)) )
        return hvb_usage_error("fleet: %s", err);
    fleet_record_jobs(fl, r->ids, r->nr_ids);
    if ( fl->quiet )
        return HVB_EXIT_OK;
    fprintf(stderr, "hvbench: fleet: %zu cells in %zu groups, ", fl->cells,
            fl->groups);
    if ( fl->per_host )
        fprintf(stderr, "%zu of %zu hosts", r->nr_todo, r->total);
    else if ( fl->resume )
    {
        fprintf(stderr, "resuming %s: shards", fl->dir);
        for ( t = 0; t < r->nr_todo; t++ )
            fprintf(stderr, "%s%u", t ? "," : " ", r->todo[t]);
        fprintf(stderr, " of %u to run", fl->shards);
    }
    else
        fprintf(stderr, "%u shards", fl->shards);
    fprintf(stderr, "; job");
    for ( t = 0; t < r->nr_ids; t++ )
        fprintf(stderr, " %s", r->ids[t]);
    fputc('\n', stderr);
    return HVB_EXIT_OK;
}

static void fleet_run_free(struct fleet_run *r)
{
    size_t t;

    for ( t = 0; t < r->nr_ids; t++ )
        free(r->ids[t]);
    free(r->ids);
    free((void *)r->job.hosts);
    free(r->script);
    free(r->todo);
}

static int fleet_slurm(struct fleet *fl, char *const *orig, size_t argc)
{
    struct fleet_run r = {0};
    ssize_t sl;
    int status;

    sl = readlink("/proc/self/exe", r.self, sizeof(r.self) - 1);
    if ( sl <= 0 )
        return hvb_failure("fleet: /proc/self/exe: %s", strerror(errno));
    r.self[sl] = '\0';
    status = plan(fl, r.self);
    status = status ?: select_phase(fl, orig, argc);
    status = status ?: todo_tasks(fl, &r);
    status = status ?: stage_phase(fl, r.self);
    status = status ?: script_phase(fl, &r);
    if ( status == HVB_EXIT_OK && fl->dry_run )
        print_dry_run(fl, &r);
    else if ( status == HVB_EXIT_OK )
    {
        status = write_phase(fl, &r, orig, argc);
        if ( status == HVB_EXIT_OK && r.nr_todo == 0 && !fl->quiet )
            fprintf(stderr,
                    "hvbench: fleet: nothing to run: every %s of %s "
                    "has its results\n",
                    fl->per_host ? "host" : "shard", fl->dir);
        if ( status == HVB_EXIT_OK && r.nr_todo > 0 )
        {
            status = submit_phase(fl, &r);
            status = status ?: fleet_follow(fl, r.ids, r.nr_ids, r.nr_todo);
        }
        status = status ?: fleet_gather(fl); /* merge */
    }
    fleet_run_free(&r);
    return status;
}

/* The run command after "--" (from @first): 0, or the exit status. */
static int fleet_check_run(const struct fleet *fl, int argc, char **argv,
                           int first)
{
    static const char *const owned[] = {"--shard", "--out", "-o", "--resume",
                                        "--plan"};
    size_t k, n;
    int i;

    if ( first < 0 || first >= argc || strcmp(argv[first], "run") )
        return hvb_usage_error("fleet slurm needs '-- run WORKLOAD [run "
                               "options]' at the end");
    if ( fl->per_host && fl->shards > 0 )
        return hvb_usage_error("fleet: --per-host runs the whole matrix on "
                               "each node: no --shards");
    for ( i = first + 1; i < argc; i++ )
        for ( k = 0; k < sizeof(owned) / sizeof(owned[0]); k++ )
        {
            n = strlen(owned[k]);
            if ( strncmp(argv[i], owned[k], n) == 0 &&
                 (argv[i][n] == '\0' || argv[i][n] == '=') )
                return hvb_usage_error("fleet: the run command cannot take "
                                       "%s: the fleet sets it (--out: the "
                                       "fleet's own --out)",
                                       owned[k]);
        }
    return 0;
}

/* Engine, run command and --dir of @a: 0, or the exit status. */
static int fleet_check_args(struct fleet_args *a, int argc, char **argv)
{
    struct fleet *fl = &a->fl;
    int rc;

    if ( a->engine == NULL || strcmp(a->engine, "slurm") != 0 )
        return hvb_usage_error("fleet: %s%s%s (engines: slurm; see 'hvbench "
                               "fleet --help')",
                               a->engine ? "unknown engine '"
                                         : "needs an engine",
                               a->engine ?: "", a->engine ? "'" : "");
    rc = fleet_check_run(fl, argc, argv, a->first_run);
    if ( rc )
        return rc;
    if ( hvb_fleet_dir(a->dir, fl->dir, sizeof(fl->dir)) )
        return hvb_usage_error("fleet: --dir '%s': want a path without "
                               "blanks, quotes, '%%', '$' or '\\' (it goes "
                               "into #SBATCH lines)",
                               a->dir);
    return 0;
}

/* Read the command line into @a: -1 to go on, or the exit status. */
static int fleet_parse(struct fleet_args *a, int argc, char **argv)
{
    struct hvb_optparse p = {.argc = argc,
                             .argv = argv,
                             .i = 1,
                             .cmd = "fleet",
                             .doc = &hvb_doc_fleet};
    const char *val;
    int id, i, rc;

    /* Our options end at "--"; the rest is the run command, untouched. */
    for ( i = 1; i < argc; i++ )
        if ( strcmp(argv[i], "--") == 0 )
        {
            a->first_run = i + 1;
            break;
        }
    p.argc = a->first_run > 0 ? a->first_run - 1 : argc;
    while ( (id = hvb_opt_parse(&p, fleet_opts, a, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        /* Every row is typed: what is left is the engine. */
        if ( a->engine != NULL )
            return hvb_usage_error("fleet: '%s': the run command goes "
                                   "after '--' (fleet slurm [options] -- "
                                   "run WORKLOAD ...)",
                                   val);
        a->engine = val;
    }
    rc = fleet_check_args(a, argc, argv);
    return rc ? rc : -1;
}

int hvb_cmd_fleet(struct hvb_cmd_ctx *ctx)
{
    struct fleet_args a = {
        .fl = {.stage = true, .poll_s = 2, .cmd_timeout_s = FLEET_CMD_TIMEOUT},
        .dir = FLEET_DEFAULT_DIR,
        .first_run = -1};
    struct fleet *fl = &a.fl;
    const char *env = getenv(FLEET_CMD_TIMEOUT_ENV);
    char **orig;
    int status;
    size_t k;

    if ( env != NULL && *env &&
         !hvb_parse_seconds(FLEET_CMD_TIMEOUT_ENV, env, 0.01, 86400,
                            &fl->cmd_timeout_s) )
        return HVB_EXIT_USAGE;
    status = fleet_parse(&a, ctx->argc, ctx->argv);
    if ( status >= 0 )
        return status;
    if ( fl->out == NULL )
    {
        snprintf(fl->outbuf, sizeof(fl->outbuf), "%s/merged.json", fl->dir);
        fl->out = fl->outbuf;
    }
    fl->run_argc = (size_t)(ctx->argc - a.first_run);
    orig = ctx->argv + a.first_run;
    fl->run_argv = calloc(fl->run_argc + 1, sizeof(*fl->run_argv));
    if ( fl->run_argv == NULL )
        return hvb_failure("out of memory");
    memcpy(fl->run_argv, orig, fl->run_argc * sizeof(*orig));
    hvb_slurm_set_timeout(fl->cmd_timeout_s);
    status = fleet_slurm(fl, orig, fl->run_argc);
    for ( k = 0; k < fl->run_argc; k++ )
        if ( fl->run_argv[k] != orig[k] )
            free(fl->run_argv[k]);
    free(fl->run_argv);
    for ( k = 0; k < fl->nr_hosts; k++ )
        free(fl->hosts[k]);
    free(fl->hosts);
    return status;
}
