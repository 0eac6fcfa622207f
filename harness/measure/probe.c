/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capability probe (hvb/meter.h, hvb_meter_probe()): once per
 * process, which counters this machine gives, and why not the others.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <valgrind/callgrind.h>

#include <hvb/meter.h>

#include "private.h"

struct hvb_meter_cfg hvb_meter_cfg;

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

/*
 * Keep the probe's software events open (hvb_meter_cfg.sw_keep).  Each
 * measured thread opens its own per sample (meter.c), and the first
 * event of a kind to be created, the last to be closed, flips a kernel
 * static key: text patching with an IPI to every CPU.  Measured on the
 * 2-vCPU VM: a worker's "run 0 1" took 580 us, over half of it in
 * __static_key_slow_dec_cpuslocked (perf record), and the IPIs land on
 * the other CPU's measured loop.  Kept open, the keys never flip.  A
 * later probe (a test's) closes the old ones.
 */
static void keep_sw(struct hvb_perfev_group *g)
{
    if ( hvb_meter_cfg.sw_keep.nr )
        hvb_perfev_close(&hvb_meter_cfg.sw_keep);
    hvb_meter_cfg.sw_keep = *g;
}

/* Does this thread's schedstat read (a kernel with CONFIG_SCHED_INFO)? */
static void probe_schedstat(void)
{
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);

    hvb_meter_cfg.schedstat = fd >= 0 && hvb_meter_run_delay(fd) >= 0;
    if ( !hvb_meter_cfg.schedstat )
        snprintf(hvb_meter_cfg.schedstat_why,
                 sizeof(hvb_meter_cfg.schedstat_why),
                 "/proc/thread-self/schedstat: %s",
                 fd < 0 ? strerror(errno) : "no run_delay in it");
    if ( fd >= 0 )
        close(fd);
}

static void probe_perf(void)
{
    struct hvb_perfev_group g;
    char why[160];
    unsigned int i;

    hvb_meter_cfg.nr_sw = hvb_meter_cfg.nr_hw = 0;
    for ( i = 0; i < 4; i++ )
    {
        hvb_meter_cfg.sw[i].name = sw_keys[i];
        hvb_perfev_software(sw_names[i], true, &hvb_meter_cfg.sw[i].attr);
    }
    /*
     * Software events one by one (see hvb_perfev_open_solo()), kernel
     * side included; where that is not allowed, user space only, where
     * context switches and migrations would read 0: they go.
     */
    if ( hvb_perfev_open_solo(&g, hvb_meter_cfg.sw, 4, hvb_meter_cfg.sw_why,
                              sizeof(hvb_meter_cfg.sw_why)) == 0 )
    {
        hvb_meter_cfg.nr_sw = 4;
        keep_sw(&g);
    }
    else
    {
        snprintf(hvb_meter_cfg.sw_kernel_why,
                 sizeof(hvb_meter_cfg.sw_kernel_why),
                 "counted in the kernel, not allowed here: %s",
                 hvb_meter_cfg.sw_why);
        for ( i = 0; i < SW_USER; i++ )
            hvb_perfev_software(sw_names[i], false, &hvb_meter_cfg.sw[i].attr);
        if ( hvb_perfev_open_solo(&g, hvb_meter_cfg.sw, SW_USER,
                                  hvb_meter_cfg.sw_why,
                                  sizeof(hvb_meter_cfg.sw_why)) == 0 )
        {
            hvb_meter_cfg.nr_sw = SW_USER;
            keep_sw(&g);
        }
    }
    if ( hvb_meter_cfg.mode != HVB_COUNTERS_AUTO &&
         hvb_meter_cfg.mode != HVB_COUNTERS_HW )
    {
        snprintf(hvb_meter_cfg.hw_why, sizeof(hvb_meter_cfg.hw_why),
                 "not asked (--counters %s)",
                 hvb_meter_cfg.mode == HVB_COUNTERS_TSC ? "tsc" : "none");
        return;
    }
    for ( i = 0; i < 2; i++ )
    {
        hvb_meter_cfg.hw[i].name = hw_keys[i];
        if ( hvb_perfev_encode(hw_names[i], &hvb_meter_cfg.hw[i].attr, why,
                               sizeof(why)) )
        {
            snprintf(hvb_meter_cfg.hw_why, sizeof(hvb_meter_cfg.hw_why), "%s",
                     why);
            return;
        }
    }
    if ( hvb_perfev_open(&g, hvb_meter_cfg.hw, 2, why, sizeof(why)) == 0 )
    {
        hvb_meter_cfg.nr_hw = 2;
        hvb_perfev_close(&g);
    }
    else
        snprintf(hvb_meter_cfg.hw_why, sizeof(hvb_meter_cfg.hw_why), "%s%s",
                 why,
                 access("/sys/bus/event_source/devices/cpu", F_OK)
                     ? " (no /sys/bus/event_source/devices/cpu)"
                     : "");
}

static bool group_runs(unsigned int n, char *why, size_t len)
{
    struct hvb_perfev_read r0, r1;
    struct hvb_perfev_group g;
    bool ok;
    double t0;

    if ( hvb_meter_open_group(&g, n, why, len) )
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
    unsigned int i, n = hvb_meter_cfg.nr_hw;
    char why[128];

    hvb_meter_cfg.nr_grp = hvb_meter_cfg.nr_hw;
    for ( i = 0; i < hvb_meter_cfg.ev.nr; i++ )
    {
        const struct hvb_perfev_extra *e = &hvb_meter_cfg.ev.ev[i];
        struct hvb_perfev_def *d = &hvb_meter_cfg.hw[n];

        if ( hvb_meter_cfg.mode != HVB_COUNTERS_AUTO &&
             hvb_meter_cfg.mode != HVB_COUNTERS_HW )
            memcpy(hvb_meter_cfg.ev_why[i], hvb_meter_cfg.hw_why,
                   sizeof(hvb_meter_cfg.hw_why));
        else if ( !e->encoded )
            memcpy(hvb_meter_cfg.ev_why[i], e->why, sizeof(e->why));
        else
        {
            d->name = e->name; /* the name asked, in a reason */
            d->attr = e->attr;
            if ( hvb_perfev_open(&g, d, 1, hvb_meter_cfg.ev_why[i],
                                 sizeof(hvb_meter_cfg.ev_why[i])) == 0 )
            {
                hvb_perfev_close(&g);
                d->name = e->key;
                n++;
            }
        }
    }
    if ( n == hvb_meter_cfg.nr_hw )
        return;
    if ( group_runs(n, why, sizeof(why)) )
    {
        hvb_meter_cfg.nr_grp = n;
        return;
    }
    for ( i = 0; i < hvb_meter_cfg.ev.nr; i++ )
        if ( hvb_meter_cfg.ev_why[i][0] == '\0' )
            snprintf(hvb_meter_cfg.ev_why[i], sizeof(hvb_meter_cfg.ev_why[i]),
                     "the PMU cannot count it in one group with %s: %s",
                     hvb_meter_cfg.nr_hw
                         ? "cycles, instructions and the other --events"
                         : "the other --events",
                     why);
}

int hvb_meter_probe(enum hvb_counters_mode mode,
                    const struct hvb_perfev_list *events, bool callgrind,
                    bool count_allocs, const char *cg_dir, char *err,
                    size_t len)
{
    static unsigned int probes;
    struct hvb_perfev_group keep = hvb_meter_cfg.sw_keep;

    memset(&hvb_meter_cfg, 0, sizeof(hvb_meter_cfg));
    hvb_meter_cfg.sw_keep = keep; /* closed by keep_sw(): a second probe */
    hvb_meter_cfg.probed = true;
    hvb_meter_cfg.gen = ++probes;
    hvb_meter_cfg.mode = mode;
    if ( events != NULL )
        hvb_meter_cfg.ev = *events;
    hvb_meter_cfg.tsc_invariant =
        cpuinfo_has("constant_tsc") && cpuinfo_has("nonstop_tsc");
    if ( mode == HVB_COUNTERS_NONE )
    {
        snprintf(hvb_meter_cfg.tsc_why, sizeof(hvb_meter_cfg.tsc_why),
                 "not asked (--counters none)");
        snprintf(hvb_meter_cfg.sw_why, sizeof(hvb_meter_cfg.sw_why),
                 "not asked (--counters none)");
        snprintf(hvb_meter_cfg.hw_why, sizeof(hvb_meter_cfg.hw_why),
                 "not asked (--counters none)");
        snprintf(hvb_meter_cfg.alloc_why, sizeof(hvb_meter_cfg.alloc_why),
                 "not asked (--counters none)");
        snprintf(hvb_meter_cfg.count_why, sizeof(hvb_meter_cfg.count_why),
                 "not asked (--counters none)");
        snprintf(hvb_meter_cfg.schedstat_why,
                 sizeof(hvb_meter_cfg.schedstat_why),
                 "not asked (--counters none)");
    }
    else
    {
        hvb_meter_cfg.tsc_hz = measure_tsc_hz();
        hvb_meter_cfg.tsc = hvb_meter_cfg.tsc_invariant;
        if ( !hvb_meter_cfg.tsc )
            snprintf(hvb_meter_cfg.tsc_why, sizeof(hvb_meter_cfg.tsc_why),
                     "the TSC is not invariant (no constant_tsc+nonstop_tsc)");
        probe_perf();
        probe_schedstat();
        hvb_meter_cfg.mallctl =
            (mallctl_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "mallctl");
        if ( hvb_meter_cfg.mallctl == NULL )
            snprintf(hvb_meter_cfg.alloc_why, sizeof(hvb_meter_cfg.alloc_why),
                     "not linked with jemalloc");
    }
    probe_events();
    if ( mode != HVB_COUNTERS_NONE )
    {
        /* What start() and stop() add to each sample, best of 5. */
        struct hvb_ctr_table t;
        struct hvb_meter mt;
        int i;

        hvb_meter_cfg.bracket_ns = -1;
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
            if ( hvb_meter_cfg.bracket_ns < 0 ||
                 (t1 - t0) * 1e9 < hvb_meter_cfg.bracket_ns )
                hvb_meter_cfg.bracket_ns = (t1 - t0) * 1e9;
        }
    }
    hvb_meter_cfg.callgrind = callgrind && RUNNING_ON_VALGRIND;
    if ( hvb_meter_cfg.callgrind )
    {
        snprintf(hvb_meter_cfg.cg_dir, sizeof(hvb_meter_cfg.cg_dir), "%s",
                 cg_dir ? cg_dir : ".");
        hvb_meter_sim_probe();
    }
    else
    {
        snprintf(hvb_meter_cfg.cg_why, sizeof(hvb_meter_cfg.cg_why),
                 "not asked (--instrument callgrind)");
        snprintf(hvb_meter_cfg.sim_why, sizeof(hvb_meter_cfg.sim_why),
                 "not asked (--instrument callgrind)");
    }
    if ( mode != HVB_COUNTERS_NONE )
        hvb_meter_probe_hooks(count_allocs);
    if ( mode == HVB_COUNTERS_HW && hvb_meter_cfg.nr_hw == 0 )
    {
        snprintf(
            err, len,
            "--counters hw: no hardware counters here: %s (use --counters auto or tsc)",
            hvb_meter_cfg.hw_why);
        return -EINVAL;
    }
    return 0;
}

double hvb_meter_bracket_ns(void)
{
    return hvb_meter_cfg.bracket_ns;
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
            hvb_meter_cfg.tsc ? ", tsc_cycles" : "",
            hvb_meter_cfg.nr_hw ? ", cycles, instructions" : "",
            hvb_meter_cfg.nr_sw ? ", software events" : "",
            hvb_meter_cfg.mallctl ? ", alloc_bytes" : "",
            hvb_meter_cfg.hooks ? ", allocs (untimed counting pass)" : "",
            hvb_meter_cfg.callgrind ? ", sim_instructions" : "");
    hvb_meter_sim_line(f);
    for ( i = 0; i < hvb_meter_cfg.ev.nr; i++ )
        if ( hvb_meter_cfg.ev_why[i][0] == '\0' )
            fprintf(f, ", %s", hvb_meter_cfg.ev.ev[i].key);
    if ( hvb_meter_cfg.tsc )
        fprintf(f, " (TSC %.0f MHz)", hvb_meter_cfg.tsc_hz / 1e6);
    if ( !hvb_meter_cfg.tsc )
        unavailable(f, &first, "tsc_cycles", hvb_meter_cfg.tsc_why);
    if ( !hvb_meter_cfg.nr_hw )
        unavailable(f, &first, "cycles, instructions", hvb_meter_cfg.hw_why);
    for ( i = 0; i < hvb_meter_cfg.ev.nr; i++ )
        if ( hvb_meter_cfg.ev_why[i][0] != '\0' )
            unavailable(f, &first, hvb_meter_cfg.ev.ev[i].key,
                        hvb_meter_cfg.ev_why[i]);
    if ( !hvb_meter_cfg.nr_sw )
        unavailable(f, &first, "software events", hvb_meter_cfg.sw_why);
    else if ( hvb_meter_cfg.nr_sw < 4 )
        unavailable(f, &first, "sw_context_switches, sw_cpu_migrations",
                    hvb_meter_cfg.sw_kernel_why);
    if ( !hvb_meter_cfg.mallctl )
        unavailable(f, &first, "alloc_bytes", hvb_meter_cfg.alloc_why);
    if ( !hvb_meter_cfg.schedstat && hvb_meter_cfg.mode != HVB_COUNTERS_NONE )
        unavailable(f, &first, "sched_run_delay", hvb_meter_cfg.schedstat_why);
    if ( !hvb_meter_cfg.hooks )
        unavailable(f, &first, "allocs", hvb_meter_cfg.count_why);
    if ( hvb_meter_cfg.callgrind && !hvb_meter_cfg.sim )
        unavailable(f, &first, "sim_cycles", hvb_meter_cfg.sim_why);
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

json_t *hvb_meter_probe_entry(bool ok, const char *source, const char *why)
{
    return one(ok, source, why);
}

json_t *hvb_meter_probe_json(void)
{
    json_t *o = json_object(), *c = json_object(), *asked = json_array();
    static const char *const mode_names[] = {"auto", "hw", "tsc", "none"};
    char src[200], key[HVB_CTR_NAME_MAX];
    unsigned int i;

    json_object_set_new(o, "mode", json_string(mode_names[hvb_meter_cfg.mode]));
    json_object_set_new(o, "tsc_hz",
                        hvb_meter_cfg.tsc_hz > 0
                            ? json_real(hvb_meter_cfg.tsc_hz)
                            : json_null());
    json_object_set_new(o, "tsc_invariant",
                        json_boolean(hvb_meter_cfg.tsc_invariant));
    json_object_set_new(o, "bracket_ns", json_real(hvb_meter_cfg.bracket_ns));
    json_object_set_new(c, "tsc_cycles_per_op",
                        one(hvb_meter_cfg.tsc,
                            "rdtsc, thread 0's measured window",
                            hvb_meter_cfg.tsc_why));
    json_object_set_new(c, "cycles_per_op",
                        one(hvb_meter_cfg.nr_hw,
                            "perf_event_open, libpfm4 'cycles'",
                            hvb_meter_cfg.hw_why));
    json_object_set_new(c, "instructions_per_op",
                        one(hvb_meter_cfg.nr_hw,
                            "perf_event_open, libpfm4 'instructions'",
                            hvb_meter_cfg.hw_why));
    for ( i = 0; i < hvb_meter_cfg.ev.nr; i++ )
    {
        const struct hvb_perfev_extra *e = &hvb_meter_cfg.ev.ev[i];
        bool ok = hvb_meter_cfg.ev_why[i][0] == '\0';
        json_t *x;

        snprintf(src, sizeof(src), "perf_event_open, libpfm4 '%s'%s", e->name,
                 hvb_meter_cfg.nr_hw
                     ? ", in the group of cycles and instructions"
                     : "");
        snprintf(key, sizeof(key), "%s_per_op", e->key);
        x = one(ok, src, hvb_meter_cfg.ev_why[i]);
        json_object_set_new(x, HVB_PK_EVENT, json_string(e->name));
        json_object_set_new(c, key, x);
        json_array_append_new(asked, json_string(e->name));
    }
    json_object_set_new(o, "events", asked);
    json_object_set_new(c, "software_events",
                        one(hvb_meter_cfg.nr_sw,
                            "perf_event_open software events, one by one",
                            hvb_meter_cfg.sw_why));
    if ( hvb_meter_cfg.nr_sw && hvb_meter_cfg.nr_sw < 4 )
    {
        json_object_set_new(c, "sw_context_switches_per_op",
                            one(false, "", hvb_meter_cfg.sw_kernel_why));
        json_object_set_new(c, "sw_cpu_migrations_per_op",
                            one(false, "", hvb_meter_cfg.sw_kernel_why));
    }
    json_object_set_new(c, "sched_run_delay_ns_per_op",
                        one(hvb_meter_cfg.schedstat,
                            "/proc/thread-self/schedstat run_delay",
                            hvb_meter_cfg.schedstat_why));
    json_object_set_new(c, "alloc_bytes_per_op",
                        one(hvb_meter_cfg.mallctl != NULL,
                            "jemalloc thread.allocatedp",
                            hvb_meter_cfg.alloc_why));
    json_object_set_new(c, "allocs_per_op",
                        one(hvb_meter_cfg.hooks, HVB_METER_COUNT_SOURCE,
                            hvb_meter_cfg.count_why));
    json_object_set_new(c, "frees_per_op",
                        one(hvb_meter_cfg.hooks, HVB_METER_COUNT_SOURCE,
                            hvb_meter_cfg.count_why));
    hvb_meter_sim_json(o, c);
    json_object_set_new(o, HVB_PK_COUNTERS, c);
    return o;
}
