/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-op counters and the capability probe; see hvb/meter.h. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <valgrind/callgrind.h>

#include <hvb/meter.h>
#include <hvb/workload.h>

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

/*
 * jemalloc 5.3's hooks_t (src/hook.h, not in its public header), for
 * the mallctl "experimental.hooks.install": the alloc hook runs for every
 * allocation call (malloc, calloc, posix_memalign, mallocx, a realloc
 * that moves), the dalloc hook for every free (free, dallocx, a realloc
 * that moves), the expand hook for a realloc resized in place.
 */
struct je_hooks {
    void (*alloc)(void *extra, int type, void *result, uintptr_t result_raw,
                  uintptr_t args_raw[3]);
    void (*dalloc)(void *extra, int type, void *address, uintptr_t args_raw[3]);
    void (*expand)(void *extra, int type, void *address, size_t old_usize,
                   size_t new_usize, uintptr_t result_raw,
                   uintptr_t args_raw[4]);
    void *extra;
};

static struct {
    bool probed;
    enum hvb_counters_mode mode;
    double tsc_hz;
    bool tsc, tsc_invariant;
    char tsc_why[160];
    unsigned int nr_sw, nr_hw;
    struct hvb_perfev_def sw[4], hw[HVB_PERFEV_MAX];
    char sw_why[200], hw_why[200];
    char sw_kernel_why[256]; /* why not the kernel-side software events */
    /* --events: hw[nr_hw..nr_grp) are those in the group; "" there. */
    unsigned int nr_grp;
    struct hvb_perfev_list ev;
    char ev_why[HVB_PERFEV_EXTRA_MAX][240]; /* >= hw_why */
    mallctl_fn mallctl;
    char alloc_why[160];
    bool hooks;            /* jemalloc's hooks install: allocs_per_op */
    char count_why[200];   /* why not */
    void *hooks_handle;    /* installed, during a counting pass only */
    _Atomic bool counting; /* measured threads read their call counts */
    bool callgrind;
    char cg_dir[PATH_MAX];
    char cg_why[160];
    _Atomic unsigned int cg_dumps;
    double bracket_ns; /* start() + stop(): inside the timed window */
} cfg;

static const char *const hw_names[] = {"cycles", "instructions"};
static const char *const hw_keys[] = {"cycles", "instructions"};
/* Those counted only in the kernel (a switch, a migration) last. */
static const char *const sw_names[] = {"task-clock", "page-faults",
                                       "context-switches", "cpu-migrations"};
static const char *const sw_keys[] = {"sw_task_clock_ns", "sw_page_faults",
                                      "sw_context_switches",
                                      "sw_cpu_migrations"};
#define SW_USER 2 /* sw_names[0..SW_USER) mean something in user space only */

static double mono(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* TSC ticks per second against CLOCK_MONOTONIC_RAW over ~20 ms. */
static double measure_tsc_hz(void)
{
    double t0 = mono(), t1;
    uint64_t c0 = __rdtsc(), c1;

    do
        t1 = mono();
    while ( t1 - t0 < 0.02 );
    c1 = __rdtsc();
    return (double)(c1 - c0) / (t1 - t0);
}

static bool cpuinfo_has(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    bool found = false;

    if ( f == NULL )
        return false;
    while ( !found && fgets(line, sizeof(line), f) )
    {
        char *p;

        if ( strncmp(line, "flags", 5) != 0 )
            continue;
        for ( p = strtok(line, " \t\n"); p; p = strtok(NULL, " \t\n") )
            if ( strcmp(p, flag) == 0 )
                found = true;
        break;
    }
    fclose(f);
    return found;
}

static void probe_perf(void)
{
    struct hvb_perfev_group g;
    char why[160];
    unsigned int i;

    cfg.nr_sw = cfg.nr_hw = 0;
    for ( i = 0; i < 4; i++ )
    {
        cfg.sw[i].name = sw_keys[i];
        hvb_perfev_software(sw_names[i], true, &cfg.sw[i].attr);
    }
    /*
     * Software events one by one (see hvb_perfev_open_solo()), kernel
     * side included; where that is not allowed, user space only, where
     * context switches and migrations would read 0: they go.
     */
    if ( hvb_perfev_open_solo(&g, cfg.sw, 4, cfg.sw_why, sizeof(cfg.sw_why)) ==
         0 )
    {
        cfg.nr_sw = 4;
        hvb_perfev_close(&g);
    }
    else
    {
        snprintf(cfg.sw_kernel_why, sizeof(cfg.sw_kernel_why),
                 "counted in the kernel, not allowed here: %s", cfg.sw_why);
        for ( i = 0; i < SW_USER; i++ )
            hvb_perfev_software(sw_names[i], false, &cfg.sw[i].attr);
        if ( hvb_perfev_open_solo(&g, cfg.sw, SW_USER, cfg.sw_why,
                                  sizeof(cfg.sw_why)) == 0 )
        {
            cfg.nr_sw = SW_USER;
            hvb_perfev_close(&g);
        }
    }
    if ( cfg.mode != HVB_COUNTERS_AUTO && cfg.mode != HVB_COUNTERS_HW )
    {
        snprintf(cfg.hw_why, sizeof(cfg.hw_why), "not asked (--counters %s)",
                 cfg.mode == HVB_COUNTERS_TSC ? "tsc" : "none");
        return;
    }
    for ( i = 0; i < 2; i++ )
    {
        cfg.hw[i].name = hw_keys[i];
        if ( hvb_perfev_encode(hw_names[i], &cfg.hw[i].attr, why, sizeof(why)) )
        {
            snprintf(cfg.hw_why, sizeof(cfg.hw_why), "%s", why);
            return;
        }
    }
    if ( hvb_perfev_open(&g, cfg.hw, 2, why, sizeof(why)) == 0 )
    {
        cfg.nr_hw = 2;
        hvb_perfev_close(&g);
    }
    else
        snprintf(cfg.hw_why, sizeof(cfg.hw_why), "%s%s", why,
                 access("/sys/bus/event_source/devices/cpu", F_OK)
                     ? " (no /sys/bus/event_source/devices/cpu)"
                     : "");
}

/*
 * Every thread's allocation and free calls while the hooks are installed
 * (initial-exec: no allocation, no lazy TLS set-up inside a hook).
 */
static __thread uint64_t tl_allocs __attribute__((tls_model("initial-exec")));
static __thread uint64_t tl_frees __attribute__((tls_model("initial-exec")));

static void hook_alloc(void *extra, int type, void *result,
                       uintptr_t result_raw, uintptr_t args_raw[3])
{
    if ( result != NULL )
        tl_allocs++;
}

static void hook_dalloc(void *extra, int type, void *address,
                        uintptr_t args_raw[3])
{
    tl_frees++;
}

static int hooks_install(void)
{
    struct je_hooks h = {.alloc = hook_alloc, .dalloc = hook_dalloc};
    size_t sz = sizeof(cfg.hooks_handle);

    /* jemalloc copies @h into its own table. */
    return cfg.mallctl("experimental.hooks.install", &cfg.hooks_handle, &sz, &h,
                       sizeof(h));
}

static void hooks_remove(void)
{
    cfg.mallctl("experimental.hooks.remove", NULL, NULL, &cfg.hooks_handle,
                sizeof(cfg.hooks_handle));
    cfg.hooks_handle = NULL;
}

/* Can this process count allocation calls?  Installs and removes once. */
static void probe_hooks(bool count_allocs)
{
    uint64_t before;
    void *p;
    int rc;

    if ( cfg.mallctl == NULL )
    {
        snprintf(cfg.count_why, sizeof(cfg.count_why), "%s", cfg.alloc_why);
        return;
    }
    if ( cfg.callgrind )
    {
        /* The counting pass would add its own dumps and Ir. */
        snprintf(cfg.count_why, sizeof(cfg.count_why),
                 "no counting pass under --instrument callgrind");
        return;
    }
    if ( !count_allocs )
    {
        snprintf(cfg.count_why, sizeof(cfg.count_why),
                 "no counting pass in profile or lockstat");
        return;
    }
    rc = hooks_install();
    if ( rc )
    {
        snprintf(cfg.count_why, sizeof(cfg.count_why),
                 "jemalloc experimental.hooks.install: %s", strerror(rc));
        return;
    }
    /*
     * A malloc the hooks do not see: jemalloc is linked but is not this
     * process's malloc.  The barriers keep the compiler, which assumes
     * malloc touches no global, from moving the reads across it.
     */
    before = tl_allocs;
    __asm__ volatile("" : : : "memory");
    p = malloc(1);
    __asm__ volatile("" : : "r"(p) : "memory");
    free(p);
    hooks_remove();
    cfg.hooks = tl_allocs != before;
    if ( !cfg.hooks )
        snprintf(cfg.count_why, sizeof(cfg.count_why),
                 "jemalloc's hooks saw no malloc (jemalloc is not this "
                 "process's malloc)");
}

bool hvb_meter_count_available(void)
{
    return cfg.hooks;
}

int hvb_meter_count_begin(void)
{
    int rc;

    if ( !cfg.hooks )
        return -ENOTSUP;
    rc = hooks_install();
    if ( rc )
        return -rc;
    atomic_store(&cfg.counting, true);
    return 0;
}

void hvb_meter_count_end(void)
{
    if ( !atomic_exchange(&cfg.counting, false) )
        return;
    hooks_remove();
}

/*
 * Open cfg.hw[0..n): one group, unless every event in it is software
 * (--events perf::... without a PMU), which is never multiplexed and
 * whose groups Linux 6.18 miscounts (hvb_perfev_open_solo()).
 */
static int open_grp(struct hvb_perfev_group *g, unsigned int n, char *why,
                    size_t len)
{
    unsigned int i;

    for ( i = 0; i < n; i++ )
        if ( cfg.hw[i].attr.type != PERF_TYPE_SOFTWARE )
            return hvb_perfev_open(g, cfg.hw, n, why, len);
    return hvb_perfev_open_solo(g, cfg.hw, n, why, len);
}

/* Do cfg.hw[0..n) open as one group and count while this thread runs? */
static bool group_runs(unsigned int n, char *why, size_t len)
{
    struct hvb_perfev_read r0, r1;
    struct hvb_perfev_group g;
    bool ok;
    double t0;

    if ( open_grp(&g, n, why, len) )
        return false;
    ok = hvb_perfev_readg(&g, &r0) == 0;
    t0 = mono();
    while ( mono() - t0 < 50e-6 )
        ;
    ok = ok && hvb_perfev_readg(&g, &r1) == 0 &&
         r1.time_running > r0.time_running;
    if ( !ok )
        snprintf(why, len, "the group opened but never counted");
    hvb_perfev_close(&g);
    return ok;
}

/*
 * --events: each alone first (one that does not open has its own
 * reason), then those that do, with cycles and instructions where they
 * exist, as one group: one coverage scales them all.
 */
static void probe_events(void)
{
    struct hvb_perfev_group g;
    unsigned int i, n = cfg.nr_hw;
    char why[128];

    cfg.nr_grp = cfg.nr_hw;
    for ( i = 0; i < cfg.ev.nr; i++ )
    {
        const struct hvb_perfev_extra *e = &cfg.ev.ev[i];
        struct hvb_perfev_def *d = &cfg.hw[n];

        if ( cfg.mode != HVB_COUNTERS_AUTO && cfg.mode != HVB_COUNTERS_HW )
            memcpy(cfg.ev_why[i], cfg.hw_why, sizeof(cfg.hw_why));
        else if ( !e->encoded )
            memcpy(cfg.ev_why[i], e->why, sizeof(e->why));
        else
        {
            d->name = e->name; /* the name asked, in a reason */
            d->attr = e->attr;
            if ( hvb_perfev_open(&g, d, 1, cfg.ev_why[i],
                                 sizeof(cfg.ev_why[i])) == 0 )
            {
                hvb_perfev_close(&g);
                d->name = e->key;
                n++;
            }
        }
    }
    if ( n == cfg.nr_hw )
        return;
    if ( group_runs(n, why, sizeof(why)) )
    {
        cfg.nr_grp = n;
        return;
    }
    for ( i = 0; i < cfg.ev.nr; i++ )
        if ( cfg.ev_why[i][0] == '\0' )
            snprintf(cfg.ev_why[i], sizeof(cfg.ev_why[i]),
                     "the PMU cannot count it in one group with %s: %s",
                     cfg.nr_hw ? "cycles, instructions and the other --events"
                               : "the other --events",
                     why);
}

int hvb_meter_probe(enum hvb_counters_mode mode,
                    const struct hvb_perfev_list *events, bool callgrind,
                    bool count_allocs, const char *cg_dir, char *err,
                    size_t len)
{
    memset(&cfg, 0, sizeof(cfg));
    cfg.probed = true;
    cfg.mode = mode;
    if ( events != NULL )
        cfg.ev = *events;
    cfg.tsc_invariant =
        cpuinfo_has("constant_tsc") && cpuinfo_has("nonstop_tsc");
    if ( mode == HVB_COUNTERS_NONE )
    {
        snprintf(cfg.tsc_why, sizeof(cfg.tsc_why),
                 "not asked (--counters none)");
        snprintf(cfg.sw_why, sizeof(cfg.sw_why), "not asked (--counters none)");
        snprintf(cfg.hw_why, sizeof(cfg.hw_why), "not asked (--counters none)");
        snprintf(cfg.alloc_why, sizeof(cfg.alloc_why),
                 "not asked (--counters none)");
        snprintf(cfg.count_why, sizeof(cfg.count_why),
                 "not asked (--counters none)");
    }
    else
    {
        cfg.tsc_hz = measure_tsc_hz();
        cfg.tsc = cfg.tsc_invariant;
        if ( !cfg.tsc )
            snprintf(cfg.tsc_why, sizeof(cfg.tsc_why),
                     "the TSC is not invariant (no constant_tsc+nonstop_tsc)");
        probe_perf();
        cfg.mallctl = (mallctl_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "mallctl");
        if ( cfg.mallctl == NULL )
            snprintf(cfg.alloc_why, sizeof(cfg.alloc_why),
                     "not linked with jemalloc");
    }
    probe_events();
    if ( mode != HVB_COUNTERS_NONE )
    {
        /* What start() and stop() add to each sample, best of 5. */
        struct hvb_ctr_table t;
        struct hvb_meter mt;
        int i;

        cfg.bracket_ns = -1;
        for ( i = 0; i < 5; i++ )
        {
            double t0, t1;

            hvb_meter_begin(&mt);
            t0 = mono();
            hvb_meter_start(&mt);
            hvb_meter_stop(&mt);
            t1 = mono();
            memset(&t, 0, sizeof(t));
            hvb_meter_end(&mt, false, &t);
            if ( cfg.bracket_ns < 0 || (t1 - t0) * 1e9 < cfg.bracket_ns )
                cfg.bracket_ns = (t1 - t0) * 1e9;
        }
    }
    cfg.callgrind = callgrind && RUNNING_ON_VALGRIND;
    if ( cfg.callgrind )
        snprintf(cfg.cg_dir, sizeof(cfg.cg_dir), "%s", cg_dir ? cg_dir : ".");
    else
        snprintf(cfg.cg_why, sizeof(cfg.cg_why),
                 "not asked (--instrument callgrind)");
    if ( mode != HVB_COUNTERS_NONE )
        probe_hooks(count_allocs);
    if ( mode == HVB_COUNTERS_HW && cfg.nr_hw == 0 )
    {
        snprintf(
            err, len,
            "--counters hw: no hardware counters here: %s (use --counters auto or tsc)",
            cfg.hw_why);
        return -EINVAL;
    }
    return 0;
}

double hvb_meter_bracket_ns(void)
{
    return cfg.bracket_ns;
}

double hvb_meter_tsc_hz(void)
{
    return cfg.tsc_hz;
}

/* One "; what (why)" of the probe line's unavailable list. */
static void unavailable(FILE *f, bool *first, const char *what, const char *why)
{
    fprintf(f, "%s %s (%s)", *first ? "; unavailable:" : ";", what, why);
    *first = false;
}

void hvb_meter_probe_line(FILE *f)
{
    bool first = true;
    unsigned int i;

    fprintf(f, "hvbench: counters: time%s%s%s%s%s%s",
            cfg.tsc ? ", tsc_cycles" : "",
            cfg.nr_hw ? ", cycles, instructions" : "",
            cfg.nr_sw ? ", software events" : "",
            cfg.mallctl ? ", alloc_bytes" : "",
            cfg.hooks ? ", allocs (untimed counting pass)" : "",
            cfg.callgrind ? ", sim_instructions" : "");
    for ( i = 0; i < cfg.ev.nr; i++ )
        if ( cfg.ev_why[i][0] == '\0' )
            fprintf(f, ", %s", cfg.ev.ev[i].key);
    if ( cfg.tsc )
        fprintf(f, " (TSC %.0f MHz)", cfg.tsc_hz / 1e6);
    if ( !cfg.tsc )
        unavailable(f, &first, "tsc_cycles", cfg.tsc_why);
    if ( !cfg.nr_hw )
        unavailable(f, &first, "cycles, instructions", cfg.hw_why);
    for ( i = 0; i < cfg.ev.nr; i++ )
        if ( cfg.ev_why[i][0] != '\0' )
            unavailable(f, &first, cfg.ev.ev[i].key, cfg.ev_why[i]);
    if ( !cfg.nr_sw )
        unavailable(f, &first, "software events", cfg.sw_why);
    else if ( cfg.nr_sw < 4 )
        unavailable(f, &first, "sw_context_switches, sw_cpu_migrations",
                    cfg.sw_kernel_why);
    if ( !cfg.mallctl )
        unavailable(f, &first, "alloc_bytes", cfg.alloc_why);
    if ( !cfg.hooks )
        unavailable(f, &first, "allocs", cfg.count_why);
    fputc('\n', f);
}

static json_t *one(bool ok, const char *source, const char *why)
{
    json_t *o = json_object();

    json_object_set_new(o, HVB_PK_AVAILABLE, json_boolean(ok));
    json_object_set_new(o, ok ? HVB_PK_SOURCE : HVB_PK_REASON,
                        json_string(ok ? source : why));
    return o;
}

json_t *hvb_meter_probe_json(void)
{
    json_t *o = json_object(), *c = json_object(), *asked = json_array();
    static const char *const mode_names[] = {"auto", "hw", "tsc", "none"};
    char src[200], key[HVB_CTR_NAME_MAX];
    unsigned int i;

    json_object_set_new(o, "mode", json_string(mode_names[cfg.mode]));
    json_object_set_new(o, "tsc_hz",
                        cfg.tsc_hz > 0 ? json_real(cfg.tsc_hz) : json_null());
    json_object_set_new(o, "tsc_invariant", json_boolean(cfg.tsc_invariant));
    json_object_set_new(o, "bracket_ns", json_real(cfg.bracket_ns));
    json_object_set_new(
        c, "tsc_cycles_per_op",
        one(cfg.tsc, "rdtsc, thread 0's measured window", cfg.tsc_why));
    json_object_set_new(
        c, "cycles_per_op",
        one(cfg.nr_hw, "perf_event_open, libpfm4 'cycles'", cfg.hw_why));
    json_object_set_new(
        c, "instructions_per_op",
        one(cfg.nr_hw, "perf_event_open, libpfm4 'instructions'", cfg.hw_why));
    for ( i = 0; i < cfg.ev.nr; i++ )
    {
        const struct hvb_perfev_extra *e = &cfg.ev.ev[i];
        bool ok = cfg.ev_why[i][0] == '\0';
        json_t *x;

        snprintf(src, sizeof(src), "perf_event_open, libpfm4 '%s'%s", e->name,
                 cfg.nr_hw ? ", in the group of cycles and instructions" : "");
        snprintf(key, sizeof(key), "%s_per_op", e->key);
        x = one(ok, src, cfg.ev_why[i]);
        json_object_set_new(x, HVB_PK_EVENT, json_string(e->name));
        json_object_set_new(c, key, x);
        json_array_append_new(asked, json_string(e->name));
    }
    json_object_set_new(o, "events", asked);
    json_object_set_new(c, "software_events",
                        one(cfg.nr_sw,
                            "perf_event_open software events, one by one",
                            cfg.sw_why));
    if ( cfg.nr_sw && cfg.nr_sw < 4 )
    {
        json_object_set_new(c, "sw_context_switches_per_op",
                            one(false, "", cfg.sw_kernel_why));
        json_object_set_new(c, "sw_cpu_migrations_per_op",
                            one(false, "", cfg.sw_kernel_why));
    }
    json_object_set_new(
        c, "alloc_bytes_per_op",
        one(cfg.mallctl != NULL, "jemalloc thread.allocatedp", cfg.alloc_why));
    json_object_set_new(c, "allocs_per_op",
                        one(cfg.hooks, HVB_METER_COUNT_SOURCE, cfg.count_why));
    json_object_set_new(c, "frees_per_op",
                        one(cfg.hooks, HVB_METER_COUNT_SOURCE, cfg.count_why));
    json_object_set_new(c, "sim_instructions_per_op",
                        one(cfg.callgrind,
                            "valgrind callgrind Ir between client requests",
                            cfg.cg_why));
    json_object_set_new(o, HVB_PK_COUNTERS, c);
    return o;
}

/*
 * The calling thread's jemalloc counters, looked up once at begin() (a
 * mallctl by name walks jemalloc's name tree: not inside the timed
 * window), read through the pointers at start() and stop().
 */
static void find_alloc(struct hvb_meter *mt)
{
    size_t sz = sizeof(mt->allocp);

    if ( cfg.mallctl == NULL )
        return;
    if ( cfg.mallctl("thread.allocatedp", &mt->allocp, &sz, NULL, 0) )
        mt->allocp = NULL;
    sz = sizeof(mt->deallocp);
    if ( cfg.mallctl("thread.deallocatedp", &mt->deallocp, &sz, NULL, 0) )
        mt->deallocp = NULL;
}

static void read_alloc(const struct hvb_meter *mt, uint64_t *a, uint64_t *d)
{
    *a = mt->allocp ? *mt->allocp : 0;
    *d = mt->deallocp ? *mt->deallocp : 0;
}

void hvb_meter_begin(struct hvb_meter *mt)
{
    char why[200];

    memset(mt, 0, sizeof(*mt));
    find_alloc(mt);
    if ( cfg.nr_sw )
        hvb_perfev_open_solo(&mt->sw, cfg.sw, cfg.nr_sw, why, sizeof(why));
    if ( cfg.nr_grp )
        open_grp(&mt->hw, cfg.nr_grp, why, sizeof(why));
}

void hvb_meter_start(struct hvb_meter *mt)
{
    mt->started = true;
    mt->counting = atomic_load_explicit(&cfg.counting, memory_order_relaxed);
    if ( mt->counting )
    {
        mt->allocs0 = tl_allocs;
        mt->frees0 = tl_frees;
    }
    read_alloc(mt, &mt->alloc0, &mt->dealloc0);
    if ( mt->sw.nr )
        hvb_perfev_readg(&mt->sw, &mt->sw0);
    if ( mt->hw.nr )
        hvb_perfev_readg(&mt->hw, &mt->hw0);
    if ( cfg.callgrind )
    {
        CALLGRIND_ZERO_STATS;
        CALLGRIND_START_INSTRUMENTATION;
    }
    mt->tsc0 = __rdtsc();
}

void hvb_meter_stop(struct hvb_meter *mt)
{
    mt->tsc1 = __rdtsc();
    if ( cfg.callgrind )
    {
        CALLGRIND_STOP_INSTRUMENTATION;
        CALLGRIND_DUMP_STATS_AT("hvbench");
    }
    if ( mt->hw.nr )
        hvb_perfev_readg(&mt->hw, &mt->hw1);
    if ( mt->sw.nr )
        hvb_perfev_readg(&mt->sw, &mt->sw1);
    read_alloc(mt, &mt->alloc1, &mt->dealloc1);
    if ( mt->counting )
    {
        mt->allocs1 = tl_allocs;
        mt->frees1 = tl_frees;
    }
    mt->stopped = true;
}

/* Ir of callgrind's dump number @n, or -1. */
static double cg_totals(unsigned int n)
{
    char path[PATH_MAX + 32], line[256];
    double v = -1;
    FILE *f;

    snprintf(path, sizeof(path), "%s/cg.out.%u", cfg.cg_dir, n);
    f = fopen(path, "r");
    if ( f == NULL )
        return -1;
    while ( fgets(line, sizeof(line), f) )
        if ( strncmp(line, "totals:", 7) == 0 )
            v = strtod(line + 7, NULL);
    fclose(f);
    return v;
}

static void add_group(struct hvb_ctr_table *ctrs,
                      const struct hvb_perfev_def *defs, unsigned int nr,
                      const struct hvb_perfev_read *a,
                      const struct hvb_perfev_read *b, bool thread0,
                      const char *cov_name)
{
    char name[HVB_CTR_NAME_MAX];
    double cov = 0, v;
    unsigned int i;

    for ( i = 0; i < nr; i++ )
    {
        v = hvb_perfev_delta(a, b, i, &cov);
        if ( v != v )
            continue; /* never ran: absent, not zero */
        snprintf(name, sizeof(name), "%s_per_op", defs[i].name);
        hvb_ctr_add(ctrs, name, v, HVB_CTR_PER_OP);
    }
    if ( thread0 && cov_name != NULL )
        hvb_ctr_add(ctrs, cov_name, cov, 0);
}

void hvb_meter_end(struct hvb_meter *mt, bool thread0,
                   struct hvb_ctr_table *ctrs)
{
    if ( mt->started && mt->stopped )
    {
        if ( thread0 && cfg.tsc )
            hvb_ctr_add(ctrs, "tsc_cycles_per_op",
                        (double)(mt->tsc1 - mt->tsc0), HVB_CTR_PER_OP);
        if ( mt->sw.nr )
            add_group(ctrs, cfg.sw, cfg.nr_sw, &mt->sw0, &mt->sw1, thread0,
                      NULL);
        if ( mt->hw.nr )
            add_group(ctrs, cfg.hw, cfg.nr_grp, &mt->hw0, &mt->hw1, thread0,
                      "perf_coverage");
        if ( cfg.mallctl != NULL )
        {
            hvb_ctr_add(ctrs, "alloc_bytes_per_op",
                        (double)(mt->alloc1 - mt->alloc0), HVB_CTR_PER_OP);
            hvb_ctr_add(ctrs, "dealloc_bytes_per_op",
                        (double)(mt->dealloc1 - mt->dealloc0), HVB_CTR_PER_OP);
        }
        if ( mt->counting )
        {
            hvb_ctr_add(ctrs, "allocs_per_op",
                        (double)(mt->allocs1 - mt->allocs0), HVB_CTR_PER_OP);
            hvb_ctr_add(ctrs, "frees_per_op", (double)(mt->frees1 - mt->frees0),
                        HVB_CTR_PER_OP);
        }
        if ( cfg.callgrind )
        {
            double ir = cg_totals(atomic_fetch_add(&cfg.cg_dumps, 1) + 1);

            if ( ir >= 0 )
                hvb_ctr_add(ctrs, "sim_instructions_per_op", ir,
                            HVB_CTR_PER_OP);
        }
    }
    hvb_perfev_close(&mt->sw);
    hvb_perfev_close(&mt->hw);
}
