/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The xl create profile's run (wl_xl.h): the daemon, the watchers that
 * hold their watches for the whole run, each toolstack thread's
 * connections, and the counters.  What one boot sends is in
 * wl_xl_create.c and wl_xl_drivers.c; how the files share their state,
 * in wl_xl_private.h.
 *
 * E.g. the boot-storm workload with xs_profile=libxl: wl_xl_open()
 * starts the daemon on /tmp/hvb-xl.XXXXXX/sock serving the run's store,
 * makes the host's directories in that store, opens the kernel's and
 * xenconsoled's watches, each drained by a thread; each toolstack thread
 * opens its connections (wl_xl_client_open) and boots VMs
 * (wl_xl_create); wl_xl_stats() then reads the daemon's CONTROL "stats",
 * less what its own calls added.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hv/hv.h>
#include <hv/thread.h>
#include <hv/trace.h>
#include <hv/xenstore.h>
#include <xsd/xenstored.h>

#include "wl_xl_private.h"

static const char *const wl_xl_role_names[WL_XL_NR_ROLES] = {
    "toolstack", "hotplug", "backend", "xenconsoled", "guest"};

/* The host's directories, before any VM (xencommons, xl). */
static const char *const host_dirs[] = {"/vm",
                                        "/libxl",
                                        "/local/domain/0/backend/vbd",
                                        "/local/domain/0/backend/vif",
                                        "/local/domain/0/backend/console",
                                        NULL};

/* ---- the run's daemon and watchers ---- */

static void *serve(void *arg)
{
    hv_thread_role("xenstored");
    hv_trace_name_thread("xenstored");
    xsd_server_run(arg);
    return NULL;
}

/*
 * The dom0 kernel's xenbus backend watch (xenbus_probe_backend.c
 * backend_changed -> xenbus_dev_changed): per event, xenbus_exists of
 * its path, a DIRECTORY.
 */
static void *kernel_watcher(void *arg)
{
    struct wl_xl *x = arg;
    char path[XSD_PAYLOAD_MAX], body[XSD_PAYLOAD_MAX];
    size_t n;
    int rc;

    hv_thread_role("xenbus-watch");
    while ( !atomic_load(&x->stop) )
    {
        rc = xsd_client_wait_event(x->watcher[0], NULL, 50, path, sizeof(path));
        atomic_store(&x->watcher_events[0], xsd_client_events(x->watcher[0]));
        if ( rc == -ETIMEDOUT )
            continue;
        if ( rc )
        {
            atomic_store(&x->kernel_rc, rc);
            break;
        }
        if ( strchr(path, '/') == NULL ||
             strchr(strchr(path, '/') + 1, '/') == NULL )
            continue; /* char_count(node, '/') < 2 */
        n = strlen(path) + 1;
        memcpy(body, path, n);
        atomic_fetch_add(&x->role_requests[WL_XL_BACKEND], 1);
        (void)xsd_client_request(x->kernel, XSD_DIRECTORY, 0, body, n, NULL, 0,
                                 NULL);
        if ( strcmp(path, "backend/sync/0") == 0 )
            atomic_fetch_add(&x->synced, 1);
    }
    return NULL;
}

/* xenconsoled's domain list watch: enum_domains is a hypercall. */
static void *consoled_watcher(void *arg)
{
    struct wl_xl *x = arg;

    int rc = 0;

    hv_thread_role("xenconsoled");
    while ( !atomic_load(&x->stop) && rc != -EIO )
    {
        rc = xsd_client_wait_event(x->watcher[1], NULL, 50, NULL, 0);
        atomic_store(&x->watcher_events[1], xsd_client_events(x->watcher[1]));
    }
    return NULL;
}

/* A watcher's WATCH, counted (its first event is its own). */
static int watch(struct wl_xl *x, struct xsd_client *c, const char *path,
                 const char *tok)
{
    char body[128];
    size_t pl = strlen(path) + 1, tl = strlen(tok) + 1;

    atomic_fetch_add(&x->watches, 1);
    memcpy(body, path, pl);
    memcpy(body + pl, tok, tl);
    return xsd_client_request(c, XSD_WATCH, 0, body, pl + tl, NULL, 0, NULL);
}

/* The host's nodes (xencommons, xl's first run) in the run's store. */
static int host_nodes_inproc(struct hv_xs *xs)
{
    unsigned int i;
    int rc = 0;

    for ( i = 0; rc == 0 && host_dirs[i]; i++ )
        rc = hv_xs_simple(xs, HV_XS_MKDIR, 0, 0, host_dirs[i]);
    if ( rc == 0 )
        rc = hv_xs_write(xs, 0, 0, "/local/domain/0/name", "Domain-0");
    if ( rc == 0 )
        rc = hv_xs_write(xs, 0, 0, "/local/domain/0/backend/sync/0", "0");
    return rc;
}

/* ... and over the wire to an external daemon, before any watch. */
static int host_nodes_wire(struct wl_xl *x)
{
    struct xo *o = calloc(1, sizeof(*o));
    unsigned int i;
    int rc;

    if ( o == NULL )
        return -ENOMEM;
    *o = (struct xo){.x = x, .c = x->control, .role = WL_XL_TOOLSTACK};
    for ( i = 0; host_dirs[i]; i++ )
        xmkdir(o, "%s", host_dirs[i]);
    xwrite(o, "Domain-0", "/local/domain/0/name");
    xwrite(o, "0", "/local/domain/0/backend/sync/0");
    rc = o->rc;
    free(o);
    return rc;
}

/* The run's own daemon, in a thread, on a socket in a fresh directory. */
static int server_start(struct hvb_cell *c, struct hv_xs *xs, struct wl_xl *x)
{
    struct xsd_opts opts = {0};
    char err[256] = "";
    int rc = host_nodes_inproc(xs);

    if ( rc )
    {
        hvb_cell_error(c, "xs_profile=libxl: the host's nodes: %s",
                       strerror(-rc));
        return rc;
    }
    strcpy(x->dir, "/tmp/hvb-xl.XXXXXX");
    if ( mkdtemp(x->dir) == NULL )
    {
        rc = -errno;
        hvb_cell_error(c, "mkdtemp: %s", strerror(errno));
        x->dir[0] = '\0';
        return rc;
    }
    snprintf(x->sock, sizeof(x->sock), "%s/sock", x->dir);
    opts.socket = x->sock;
    rc = xsd_server_create(xs, &opts, &x->server, err, sizeof(err));
    if ( rc == 0 && (rc = -pthread_create(&x->server_thread, NULL, serve,
                                          x->server)) == 0 )
        x->started[NR_WATCHERS] = true;
    if ( rc )
        hvb_cell_error(c, "xs_client=socket: %s", err[0] ? err : strerror(-rc));
    return rc;
}

int wl_xl_open(struct hvb_cell *c, struct hv_xs *xs,
               const struct wl_xl_external *ext, struct wl_xl **out)
{
    void *(*const fns[NR_WATCHERS])(void *) = {kernel_watcher,
                                               consoled_watcher};
    struct wl_xl *x = calloc(1, sizeof(*x));
    unsigned int i;
    int rc = 0;

    *out = x;
    if ( x == NULL )
        return -ENOMEM;
    if ( ext == NULL && (rc = server_start(c, xs, x)) != 0 )
        return rc;
    if ( ext )
    {
        if ( strlen(ext->socket) >= sizeof(x->sock) )
        {
            hvb_cell_error(c, "xs_server=external: socket path too long: %s",
                           ext->socket);
            return -ENAMETOOLONG;
        }
        strcpy(x->sock, ext->socket);
        x->external = true;
        x->pid = ext->pid;
    }
    for ( i = 0; rc == 0 && i < NR_WATCHERS; i++ )
        if ( (rc = xl_connect(x, &x->watcher[i])) == 0 )
            xsd_client_idle_waits(x->watcher[i]);
    if ( rc == 0 && (rc = xl_connect(x, &x->kernel)) == 0 &&
         (rc = xl_connect(x, &x->control)) == 0 && x->external )
        rc = host_nodes_wire(x);
    if ( rc == 0 && (rc = watch(x, x->watcher[0], "backend", "backend")) == 0 &&
         (rc = watch(x, x->watcher[1], "@introduceDomain", "domlist")) == 0 )
        rc = watch(x, x->watcher[1], "@releaseDomain", "domlist");
    for ( i = 0; rc == 0 && i < NR_WATCHERS; i++ )
        if ( (rc = -pthread_create(&x->watcher_thread[i], NULL, fns[i], x)) ==
             0 )
            x->started[i] = true;
    if ( rc )
        hvb_cell_error(c, "xs_client=socket: %s%s: %s",
                       x->external ? "xs_server=external: " : "", x->sock,
                       strerror(-rc));
    return rc;
}

void wl_xl_close(struct wl_xl *x)
{
    unsigned int i;

    if ( x == NULL )
        return;
    atomic_store(&x->stop, true);
    for ( i = 0; i < NR_WATCHERS; i++ )
        if ( x->started[i] )
            pthread_join(x->watcher_thread[i], NULL);
    for ( i = 0; i < NR_WATCHERS; i++ )
        xsd_client_close(x->watcher[i]);
    xsd_client_close(x->kernel);
    xsd_client_close(x->control);
    if ( x->server )
    {
        if ( x->started[NR_WATCHERS] )
        {
            xsd_server_stop(x->server);
            pthread_join(x->server_thread, NULL);
        }
        xsd_server_destroy(x->server);
    }
    if ( x->dir[0] )
        rmdir(x->dir);
    free(x);
}

int wl_xl_client_open(struct wl_xl *x, struct wl_xl_client **out)
{
    struct wl_xl_client *cl = calloc(1, sizeof(*cl));
    unsigned int r;
    int rc = 0;

    *out = cl;
    if ( cl == NULL )
        return -ENOMEM;
    cl->x = x;
    cl->next = x->clients;
    x->clients = cl;
    for ( r = 0; rc == 0 && r < WL_XL_NR_ROLES; r++ )
        if ( r != WL_XL_HOTPLUG )
            rc = xl_connect(x, &cl->conn[r]);
    if ( rc == 0 )
        rc = xl_connect(x, &cl->fe_watch);
    return rc;
}

void wl_xl_client_close(struct wl_xl_client *cl)
{
    struct wl_xl_client **p;
    unsigned int r;

    if ( cl == NULL )
        return;
    for ( p = &cl->x->clients; *p; p = &(*p)->next )
        if ( *p == cl )
        {
            *p = cl->next;
            break;
        }
    for ( r = 0; r < WL_XL_NR_ROLES; r++ )
        xsd_client_close(cl->conn[r]);
    xsd_client_close(cl->fe_watch);
    free(cl);
}

/*
 * The kernel watcher has handled every event so far: a write of
 * backend/sync/0 (an event it answers last) and its DIRECTORY.  An
 * external oxenstored 4.17.7 may hold that event in its queue for a
 * watcher that was behind (its BoundedPipe) until its main loop next wakes
 * (up to its 15 s period when idle): there each wait of 1 ms is one READ
 * on the control connection (not counted), which wakes it.
 */
static int sync_watcher(struct wl_xl *x)
{
    static const char body[] = "/local/domain/0/backend/sync/0\0"
                               "1";
    uint64_t want = atomic_load(&x->synced) + 1;
    uint64_t end = hv_now_ns() + 10000000000ull;
    int rc;

    rc = xsd_client_request(x->control, XSD_WRITE, 0, body, sizeof(body) - 1,
                            NULL, 0, NULL);
    while ( rc == 0 && atomic_load(&x->synced) < want )
    {
        if ( (rc = atomic_load(&x->kernel_rc)) != 0 )
            return rc;
        if ( hv_now_ns() > end )
            return -ETIMEDOUT;
        usleep(1000);
        if ( x->external )
            rc = xsd_client_request(x->control, XSD_READ, 0, body,
                                    sizeof(body) - 2, NULL, 0, NULL);
    }
    return rc;
}

static uint64_t stat_of(const char *text, const char *key)
{
    size_t kl = strlen(key);
    const char *p;

    for ( p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL )
        if ( strncmp(p, key, kl) == 0 && p[kl] == ' ' )
            return strtoull(p + kl + 1, NULL, 10);
    return 0;
}

/*
 * An external daemon's CPU time so far: utime + stime of /proc/PID/stat
 * (fields 14 and 15, after the command's parenthesis), in clock ticks.
 */
static bool proc_cpu_ns(int pid, uint64_t *ns)
{
    unsigned long long ut, st;
    char path[64], buf[1024], *p;
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    if ( pid <= 0 || (f = fopen(path, "r")) == NULL )
        return false;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    if ( (p = strrchr(buf, ')')) == NULL ||
         sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                &ut, &st) != 2 )
        return false;
    *ns = (ut + st) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
    return true;
}

/* An external daemon's counts, as its clients saw them. */
static void client_side_stats(struct wl_xl *x, struct wl_xl_stats *st)
{
    const struct wl_xl_client *cl;
    unsigned int r;

    st->client_side = true;
    st->requests = 0;
    for ( r = 0; r < WL_XL_NR_ROLES; r++ )
        st->requests += st->role_requests[r];
    st->connections = atomic_load(&x->opens);
    /*
     * Received, less each WATCH's own first event: the daemon's "events"
     * are those its writes fire (INTRODUCE's and RELEASE's included).
     */
    st->events = atomic_load(&x->watcher_events[0]) +
                 atomic_load(&x->watcher_events[1]) - x->nr_stats -
                 atomic_load(&x->watches);
    for ( cl = x->clients; cl; cl = cl->next )
    {
        for ( r = 0; r < WL_XL_NR_ROLES; r++ )
            if ( cl->conn[r] )
                st->events += xsd_client_events(cl->conn[r]);
        st->events += xsd_client_events(cl->fe_watch);
    }
    st->events_dropped = 0; /* a client cannot see the daemon's */
    st->quota_copies = 0;   /* the daemon's own quota, not the plugin's */
    st->has_cpu = proc_cpu_ns(x->pid, &st->server_cpu_ns);
}

int wl_xl_stats(struct wl_xl *x, struct wl_xl_stats *st)
{
    static const char cmd[] = "stats";
    char buf[XSD_PAYLOAD_MAX + 1];
    struct timespec ts;
    clockid_t clk;
    size_t len;
    unsigned int r;
    int rc = sync_watcher(x);

    if ( rc )
        return rc;
    x->nr_stats++;
    for ( r = 0; r < WL_XL_NR_ROLES; r++ )
        st->role_requests[r] = atomic_load(&x->role_requests[r]);
    st->role_requests[WL_XL_BACKEND] -= x->nr_stats;
    if ( x->external )
    {
        client_side_stats(x, st);
        return 0;
    }
    rc = xsd_client_request(x->control, XSD_CONTROL, 0, cmd, sizeof(cmd), buf,
                            sizeof(buf) - 1, &len);
    if ( rc )
        return rc;
    buf[len] = '\0';
    /* Less each call's own: WRITE + its DIRECTORY + CONTROL, 1 event */
    st->client_side = false;
    st->requests = stat_of(buf, "requests") - 3 * x->nr_stats;
    st->connections = stat_of(buf, "connections");
    st->events = stat_of(buf, "events") - x->nr_stats;
    st->events_dropped = stat_of(buf, "events_dropped");
    st->quota_copies = stat_of(buf, "quota_copies") - 5 * x->nr_stats;
    st->server_cpu_ns = 0;
    st->has_cpu = pthread_getcpuclockid(x->server_thread, &clk) == 0 &&
                  clock_gettime(clk, &ts) == 0;
    if ( st->has_cpu )
        st->server_cpu_ns =
            (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    return 0;
}

void wl_xl_counters(struct hvb_thread *t, const struct wl_xl_stats *a,
                    const struct wl_xl_stats *b, unsigned int vms,
                    uint64_t wall)
{
    double n = (double)vms;
    char key[64];
    unsigned int r;

    hvb_counter_add(t, "xs_requests_per_vm",
                    (double)(b->requests - a->requests) / n, 0);
    hvb_counter_add(t, "xs_watch_events_per_vm",
                    (double)(b->events - a->events) / n, 0);
    hvb_counter_add(t, "xs_connections_per_vm",
                    (double)(b->connections - a->connections) / n, 0);
    /*
     * An external daemon: requests, events, connections counted by the
     * clients, the cell's quota plugin not in play; in place of the two
     * counters only the daemon could count, so that a cell has no more
     * counters than under the run's daemon (the harness keeps 48)
     */
    if ( b->client_side )
    {
        hvb_counter_add(t, "xs_counts_client_side", 1, 0);
        hvb_counter_add(t, "xs_quota_plugin_applies", 0, 0);
    }
    else
    {
        hvb_counter_add(t, "xs_quota_copies_per_vm",
                        (double)(b->quota_copies - a->quota_copies) / n, 0);
        hvb_counter_add(t, "xs_events_dropped",
                        (double)(b->events_dropped - a->events_dropped), 0);
    }
    /* Near 100: the daemon's one thread is what every boot waits on. */
    if ( a->has_cpu && b->has_cpu )
        hvb_counter_add(t, "xs_server_cpu_pct",
                        100.0 * (double)(b->server_cpu_ns - a->server_cpu_ns) /
                            (double)wall,
                        0);
    for ( r = 0; r < WL_XL_NR_ROLES; r++ )
    {
        snprintf(key, sizeof(key), "xs_requests_%s_per_vm",
                 wl_xl_role_names[r]);
        hvb_counter_add(
            t, key, (double)(b->role_requests[r] - a->role_requests[r]) / n, 0);
    }
}
