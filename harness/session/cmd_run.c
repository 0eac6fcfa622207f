/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench run": parse the command line into run options.  Plugin and
 * parameter values are validated by the matrix (hvb/matrix.h); this file
 * checks the rest and names the workload.
 */
#include <stdlib.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/suggest.h>
#include <hvb/cmdline.h>
#include <hvb/registry.h>
#include <hvb/run.h>
#include <hvb/shard.h>

#define DEFAULT_REPETITIONS 5
#define DEFAULT_MIN_TIME_S  0.1
#define DEFAULT_SEED        1
#define MAX_REPETITIONS     1000
#define MAX_MIN_TIME_S      3600.0
#define MAX_THREAD_COUNTS   64
#define MAX_PROCESSES       64

enum {
    OPT_PLUGIN = 1,
    OPT_PARAM,
    OPT_THREADS,
    OPT_REPETITIONS,
    OPT_MIN_TIME,
    OPT_OUT,
    OPT_FORMAT,
    OPT_SEED,
    OPT_NO_INTERLEAVE,
    OPT_AFFINITY,
    OPT_TEST_PLUGINS,
    OPT_QUIET,
    OPT_COUNTERS,
    OPT_EVENTS,
    OPT_INSTRUMENT,
    OPT_RESUME,
    OPT_ITERATIONS,
    OPT_PROCESSES,
    OPT_SHARD,
    OPT_SHARD_COSTS,
    OPT_PLAN,
    OPT_HELP,
};

static const struct hvb_optdef run_opts[] = {
    HVB_OPT("plugin", 0, "SLOT=SPEC[,SPEC...]", OPT_PLUGIN,
            "strategies for a slot the workload exercises; SPEC is "
            "NAME[:OPT=V...] (e.g. percpu-ref:ncpus=2) or a plugin .so; "
            "slots not named run their default plugin"),
    HVB_OPT("param", 0, "KEY=V[,V...]", OPT_PARAM,
            "workload parameter values (option and param values alike: "
            "integers are decimal with k/M/G suffixes, x1000)"),
    HVB_OPT("threads", 't', "N[,M...]", OPT_THREADS,
            "measured threads (default 1)"),
    HVB_OPT("repetitions", 'r', "N", OPT_REPETITIONS,
            "repetitions per cell (default " HVB_STR(DEFAULT_REPETITIONS) ")"),
    HVB_OPT("min-time", 0, "S", OPT_MIN_TIME,
            "minimum seconds per repetition (default " HVB_STR(
                DEFAULT_MIN_TIME_S) ")"),
    HVB_OPT_FLAG("no-interleave", 0, OPT_NO_INTERLEAVE,
                 "same cell order in every round (default: ABBA / "
                 "Latin-square order of each group)"),
    HVB_OPT("iterations", 0, "N", OPT_ITERATIONS,
            "operations per thread and repetition, for every cell (default: "
            "calibrated to --min-time, one count shared by each group)"),
    HVB_OPT("counters", 0, "auto|hw|tsc|none", OPT_COUNTERS,
            "per-op counters (default auto: all available; hw: fail unless "
            "hardware counters; none: time only, no allocs counting pass)"),
    HVB_OPT("events", 0, "E[,E...]", OPT_EVENTS,
            "also count these perf events per op, in one group with cycles "
            "and instructions (scaled by its coverage): cache-misses, "
            "branch-misses, LLC-load-misses, ... as libpfm4 names them, a "
            "PMU's own (skl::L2_RQSTS:MISS) or software "
            "(perf::PERF_COUNT_SW_PAGE_FAULTS); 'cache' = "
            "cache-references,cache-misses, 'branch' = "
            "branches,branch-misses; at most " HVB_STR(
                HVB_PERFEV_EXTRA_MAX) ". Counter: the name in [a-z0-9_] + "
                                      "_per_op (cache_misses_per_op).  A "
                                      "name libpfm4 does not know is exit "
                                      "2; one this machine cannot count "
                                      "(no PMU, not permitted, too many "
                                      "for the group) is absent, its "
                                      "reason in the counter line and the "
                                      "results.  Not with --counters tsc "
                                      "or none"),
    HVB_OPT("instrument", 0, "none|callgrind", OPT_INSTRUMENT,
            "callgrind: run under valgrind and report sim_instructions_per_op "
            "(1 thread only)"),
    HVB_OPT("processes", 0, "N", OPT_PROCESSES,
            "run N worker processes one after another, each doing every "
            "round, and pool their samples (N x repetitions rounds), so the "
            "spread includes between-process variance (default 1: measure "
            "in this process)"),
    HVB_OPT_FLAG("resume", 0, OPT_RESUME,
                 "keep the finished rounds of --out FILE and run only the "
                 "missing ones"),
    HVB_OPT("shard", 0, "K/N", OPT_SHARD,
            "run only the K-th of N shards of the matrix: whole groups (an "
            "A/B's cells stay together), balanced by cost, the same for the "
            "same command line; 'hvbench merge' joins them"),
    HVB_OPT("shard-costs", 0, "FILE", OPT_SHARD_COSTS,
            "balance the shards by the cells' times in FILE (an earlier "
            "run), not estimated alike"),
    HVB_OPT_FLAG("plan", 0, OPT_PLAN,
                 "print the cells and groups this command would run (with "
                 "--shard: the shard's) as JSON, and exit without measuring"),
    HVB_OPT("affinity", 0, "spread|none", OPT_AFFINITY,
            "pin measured thread i of a multi-thread cell to the i-th usable "
            "CPU (default spread), or let every thread float"),
    HVB_OPT("seed", 0, "N", OPT_SEED,
            "base seed of the threads' generators (default " HVB_STR(
                DEFAULT_SEED) ")"),
    HVB_OPT("out", 'o', "FILE", OPT_OUT,
            "also write the JSON results to FILE (atomically)"),
    HVB_OPT("format", 'f', "console|json|csv|markdown", OPT_FORMAT,
            "what goes to stdout (default console)"),
    HVB_OPT_FLAG("allow-test-plugins", 0, OPT_TEST_PLUGINS,
                 "allow negative-control plugins (tests)"),
    HVB_OPT_FLAG("quiet", 'q', OPT_QUIET, "no progress or context on stderr"),
    HVB_OPT_HELP(OPT_HELP),
    HVB_OPT_END,
};

/* The values of --format, --counters and --instrument, by enum value. */
static const char *const formats[] = {[HVB_FORMAT_CONSOLE] = "console",
                                      [HVB_FORMAT_JSON] = "json",
                                      [HVB_FORMAT_CSV] = "csv",
                                      [HVB_FORMAT_MARKDOWN] = "markdown",
                                      NULL};
static const char *const counters[] = {[HVB_COUNTERS_AUTO] = "auto",
                                       [HVB_COUNTERS_HW] = "hw",
                                       [HVB_COUNTERS_TSC] = "tsc",
                                       [HVB_COUNTERS_NONE] = "none",
                                       NULL};
static const char *const instruments[] = {[HVB_INSTRUMENT_NONE] = "none",
                                          [HVB_INSTRUMENT_CALLGRIND] =
                                              "callgrind",
                                          NULL};

static void run_workloads(FILE *f)
{
    char names[1024];

    hvb_workload_names(names, sizeof(names));
    strncat(names, " (see 'hvbench list workloads')",
            sizeof(names) - strlen(names) - 1);
    fputs("workloads: ", f);
    hvb_help_wrapped(f, 11, 2, names);
}

const struct hvb_cmd_doc hvb_doc_run = {
    .usage = "run WORKLOAD [options]",
    .text = "Measure WORKLOAD for every cell of the cross product of the\n"
            "plugins, parameter values and thread counts given.  Cells\n"
            "differing only in plugins form a group; the first plugin of a\n"
            "group is the reference of its ratio column.",
    .more = run_workloads,
    .opts = run_opts,
    .notes = "exit status: 0 success, 1 a cell failed, 2 usage or input "
             "error",
};

/* Append the counts of "N[,M...]" to @t. */
static bool parse_threads(const char *arg, unsigned int *t, size_t *nr)
{
    const char *p = arg;
    char one[32];

    for ( ;; )
    {
        size_t n = strcspn(p, ",");
        uint64_t v;

        if ( n == 0 || n >= sizeof(one) )
        {
            hvb_usage_error(
                "bad value '%s' for --threads (N[,M...], each an integer in [1, %u])",
                arg, HV_MAX_CPUS - 1);
            return false;
        }
        memcpy(one, p, n);
        one[n] = '\0';
        if ( !hvb_parse_u64("--threads", one, 1, HV_MAX_CPUS - 1, &v) )
            return false;
        if ( *nr == MAX_THREAD_COUNTS )
        {
            hvb_usage_error("more than %d thread counts", MAX_THREAD_COUNTS);
            return false;
        }
        t[(*nr)++] = (unsigned int)v;
        p += n;
        if ( *p == '\0' )
            return true;
        p++;
    }
}

/*
 * The command line of a --processes child: @argv (from the command name
 * on) less --processes, --out and --resume, each with its value.  The
 * options were already parsed once, so this walk cannot fail.
 */
static char **child_args(int argc, char **argv, int *nr)
{
    struct hvb_optparse p = {.argc = argc, .argv = argv, .i = 1, .cmd = ""};
    char **av = calloc((size_t)argc + 1, sizeof(*av));
    const char *val;
    int id, n = 0, from;

    if ( av == NULL )
        return NULL;
    av[n++] = argv[0];
    for ( ;; )
    {
        from = p.i;
        id = hvb_getopt(&p, run_opts, &val);
        if ( id == HVB_OPT_DONE || id == HVB_OPT_ERROR )
            break;
        if ( id == OPT_PROCESSES || id == OPT_OUT || id == OPT_RESUME )
            continue;
        while ( from < p.i )
            av[n++] = argv[from++];
    }
    *nr = n;
    return av;
}

int hvb_cmd_run(struct hvb_cmd_ctx *ctx)
{
    return hvb_cmd_run_as(ctx, ctx->argc, ctx->argv, NULL);
}

/* One "run" command line being read: what the options set. */
struct run_cmd {
    const char *cmd; /* "run", "profile", ... for messages */
    struct hvb_run_opts o;
    unsigned int threads[MAX_THREAD_COUNTS];
    size_t nr_threads;
    const char **plugins, **params; /* at most one per argv slot */
    const char *wname;
    struct hvb_perfev_list events;
};

/* The options that shape the matrix: 0, -1 (said why), 1 not one. */
static int matrix_option(struct run_cmd *r, int id, const char *val)
{
    struct hvb_matrix_spec *s = &r->o.spec;
    char err[512];

    switch ( id )
    {
    case OPT_PLUGIN:
        r->plugins[s->nr_plugin_args++] = val;
        return 0;
    case OPT_PARAM:
        r->params[s->nr_param_args++] = val;
        return 0;
    case OPT_THREADS:
        return parse_threads(val, r->threads, &r->nr_threads) ? 0 : -1;
    case OPT_SHARD:
        if ( hvb_shard_parse(val, &s->shard_k, &s->shard_n, err, sizeof(err)) )
        {
            hvb_usage_error("%s", err);
            return -1;
        }
        s->shard_select = hvb_shard_select;
        return 0;
    case OPT_SHARD_COSTS:
        s->shard_costs = val;
        return 0;
    case OPT_SEED:
        return hvb_parse_u64("--seed", val, 0, UINT64_MAX, &s->seed) ? 0 : -1;
    case OPT_AFFINITY:
        if ( !hvb_affinity_parse(val, &s->affinity) )
        {
            hvb_usage_error("bad value '%s' for --affinity (spread or none)",
                            val);
            return -1;
        }
        return 0;
    case OPT_TEST_PLUGINS:
        s->allow_test_only = true;
        return 0;
    }
    return 1;
}

/* The options of how each cell is measured and reported: as above. */
static int measure_option(struct run_cmd *r, int id, const char *val)
{
    struct hvb_run_opts *o = &r->o;
    char err[512];
    uint64_t u;
    int choice;

    switch ( id )
    {
    case OPT_REPETITIONS:
        if ( !hvb_parse_u64("--repetitions", val, 1, MAX_REPETITIONS, &u) )
            return -1;
        o->repetitions = (unsigned int)u;
        return 0;
    case OPT_MIN_TIME:
        return hvb_parse_seconds("--min-time", val, 0.001, MAX_MIN_TIME_S,
                                 &o->min_time_s)
                   ? 0
                   : -1;
    case OPT_ITERATIONS:
        if ( !hvb_parse_u64("--iterations", val, 1, 1000000000000ull, &u) )
            return -1;
        o->iterations = (int64_t)u;
        return 0;
    case OPT_PROCESSES:
        if ( !hvb_parse_u64("--processes", val, 1, MAX_PROCESSES, &u) )
            return -1;
        o->processes = (unsigned int)u;
        return 0;
    case OPT_FORMAT:
        if ( !hvb_parse_choice("--format", val, formats, &choice) )
            return -1;
        o->format = (enum hvb_format)choice;
        return 0;
    case OPT_COUNTERS:
        if ( !hvb_parse_choice("--counters", val, counters, &choice) )
            return -1;
        o->counters = (enum hvb_counters_mode)choice;
        return 0;
    case OPT_INSTRUMENT:
        if ( !hvb_parse_choice("--instrument", val, instruments, &choice) )
            return -1;
        o->instrument = (enum hvb_instrument)choice;
        return 0;
    case OPT_EVENTS:
        if ( hvb_perfev_add_list(&r->events, val, err, sizeof(err)) )
        {
            hvb_usage_error("%s", err);
            return -1;
        }
        return 0;
    case OPT_OUT:
        o->out_path = val;
        return 0;
    case OPT_RESUME:
        o->resume = true;
        return 0;
    case OPT_PLAN:
        o->plan = true;
        return 0;
    case OPT_NO_INTERLEAVE:
        o->interleave = false;
        return 0;
    case OPT_QUIET:
        o->quiet = true;
        return 0;
    }
    return 1;
}

/*
 * Read @argv into @r: -1 to carry on, or the exit status to return
 * (--help: 0, having printed it).
 */
static int run_parse(struct run_cmd *r, const struct hvb_cmd_ctx *ctx, int argc,
                     char **argv)
{
    struct hvb_optparse p = {.argc = argc, .argv = argv, .i = 1, .cmd = r->cmd};
    const char *val;
    int id, rc;

    while ( (id = hvb_getopt(&p, run_opts, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == OPT_HELP )
        {
            hvb_cmd_doc_help(stdout, ctx->cmd->docs[0]);
            return HVB_EXIT_OK;
        }
        if ( id == HVB_OPT_POSITIONAL )
        {
            if ( r->wname != NULL )
                return hvb_usage_error("%s takes one WORKLOAD; '%s' is one "
                                       "too many",
                                       r->cmd, val);
            r->wname = val;
            continue;
        }
        rc = matrix_option(r, id, val);
        if ( rc > 0 )
            rc = measure_option(r, id, val);
        if ( rc < 0 )
            return HVB_EXIT_USAGE;
    }
    return -1;
}

/* The workload named, or NULL having said it is not one. */
static const struct hvb_workload *run_workload(const char *cmd,
                                               const char *wname)
{
    const struct hvb_workload *w;
    struct hv_suggest sg;
    char names[1024], dym[96];
    size_t i;

    hvb_workload_names(names, sizeof(names));
    if ( wname == NULL )
    {
        hvb_usage_error("%s needs a WORKLOAD (one of: %s)", cmd, names);
        return NULL;
    }
    w = hvb_workload_find(wname);
    if ( w != NULL )
        return w;
    hv_suggest_init(&sg, wname);
    for ( i = 0; (w = hvb_workload_at(i)) != NULL; i++ )
        hv_suggest_add(&sg, w->name);
    hvb_usage_error("unknown workload '%s' (valid: %s)%s", wname, names,
                    hv_suggest_fmt(&sg, dym, sizeof(dym)));
    return NULL;
}

/* The options that do not go together: 0, or the exit status. */
static int run_check(struct run_cmd *r, const struct hvb_run_hooks *hooks)
{
    struct hvb_run_opts *o = &r->o;

    if ( r->events.nr > 0 &&
         (o->counters == HVB_COUNTERS_TSC || o->counters == HVB_COUNTERS_NONE) )
        return hvb_usage_error("--events does not go with --counters %s "
                               "(use auto or hw)",
                               o->counters == HVB_COUNTERS_TSC ? "tsc"
                                                               : "none");
    if ( o->spec.shard_costs != NULL && o->spec.shard_n == 0 )
        return hvb_usage_error("--shard-costs goes with --shard K/N");
    o->spec.w = run_workload(r->cmd, r->wname);
    if ( o->spec.w == NULL )
        return HVB_EXIT_USAGE;
    if ( o->processes > 1 && (hooks != NULL || o->resume ||
                              o->instrument == HVB_INSTRUMENT_CALLGRIND) )
        return hvb_usage_error("--processes does not go with %s",
                               hooks != NULL ? r->cmd
                               : o->resume   ? "--resume"
                                             : "--instrument callgrind");
    return 0;
}

int hvb_cmd_run_as(const struct hvb_cmd_ctx *ctx, int argc, char **argv,
                   const struct hvb_run_hooks *hooks)
{
    struct run_cmd r = {.cmd = ctx->cmd->name, .events = {.nr = 0}};
    struct hvb_run_opts *o = &r.o;
    int status;

    o->repetitions = DEFAULT_REPETITIONS;
    o->processes = 1;
    o->min_time_s = DEFAULT_MIN_TIME_S;
    o->interleave = true;
    o->format = HVB_FORMAT_CONSOLE;
    o->spec.seed = DEFAULT_SEED;
    o->argc = ctx->full_argc;
    o->argv = ctx->full_argv;
    o->hooks = hooks;
    r.plugins = calloc((size_t)argc + 1, sizeof(*r.plugins));
    r.params = calloc((size_t)argc + 1, sizeof(*r.params));
    if ( r.plugins == NULL || r.params == NULL )
    {
        status = hvb_failure("out of memory");
        goto out;
    }
    status = run_parse(&r, ctx, argc, argv);
    if ( status >= 0 )
        goto out;
    status = run_check(&r, hooks);
    if ( status )
        goto out;
    o->events = r.events.nr > 0 ? &r.events : NULL;
    if ( o->processes > 1 )
    {
        o->child_argv = child_args(argc, argv, &o->child_argc);
        if ( o->child_argv == NULL )
        {
            status = hvb_failure("out of memory");
            goto out;
        }
    }
    if ( r.nr_threads == 0 )
        r.threads[r.nr_threads++] = 1;
    o->spec.threads = r.threads;
    o->spec.nr_threads = r.nr_threads;
    o->spec.plugin_args = r.plugins;
    o->spec.param_args = r.params;
    status = hvb_run(o);

out:
    free(o->child_argv);
    free(r.plugins);
    free(r.params);
    return status;
}
