/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot-storm: N VMs booted end to end through every slot of the model at
 * once, the way a host meets a thousand VMs starting (seeds 000-004).
 * Each VM goes through hv_vmboot() (hv/vmboot.h): RPC define (namesearch)
 * and create (seclock), the domain's creation and lookups (domlookup),
 * populate_physmap (pgalloc), one xenstore transaction of ~xs_nodes nodes
 * (quota).  Beside the boots, unmeasured by themselves but sharing the
 * machine: a toolstack poller enumerating every domain each poll_ms
 * (infolist, getdomaininfolist), netback threads mapping grants of the
 * VMs already running (domlookup per grant op, as netio), and the
 * background's churn of other domains (destroy + create, so the poller's
 * walk and the lookups meet destruction).
 *
 * One operation = one VM boot; one iteration = the storm of `vms` VMs
 * (one-shot: one per repetition), so time per op is wall / N and
 * vms_per_s is N / wall.  `clients` toolstack threads (model CPUs 2..)
 * take the VMs in order over `connections` RPC connections; arrival
 * `rate` = 0 releases all at once, else VM i arrives at i / rate s, and
 * its latency counts from its arrival (queueing included).
 *
 * Worked example, vms=100, clients=20, rate=0, label_us=5000 under
 * seclock=global: 200 label operations (GenLabel, SetAllLabel) queue on
 * the manager lock at ~6 ms each (spawn + modelled helper), so the storm
 * takes ~1.2 s: ~83 VMs/s, and the last VM's boot_max_ms ~1200.  Under
 * per-domain they overlap up to the 20 workers: ~10x the rate.
 *
 * Counters: vms_per_s; boot_p50/p90/p99/max/mean_ms (per VM, arrival to
 * running); phase_<define|label|create|populate|xenstore>_ms_mean (per
 * VM, wall time of each phase: which slot's code dominates it);
 * storm_wall_ms; poller_cpu_share_pct,
 * grant_cpu_share_pct (of the process CPU time over the storm), polls,
 * poll_ms_mean, grant_maps_per_s, grant_map_failed; boots_failed,
 * boots_over_timeout (latency > timeout_ms), xs_txn_retries;
 * vms_enumerated (a getdomaininfolist after the storm: must be vms);
 * after the unmeasured teardown, teardown_leaked_pages, _xs_nodes and
 * _domains (must be 0: heap, store and domain table as before); the
 * modelled costs (wl_virt.h).  scripts/boot-storm-curve.sh runs the
 * strategy sets over N and prints each one's breaking point.
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
#include <hv/page_alloc.h>
#include <hv/trace.h>
#include <hv/virt_rpc.h>
#include <hv/vmboot.h>
#include <hv/xenctrl.h>
#include <hv/xenstore.h>

#include "../lib/wl.h"
#include "../lib/wl_hc.h"
#include "../lib/wl_mem.h"
#include "../lib/wl_virt.h"
#include "../lib/wl_xl.h"

#define MAX_CLIENTS  200
#define MAX_GRANTERS 8
#define CHURN_FIRST  0x4000 /* churn domids, past any VM */
#define FIRST_VM     1
#define MAX_VMS      4000 /* the label table holds 4096 (virt_qemu.c) */
/* Model CPUs: 0 the measured thread (the harness's), then these. */
#define CPU_POLLER  1
#define CPU_CLIENT0 2

/* The params (storm_param_table[] below names each field). */
struct storm_params {
    uint64_t vms, rate, clients, timeout_ms, mem_kib, extent_order,
        populate_batch, node;
    uint64_t xs_nodes, poll_ms, grants, grant_threads, grant_batch,
        grant_maps_per_s, churn, churn_domains;
    struct wl_virt_rpc_params rpc;
    struct wl_virt_params virt;
    struct wl_grant_params grant;
    struct wl_mem_params mem;
    unsigned int xs_client, xs_profile, xs_server;
};

enum {
    XS_INPROC,
    XS_SOCKET
};
enum {
    XS_TXN,
    XS_LIBXL
};
enum {
    XS_RUN,
    XS_EXTERNAL
};

/* xs_server=external: the socket when XENSTORED_PATH is not set (libxenstore's). */
#define XS_DEFAULT_SOCKET "/var/run/xenstored/socket"

struct storm {
    struct wl_libvirtd d;
    struct hv_vmboot_config boot;
    unsigned int vms, clients, poll_ms, granters, grant_batch;
    unsigned int churn_domains;
    uint64_t rate, timeout_ms, grant_per_s, churn;

    /* One storm (or teardown) at a time: */
    _Atomic unsigned int next;       /* next VM to take */
    _Atomic unsigned int nr_running; /* slots of running[] taken */
    _Atomic domid_t *running;        /* 0 until published */
    _Atomic bool stop;               /* the poller and the grant threads */
    uint64_t t0;
    struct wl_lat lat;
    _Atomic uint64_t phase_ns[HV_VMBOOT_NR_PHASES];
    _Atomic uint64_t failed, over_timeout, xs_retries;
    _Atomic uint64_t grant_maps, grant_failed, grant_cpu_ns;
    uint64_t polls, poll_ns, poller_cpu_ns;
    bool *booted;            /* by VM index: to tear down */
    _Atomic int first_error; /* the first failed boot's -errno */
    /* xs_profile=libxl: the daemon, each client's connections */
    struct wl_xl *xl;
    struct wl_xl_client *xlc[MAX_CLIENTS];
    struct wl_xl_stats xs0, xs1; /* the daemon's counts, before / after */
    bool external;               /* xs_server=external */
};

static bool bg_stop(struct storm *s)
{
    return atomic_load_explicit(&s->stop, memory_order_acquire);
}

static int storm_check(struct hvb_cell *c)
{
    const struct storm_params *p = c->params;
    uint64_t vms = p->vms;

    if ( c->threads != 1 )
    {
        hvb_cell_error(c, "boot-storm runs one storm (--threads 1); set "
                          "param clients for the toolstack threads");
        return -EINVAL;
    }
    if ( FIRST_VM + vms > CHURN_FIRST && p->churn_domains > 0 )
    {
        hvb_cell_error(c,
                       "vms=%llu reaches the churn domids (from %u): "
                       "at most %u VMs with churn_domains > 0",
                       (unsigned long long)vms, CHURN_FIRST,
                       CHURN_FIRST - FIRST_VM);
        return -EINVAL;
    }
    if ( (p->mem_kib * 1024) % (HV_PAGE_SIZE << p->extent_order) != 0 )
    {
        hvb_cell_error(
            c,
            "mem_kib=%llu is not a whole number of extents of "
            "order %llu (%llu KiB each)",
            (unsigned long long)p->mem_kib, (unsigned long long)p->extent_order,
            (unsigned long long)(HV_PAGE_SIZE / 1024) << p->extent_order);
        return -EINVAL;
    }
    if ( (p->xs_profile == XS_LIBXL) != (p->xs_client == XS_SOCKET) )
    {
        hvb_cell_error(c, "xs_profile=libxl needs xs_client=socket (its "
                          "watches are the daemon's) and xs_profile=txn "
                          "runs in-process: give both or neither");
        return -EINVAL;
    }
    if ( p->xs_server == XS_EXTERNAL && p->xs_profile != XS_LIBXL )
    {
        hvb_cell_error(c, "xs_server=external needs xs_client=socket "
                          "xs_profile=libxl (the wire traffic)");
        return -EINVAL;
    }
    if ( wl_check_churn(c, p->churn) )
        return -EINVAL;
    return wl_mem_check(c, &p->mem, p->node, vms * p->mem_kib * 1024);
}

static void storm_configure(const struct hvb_cell *c, struct hv_config *cfg)
{
    const struct storm_params *p = c->params;
    unsigned int need = CPU_CLIENT0 + p->clients + p->grant_threads;

    wl_mem_configure(&p->mem, cfg, p->vms * p->mem_kib * 1024);
    wl_configure_grant(&p->grant, cfg);
    if ( cfg->nr_cpus < need )
        cfg->nr_cpus = need;
}

static uint64_t storm_mem_need(const struct hvb_cell *c)
{
    const struct storm_params *p = c->params;
    uint64_t bytes = p->vms * p->mem_kib * 1024;

    return wl_mem_need(&p->mem, bytes, wl_mem_scrubbed(&p->mem) ? bytes : 0);
}

/* xs_profile=libxl: client k (model CPU CPU_CLIENT0 + k) boots VM @id. */
static int xl_boot(void *arg, struct hv_cpu *cpu, domid_t id)
{
    struct storm *s = arg;

    return wl_xl_create(s->xlc[cpu->id - CPU_CLIENT0], cpu, id);
}

static int xl_teardown(void *arg, struct hv_cpu *cpu, domid_t id)
{
    struct storm *s = arg;

    return wl_xl_destroy(s->xlc[cpu->id - CPU_CLIENT0], id);
}

/*
 * xs_server=external: the daemon at $XENSTORED_PATH (as libxenstore finds
 * it; scripts/with-oxenstored.sh sets it), its CPU time from the pid in
 * $OXENSTORED_PID if set.  The cell's quota plugin does not apply there.
 */
static int xl_open(struct hvb_cell *c, struct storm *s)
{
    const struct storm_params *p = c->params;
    const char *path = getenv("XENSTORED_PATH"),
               *pid = getenv("OXENSTORED_PID");
    const struct hv_plugin_inst *q = hvb_cell_plugin(c, "quota");
    struct wl_xl_external ext = {path && *path ? path : XS_DEFAULT_SOCKET,
                                 pid ? atoi(pid) : 0};
    unsigned int k;
    int rc;

    s->external = p->xs_server == XS_EXTERNAL;
    if ( s->external )
        fprintf(stderr,
                "boot-storm: xs_server=external (%s): the quota plugin%s%s "
                "does not apply, the daemon keeps its own\n",
                ext.socket, q ? " " : "", q ? q->label : "");
    rc = wl_xl_open(c, hv_xs(c->hv), s->external ? &ext : NULL, &s->xl);
    if ( rc )
        return rc; /* its error is on @c */
    for ( k = 0; rc == 0 && k < s->clients; k++ )
        rc = wl_xl_client_open(s->xl, &s->xlc[k]);
    if ( rc )
    {
        hvb_cell_error(c, "xs_client=socket: a connection: %s", strerror(-rc));
        return rc;
    }
    s->boot.xs_boot = xl_boot;
    s->boot.xs_teardown = xl_teardown;
    s->boot.xs_arg = s;
    return 0;
}

static int storm_prepare(struct hvb_cell *c)
{
    const struct storm_params *p = c->params;
    struct storm *s = calloc(1, sizeof(*s));
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    c->priv = s;
    s->vms = p->vms;
    s->clients = p->clients;
    s->rate = p->rate;
    s->poll_ms = p->poll_ms;
    s->timeout_ms = p->timeout_ms;
    s->granters = p->grant_threads;
    s->grant_batch = p->grant_batch;
    s->grant_per_s = p->grant_maps_per_s;
    s->churn = p->churn;
    s->churn_domains = p->churn_domains;
    s->boot = (struct hv_vmboot_config){
        .mem_pages = p->mem_kib * 1024 >> HV_PAGE_SHIFT,
        .extent_order = p->extent_order,
        .batch = p->populate_batch,
        .xs_nodes = p->xs_nodes,
        .nr_grants = p->grants,
        .xs_max_retries = 64,
        .first_node = p->node,
    };
    s->running = calloc(s->vms, sizeof(*s->running));
    s->booted = calloc(s->vms, sizeof(*s->booted));
    if ( s->running == NULL || s->booted == NULL ||
         wl_lat_init(&s->lat, s->vms) )
        return -ENOMEM;
    hv_spin_calibrate(c->hv);
    if ( (rc = hv_vmboot_host_init(c->hv)) )
    {
        hvb_cell_error(c, "xenstore: %s", strerror(-rc));
        return rc;
    }
    if ( (rc = wl_libvirtd_open(c, &p->virt, &p->rpc, &s->d)) )
        return rc;
    s->boot.virt = s->d.v;
    if ( p->xs_profile == XS_LIBXL && (rc = xl_open(c, s)) != 0 )
        return rc;
    if ( s->churn_domains )
        return wl_create_domains(c, CHURN_FIRST, s->churn_domains, 0);
    return 0;
}

/* The background: other domains die and come back during the run. */
static void storm_background(struct hvb_thread *t)
{
    struct storm *s = t->cell->priv;

    wl_churn(t, CHURN_FIRST, s->churn_domains, s->churn, 0);
}

struct client {
    struct hvb_cell *c;
    struct storm *s;
    unsigned int index;
    bool teardown;
};

static void boot_vm(struct storm *s, struct hv_cpu *cpu,
                    struct hv_rpc_client *conn, unsigned int i)
{
    struct hv_vmboot_result res;
    uint64_t arrive = s->t0, lat, t;
    unsigned int p;
    int rc;

    if ( s->rate )
    {
        arrive += (uint64_t)i * 1000000000ull / s->rate;
        while ( hv_now_ns() < arrive )
            hv_idle_sleep_until(arrive);
    }
    t = hv_trace_active() ? hv_now_ns() : 0;
    rc = hv_vmboot(cpu, conn, &s->boot, (domid_t)(FIRST_VM + i), &res);
    lat = hv_now_ns() - arrive;
    hv_trace_span("boot", "boot", "vm", FIRST_VM + i, t, arrive + lat);
    if ( rc )
    {
        int none = 0;

        atomic_fetch_add(&s->failed, 1);
        atomic_compare_exchange_strong(&s->first_error, &none, rc);
        return;
    }
    s->booted[i] = true;
    wl_lat_add(&s->lat, lat);
    if ( s->timeout_ms && lat > s->timeout_ms * 1000000ull )
        atomic_fetch_add(&s->over_timeout, 1);
    for ( p = 0; p < HV_VMBOOT_NR_PHASES; p++ )
        atomic_fetch_add_explicit(&s->phase_ns[p], res.ns[p],
                                  memory_order_relaxed);
    atomic_fetch_add(&s->xs_retries, res.xs_retries);
    /* Running: netback may map its grants from now on. */
    atomic_store_explicit(&s->running[atomic_fetch_add(&s->nr_running, 1)],
                          (domid_t)(FIRST_VM + i), memory_order_release);
}

static void *client_main(void *arg)
{
    struct client *cl = arg;
    struct storm *s = cl->s;
    struct hv_cpu *cpu = hv_cpu_enter(cl->c->hv, CPU_CLIENT0 + cl->index);
    struct hv_rpc_client *conn = wl_libvirtd_conn(&s->d, cl->index);
    unsigned int i;

    HV_BUG_ON(cpu == NULL);
    hv_thread_role("client");
    hv_trace_name("client %u", cl->index);
    while ( (i = atomic_fetch_add(&s->next, 1)) < s->vms )
    {
        if ( !cl->teardown )
            boot_vm(s, cpu, conn, i);
        else if ( s->booted[i] )
        {
            HV_BUG_ON(hv_vmboot_teardown(cpu, conn, &s->boot,
                                         (domid_t)(FIRST_VM + i)) != 0);
            s->booted[i] = false;
        }
        hv_rcu_quiescent(cpu);
    }
    hv_cpu_leave(cpu);
    return NULL;
}

/* Every VM through the clients (boot, or teardown), and back. */
static void run_clients(struct hvb_cell *c, struct storm *s, bool teardown)
{
    struct client cl[MAX_CLIENTS];
    pthread_t tid[MAX_CLIENTS];
    unsigned int k;

    atomic_store(&s->next, 0);
    for ( k = 0; k < s->clients; k++ )
    {
        cl[k] = (struct client){c, s, k, teardown};
        HV_BUG_ON(pthread_create(&tid[k], NULL, client_main, &cl[k]) != 0);
    }
    for ( k = 0; k < s->clients; k++ )
        pthread_join(tid[k], NULL);
}

struct bg {
    struct hvb_cell *c;
    struct storm *s;
    unsigned int index;
};

/* The toolstack's poller (xenopsd): every domain, every poll_ms. */
static void *poller_main(void *arg)
{
    struct bg *b = arg;
    struct storm *s = b->s;
    struct hv_cpu *cpu = hv_cpu_enter(b->c->hv, CPU_POLLER);
    uint64_t c0 = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID), next = hv_now_ns(), ts;
    struct hv_dominfo_list l;
    struct hv_xc xc;

    HV_BUG_ON(cpu == NULL);
    hv_thread_role("poller");
    hv_trace_name("poller");
    hv_xc_open(&xc, cpu);
    while ( !bg_stop(s) )
    {
        uint64_t te;

        ts = hv_now_ns();
        HV_BUG_ON(hv_xc_domain_getinfolist_all(&xc, 0, &l) != 0);
        free(l.info);
        hv_rcu_quiescent(cpu);
        s->polls++;
        te = hv_now_ns();
        s->poll_ns += te - ts;
        hv_trace_span("poll", "getinfolist", "domains", l.n, ts, te);
        next += (uint64_t)s->poll_ms * 1000000ull;
        while ( !bg_stop(s) && hv_now_ns() < next )
            hv_idle_sleep_until(next);
        if ( hv_now_ns() > next )
            next = hv_now_ns();
    }
    hv_xc_close(&xc);
    hv_cpu_leave(cpu);
    s->poller_cpu_ns = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    return NULL;
}

/* Netback: grant maps of the running VMs, grant_maps_per_s in all. */
static void *granter_main(void *arg)
{
    struct bg *b = arg;
    struct storm *s = b->s;
    struct hv_cpu *cpu =
        hv_cpu_enter(b->c->hv, CPU_CLIENT0 + s->clients + b->index);
    struct hv_gnttab_map_op map[64];
    struct hv_gnttab_unmap_op unmap[64];
    uint64_t c0 = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID), next = hv_now_ns();
    uint64_t period = s->grant_per_s ? 1000000000ull * s->grant_batch *
                                           s->granters / s->grant_per_s
                                     : 0,
             rng = 0x9e3779b97f4a7c15ull * (b->index + 1), maps = 0;
    unsigned int n, failed = 0;
    domid_t id;

    HV_BUG_ON(cpu == NULL);
    hv_thread_role("netback");
    hv_trace_name("netback %u", b->index);
    hv_cpu_set_domain(cpu, 0);
    while ( !bg_stop(s) )
    {
        n = atomic_load_explicit(&s->nr_running, memory_order_acquire);
        if ( period == 0 || n == 0 || hv_now_ns() < next )
        {
            hv_idle_sleep_until(period && n ? next : hv_now_ns() + 1000000);
            continue;
        }
        next += period;
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        id = atomic_load_explicit(&s->running[rng % n], memory_order_acquire);
        if ( id == 0 )
            continue; /* its slot is not published yet */
        failed += wl_gnttab_round_cpu(cpu, b->index, map, unmap, id,
                                      s->grant_batch, s->boot.nr_grants);
        maps += s->grant_batch;
    }
    hv_cpu_leave(cpu);
    atomic_fetch_add(&s->grant_maps, maps);
    atomic_fetch_add(&s->grant_failed, failed);
    atomic_fetch_add(&s->grant_cpu_ns,
                     wl_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0);
    return NULL;
}

/* The domains the VMs are, in one enumeration. */
static unsigned int enumerated(struct hv_cpu *cpu, const struct storm *s)
{
    struct hv_dominfo_list l;
    unsigned int i, n = 0;
    struct hv_xc xc;

    hv_xc_open(&xc, cpu);
    HV_BUG_ON(hv_xc_domain_getinfolist_all(&xc, 0, &l) != 0);
    for ( i = 0; i < l.n; i++ )
        if ( l.info[i].domain >= FIRST_VM &&
             l.info[i].domain < FIRST_VM + s->vms )
            n++;
    free(l.info);
    hv_xc_close(&xc);
    hv_rcu_quiescent(cpu);
    return n;
}

/* What teardown must give back to. */
struct snap {
    uint64_t free_pages, xs_nodes;
    unsigned int domains;
};

/*
 * The storm's own domains (ids FIRST_VM to FIRST_VM + @vms - 1): the
 * background's churn destroys and re-creates its domains all along, so
 * a count of every domain taken between a churn destroy and its create
 * read one short, and teardown_leaked_domains said 1 (ctest
 * workloads-boot-storm failed about 1 run in 16 on a busy machine).
 */
static unsigned int storm_domains(struct hv *hv, unsigned int vms)
{
    unsigned int max = hv_domain_count(hv) + 64, n, i, k = 0;
    domid_t *ids = calloc(max, sizeof(*ids));

    HV_BUG_ON(ids == NULL);
    n = hv_domain_list_ids(hv, FIRST_VM, ids, max);
    for ( i = 0; i < n; i++ )
        k += ids[i] < FIRST_VM + vms;
    free(ids);
    return k;
}

static void snap(struct hv *hv, struct snap *sn, unsigned int vms)
{
    struct hv_heap_info hi;
    struct hv_xs_stats st;
    unsigned int n;

    HV_BUG_ON(hv_heap_check(hv, &hi, NULL, 0) != 0);
    sn->free_pages = 0;
    for ( n = 0; n < hi.nr_nodes; n++ )
        sn->free_pages += hi.node_free[n];
    hv_xs_get_stats(hv_xs(hv), &st);
    sn->xs_nodes = st.nodes;
    sn->domains = storm_domains(hv, vms);
}

/* Until every destroyed domain is freed (its memory back), or 10 s. */
static void wait_frees(struct hv_cpu *cpu)
{
    struct hv *hv = cpu->hv;
    const struct hv_stats *st = hv_stats(hv);
    uint64_t end = hv_now_ns() + 10000000000ull;

    while ( atomic_load(&st->domains_created) -
                    atomic_load(&st->domains_freed) !=
                hv_domain_count(hv) &&
            hv_now_ns() < end )
    {
        hv_rcu_quiescent(cpu);
        hv_rcu_poll(hv);
        hv_idle_sleep_until(hv_now_ns() + 100000);
    }
}

static void storm_reset(struct storm *s)
{
    unsigned int p;

    atomic_store(&s->nr_running, 0);
    memset((void *)s->running, 0, sizeof(*s->running) * s->vms);
    atomic_store(&s->stop, false);
    for ( p = 0; p < HV_VMBOOT_NR_PHASES; p++ )
        atomic_store(&s->phase_ns[p], 0);
    atomic_store(&s->failed, 0);
    atomic_store(&s->first_error, 0);
    atomic_store(&s->over_timeout, 0);
    atomic_store(&s->xs_retries, 0);
    atomic_store(&s->grant_maps, 0);
    atomic_store(&s->grant_failed, 0);
    atomic_store(&s->grant_cpu_ns, 0);
    s->polls = s->poll_ns = s->poller_cpu_ns = 0;
}

static void storm_counters(struct hvb_thread *t, struct storm *s, uint64_t wall,
                           uint64_t cpu)
{
    uint64_t ok = s->vms - atomic_load(&s->failed);
    char key[64];
    unsigned int p;

    for ( p = 0; ok && p < HV_VMBOOT_NR_PHASES; p++ )
    {
        double v = (double)atomic_load(&s->phase_ns[p]);

        snprintf(key, sizeof(key), "phase_%s_ms_mean",
                 hv_vmboot_phase_names[p]);
        hvb_counter_add(t, key, v / (double)ok / 1e6, 0);
    }
    hvb_counter_add(t, "vms_per_s", (double)s->vms, HVB_CTR_RATE);
    hvb_counter_add(t, "storm_wall_ms", (double)wall / 1e6, 0);
    if ( cpu )
    {
        hvb_counter_add(t, "poller_cpu_share_pct",
                        100.0 * (double)s->poller_cpu_ns / (double)cpu, 0);
        hvb_counter_add(
            t, "grant_cpu_share_pct",
            100.0 * (double)atomic_load(&s->grant_cpu_ns) / (double)cpu, 0);
    }
    hvb_counter_add(t, "polls", (double)s->polls, 0);
    hvb_counter_add(t, "poll_ms_mean",
                    s->polls ? (double)s->poll_ns / (double)s->polls / 1e6 : 0,
                    0);
    hvb_counter_add(t, "grant_maps_per_s",
                    (double)atomic_load(&s->grant_maps) / ((double)wall / 1e9),
                    0);
    hvb_counter_add(t, "grant_map_failed",
                    (double)atomic_load(&s->grant_failed), 0);
    hvb_counter_add(t, "boots_failed", (double)atomic_load(&s->failed), 0);
    hvb_counter_add(t, "boots_over_timeout",
                    (double)atomic_load(&s->over_timeout), 0);
    hvb_counter_add(t, "xs_txn_retries", (double)atomic_load(&s->xs_retries),
                    0);
}

static void storm_thread(struct hvb_thread *t)
{
    struct hvb_cell *c = t->cell;
    struct storm *s = c->priv;
    struct bg bgs[1 + MAX_GRANTERS];
    pthread_t tid[1 + MAX_GRANTERS];
    uint64_t wall = 0, cpu = 0;
    struct snap before, after;
    unsigned int k;
    int xrc = 0;

    wait_frees(t->cpu);
    snap(c->hv, &before, s->vms);
    storm_reset(s);
    if ( s->xl )
        HV_BUG_ON(wl_xl_stats(s->xl, &s->xs0) != 0);
    while ( hvb_keep_running_batch(t, s->vms) )
    {
        s->t0 = hv_now_ns();
        cpu = wl_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        for ( k = 0; k <= s->granters; k++ )
        {
            bgs[k] = (struct bg){c, s, k ? k - 1 : 0};
            HV_BUG_ON(pthread_create(&tid[k], NULL,
                                     k ? granter_main : poller_main,
                                     &bgs[k]) != 0);
        }
        run_clients(c, s, false);
        atomic_store_explicit(&s->stop, true, memory_order_release);
        for ( k = 0; k <= s->granters; k++ )
            pthread_join(tid[k], NULL);
        wall = hv_now_ns() - s->t0;
        cpu = wl_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    }
    /* Unmeasured: what the storm left, then back to the prepared state. */
    storm_counters(t, s, wall, cpu);
    if ( s->xl && (xrc = wl_xl_stats(s->xl, &s->xs1)) == 0 )
        wl_xl_counters(t, &s->xs0, &s->xs1, s->vms, wall);
    else if ( s->xl )
        fprintf(stderr, "boot-storm: the xenstore counts: %s\n",
                strerror(-xrc));
    hvb_counter_add(t, "vms_enumerated", enumerated(t->cpu, s), 0);
    if ( atomic_load(&s->first_error) )
        fprintf(stderr, "boot-storm: a boot failed: %s\n",
                strerror(-atomic_load(&s->first_error)));
    run_clients(c, s, true);
    wait_frees(t->cpu);
    snap(c->hv, &after, s->vms);
    hvb_counter_add(t, "teardown_leaked_pages",
                    (double)before.free_pages - (double)after.free_pages, 0);
    hvb_counter_add(t, "teardown_leaked_xs_nodes",
                    (double)after.xs_nodes - (double)before.xs_nodes, 0);
    hvb_counter_add(t, "teardown_leaked_domains",
                    (double)after.domains - (double)before.domains, 0);
}

static void storm_report(struct hvb_cell *c)
{
    struct storm *s = c->priv;

    wl_lat_report(c, &s->lat, "boot");
    wl_virt_report_costs(c, &((const struct storm_params *)c->params)->virt,
                         s->d.v);
}

static void storm_cleanup(struct hvb_cell *c)
{
    struct storm *s = c->priv;
    unsigned int k;

    if ( s == NULL )
        return;
    for ( k = 0; k < MAX_CLIENTS; k++ )
        wl_xl_client_close(s->xlc[k]);
    wl_xl_close(s->xl);
    wl_libvirtd_close(&s->d);
    wl_lat_free(&s->lat);
    free((void *)s->running);
    free(s->booted);
    free(s);
    c->priv = NULL;
}

static const struct hv_opt storm_param_table[] = {
    HVB_PARAM_UINT_ROW(struct storm_params, vms, "200", 1, MAX_VMS,
                       "N: VMs booted per storm (one op = one VM)"),
    HVB_PARAM_UINT_ROW(struct storm_params, rate, "0", 0, 1000000,
                       "arrivals per second (0: all at once)"),
    HVB_PARAM_UINT_ROW(struct storm_params, clients, "20", 1, MAX_CLIENTS,
                       "toolstack threads booting VMs (model CPUs)"),
    HVB_PARAM_UINT_ROW(struct storm_params, timeout_ms, "0", 0, 3600000,
                       "a boot slower than this counts in boots_over_timeout "
                       "(0: none)"),
    HVB_PARAM_UINT_ROW(struct storm_params, mem_kib, "4096", 4, 16777216,
                       "memory populated per VM (KiB)"),
    HVB_PARAM_UINT_ROW(struct storm_params, extent_order, "0", 0, 18,
                       "order of each populated extent"),
    HVB_PARAM_UINT_ROW(struct storm_params, populate_batch, "512", 1, 1048576,
                       "extents per populate_physmap hypercall"),
    HVB_PARAM_UINT_ROW(struct storm_params, node, "0", 0, 63,
                       "VM id's vCPU is on node (node + id) % nodes"),
    HVB_PARAM_UINT_ROW(struct storm_params, xs_nodes, "150", HV_VMBOOT_XS_MIN,
                       HV_VMBOOT_XS_MAX,
                       "xenstore nodes written per VM, one transaction"),
    HVB_PARAM_UINT_ROW(struct storm_params, poll_ms, "10", 0, 60000,
                       "the poller enumerates every domain every T ms (0: "
                       "back to back)"),
    HVB_PARAM_UINT_ROW(struct storm_params, grants, "64", 1, 4096,
                       "grant entries each VM gives its backend"),
    HVB_PARAM_UINT_ROW(struct storm_params, grant_threads, "1", 0, MAX_GRANTERS,
                       "netback threads mapping grants of running VMs"),
    HVB_PARAM_UINT_ROW(struct storm_params, grant_batch, "16", 1, 64,
                       "grants per map hypercall"),
    HVB_PARAM_UINT_ROW(struct storm_params, grant_maps_per_s, "5000", 0,
                       100000000, "grant maps per second, all netback threads"),
    HVB_PARAM_UINT_ROW(struct storm_params, churn, "20", 0, 1000000,
                       "destroy + create pairs per second of other domains"),
    HVB_PARAM_UINT_ROW(struct storm_params, churn_domains, "16", 0, 1024,
                       "domains the churn cycles through"),
    WL_VIRT_RPC_PARAMS(struct storm_params, rpc, "4"),
    WL_VIRT_PARAMS(struct storm_params, virt, "5000", "8000", "1"),
    WL_GRANT_PARAMS(struct storm_params, grant),
    WL_MEM_PARAMS(struct storm_params, mem),
    HVB_PARAM_ENUM_ROW(struct storm_params, xs_client, "inproc",
                       "inproc|socket",
                       "inproc: the store's API; socket: hvbench xenstored's "
                       "server in a thread of the run, over Unix sockets"),
    HVB_PARAM_ENUM_ROW(struct storm_params, xs_profile, "txn", "txn|libxl",
                       "txn: one transaction of xs_nodes nodes; libxl: what "
                       "xl create, the backends, hotplug, xenconsoled and "
                       "the guest send (docs/xenstored.md; xs_client=socket)"),
    HVB_PARAM_ENUM_ROW(
        struct storm_params, xs_server, "run", "run|external",
        "run: the run's own hvbench xenstored; external: the "
        "daemon at $XENSTORED_PATH (oxenstored, say; CPU from "
        "$OXENSTORED_PID), counted client-side; xs_profile=libxl"),
    HVB_PARAM_TABLE_END,
};

static const char *const storm_slots[] = {
    "domlookup", "quota", "pgalloc", "infolist", "seclock", "namesearch", NULL};

HVB_REGISTER_WORKLOAD(boot_storm_workload) = {
    .name = "boot-storm",
    .kind = HVB_MACRO,
    .summary = "N VMs booted end to end through every slot at once, with a "
               "poller and grant traffic: VMs/s, boot latency, per phase",
    .slots = storm_slots,
    .params = storm_param_table,
    .params_size = sizeof(struct storm_params),
    .flags = HVB_WF_ONE_SHOT,
    .check = storm_check,
    .configure = storm_configure,
    .prepare = storm_prepare,
    .thread = storm_thread,
    .background = storm_background,
    .cleanup = storm_cleanup,
    .mem_need = storm_mem_need,
    .report = storm_report,
    .smoke = "vms=4 clients=2 mem_kib=64 xs_nodes=40 poll_ms=1 churn=0 "
             "churn_domains=0 label_us=0 qemu_us=0 define_us=0 spawn=0 "
             "threads=1",
};
