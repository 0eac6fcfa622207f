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

#define DEFAULT_REPETITIONS   5
#define DEFAULT_MIN_TIME_S    0.1
#define DEFAULT_SEED          1
#define MAX_REPETITIONS       1000
#define MAX_MIN_TIME_S        3600.0
#define MAX_THREAD_COUNTS     64
#define MAX_PROCESSES         64
#define DEFAULT_TRACE_EVENTS  1000000
#define MAX_TRACE_EVENTS      100000000
#define DEFAULT_TRACE_LOCK_NS 10000
#define MAX_TRACE_LOCK_NS     3600000000000

/* One "run" command line being read: what the options set. */
struct run_cmd {
    const char *cmd; /* "run", "profile", ... for messages */
    struct hvb_run_opts o;
    unsigned int threads[MAX_THREAD_COUNTS];
    size_t nr_threads;
    const char **plugins, **params; /* at most one per argv slot */
    const char *wname;
    struct hvb_perfev_list events;
    bool trace_max_set, trace_lock_set; /* given: they need --trace */
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

static bool opt_plugin(void *st, const char *opt, const char *val);
static bool opt_param(void *st, const char *opt, const char *val);
static bool opt_threads(void *st, const char *opt, const char *val);
static bool opt_events(void *st, const char *opt, const char *val);
static bool opt_shard(void *st, const char *opt, const char *val);
static bool opt_affinity(void *st, const char *opt, const char *val);
static bool opt_trace_max(void *st, const char *opt, const char *val);
static bool opt_trace_lock(void *st, const char *opt, const char *val);

#define R struct run_cmd
static const struct hvb_optdef run_opts[] = {
    HVB_OPT_CALL("plugin", 0, "SLOT=SPEC[,SPEC...]", opt_plugin,
                 "strategies for a slot the workload exercises; SPEC is "
                 "NAME[:OPT=V...] (e.g. percpu-ref:ncpus=2) or a plugin .so; "
                 "slots not named run their default plugin"),
    HVB_OPT_CALL("param", 0, "KEY=V[,V...]", opt_param,
                 "workload parameter values (option and param values alike: "
                 "integers are decimal with k/M/G suffixes, x1000)"),
    HVB_OPT_CALL("threads", 't', "N[,M...]", opt_threads,
                 "measured threads (default 1)"),
    HVB_OPT_UINT(
        "repetitions", 'r', "N", R, o.repetitions, 1, MAX_REPETITIONS,
        "repetitions per cell (default " HVB_STR(DEFAULT_REPETITIONS) ")"),
    HVB_OPT_SECONDS("min-time", 0, "S", R, o.min_time_s, 0.001, MAX_MIN_TIME_S,
                    "minimum seconds per repetition (default " HVB_STR(
                        DEFAULT_MIN_TIME_S) ")"),
    HVB_OPT_CLEAR("no-interleave", 0, R, o.interleave,
                  "same cell order in every round (default: ABBA / "
                  "Latin-square order of each group)"),
    HVB_OPT_I64("iterations", 0, "N", R, o.iterations, 1, 1000000000000ull,
                "operations per thread and repetition, for every cell "
                "(default: calibrated to --min-time, one count shared by "
                "each group)"),
    HVB_OPT_CHOICE("counters", 0, "auto|hw|tsc|none", R, o.counters, counters,
                   "per-op counters (default auto: all available; hw: fail "
                   "unless hardware counters; none: time only, no allocs "
                   "counting pass)"),
    HVB_OPT_CALL(
        "events", 0, "E[,E...]", opt_events,
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
    HVB_OPT_CHOICE("instrument", 0, "none|callgrind", R, o.instrument,
                   instruments,
                   "callgrind: run under valgrind and report "
                   "sim_instructions_per_op and, from its cache simulation "
                   "(pinned caches), sim_cycles_per_op (1 thread only)"),
    HVB_OPT_UINT("processes", 0, "N", R, o.processes, 1, MAX_PROCESSES,
                 "run N worker processes one after another, each doing "
                 "every round, and pool their samples (N x repetitions "
                 "rounds), so the spread includes between-process variance "
                 "(default 1: measure in this process)",
                 .flags = HVB_OPTF_PARENT),
    HVB_OPT_SET("resume", 0, R, o.resume,
                "keep the finished rounds of --out FILE and run only the "
                "missing ones",
                .flags = HVB_OPTF_PARENT),
    HVB_OPT_STR("cell", 0, "NAME[,NAME...]", R, o.spec.cells,
                "run only these cells of the matrix, named as run prints "
                "them (lookup/domlookup=rcu-ref/threads:1); each the "
                "reference of its group when its own is left out"),
    HVB_OPT_CALL("shard", 0, "K/N", opt_shard,
                 "run only the K-th of N shards of the matrix: whole groups "
                 "(an A/B's cells stay together), balanced by cost, the same "
                 "for the same command line; 'hvbench merge' joins them"),
    HVB_OPT_STR("shard-costs", 0, "FILE", R, o.spec.shard_costs,
                "balance the shards by the cells' times in FILE (an earlier "
                "run), not estimated alike"),
    HVB_OPT_SET("plan", 0, R, o.plan,
                "print the cells and groups this command would run (with "
                "--shard: the shard's) as JSON, and exit without measuring"),
    HVB_OPT_CALL("affinity", 0, "spread|none", opt_affinity,
                 "pin measured thread i of a multi-thread cell to the i-th "
                 "usable CPU (default spread), or let every thread float"),
    HVB_OPT_U64("seed", 0, "N", R, o.spec.seed, 0, UINT64_MAX,
                "base seed of the threads' generators (default " HVB_STR(
                    DEFAULT_SEED) ")"),
    HVB_OPT_STR("out", 'o', "FILE", R, o.out_path,
                "also write the JSON results to FILE (atomically)",
                .flags = HVB_OPTF_PARENT),
    HVB_OPT_STR("trace", 0, "FILE", R, o.trace_path,
                "also write a timeline of the run to FILE (atomically), in "
                "Chrome Trace Event Format (Perfetto, chrome://tracing, "
                "speedscope): per thread the macro workloads' phases, lock "
                "waits and holds, RCU grace periods; one process per cell "
                "(and per --processes child)",
                .flags = HVB_OPTF_PARENT),
    HVB_OPT_CALL("trace-max-events", 0, "N", opt_trace_max,
                 "write at most N events to the --trace file, the newest "
                 "(default " HVB_STR(DEFAULT_TRACE_EVENTS) ")"),
    HVB_OPT_CALL(
        "trace-lock-ns", 0, "NS", opt_trace_lock,
        "trace lock waits (and holds) of at least NS ns (default " HVB_STR(
            DEFAULT_TRACE_LOCK_NS) ")"),
    HVB_OPT_SET("trace-holds", 0, R, o.trace_holds,
                "also trace lock holds: every acquisition is then timed "
                "(the lock profiler's hooks, as under lockstat), which "
                "slows lock-heavy cells; waits cost only the acquisitions "
                "that wait"),
    HVB_OPT_CHOICE("format", 'f', "console|json|csv|markdown", R, o.format,
                   formats, "what goes to stdout (default console)"),
    HVB_OPT_SET("allow-test-plugins", 0, R, o.spec.allow_test_only,
                "allow negative-control plugins (tests)"),
    HVB_OPT_SET("quiet", 'q', R, o.quiet, "no progress or context on stderr"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef R

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
    const struct hvb_optdef *d;
    const char *val;
    int id, n = 0, from;

    if ( av == NULL )
        return NULL;
    av[n++] = argv[0];
    for ( ;; )
    {
        from = p.i;
        id = hvb_opt_next(&p, run_opts, &d, &val);
        if ( id == HVB_OPT_DONE || id == HVB_OPT_ERROR )
            break;
        if ( d != NULL && (d->flags & HVB_OPTF_PARENT) )
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

static bool opt_plugin(void *st, const char *opt, const char *val)
{
    struct run_cmd *r = st;

    (void)opt;
    r->plugins[r->o.spec.nr_plugin_args++] = val;
    return true;
}

static bool opt_param(void *st, const char *opt, const char *val)
{
    struct run_cmd *r = st;

    (void)opt;
    r->params[r->o.spec.nr_param_args++] = val;
    return true;
}

static bool opt_threads(void *st, const char *opt, const char *val)
{
    struct run_cmd *r = st;

    (void)opt;
    return parse_threads(val, r->threads, &r->nr_threads);
}

static bool opt_events(void *st, const char *opt, const char *val)
{
    struct run_cmd *r = st;
    char err[512];

    (void)opt;
    if ( hvb_perfev_add_list(&r->events, val, err, sizeof(err)) == 0 )
        return true;
    hvb_usage_error("%s", err);
    return false;
}

static bool opt_shard(void *st, const char *opt, const char *val)
{
    struct hvb_matrix_spec *s = &((struct run_cmd *)st)->o.spec;
    char err[512];

    (void)opt;
    if ( hvb_shard_parse(val, &s->shard_k, &s->shard_n, err, sizeof(err)) )
    {
        hvb_usage_error("%s", err);
        return false;
    }
    s->shard_select = hvb_shard_select;
    return true;
}

static bool opt_affinity(void *st, const char *opt, const char *val)
{
    struct run_cmd *r = st;

    if ( hvb_affinity_parse(val, &r->o.spec.affinity) )
        return true;
    hvb_usage_error("bad value '%s' for %s (spread or none)", val, opt);
    return false;
}

static bool opt_trace_max(void *st, const char *opt, const char *val)
{
    struct run_cmd *r = st;

    r->trace_max_set = true;
    return hvb_parse_u64(opt, val, 1, MAX_TRACE_EVENTS, &r->o.trace_max_events);
}

static bool opt_trace_lock(void *st, const char *opt, const char *val)
{
    struct run_cmd *r = st;

    r->trace_lock_set = true;
    return hvb_parse_u64(opt, val, 0, MAX_TRACE_LOCK_NS, &r->o.trace_lock_ns);
}

/*
 * Read @argv into @r: -1 to carry on, or the exit status to return
 * (--help: 0, having printed it).
 */
static int run_parse(struct run_cmd *r, const struct hvb_cmd_ctx *ctx, int argc,
                     char **argv)
{
    struct hvb_optparse p = {.argc = argc,
                             .argv = argv,
                             .i = 1,
                             .cmd = r->cmd,
                             .doc = ctx->cmd->doc};
    const char *val;
    int id;

    while ( (id = hvb_opt_parse(&p, run_opts, r, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        /* Every row is typed: what is left is the workload. */
        if ( r->wname != NULL )
            return hvb_usage_error("%s takes one WORKLOAD; '%s' is one "
                                   "too many",
                                   r->cmd, val);
        r->wname = val;
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
    if ( o->trace_path == NULL &&
         (r->trace_max_set || r->trace_lock_set || o->trace_holds) )
        return hvb_usage_error("--trace-%s goes with --trace FILE",
                               r->trace_max_set    ? "max-events"
                               : r->trace_lock_set ? "lock-ns"
                                                   : "holds");
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
    o->trace_max_events = DEFAULT_TRACE_EVENTS;
    o->trace_lock_ns = DEFAULT_TRACE_LOCK_NS;
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
