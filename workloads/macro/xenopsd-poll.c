/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xenopsd-poll: the toolstack during a boot storm (seed 002).  A poller
 * (the measured thread, model CPU 0) enumerates every domain with
 * domain_getinfolist every `period_ms` (back to back when an enumeration
 * takes longer), while `workers` toolstack threads (the background
 * thread and its helpers) boot domains: destroy one of the `domains`,
 * create it again and write its `xs_nodes` xenstore nodes in one
 * transaction, `boots_per_s` in all, plus `boot_work_us` of modelled
 * other work per boot (default 0: nothing modelled).
 *
 * The figure is the poller's share of the toolstack's CPU time over the
 * poller's window of `duration_ms`, from the threads' CPU clocks:
 *
 *   poller_cpu_share_pct = 100 * poller / (poller + workers)
 *
 * The seed: xenopsd spent 88% of its time in domain_getinfolist with
 * ~1000 VMs before the fix and 0.02% after.  Worked example: polls of
 * 7 ms every 10 ms use 700 ms/s; workers booting 100 domains/s at 1 ms
 * each use 100 ms/s; the share is 700 / 800 = 87.5%.
 * One operation = one window (a one-shot workload).
 *
 * poll_cpu_us is the poller's CPU per enumeration, p.  Two strategies
 * whose polls cost r p and p beside the same work W of the workers give
 * shares r p / (r p + W) and p / (p + W), whose ratio
 * r (p + W) / (r p + W) grows with W but never passes r: the ratio of
 * the cells' poll_cpu_us bounds the ratio of their shares.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hv/hv.h>
#include <hv/thread.h>
#include <hv/xenctrl.h>
#include <hv/xenstore.h>

#include "../lib/wl.h"
#include "../lib/wl_hc.h"

/* The params (xpoll_param_table[] below names each field). */
struct xpoll_params {
    uint64_t domains;
    uint64_t period_ms;
    uint64_t duration_ms;
    uint64_t workers;
    uint64_t boots_per_s;
    uint64_t xs_nodes;
    uint64_t boot_work_us;
    unsigned int boundary; /* enum hv_boundary */
};

#define MAX_WORKERS 16

struct xpoll {
    unsigned int domains, period_ms, duration_ms, workers, xs_nodes;
    unsigned int boot_work_us;
    uint64_t boots_per_s;
    /* The running workers' CPU clocks (one run at a time). */
    pthread_mutex_t lock;
    clockid_t clk[MAX_WORKERS];
    unsigned int nr_clk;
    _Atomic uint64_t boots;
};

struct worker {
    struct hvb_thread *t; /* the background thread's */
    struct xpoll *s;
    _Atomic bool *stop; /* NULL: worker 0, the background thread itself */
    uint64_t rng;
};

static bool worker_stop(const struct worker *w)
{
    return w->stop ? atomic_load_explicit(w->stop, memory_order_acquire)
                   : hvb_bg_should_stop(w->t);
}

static int xpoll_check(struct hvb_cell *c)
{
    const struct xpoll_params *p = c->params;

    if ( c->threads != 1 )
    {
        hvb_cell_error(c, "xenopsd-poll runs one poller (--threads 1); "
                          "set param workers for the other threads");
        return -EINVAL;
    }
    if ( p->domains < 2 )
    {
        hvb_cell_error(c, "xenopsd-poll needs domains >= 2 (dom0 stays)");
        return -EINVAL;
    }
    return 0;
}

static void xpoll_configure(const struct hvb_cell *c, struct hv_config *cfg)
{
    const struct xpoll_params *p = c->params;

    cfg->boundary = p->boundary;
}

static int xpoll_prepare(struct hvb_cell *c)
{
    const struct xpoll_params *p = c->params;
    struct xpoll *s = calloc(1, sizeof(*s));

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    pthread_mutex_init(&s->lock, NULL);
    s->domains = p->domains;
    s->period_ms = p->period_ms;
    s->duration_ms = p->duration_ms;
    s->workers = p->workers;
    s->xs_nodes = p->xs_nodes;
    s->boot_work_us = p->boot_work_us;
    s->boots_per_s = p->boots_per_s;
    if ( s->boot_work_us )
        hv_spin_calibrate(c->hv);
    return wl_create_sparse(c, s->domains, 1);
}

static uint64_t workers_cpu_ns(struct xpoll *s)
{
    uint64_t sum = 0;
    unsigned int i;

    pthread_mutex_lock(&s->lock);
    for ( i = 0; i < s->nr_clk; i++ )
        sum += wl_clock_ns(s->clk[i]);
    pthread_mutex_unlock(&s->lock);
    return sum;
}

/*
 * One sleep to @deadline (CLOCK_MONOTONIC, as hv_now_ns): a poller wakes
 * once per period, never in 1 ms steps that would bill it for wake-ups.
 */
static void sleep_abs(uint64_t deadline)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000ull),
                          .tv_nsec = (long)(deadline % 1000000000ull)};

    while ( clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
            EINTR )
        ;
}

/* One boot: the domain comes back with its xenstore subtree. */
static void boot_one(struct hv *hv, struct xpoll *s, domid_t id)
{
    struct hv_xs *xs = hv_xs(hv);
    char path[64];
    unsigned int k, tries;
    uint32_t tid;
    int rc;

    rc = hv_domain_destroy(hv, id); /* -ESRCH: down already */
    if ( (rc && rc != -ESRCH) || hv_domain_create(hv, id, 0, NULL) != 0 )
        return; /* still held by a reader: it comes back next time */
    for ( tries = 0; tries < 3; tries++ )
    {
        if ( hv_xs_txn_start(xs, 0, &tid) )
            break;
        rc = 0;
        for ( k = 0; rc == 0 && k < s->xs_nodes; k++ )
        {
            snprintf(path, sizeof(path), "/local/domain/%u/device/vif/%u", id,
                     k);
            rc = hv_xs_write(xs, 0, tid, path, "state=4");
        }
        rc = hv_xs_txn_end(xs, 0, tid, rc == 0);
        if ( rc != -EAGAIN )
            break;
    }
    hv_spin_ns(hv, s->boot_work_us * 1000u);
    atomic_fetch_add_explicit(&s->boots, 1, memory_order_relaxed);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct xpoll *s = w->s;
    struct hv *hv = w->t->cell->hv;
    uint64_t period = s->boots_per_s
                          ? s->workers * 1000000000ull / s->boots_per_s
                          : 0,
             next = hv_now_ns(), x;
    clockid_t clk;

    hv_thread_role("xenopsd-worker");
    if ( pthread_getcpuclockid(pthread_self(), &clk) == 0 )
    {
        pthread_mutex_lock(&s->lock);
        s->clk[s->nr_clk++] = clk;
        pthread_mutex_unlock(&s->lock);
    }
    while ( !worker_stop(w) )
    {
        if ( period == 0 || hv_now_ns() < next )
        {
            hv_idle_sleep_until(period ? next : hv_now_ns() + 1000000);
            continue;
        }
        next += period;
        /* xorshift64: a domain of the set other than dom0 */
        x = w->rng;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        w->rng = x;
        boot_one(hv, s,
                 wl_sparse_domid(1 + (unsigned int)(x % (s->domains - 1)),
                                 s->domains));
        hv_rcu_poll(hv);
    }
    return NULL;
}

/* The background thread: worker 0, and the parent of the others. */
static void xpoll_background(struct hvb_thread *t)
{
    struct xpoll *s = t->cell->priv;
    struct worker w[MAX_WORKERS];
    pthread_t tid[MAX_WORKERS];
    _Atomic bool stop = false;
    unsigned int i, started;

    for ( i = 0; i < s->workers; i++ )
        w[i] = (struct worker){t, s, i ? &stop : NULL,
                               0x9e3779b97f4a7c15ull * (i + 1)};
    for ( started = 1; started < s->workers; started++ )
        if ( pthread_create(&tid[started], NULL, worker_main, &w[started]) )
            break;
    worker_main(&w[0]);
    atomic_store_explicit(&stop, true, memory_order_release);
    for ( i = 1; i < started; i++ )
        pthread_join(tid[i], NULL);
    pthread_mutex_lock(&s->lock);
    s->nr_clk = 0;
    pthread_mutex_unlock(&s->lock);
}

/* Every domain once, in domid order (churn may hide a few). */
static void poll_once(struct hv_xc *xc, const struct xpoll *s)
{
    struct hv_dominfo_list l;
    unsigned int i;

    HV_BUG_ON(hv_xc_domain_getinfolist_all(xc, 0, &l) != 0);
    HV_BUG_ON(l.n > s->domains || l.n + s->workers < s->domains);
    for ( i = 1; i < l.n; i++ )
        HV_BUG_ON(l.info[i].domain <= l.info[i - 1].domain);
    free(l.info);
}

static void xpoll_thread(struct hvb_thread *t)
{
    struct xpoll *s = t->cell->priv;
    uint64_t period = (uint64_t)s->period_ms * 1000000ull, t0, end, next, ts;
    uint64_t c0, w0, b0, poller, workers, polls, late, busy;
    unsigned int waited;
    struct hv_xc xc;

    hv_xc_open(&xc, t->cpu);
    wl_report_crossing(t);
    while ( hvb_keep_running_batch(t, 1) )
    {
        /* Every worker has its clock registered before the window. */
        for ( waited = 0;; waited++ )
        {
            pthread_mutex_lock(&s->lock);
            ts = s->nr_clk;
            pthread_mutex_unlock(&s->lock);
            if ( ts >= s->workers )
                break;
            HV_BUG_ON(waited > 10000); /* 10 s: a worker did not start */
            hv_idle_sleep_until(hv_now_ns() + 1000000);
        }
        polls = late = busy = 0;
        c0 = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID);
        w0 = workers_cpu_ns(s);
        b0 = atomic_load(&s->boots);
        t0 = next = hv_now_ns();
        end = t0 + (uint64_t)s->duration_ms * 1000000ull;
        while ( (ts = hv_now_ns()) < end )
        {
            poll_once(&xc, s);
            hv_rcu_quiescent(t->cpu);
            polls++;
            busy += hv_now_ns() - ts;
            next += period;
            if ( hv_now_ns() >= next )
            {
                late++;
                next = hv_now_ns();
            }
            sleep_abs(next < end ? next : end);
        }
        poller = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
        workers = workers_cpu_ns(s) - w0;
        hvb_counter_add(t, "poller_cpu_share_pct",
                        100.0 * (double)poller / (double)(poller + workers), 0);
        hvb_counter_add(t, "poller_cpu_ms", (double)poller / 1e6, 0);
        hvb_counter_add(t, "workers_cpu_ms", (double)workers / 1e6, 0);
        hvb_counter_add(t, "polls", (double)polls, 0);
        hvb_counter_add(t, "late_polls", (double)late, 0);
        hvb_counter_add(t, "poll_us", polls ? (double)busy / polls / 1e3 : 0,
                        0);
        /* The share's bound: see the comment at the top. */
        hvb_counter_add(t, "poll_cpu_us",
                        polls ? (double)poller / polls / 1e3 : 0, 0);
        hvb_counter_add(t, "boots", (double)(atomic_load(&s->boots) - b0), 0);
        if ( s->boot_work_us )
            hvb_counter_add(t, "boot_work_us_modelled", s->boot_work_us, 0);
    }
    hv_xc_close(&xc);
}

static void xpoll_cleanup(struct hvb_cell *c)
{
    struct xpoll *s = c->priv;

    if ( s )
        pthread_mutex_destroy(&s->lock);
    wl_free_priv(c);
}

static const struct hv_opt xpoll_param_table[] = {
    HVB_PARAM_UINT_ROW(struct xpoll_params, domains, "1000", 2,
                       DOMID_FIRST_RESERVED,
                       "domains (domids k * 32752 / domains)"),
    HVB_PARAM_UINT_ROW(struct xpoll_params, period_ms, "10", 0, 60000,
                       "the poller enumerates every T ms (0: back to back)"),
    HVB_PARAM_UINT_ROW(struct xpoll_params, duration_ms, "1000", 10, 600000,
                       "the measured window"),
    HVB_PARAM_UINT_ROW(struct xpoll_params, workers, "2", 1, MAX_WORKERS,
                       "toolstack threads booting domains"),
    HVB_PARAM_UINT_ROW(struct xpoll_params, boots_per_s, "200", 0, 1000000,
                       "domain destroy + create + xenstore writes per second, "
                       "all workers"),
    HVB_PARAM_UINT_ROW(struct xpoll_params, xs_nodes, "100", 0, 1000,
                       "xenstore nodes written per boot, one transaction"),
    HVB_PARAM_UINT_ROW(struct xpoll_params, boot_work_us, "0", 0, 1000000,
                       "modelled other toolstack work per boot (us; 0: none)"),
    WL_PARAM_BOUNDARY(struct xpoll_params, boundary),
    HVB_PARAM_TABLE_END,
};

static const char *const xpoll_slots[] = {"infolist", NULL};

HVB_REGISTER_WORKLOAD(xpoll_workload) = {
    .name = "xenopsd-poll",
    .kind = HVB_MACRO,
    .summary = "a poller enumerating domains every T ms while workers boot "
               "domains: the poller's share of toolstack CPU (seed 002)",
    .slots = xpoll_slots,
    .params = xpoll_param_table,
    .params_size = sizeof(struct xpoll_params),
    .flags = HVB_WF_ONE_SHOT,
    .check = xpoll_check,
    .configure = xpoll_configure,
    .prepare = xpoll_prepare,
    .thread = xpoll_thread,
    .background = xpoll_background,
    .cleanup = xpoll_cleanup,
    .smoke = "domains=16 duration_ms=10 xs_nodes=2 threads=1",
};
