/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The per-thread bracket around the measured loop (hvb/meter.h): begin,
 * start, stop, end; the counts as per-op counters.  What it counts is
 * what probe.c found.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <x86intrin.h>

#include <valgrind/callgrind.h>

#include <hvb/meter.h>
#include <hvb/workload.h>

#include "private.h"

/*
 * Open hvb_meter_cfg.hw[0..n): one group, unless every event in it is software
 * (--events perf::... without a PMU), which is never multiplexed and
 * whose groups Linux 6.18 miscounts (hvb_perfev_open_solo()).
 */
int hvb_meter_open_group(struct hvb_perfev_group *g, unsigned int n, char *why,
                         size_t len)
{
    unsigned int i;

    for ( i = 0; i < n; i++ )
        if ( hvb_meter_cfg.hw[i].attr.type != PERF_TYPE_SOFTWARE )
            return hvb_perfev_open(g, hvb_meter_cfg.hw, n, why, len);
    return hvb_perfev_open_solo(g, hvb_meter_cfg.hw, n, why, len);
}

/*
 * The calling thread's jemalloc counters, looked up once at begin() (a
 * mallctl by name walks jemalloc's name tree: not inside the timed
 * window), read through the pointers at start() and stop().
 */
static void find_alloc(struct hvb_meter *mt)
{
    size_t sz = sizeof(mt->allocp);

    if ( hvb_meter_cfg.mallctl == NULL )
        return;
    if ( hvb_meter_cfg.mallctl("thread.allocatedp", &mt->allocp, &sz, NULL, 0) )
        mt->allocp = NULL;
    sz = sizeof(mt->deallocp);
    if ( hvb_meter_cfg.mallctl("thread.deallocatedp", &mt->deallocp, &sz, NULL,
                               0) )
        mt->deallocp = NULL;
}

static void read_alloc(const struct hvb_meter *mt, uint64_t *a, uint64_t *d)
{
    *a = mt->allocp ? *mt->allocp : 0;
    *d = mt->deallocp ? *mt->deallocp : 0;
}

/*
 * A thread's groups, kept open from one bracket to its next.  Opening
 * and closing them was half of a bracket's cost (5 perf_event_open and 5
 * close per sample on the measurement thread, which now lives as long as
 * the process).  The counts are read as deltas from start() to stop(),
 * so what they counted in between does not matter.  Kept for the probe
 * that opened them (gen) and closed when their thread exits (keep_key).
 */
struct meter_keep {
    unsigned int gen; /* 0: nothing kept */
    struct hvb_perfev_group sw, hw;
};
static __thread struct meter_keep kept;
static pthread_key_t keep_key;
static pthread_once_t keep_once = PTHREAD_ONCE_INIT;

static void keep_close(struct meter_keep *k)
{
    hvb_perfev_close(&k->sw);
    hvb_perfev_close(&k->hw);
    k->gen = 0;
}

static void keep_exit(void *p)
{
    keep_close(p);
}

static void keep_init(void)
{
    if ( pthread_key_create(&keep_key, keep_exit) )
        keep_key = (pthread_key_t)-1;
}

/* Hand this thread's kept groups to @mt: true if there were some. */
static bool take_kept(struct hvb_meter *mt)
{
    if ( kept.gen == 0 )
        return false;
    if ( kept.gen != hvb_meter_cfg.gen )
    {
        keep_close(&kept); /* of an earlier probe */
        return false;
    }
    mt->sw = kept.sw;
    mt->hw = kept.hw;
    kept.gen = 0;
    return true;
}

/* Keep @mt's groups for the thread's next bracket, or close them. */
static void put_kept(struct hvb_meter *mt)
{
    pthread_once(&keep_once, keep_init);
    if ( kept.gen == 0 && keep_key != (pthread_key_t)-1 &&
         pthread_setspecific(keep_key, &kept) == 0 )
    {
        kept.sw = mt->sw;
        kept.hw = mt->hw;
        kept.gen = hvb_meter_cfg.gen;
    }
    else
    {
        hvb_perfev_close(&mt->sw);
        hvb_perfev_close(&mt->hw);
    }
    mt->sw.nr = mt->hw.nr = 0;
}

int64_t hvb_meter_run_delay(int fd)
{
    char buf[96];
    unsigned long long on, delay;
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;

    if ( n <= 0 )
        return -1;
    buf[n] = '\0';
    return sscanf(buf, "%llu %llu", &on, &delay) == 2 ? (int64_t)delay : -1;
}

void hvb_meter_begin(struct hvb_meter *mt)
{
    char why[200];

    memset(mt, 0, sizeof(*mt));
    mt->schedstat =
        hvb_meter_cfg.schedstat
            ? open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
            : -1;
    find_alloc(mt);
    if ( take_kept(mt) )
        return;
    if ( hvb_meter_cfg.nr_sw )
        hvb_perfev_open_solo(&mt->sw, hvb_meter_cfg.sw, hvb_meter_cfg.nr_sw,
                             why, sizeof(why));
    if ( hvb_meter_cfg.nr_grp )
        hvb_meter_open_group(&mt->hw, hvb_meter_cfg.nr_grp, why, sizeof(why));
}

void hvb_meter_start(struct hvb_meter *mt)
{
    mt->started = true;
    mt->counting =
        atomic_load_explicit(&hvb_meter_cfg.counting, memory_order_relaxed);
    if ( mt->counting )
    {
        mt->allocs0 = hvb_meter_tl_allocs;
        mt->frees0 = hvb_meter_tl_frees;
    }
    read_alloc(mt, &mt->alloc0, &mt->dealloc0);
    mt->delay0 = hvb_meter_run_delay(mt->schedstat);
    if ( mt->sw.nr )
        hvb_perfev_readg(&mt->sw, &mt->sw0);
    if ( mt->hw.nr )
        hvb_perfev_readg(&mt->hw, &mt->hw0);
    if ( hvb_meter_cfg.callgrind )
    {
        CALLGRIND_ZERO_STATS;
        CALLGRIND_START_INSTRUMENTATION;
    }
    mt->tsc0 = __rdtsc();
}

void hvb_meter_stop(struct hvb_meter *mt)
{
    mt->tsc1 = __rdtsc();
    if ( hvb_meter_cfg.callgrind )
    {
        CALLGRIND_STOP_INSTRUMENTATION;
        CALLGRIND_DUMP_STATS_AT("hvbench");
    }
    if ( mt->hw.nr )
        hvb_perfev_readg(&mt->hw, &mt->hw1);
    if ( mt->sw.nr )
        hvb_perfev_readg(&mt->sw, &mt->sw1);
    read_alloc(mt, &mt->alloc1, &mt->dealloc1);
    mt->delay1 = hvb_meter_run_delay(mt->schedstat);
    if ( mt->counting )
    {
        mt->allocs1 = hvb_meter_tl_allocs;
        mt->frees1 = hvb_meter_tl_frees;
    }
    mt->stopped = true;
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
        if ( thread0 && hvb_meter_cfg.tsc )
            hvb_ctr_add(ctrs, "tsc_cycles_per_op",
                        (double)(mt->tsc1 - mt->tsc0), HVB_CTR_PER_OP);
        if ( mt->sw.nr )
            add_group(ctrs, hvb_meter_cfg.sw, hvb_meter_cfg.nr_sw, &mt->sw0,
                      &mt->sw1, thread0, NULL);
        if ( mt->hw.nr )
            add_group(ctrs, hvb_meter_cfg.hw, hvb_meter_cfg.nr_grp, &mt->hw0,
                      &mt->hw1, thread0, "perf_coverage");
        if ( hvb_meter_cfg.mallctl != NULL )
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
        if ( hvb_meter_cfg.callgrind )
            hvb_meter_sim_add(ctrs);
        if ( mt->schedstat >= 0 && mt->delay0 >= 0 && mt->delay1 >= mt->delay0 )
            hvb_ctr_add(ctrs, "sched_run_delay_ns_per_op",
                        (double)(mt->delay1 - mt->delay0), HVB_CTR_PER_OP);
    }
    if ( mt->schedstat >= 0 )
        close(mt->schedstat);
    mt->schedstat = -1;
    put_kept(mt);
}
