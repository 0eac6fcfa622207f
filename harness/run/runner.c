/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runner: the body every measured thread of a cell runs in each
 * Google Benchmark run (see hvb/runner.h for the sequence), the
 * background thread beside it, and the workload API that lives inside a
 * run: hvb_keep_running_batch(), hvb_bg_should_stop(), hvb_counter_add().
 *
 * Counters are accumulated per thread in a table on the thread's stack,
 * so hvb_counter_add() takes no lock; each thread hands its sums to the
 * engine once its loop is over, and the engine sums the threads.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/thread.h>
#include <hvb/engine.h>
#include <hvb/matrix.h>
#include <hvb/meter.h>
#include <hvb/runner.h>
#include <hvb/watch.h>

_Static_assert(HVB_CTR_PER_OP == HVB_ENGINE_CTR_PER_OP &&
                   HVB_CTR_RATE == HVB_ENGINE_CTR_RATE,
               "workload and engine counter flags differ");

/* Per-thread state behind struct hvb_thread.state. */
struct run_thread {
    struct hvb_engine_thread *et; /* NULL on the background thread */
    struct hvb_mcell *mc;
    const _Atomic bool *stop; /* background: set by thread 0 */
    struct hvb_ctr_table ctrs;
    struct hvb_meter meter; /* per-op counters around the timed loop */
    struct hvb_thread t;
};

int hvb_cell_rt_init(struct hvb_cell_rt *rt)
{
    memset(rt, 0, sizeof(*rt));
    return -pthread_mutex_init(&rt->lock, NULL);
}

void hvb_cell_rt_fini(struct hvb_cell_rt *rt)
{
    pthread_mutex_destroy(&rt->lock);
}

/* splitmix64: spreads (seed, cell, run, thread) into a generator state. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t thread_seed(struct hvb_mcell *mc, unsigned int index)
{
    uint64_t run = atomic_fetch_add(&mc->rt.thread_runs, 1);
    uint64_t s = mix64(mc->m->seed ^ mix64(mc->index ^ mix64(run))) ^
                 mix64((uint64_t)index << 32);

    return s ? s : 0x5EED5EED5EED5EEDull; /* xorshift needs non-zero */
}

static void thread_init(struct run_thread *rt, struct hvb_mcell *mc,
                        struct hvb_engine_thread *et, struct hv_cpu *cpu,
                        unsigned int index, unsigned int nthreads)
{
    memset(rt, 0, sizeof(*rt));
    rt->et = et;
    rt->mc = mc;
    rt->t.cell = &mc->cell;
    rt->t.cpu = cpu;
    rt->t.index = index;
    rt->t.nthreads = nthreads;
    rt->t.rng = thread_seed(mc, index);
    rt->t.state = rt;
}

/*
 * Prepare the cell once; every thread of the first run waits for it here,
 * before the engine's start barrier, so preparing is never measured.
 * Returns false with @msg if the cell cannot run.
 */
static bool prepare_once(struct hvb_mcell *mc, char *msg, size_t len)
{
    struct hvb_cell *c = &mc->cell;
    bool ok;
    int rc;

    pthread_mutex_lock(&mc->rt.lock);
    if ( !mc->rt.prepare_called )
    {
        mc->rt.prepare_called = true;
        c->error[0] = '\0';
        rc = c->w->prepare ? c->w->prepare(c) : 0;
        if ( rc )
        {
            mc->rt.prepare_failed = true;
            snprintf(mc->rt.prepare_error, sizeof(mc->rt.prepare_error),
                     "prepare failed: %s",
                     c->error[0] ? c->error : strerror(rc < 0 ? -rc : rc));
        }
    }
    ok = !mc->rt.prepare_failed;
    if ( !ok )
        snprintf(msg, len, "%s", mc->rt.prepare_error);
    pthread_mutex_unlock(&mc->rt.lock);
    return ok;
}

/*
 * Threads a cell places: its measured threads and, when the workload has
 * one, the background thread after them.  A background writer sharing a
 * CPU with a measured reader can be preempted holding a spinning lock
 * (lock-holder preemption), so it gets a CPU of its own when there is one.
 */
static unsigned int placed_threads(const struct hvb_mcell *mc,
                                   unsigned int nthreads)
{
    return nthreads + (mc->cell.w->background != NULL);
}

static void *background_main(void *arg)
{
    struct run_thread *rt = arg;

    hv_thread_role("background");
    /* Best effort: an unpinned writer is still correct, only noisier. */
    (void)!hvb_affinity_apply(rt->mc->m->affinity, rt->t.index,
                              placed_threads(rt->mc, rt->t.nthreads));
    rt->mc->cell.w->background(&rt->t);
    return NULL;
}

static void warn_once(struct hvb_mcell *mc, _Atomic bool *flag,
                      const char *what)
{
    if ( !atomic_exchange(flag, true) )
        fprintf(stderr, "hvbench: warning: %s: %s\n", mc->name, what);
}

/*
 * Hand this thread's counters to the engine, each with the flags its
 * name was first reported with in this cell (the engine requires one set
 * of flags per name across runs).
 */
static void flush_counters(struct run_thread *rt)
{
    struct hvb_mcell *mc = rt->mc;
    struct hvb_cell_rt *crt = &mc->rt;
    unsigned int i;
    char why[96];

    snprintf(why, sizeof(why),
             "counters dropped (more than %d, or a name of %d bytes or more)",
             HVB_CTR_MAX, HVB_CTR_NAME_MAX);
    if ( rt->ctrs.overflow || rt->ctrs.too_long )
        warn_once(mc, &crt->warned_dropped, why);
    for ( i = 0; i < rt->ctrs.nr; i++ )
    {
        struct hvb_ctr *c = &rt->ctrs.c[i], *known;
        unsigned int flags;

        pthread_mutex_lock(&crt->lock);
        known = hvb_ctr_find(&crt->flags, c->name);
        if ( known == NULL )
            known = hvb_ctr_add(&crt->flags, c->name, 0, c->flags);
        flags = known ? known->flags : 0;
        pthread_mutex_unlock(&crt->lock);
        if ( known == NULL )
        {
            snprintf(why, sizeof(why),
                     "counters dropped (more than %d names in the cell)",
                     HVB_CTR_MAX);
            warn_once(mc, &crt->warned_dropped, why);
            continue;
        }
        if ( flags != c->flags )
            warn_once(mc, &crt->warned_flags,
                      "a counter changed its flags; its first flags are kept");
        hvb_engine_add_counter(rt->et, c->name, c->value, flags);
    }
}

/* Add the CPU's perf counter deltas since @snap as per-op counters. */
static void add_perfc(struct run_thread *rt, const uint64_t *snap)
{
    const struct hv_cpu *cpu = rt->t.cpu;
    char name[HVB_CTR_NAME_MAX];
    unsigned int i;

    for ( i = 0; i < HV_PERFC_NR; i++ )
    {
        uint64_t d = cpu->perfc[i] - snap[i];

        if ( d == 0 )
            continue;
        snprintf(name, sizeof(name), "perfc.%s", hv_perfc_names[i]);
        hvb_ctr_add(&rt->ctrs, name, (double)d, HVB_CTR_PER_OP);
    }
}

/* Thread 0, after its loop: the workload's report hook. */
static void run_report(struct run_thread *rt)
{
    struct hvb_mcell *mc = rt->mc;

    mc->rt.report.nr = 0;
    mc->rt.report.overflow = mc->rt.report.too_long = false;
    mc->rt.in_report = true;
    mc->cell.w->report(&mc->cell);
    mc->rt.in_report = false;
    hvb_ctr_merge(&rt->ctrs, &mc->rt.report);
}

void hvb_runner_body(void *arg, struct hvb_engine_thread *et)
{
    struct hvb_mcell *mc = arg;
    const struct hvb_workload *w = mc->cell.w;
    struct run_thread rt, bg;
    uint64_t snap[HV_PERFC_NR];
    _Atomic bool stop = false;
    bool bg_running = false;
    struct hv_cpu *cpu;
    pthread_t bg_tid;
    char msg[384];
    int rc;

    hvb_watch_cell(mc->name);
    if ( !prepare_once(mc, msg, sizeof(msg)) )
    {
        hvb_engine_fail(et, msg);
        return;
    }
    rc = hvb_affinity_apply(mc->m->affinity, et->index,
                            placed_threads(mc, et->nthreads));
    if ( rc )
        warn_once(mc, &mc->rt.warned_affinity,
                  "cannot pin measured threads; they run unpinned");
    cpu = hv_cpu_enter(mc->cell.hv, et->index);
    if ( cpu == NULL )
    {
        snprintf(msg, sizeof(msg), "cannot enter model CPU %u: %s", et->index,
                 strerror(errno));
        hvb_engine_fail(et, msg);
        return;
    }
    thread_init(&rt, mc, et, cpu, et->index, et->nthreads);
    memcpy(snap, cpu->perfc, sizeof(snap));

    /* Started before the loop: the engine's start barrier follows. */
    if ( et->index == 0 && w->background != NULL )
    {
        thread_init(&bg, mc, NULL, NULL, et->nthreads, et->nthreads);
        bg.stop = &stop;
        rc = pthread_create(&bg_tid, NULL, background_main, &bg);
        if ( rc )
        {
            hv_cpu_leave(cpu);
            snprintf(msg, sizeof(msg), "cannot start the background thread: %s",
                     strerror(rc));
            hvb_engine_fail(et, msg);
            return;
        }
        bg_running = true;
    }

    hvb_meter_begin(&rt.meter);
    w->thread(&rt.t);
    if ( rt.meter.started && !rt.meter.stopped )
        hvb_meter_stop(&rt.meter);

    /*
     * The engine's stop barrier is inside thread 0's last keep-running
     * call, so every measured thread has left its loop by now.
     */
    if ( bg_running )
    {
        atomic_store(&stop, true);
        pthread_join(bg_tid, NULL);
        hvb_ctr_merge(&rt.ctrs, &bg.ctrs);
    }
    if ( et->index == 0 && w->report != NULL )
        run_report(&rt);
    add_perfc(&rt, snap);
    hvb_meter_end(&rt.meter, et->index == 0, &rt.ctrs);
    flush_counters(&rt);
    hv_cpu_leave(cpu);
}

bool hvb_keep_running_batch(struct hvb_thread *t, uint64_t n)
{
    struct run_thread *rt = t->state;

    bool more;

    if ( unlikely(rt->et == NULL) )
        return false; /* background threads are not measured */
    more = hvb_engine_keep_running(rt->et, n);
    /* The engine's timer starts in the first call and stops in the last. */
    if ( unlikely(!rt->meter.started) )
    {
        if ( more )
            hvb_meter_start(&rt->meter);
    }
    else if ( unlikely(!more) && !rt->meter.stopped )
        hvb_meter_stop(&rt->meter);
    return more;
}

bool hvb_bg_should_stop(const struct hvb_thread *t)
{
    const struct run_thread *rt = t->state;

    if ( rt->et != NULL )
        return rt->et->finished;
    return atomic_load_explicit(rt->stop, memory_order_acquire);
}

void hvb_counter_add(struct hvb_thread *t, const char *name, double v,
                     unsigned int flags)
{
    struct run_thread *rt = t->state;

    hvb_ctr_add(&rt->ctrs, name, v, flags & (HVB_CTR_PER_OP | HVB_CTR_RATE));
}

void hvb_counter_set(struct hvb_cell *c, const char *name, double v,
                     unsigned int flags)
{
    struct hvb_mcell *mc = hvb_mcell_of(c);

    if ( !mc->rt.in_report )
    {
        warn_once(mc, &mc->rt.warned_set,
                  "hvb_counter_set() outside report() is ignored");
        return;
    }
    hvb_ctr_add(&mc->rt.report, name, v,
                flags & (HVB_CTR_PER_OP | HVB_CTR_RATE));
}
