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

#include <hvb/cli.h>
#include <hvb/fleet.h>
#include <hvb/hosts.h>
#include <hvb/merge.h>
#include <hvb/progress.h>
#include <hvb/results.h>
#include <hvb/results_read.h>

#include "fleet_private.h"

enum {
    OPT_PARTITION = 1,
    OPT_CONSTRAINT,
    OPT_SHARDS,
    OPT_PER_HOST,
    OPT_DRY_RUN,
    OPT_RESUME,
    OPT_DIR,
    OPT_OUT,
    OPT_NO_STAGE,
    OPT_POLL,
    OPT_QUIET,
    OPT_HELP,
};

static const struct hvb_optdef fleet_opts[] = {
    HVB_OPT("partition", 'p', "P", OPT_PARTITION,
            "submit to partition P (and take its nodes)"),
    HVB_OPT("constraint", 'C', "F", OPT_CONSTRAINT,
            "only nodes with features F (sbatch's --constraint: numa&pmu, "
            "intel|amd)"),
    HVB_OPT("shards", 'n', "N", OPT_SHARDS,
            "shards (default: the nodes selected, at most the matrix's "
            "groups)"),
    HVB_OPT_FLAG("per-host", 0, OPT_PER_HOST,
                 "the whole matrix on every selected node: DIR/host-NODE.json "
                 "each, then a table of the hosts (environment and ratios) "
                 "side by side"),
    HVB_OPT("dir", 'd', "DIR", OPT_DIR,
            "the fleet directory, on a path every node sees (default "
            "./" FLEET_DEFAULT_DIR "): staged binary, job.sh, shard-K.json, "
            "logs/"),
    HVB_OPT("out", 'o', "FILE", OPT_OUT,
            "the merged results (default DIR/merged.json)"),
    HVB_OPT_FLAG("dry-run", 0, OPT_DRY_RUN,
                 "print the job script and the sbatch command; write and "
                 "submit nothing"),
    HVB_OPT_FLAG("resume", 0, OPT_RESUME,
                 "submit only the shards (hosts) of DIR that have no complete "
                 "results, then merge all"),
    HVB_OPT_FLAG("no-stage", 0, OPT_NO_STAGE,
                 "run this hvbench and the plugin .so files where they are (a "
                 "shared path) instead of copies in DIR"),
    HVB_OPT("poll", 0, "S", OPT_POLL,
            "seconds between looks at the queue (default 2)"),
    HVB_OPT_FLAG("quiet", 'q', OPT_QUIET, "no progress on stderr"),
    HVB_OPT_HELP(OPT_HELP),
    HVB_OPT_END,
};

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
        "each machine and 'hvbench merge' (README, \"Beyond one machine\").\n"
        "\n"
        "exit status: 0 all merged, 1 a task failed (named; --resume reruns\n"
        "it), 2 usage or input error (also Slurm not reachable)",
};

/* Run @argv with stdout into @out; the exit status (stderr passes). */
static int run_plan(char *const *argv, char *out, size_t len)
{
    int p[2], status;
    size_t n = 0;
    ssize_t r;
    pid_t pid;

    if ( pipe(p) )
        return -errno;
    fflush(NULL);
    pid = fork();
    if ( pid == 0 )
    {
        dup2(p[1], 1);
        close(p[0]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    if ( pid < 0 )
    {
        close(p[0]);
        return -errno;
    }
    for ( ;; )
    {
        char sink[4096];

        r = n + 1 < len ? read(p[0], out + n, len - n - 1)
                        : read(p[0], sink, sizeof(sink));
        if ( r <= 0 )
            break;
        if ( n + 1 < len )
            n += (size_t)r;
    }
    out[n] = '\0';
    close(p[0]);
    while ( waitpid(pid, &status, 0) < 0 )
        if ( errno != EINTR )
            return -errno;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* "run ... --plan" with this binary: the run command is valid here. */
static int plan(struct fleet *fl, const char *self)
{
    char **av = calloc(fl->run_argc + 3, sizeof(*av)), *buf;
    json_t *o;
    size_t i;
    int rc;

    buf = malloc(1 << 20);
    if ( av == NULL || buf == NULL )
    {
        free(av);
        free(buf);
        return hvb_failure("out of memory");
    }
    av[0] = (char *)self;
    for ( i = 0; i < fl->run_argc; i++ )
        av[i + 1] = fl->run_argv[i];
    av[i + 1] = "--plan";
    rc = run_plan(av, buf, 1 << 20);
    free(av);
    if ( rc != 0 )
    {
        free(buf);
        if ( rc < 0 )
            return hvb_failure("fleet: cannot run %s: %s", self, strerror(-rc));
        return hvb_usage_error("fleet: the run command is not valid here "
                               "(above); nothing submitted");
    }
    o = json_loads(buf, 0, NULL);
    free(buf);
    fl->groups = (size_t)json_integer_value(json_object_get(o, "groups"));
    fl->cells = (size_t)json_integer_value(json_object_get(o, HVB_RK_CELLS));
    json_decref(o);
    if ( fl->groups == 0 )
        return hvb_failure("fleet: 'run --plan' said no groups");
    return HVB_EXIT_OK;
}

static int fleet_slurm(struct fleet *fl, char *const *orig, size_t argc)
{
    struct hvb_fleet_job job = {0};
    unsigned int *todo = NULL;
    char **ids = NULL, *script = NULL, self[PATH_MAX], path[PATH_MAX + 32],
         err[512] = "";
    size_t nr_ids = 0, t, total, nr_todo = 0;
    json_t *state = NULL;
    ssize_t sl;
    int status;
    FILE *f;

    sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if ( sl <= 0 )
        return hvb_failure("fleet: /proc/self/exe: %s", strerror(errno));
    self[sl] = '\0';
    status = plan(fl, self);
    if ( status )
        return status;
    if ( fl->resume )
    {
        state = fleet_state_json(fl, orig, argc);
        status =
            state ? fleet_load_state(fl, state) : hvb_failure("out of memory");
        json_decref(state);
        state = NULL;
        if ( status == HVB_EXIT_OK && !fl->dry_run )
            status = fleet_still_queued(fl);
        if ( status )
            return status;
    }
    else
    {
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
    }
    total = fl->per_host ? fl->nr_hosts : fl->shards;
    todo = calloc(total + 1, sizeof(*todo));
    if ( todo == NULL )
        return hvb_failure("out of memory");
    for ( t = 0; t < total; t++ )
    {
        fleet_task_path(fl, t, path, sizeof(path));
        if ( !fl->resume || !fleet_complete_file(path) )
            todo[nr_todo++] = (unsigned int)t;
    }

    /* Staging rewrites run_argv's .so paths; fleet.json keeps the user's. */
    if ( !fl->dry_run && (fleet_mkdirs(fl->dir) ||
                          (snprintf(path, sizeof(path), "%s/logs", fl->dir),
                           fleet_mkdirs(path))) )
    {
        free(todo);
        return hvb_usage_error("fleet: cannot create %s: %s", path,
                               strerror(errno));
    }
    if ( fl->stage )
        snprintf(fl->binary, sizeof(fl->binary), "%s/bin/hvbench", fl->dir);
    else
        snprintf(fl->binary, sizeof(fl->binary), "%s", self);
    if ( fl->stage && !fl->dry_run )
    {
        int rc;

        snprintf(path, sizeof(path), "%s/bin", fl->dir);
        rc = fleet_mkdirs(path);
        rc = rc ?: fleet_copy_file(self, fl->binary, 0755);
        if ( rc )
        {
            free(todo);
            return hvb_usage_error("fleet: cannot stage %s into %s: %s", self,
                                   fl->binary, strerror(-rc));
        }
        status = fleet_stage_plugins(fl);
        if ( status )
        {
            free(todo);
            return status;
        }
    }

    job.dir = fl->dir;
    job.partition = fl->partition;
    job.constraint = fl->constraint;
    job.per_host = fl->per_host;
    job.shards = fl->shards;
    job.run_argv = fl->run_argv;
    job.run_argc = fl->run_argc;
    job.binary = fl->binary;
    job.tasks = todo;
    job.nr_tasks = nr_todo;
    if ( fl->per_host )
    {
        char **hs = calloc(nr_todo + 1, sizeof(*hs));

        for ( t = 0; hs != NULL && t < nr_todo; t++ )
            hs[t] = fl->hosts[todo[t]];
        job.hosts = hs;
    }
    else
        for ( t = 0; t < nr_todo; t++ )
            todo[t]++; /* array task K = shard K, from 1 */
    script = hvb_slurm_script(&job);
    if ( script == NULL || (fl->per_host && job.hosts == NULL) )
    {
        status = hvb_failure("out of memory");
        goto out;
    }
    snprintf(path, sizeof(path), "%s/job.sh", fl->dir);
    if ( fl->dry_run )
    {
        fputs(script, stdout);
        printf("# submitted with:\n");
        if ( fl->per_host )
            for ( t = 0; t < nr_todo; t++ )
                printf("#   sbatch --parsable --nodelist=%s %s\n", job.hosts[t],
                       path);
        else
        {
            printf("#   sbatch --parsable --array=");
            for ( t = 0; t < nr_todo; t++ )
                printf("%s%u", t ? "," : "", todo[t]);
            printf(" %s\n", path);
        }
        printf("# %zu cells in %zu groups; %zu of %zu %s to run\n", fl->cells,
               fl->groups, nr_todo, total, fl->per_host ? "hosts" : "shards");
        status = HVB_EXIT_OK;
        goto out;
    }
    if ( !fl->resume )
    {
        char st[PATH_MAX + 32];

        state = fleet_state_json(fl, orig, argc);
        snprintf(st, sizeof(st), "%s/" FLEET_STATE, fl->dir);
        if ( state == NULL ||
             json_dump_file(state, st, JSON_INDENT(2) | JSON_SORT_KEYS) )
        {
            status = hvb_usage_error("fleet: cannot write %s", st);
            goto out;
        }
    }
    f = fopen(path, "w");
    if ( f == NULL || fputs(script, f) == EOF || fclose(f) ||
         chmod(path, 0755) )
    {
        status = hvb_usage_error("fleet: cannot write %s: %s", path,
                                 strerror(errno));
        goto out;
    }
    if ( nr_todo == 0 )
    {
        if ( !fl->quiet )
            fprintf(stderr,
                    "hvbench: fleet: nothing to run: every %s of %s "
                    "has its results\n",
                    fl->per_host ? "host" : "shard", fl->dir);
        status = fleet_gather(fl);
        goto out;
    }
    if ( hvb_slurm_submit(&job, path, &ids, &nr_ids, err, sizeof(err)) )
    {
        status = hvb_usage_error("fleet: %s", err);
        goto out;
    }
    fleet_record_jobs(fl, ids, nr_ids);
    if ( !fl->quiet )
    {
        fprintf(stderr, "hvbench: fleet: %zu cells in %zu groups, ", fl->cells,
                fl->groups);
        if ( fl->per_host )
            fprintf(stderr, "%zu of %zu hosts", nr_todo, total);
        else if ( fl->resume )
        {
            fprintf(stderr, "resuming %s: shards", fl->dir);
            for ( t = 0; t < nr_todo; t++ )
                fprintf(stderr, "%s%u", t ? "," : " ", todo[t]);
            fprintf(stderr, " of %u to run", fl->shards);
        }
        else
            fprintf(stderr, "%u shards", fl->shards);
        fprintf(stderr, "; job");
        for ( t = 0; t < nr_ids; t++ )
            fprintf(stderr, " %s", ids[t]);
        fputc('\n', stderr);
    }
    status = fleet_follow(fl, ids, nr_ids, nr_todo);
    if ( status == HVB_EXIT_OK )
        status = fleet_gather(fl);
out:
    for ( t = 0; t < nr_ids; t++ )
        free(ids[t]);
    free(ids);
    free((void *)job.hosts);
    free(script);
    free(todo);
    json_decref(state);
    return status;
}

/* @d as an absolute path (need not exist yet) into @out. */
static int absolute(const char *d, char *out, size_t len)
{
    char cwd[PATH_MAX];

    if ( d[0] == '/' )
        return snprintf(out, len, "%s", d) < (int)len ? 0 : -ENAMETOOLONG;
    if ( getcwd(cwd, sizeof(cwd)) == NULL )
        return -errno;
    return snprintf(out, len, "%s/%s", cwd, d) < (int)len ? 0 : -ENAMETOOLONG;
}

/* What the fleet's own options (before "--") set. */
struct fleet_args {
    const char *engine, *dir;
    int first_run; /* argv index of "run", or -1 */
};

/* One fleet option: 0, or the exit status (-1: --help printed, exit 0). */
static int fleet_option(struct fleet *fl, struct fleet_args *a, int id,
                        const char *val)
{
    uint64_t u;

    switch ( id )
    {
    case HVB_OPT_ERROR:
        return HVB_EXIT_USAGE;
    case HVB_OPT_POSITIONAL:
        if ( a->engine != NULL )
            return hvb_usage_error("fleet: '%s': the run command goes "
                                   "after '--' (fleet slurm [options] -- "
                                   "run WORKLOAD ...)",
                                   val);
        a->engine = val;
        return 0;
    case OPT_PARTITION:
        fl->partition = val;
        return 0;
    case OPT_CONSTRAINT:
        fl->constraint = val;
        return 0;
    case OPT_SHARDS:
        if ( !hvb_parse_u64("--shards", val, 1, 4096, &u) )
            return HVB_EXIT_USAGE;
        fl->shards = (unsigned int)u;
        return 0;
    case OPT_PER_HOST:
        fl->per_host = true;
        return 0;
    case OPT_DRY_RUN:
        fl->dry_run = true;
        return 0;
    case OPT_RESUME:
        fl->resume = true;
        return 0;
    case OPT_DIR:
        a->dir = val;
        return 0;
    case OPT_OUT:
        fl->out = val;
        return 0;
    case OPT_NO_STAGE:
        fl->stage = false;
        return 0;
    case OPT_POLL:
        return hvb_parse_seconds("--poll", val, 0.05, 3600, &fl->poll_s)
                   ? 0
                   : HVB_EXIT_USAGE;
    case OPT_QUIET:
        fl->quiet = true;
        return 0;
    case OPT_HELP:
        hvb_cmd_doc_help(stdout, &hvb_doc_fleet);
        return -1;
    }
    return 0;
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
static int fleet_check_args(struct fleet *fl, const struct fleet_args *a,
                            int argc, char **argv)
{
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
    if ( absolute(a->dir, fl->dir, sizeof(fl->dir)) ||
         strpbrk(fl->dir, " \t\n%'\"\\$`") != NULL )
        return hvb_usage_error("fleet: --dir '%s': want a path without "
                               "blanks, quotes, '%%', '$' or '\\' (it goes "
                               "into #SBATCH lines)",
                               a->dir);
    return 0;
}

/* Read the command line into @fl and @a: -1 to go on, or the exit status. */
static int fleet_parse(struct fleet *fl, struct fleet_args *a, int argc,
                       char **argv)
{
    struct hvb_optparse p = {
        .argc = argc, .argv = argv, .i = 1, .cmd = "fleet"};
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
    while ( (id = hvb_getopt(&p, fleet_opts, &val)) != HVB_OPT_DONE )
    {
        rc = fleet_option(fl, a, id, val);
        if ( rc )
            return rc < 0 ? HVB_EXIT_OK : rc;
    }
    rc = fleet_check_args(fl, a, argc, argv);
    return rc ? rc : -1;
}

int hvb_cmd_fleet(struct hvb_cmd_ctx *ctx)
{
    struct fleet fl = {.stage = true, .poll_s = 2};
    struct fleet_args a = {.dir = FLEET_DEFAULT_DIR, .first_run = -1};
    char **orig;
    int status;
    size_t k;

    status = fleet_parse(&fl, &a, ctx->argc, ctx->argv);
    if ( status >= 0 )
        return status;
    if ( fl.out == NULL )
    {
        snprintf(fl.outbuf, sizeof(fl.outbuf), "%s/merged.json", fl.dir);
        fl.out = fl.outbuf;
    }
    fl.run_argc = (size_t)(ctx->argc - a.first_run);
    orig = ctx->argv + a.first_run;
    fl.run_argv = calloc(fl.run_argc + 1, sizeof(*fl.run_argv));
    if ( fl.run_argv == NULL )
        return hvb_failure("out of memory");
    memcpy(fl.run_argv, orig, fl.run_argc * sizeof(*orig));
    status = fleet_slurm(&fl, orig, fl.run_argc);
    for ( k = 0; k < fl.run_argc; k++ )
        if ( fl.run_argv[k] != orig[k] )
            free(fl.run_argv[k]);
    free(fl.run_argv);
    for ( k = 0; k < fl.nr_hosts; k++ )
        free(fl.hosts[k]);
    free(fl.hosts);
    return status;
}
