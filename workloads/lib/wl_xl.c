/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One `xl create` on the xenstore wire (wl_xl.h): PV guest N, uuid U,
 * one vCPU, kernel + ramdisk + cmdline, disk phy xvda (devid 51712), vif
 * 0 on a bridge, console 0 served by xenconsoled.  The order is libxl's
 * (xen.git tools/libs/light): libxl__domain_make, libxl__build_post, the
 * console, the disk, the nic, xl's event registrations, then the guest's
 * frontends once it runs.  Each step below names its source.  Where a
 * component reacts to a watch event, the VM's toolstack thread sends its
 * requests in causal order on that component's connection; libxl's wait
 * for a backend's state is a real wait for the event (xsd_client_wait_event).
 *
 * Connections: per toolstack thread one each for xl, the dom0 kernel's
 * backends, xenconsoled and the guest (whose frontends use its ring in
 * Xen: a socket here, so it is dom0 to the daemon); per hotplug command
 * one (each xenstore-read / -write / -list is a process); for the run two
 * watchers: the dom0 kernel's xenbus watch on "backend" and xenconsoled's
 * @introduceDomain / @releaseDomain, drained by a thread each.
 *
 * Worked example, VM 7 booted with 5 VMs running, each with a disk:
 * libxl's name check reads the name of the 6 domains that getinfolist
 * lists (the model's table has no dom0: 5 VMs and 7 itself), the block
 * script's sharing check lists backend/vbd (6 domains with a vbd backend,
 * 7 included), lists each one's devices and reads each device's
 * physical-device: 6 xenstore-list (3 requests: TS, DIRECTORY, TE) and 6
 * xenstore-read (1).  Per VM: toolstack 221 + 6, hotplug 16 + 4 x 6,
 * backends 169, xenconsoled 11, guest 104 = 551 requests, 14 + 2 x 6
 * connections, 97 events fired; docs/xenstored.md has the whole table.
 *
 * Deviation: the watches a running domain keeps (xl's @releaseDomain and
 * disk eject, the backends' on the frontends' state, the guest's) are
 * dropped when its boot ends: the daemon's watch list is linear, where
 * oxenstored's is a trie, so keeping ~10 per VM would charge each write
 * a pass over thousands that oxenstored does not pay.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hv/hv.h>
#include <hv/vmboot.h>
#include <hv/xenctrl.h>
#include <hv/xenstore.h>

#include "client.h"
#include "wire.h"
#include "wl_xl.h"
#include "xenstored.h"

const char *const wl_xl_role_names[WL_XL_NR_ROLES] = {
    "toolstack", "hotplug", "backend", "xenconsoled", "guest"};

#define VBD_DEVID   51712 /* xvda: (202 << 8) | (0 << 4) */
#define WAIT_MS     10000
#define NR_WATCHERS 2

/* The host's directories, before any VM (xencommons, xl). */
static const char *const host_dirs[] = {"/vm",
                                        "/libxl",
                                        "/local/domain/0/backend/vbd",
                                        "/local/domain/0/backend/vif",
                                        "/local/domain/0/backend/console",
                                        NULL};

struct wl_xl {
    struct xsd_server *server;
    pthread_t server_thread, watcher_thread[NR_WATCHERS];
    bool started[NR_WATCHERS + 1];
    /* the watchers' event connections, the dom0 kernel's requests */
    struct xsd_client *watcher[NR_WATCHERS], *kernel, *control;
    _Atomic bool stop;
    _Atomic uint64_t role_requests[WL_XL_NR_ROLES];
    _Atomic uint64_t synced; /* the kernel watcher saw backend/sync */
    _Atomic int kernel_rc;   /* why the kernel watcher stopped, -errno */
    uint64_t nr_stats;       /* wl_xl_stats() calls */
    /* An external daemon: counted here (connections opened, events read) */
    bool external;
    int pid;
    _Atomic uint64_t opens, watches, watcher_events[NR_WATCHERS];
    struct wl_xl_client *clients; /* their connections' events */
    char dir[64], sock[108];
};

struct wl_xl_client {
    struct wl_xl *x;
    struct xsd_client *conn[WL_XL_NR_ROLES]; /* hotplug's: NULL */
    struct xsd_client *fe_watch;             /* the guest's "device" watch */
    struct wl_xl_client *next;               /* x->clients */
};

/*
 * One component's requests: sticky error (the first -errno stops the
 * rest), the transaction it is in, the last reply.
 */
struct xo {
    struct wl_xl *x;
    struct xsd_client *c; /* NULL: hotplug, a connection per command */
    enum wl_xl_role role;
    uint32_t tx;
    int rc;
    size_t len;
    char buf[XSD_PAYLOAD_MAX + 1];
};

/* A connection to the daemon, counted (an external one's "connections"). */
static int xopen(struct wl_xl *x, struct xsd_client **c)
{
    atomic_fetch_add_explicit(&x->opens, 1, memory_order_relaxed);
    return xsd_client_open(x->sock, c);
}

static void xo_init(struct xo *o, struct wl_xl_client *cl, enum wl_xl_role r)
{
    o->x = cl->x;
    o->c = cl->conn[r];
    o->role = r;
    o->tx = 0;
    o->rc = 0;
    o->len = 0;
}

/* One request; @ok: an error the caller expects (ENOENT of a read). */
static int xreq(struct xo *o, uint32_t type, const void *body, size_t len,
                int ok)
{
    struct xsd_client *c = o->c;
    int rc;

    if ( o->rc )
        return o->rc;
    if ( c == NULL && (rc = xopen(o->x, &c)) != 0 )
        return o->rc = rc;
    atomic_fetch_add_explicit(&o->x->role_requests[o->role], 1,
                              memory_order_relaxed);
    rc = xsd_client_request(c, type, o->tx, body, len, o->buf,
                            sizeof(o->buf) - 1, &o->len);
    if ( o->c == NULL )
        xsd_client_close(c);
    if ( rc == 0 )
        o->buf[o->len] = '\0';
    else
        o->len = 0;
    if ( rc && rc != ok )
        o->rc = rc;
    return rc;
}

/* A request of path @fmt (and @val: WRITE's value, SET_PERMS' list). */
static int xpath(struct xo *o, uint32_t type, const char *val, int ok,
                 const char *fmt, va_list ap)
{
    char body[XSD_PAYLOAD_MAX];
    int n = vsnprintf(body, sizeof(body), fmt, ap);
    size_t len = (size_t)n + 1, vl = val ? strlen(val) : 0;

    if ( n < 0 || len + vl > sizeof(body) )
        return o->rc ? o->rc : (o->rc = -E2BIG);
    if ( vl )
        memcpy(body + len, val, vl);
    if ( type == XSD_WATCH )
        atomic_fetch_add_explicit(&o->x->watches, 1, memory_order_relaxed);
    if ( type == XSD_SET_PERMS || type == XSD_WATCH || type == XSD_UNWATCH )
    {
        /* "n0 r7" -> "n0\0r7\0"; a token -> "token\0" */
        for ( n = 0; type == XSD_SET_PERMS && (size_t)n < vl; n++ )
            if ( body[len + n] == ' ' )
                body[len + n] = '\0';
        if ( len + vl + 1 > sizeof(body) )
            return o->rc ? o->rc : (o->rc = -E2BIG);
        body[len + vl++] = '\0';
    }
    return xreq(o, type, body, len + vl, ok);
}

#define XPATH_FN(fn, type, ok)                               \
    static __attribute__((format(printf, 3, 4))) int fn(     \
        struct xo *o, const char *val, const char *fmt, ...) \
    {                                                        \
        va_list ap;                                          \
        int rc;                                              \
                                                             \
        va_start(ap, fmt);                                   \
        rc = xpath(o, type, val, ok, fmt, ap);               \
        va_end(ap);                                          \
        return rc;                                           \
    }
XPATH_FN(xwrite, XSD_WRITE, 0)
XPATH_FN(xperms, XSD_SET_PERMS, 0)
XPATH_FN(xread_, XSD_READ, -ENOENT)
XPATH_FN(xrm_, XSD_RM, -ENOENT)
XPATH_FN(xmkdir_, XSD_MKDIR, 0)
XPATH_FN(xdir_, XSD_DIRECTORY, -ENOENT)
XPATH_FN(xwatch_, XSD_WATCH, 0)
XPATH_FN(xunwatch_, XSD_UNWATCH, 0)
#define xread(o, ...)  xread_(o, NULL, __VA_ARGS__)
#define xrm(o, ...)    xrm_(o, NULL, __VA_ARGS__)
#define xmkdir(o, ...) xmkdir_(o, NULL, __VA_ARGS__)
#define xdir(o, ...)   xdir_(o, NULL, __VA_ARGS__)

/* WATCH / UNWATCH with the token @tok (the body is path\0token\0). */
#define xwatch(o, tok, ...)   xwatch_(o, tok, __VA_ARGS__)
#define xunwatch(o, tok, ...) xunwatch_(o, tok, __VA_ARGS__)

/* libxl__xs_mknod: an empty node and its permissions. */
#define xmknod(o, perms, ...) \
    (xwrite(o, "", __VA_ARGS__), xperms(o, perms, __VA_ARGS__))

static void xts(struct xo *o)
{
    if ( xreq(o, XSD_TRANSACTION_START, "", 1, 0) == 0 )
        o->tx = (uint32_t)strtoul(o->buf, NULL, 10);
}

/* TRANSACTION_END(T); -EAGAIN is the caller's to retry, and clears. */
static int xte(struct xo *o)
{
    int rc;

    if ( o->tx == 0 )
        return o->rc;
    if ( o->rc )
    {
        rc = o->rc;
        o->rc = 0;
        (void)xreq(o, XSD_TRANSACTION_END, "F", 2, 0);
        o->tx = 0;
        o->rc = rc;
        return rc;
    }
    rc = xreq(o, XSD_TRANSACTION_END, "T", 2, -EAGAIN);
    o->tx = 0;
    return rc;
}

/* A domain request of @nums ("7", "7\0 1\0 2" ...), @len bytes. */
static void xdom(struct xo *o, uint32_t type, const char *nums, size_t len)
{
    (void)xreq(o, type, nums, len, 0);
}

/* A transaction body, retried on EAGAIN as libxl's retry_transaction. */
struct vm {
    domid_t id;
    char ids[8], name[32], uuid[40], vm[48];
    struct hv_cpu *cpu;
};
/* VM @id's name, uuid (hv_vmboot_identity) and /vm path. */
static void vm_identity(struct vm *v, domid_t id)
{
    unsigned char u[16];

    v->id = id;
    hv_vmboot_identity(id, v->name, sizeof(v->name), u);
    snprintf(v->ids, sizeof(v->ids), "%u", id);
    snprintf(v->uuid, sizeof(v->uuid),
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
             u[11], u[12], u[13], u[14], u[15]);
    snprintf(v->vm, sizeof(v->vm), "/vm/%s", v->uuid);
}

typedef void (*txn_fn)(struct xo *o, const struct vm *v, const void *arg);

static int xtxn(struct xo *o, txn_fn body, const struct vm *v, const void *arg)
{
    unsigned int tries = 0;
    int rc;

    do
    {
        xts(o);
        body(o, v, arg);
        rc = xte(o);
    } while ( rc == -EAGAIN && ++tries < 64 );
    return o->rc ? o->rc : rc;
}

/* libxl__xs_writev(_perms): key/value pairs below @dir. */
struct kv {
    const char *k, *v;
};

static void xwritev(struct xo *o, const char *dir, const struct kv *kv,
                    const char *perms)
{
    for ( ; kv->k; kv++ )
    {
        xwrite(o, kv->v, "%s/%s", dir, kv->k);
        if ( perms )
            xperms(o, perms, "%s/%s", dir, kv->k);
    }
}

/* ---- the toolstack: libxl__domain_make (libxl_create.c) ---- */

/* libxl_name_to_domid (libxl_utils.c): every domain's name, no txn. */
static void name_check(struct xo *o, const struct vm *v)
{
    struct hv_dominfo_list l;
    struct hv_xc xc;
    uint32_t tx = o->tx;
    unsigned int i;

    hv_xc_open(&xc, v->cpu);
    if ( hv_xc_domain_getinfolist_all(&xc, 0, &l) )
    {
        hv_xc_close(&xc);
        o->rc = o->rc ? o->rc : -ENOMEM;
        return;
    }
    o->tx = 0; /* libxl_domid_to_name reads with XBT_NULL */
    for ( i = 0; i < l.n; i++ )
        xread(o, "/local/domain/%u/name", l.info[i].domain);
    o->tx = tx;
    free(l.info);
    hv_xc_close(&xc);
}

static void domain_make_txn(struct xo *o, const struct vm *v, const void *arg)
{
    static const char *const ro_nodes[] = {"cpu", "memory", "device", "control",
                                           NULL};
    static const char *const rw_nodes[] = {"device/suspend/event-channel",
                                           "control/shutdown",
                                           "control/feature-poweroff",
                                           "control/feature-reboot",
                                           "control/feature-suspend",
                                           "control/sysrq",
                                           "data",
                                           "drivers",
                                           "feature",
                                           "attr",
                                           "error",
                                           NULL};
    char ro[24], rw[12], dom[32];
    unsigned int i;
    uint32_t tx;

    snprintf(ro, sizeof(ro), "n0 r%u", v->id);
    snprintf(rw, sizeof(rw), "n%u", v->id);
    snprintf(dom, sizeof(dom), "/local/domain/%u", v->id);
    xrm(o, "%s", dom);
    xmknod(o, ro, "%s", dom);
    xrm(o, "/vm/%s", v->uuid);
    xmknod(o, ro, "/vm/%s", v->uuid);
    xrm(o, "/libxl/%u", v->id);
    xmknod(o, "n0", "/libxl/%u", v->id);
    xmknod(o, "n0", "/libxl/%u/device", v->id);
    xwrite(o, v->vm, "%s/vm", dom);
    /* libxl__domain_rename (libxl_domain.c), in this transaction */
    tx = o->tx;
    o->tx = 0;
    xdom(o, XSD_GET_DOMAIN_PATH, v->ids, strlen(v->ids) + 1);
    xread(o, "%s/image/device-model-domid", dom); /* get_stubdom_id */
    o->tx = tx;
    name_check(o, v);
    xwrite(o, v->name, "%s/name", dom);
    xwrite(o, v->name, "/vm/%s/name", v->uuid);
    /* mknods: read-only to the guest, then the guest's own */
    for ( i = 0; ro_nodes[i]; i++ )
        xmknod(o, ro, "%s/%s", dom, ro_nodes[i]);
    for ( i = 0; rw_nodes[i]; i++ )
        xmknod(o, rw, "%s/%s", dom, rw_nodes[i]);
    xwrite(o, v->uuid, "/vm/%s/uuid", v->uuid);
    xwrite(o, v->name, "/vm/%s/name", v->uuid);
    xwrite(o, "1", "%s/control/platform-feature-multiprocessor-suspend", dom);
    xwrite(o, "1", "%s/control/platform-feature-xs_reset_watches", dom);
    xwrite(o, "pv", "/libxl/%u/type", v->id);
}

/* ---- libxl__build_post (libxl_dom.c) ---- */

static void build_post_txn(struct xo *o, const struct vm *v, const void *arg)
{
    static const struct kv ents[] = {{"memory/static-max", "262144"},
                                     {"memory/target", "261120"},
                                     {"memory/videoram", "0"},
                                     {"domid", ""},
                                     {"store/port", "1"},
                                     {"store/ring-ref", "1044476"},
                                     {"cpu/0/availability", "online"},
                                     {NULL, NULL}};
    /* libxl_create.c libxl__domain_build, PV: vments */
    static const struct kv vments[] = {{"image/ostype", "linux"},
                                       {"image/kernel", "/boot/vmlinuz"},
                                       {"start_time", "1706699520.00"},
                                       {"image/ramdisk", "/boot/initrd.img"},
                                       {"image/cmdline", "root=/dev/xvda1 ro"},
                                       {NULL, NULL}};
    char dom[32], vm[64];

    snprintf(dom, sizeof(dom), "/local/domain/%u", v->id);
    snprintf(vm, sizeof(vm), "/vm/%s", v->uuid);
    xwritev(o, dom, ents, NULL);
    xwritev(o, vm, vments, NULL);
}

/* ---- libxl__device_generic_add (libxl_device.c) ---- */

struct dev {
    const char *kind; /* "vbd", "vif", "console" */
    unsigned int devid;
    char fe[64], be[80], lx[64];
    const struct kv *bents, *fents, *ro_fents;
    bool ro_fe; /* console 0: the frontend directory read-only */
};

static void dev_paths(struct dev *d, domid_t id)
{
    if ( strcmp(d->kind, "console") == 0 )
        snprintf(d->fe, sizeof(d->fe), "/local/domain/%u/console", id);
    else
        snprintf(d->fe, sizeof(d->fe), "/local/domain/%u/device/%s/%u", id,
                 d->kind, d->devid);
    snprintf(d->be, sizeof(d->be), "/local/domain/0/backend/%s/%u/%u", d->kind,
             id, d->devid);
    snprintf(d->lx, sizeof(d->lx), "/libxl/%u/device/%s/%u", id, d->kind,
             d->devid);
}

static void generic_add(struct xo *o, const struct dev *d, domid_t id)
{
    char fe_perms[24], ro_perms[24];

    snprintf(fe_perms, sizeof(fe_perms), "n%u r0", id);
    snprintf(ro_perms, sizeof(ro_perms), "n0 r%u", id);
    xrm(o, "%s", d->lx);
    xwrite(o, d->fe, "%s/frontend", d->lx);
    xwrite(o, d->be, "%s/backend", d->lx);
    xrm(o, "%s", d->fe);
    xmkdir(o, "%s", d->fe);
    xperms(o, d->ro_fe ? ro_perms : fe_perms, "%s", d->fe);
    xwrite(o, d->be, "%s/backend", d->fe);
    if ( d->fents )
        xwritev(o, d->fe, d->fents, fe_perms);
    if ( d->ro_fents )
        xwritev(o, d->fe, d->ro_fents, ro_perms);
    xrm(o, "%s", d->be);
    xmkdir(o, "%s", d->be);
    xperms(o, ro_perms, "%s", d->be);
    xwrite(o, d->fe, "%s/frontend", d->be);
    xwritev(o, d->be, d->bents, NULL);
    xwritev(o, d->lx, d->bents, NULL);
}

/*
 * libxl__device_add_async's transaction: libxl__device_exists (a read
 * of the backend), then generic_add; libxl__device_console_add's own
 * (XBT_NULL) is generic_add alone.
 */
static void device_add_txn(struct xo *o, const struct vm *v, const void *arg)
{
    const struct dev *d = arg;

    if ( strcmp(d->kind, "console") )
        xread(o, "%s", d->be);
    generic_add(o, d, v->id);
}

/* ---- the dom0 kernel's backends (Linux drivers/xen/xenbus, -blkback,
 * -netback): a new device's probe ---- */

/* xenbus_probe_node, talk_to_otherend, watch_otherend (xenbus_probe.c) */
static void xenbus_probe(struct xo *o, const char *node, const char *other,
                         const char *other_id)
{
    xread(o, "%s/state", node);
    xread(o, "%s/%s", node, other_id);
    xread(o, "%s/%s", node, other);
    xdir(o, "%s", o->len ? o->buf : node); /* xenbus_exists(otherend) */
}

/* __xenbus_switch_state (xenbus_client.c): in a transaction of its own */
static void switch_state(struct xo *o, const char *node, const char *state)
{
    uint32_t tx = o->tx;

    o->tx = 0;
    xts(o);
    xread(o, "%s/state", node);
    xwrite(o, state, "%s/state", node);
    (void)xte(o);
    o->tx = tx;
}

/* xen_blkbk_probe (xen-blkback/xenbus.c) */
static void blkback_probe(struct xo *o, const struct dev *d)
{
    xenbus_probe(o, d->be, "frontend", "frontend-id");
    xwatch(o, "be", "%s/physical-device", d->be);
    xread(o, "%s/physical-device", d->be); /* backend_changed: not yet */
    xwrite(o, "256", "%s/feature-max-indirect-segments", d->be);
    xwrite(o, "4", "%s/multi-queue-max-queues", d->be);
    xwrite(o, "4", "%s/max-ring-page-order", d->be);
    switch_state(o, d->be, "2");
    xwatch(o, "fe", "%s/state", d->fe);
    xread(o, "%s/state", d->fe); /* otherend_changed: the initial event */
}

/* netback_probe, backend_create_xenvif (xen-netback/xenbus.c) */
static void netback_probe(struct xo *o, const struct dev *d)
{
    static const struct kv features[] = {
        {"feature-sg", "1"},
        {"feature-gso-tcpv4", "1"},
        {"feature-gso-tcpv6", "1"},
        {"feature-ipv6-csum-offload", "1"},
        {"feature-rx-copy", "1"},
        {"feature-xdp-headroom", "1"},
        {"feature-rx-flip", "0"},
        {"feature-multicast-control", "1"},
        {"feature-dynamic-multicast-control", "1"},
        {NULL, NULL}};

    xenbus_probe(o, d->be, "frontend", "frontend-id");
    xts(o);
    xwritev(o, d->be, features, NULL);
    (void)xte(o);
    xwrite(o, "1", "%s/feature-split-event-channels", d->be);
    xwrite(o, "4", "%s/multi-queue-max-queues", d->be);
    xwrite(o, "1", "%s/feature-ctrl-ring", d->be);
    switch_state(o, d->be, "2");
    xread(o, "%s/script", d->be);
    xread(o, "%s/handle", d->be);
    xwatch(o, "fe", "%s/state", d->fe);
    xread(o, "%s/state", d->fe);
}

/* ---- the toolstack's device wait and hotplug (libxl_device.c,
 * libxl_linux.c), and the scripts (tools/hotplug/Linux) ---- */

/* libxl__wait_device_connection: devstate wait for InitWait (2). */
static void devstate_watch(struct xo *o, const struct dev *d)
{
    xwatch(o, "ds", "%s/state", d->be);
    xread(o, "%s/state", d->be); /* the registration's event */
}

static void devstate_wait(struct xo *o, const struct dev *d)
{
    int rc;

    if ( o->rc == 0 &&
         (rc = xsd_client_wait_event(o->c, "ds", WAIT_MS, NULL, 0)) != 0 )
        o->rc = rc;
    xread(o, "%s/state", d->be);
    xunwatch(o, "ds", "%s/state", d->be);
}

/* A hotplug command of several requests (xenstore-list): one connection. */
static void cmd_open(struct xo *h)
{
    int rc;

    if ( h->rc == 0 && (rc = xopen(h->x, &h->c)) != 0 )
        h->rc = rc;
}

static void cmd_close(struct xo *h)
{
    xsd_client_close(h->c);
    h->c = NULL;
}

/* block add, phy: xen-hotplug-common.sh, block-common.sh, block */
static void block_add(struct xo *h, const struct dev *d, domid_t id)
{
    static const char vbd[] = "backend/vbd";
    char rel[64], doms[XSD_PAYLOAD_MAX + 1], devs[XSD_PAYLOAD_MAX + 1];
    size_t nd, nv, i, j;

    snprintf(rel, sizeof(rel), "%s/%u/%u", vbd, id, d->devid); /* XENBUS_PATH */
    xread(h, "%s/type", rel);
    xread(h, "%s/params", rel);
    xread(h, "%s/mode", rel);
    xread(h, "%s/physical-device", rel);
    xread(h, "%s/frontend-id", rel);
    xread(h, "/local/domain/%u/vm", id);
    /* check_sharing: xenstore-list (TS, DIRECTORY, TE) of every vbd */
    cmd_open(h);
    xts(h);
    xdir(h, "%s", vbd);
    memcpy(doms, h->buf, h->len + 1);
    nd = h->len;
    (void)xte(h);
    cmd_close(h);
    for ( i = 0; i < nd && h->rc == 0; i += strlen(doms + i) + 1 )
    {
        cmd_open(h);
        xts(h);
        xdir(h, "%s/%s", vbd, doms + i);
        memcpy(devs, h->buf, h->len + 1);
        nv = h->len;
        (void)xte(h);
        cmd_close(h);
        for ( j = 0; j < nv; j += strlen(devs + j) + 1 )
            xread(h, "%s/%s/%s/physical-device", vbd, doms + i, devs + j);
    }
    /* write_dev, success */
    xwrite(h, "fe:00", "%s/physical-device", rel);
    xwrite(h, "/dev/vg/root", "%s/physical-device-path", rel);
    xwrite(h, "connected", "%s/hotplug-status", rel);
}

/* vif-bridge online: vif-common.sh, vif-bridge */
static void vif_online(struct xo *h, const struct dev *d, domid_t id)
{
    char rel[64];

    snprintf(rel, sizeof(rel), "backend/vif/%u/%u", id, d->devid);
    xread(h, "%s/vifname", rel);
    xread(h, "%s/ip", rel);
    xread(h, "%s/bridge", rel);
    xwrite(h, "connected", "%s/hotplug-status", rel);
}

/* ---- xenconsoled (tools/console/daemon/io.c) ---- */

/* domain_create_ring: xs_gather ring-ref, port; the console's type. */
static void console_ring(struct xo *o, const char *cons)
{
    xread(o, "%s/ring-ref", cons);
    xread(o, "%s/port", cons);
    xread(o, "%s/type", cons);
}

/* On @introduceDomain: the new domain's console, its tty. */
static void consoled_add(struct xo *o, const struct vm *v, const char *cons)
{
    xdom(o, XSD_GET_DOMAIN_PATH, v->ids, strlen(v->ids) + 1);
    xwatch(o, "con", "%s", cons);
    console_ring(o, cons); /* the registration's event */
    xread(o, "%s/tty", cons);
    xwrite(o, "/dev/pts/1", "%s/tty", cons);
    console_ring(o, cons); /* the event of its own write */
}

/* ---- the guest (Linux drivers/xen/xenbus/xenbus_probe_frontend.c,
 * manage.c, xen-balloon.c, xen-blkfront.c, xen-netfront.c) ---- */

/* xenbus_probe_devices(frontend): the device classes and devices. */
static void guest_probe(struct xo *g, const char *dom, const struct dev *vbd,
                        const struct dev *vif)
{
    xdir(g, "%s/device", dom);
    xdir(g, "%s/device/suspend", dom);
    xread(g, "%s/device/suspend/event-channel/state", dom);
    xdir(g, "%s/device/vbd", dom);
    xenbus_probe(g, vbd->fe, "backend", "backend-id");
    xread(g, "%s/virtual-device", vbd->fe); /* blkfront_probe */
    xread(g, "%s/device-type", vbd->fe);
    xwatch(g, "be", "%s/state", vbd->be);
    xread(g, "%s/state", vbd->be);
    xdir(g, "%s/device/vif", dom);
    xenbus_probe(g, vif->fe, "backend", "backend-id");
    xwatch(g, "be", "%s/state", vif->be);
    xread(g, "%s/state", vif->be);
}

/* setup_shutdown_watcher (manage.c), balloon_init_watcher */
static void guest_control(struct xo *g, const char *dom)
{
    static const char *const nodes[] = {"shutdown", "sysrq", NULL};
    static const struct kv features[] = {{"feature-poweroff", "1"},
                                         {"feature-reboot", "1"},
                                         {"feature-suspend", "1"},
                                         {NULL, NULL}};
    char ctl[48];
    unsigned int i;

    snprintf(ctl, sizeof(ctl), "%s/control", dom);
    for ( i = 0; nodes[i]; i++ )
    {
        xwatch(g, "ctl", "%s/%s", ctl, nodes[i]);
        xts(g); /* shutdown_handler / sysrq_handler on its first event */
        xread(g, "%s/%s", ctl, nodes[i]);
        (void)xte(g);
    }
    xwritev(g, ctl, features, NULL);
    xwatch(g, "mem", "%s/memory/target", dom);
    xread(g, "%s/memory/target", dom);
}

/* talk_to_blkback, then blkback's connect_ring and connect, blkfront's */
static void vbd_connect(struct xo *g, struct xo *k, const struct dev *d)
{
    static const struct kv fe_keys[] = {{"ring-ref", "8"},
                                        {"event-channel", "9"},
                                        {"protocol", "x86_64-abi"},
                                        {"feature-persistent", "1"},
                                        {NULL, NULL}};
    static const struct kv be_keys[] = {
        {"feature-flush-cache", "1"},
        {"feature-barrier", "1"},
        {"feature-max-indirect-segments", "256"},
        {"discard-granularity", "4096"},
        {"discard-alignment", "0"},
        {"discard-secure", "0"},
        {"feature-discard", "1"},
        {"feature-persistent", "1"},
        {"sectors", "16777216"},
        {"info", "0"},
        {"sector-size", "512"},
        {"physical-sector-size", "4096"},
        {NULL, NULL}};
    static const char *const fe_reads[] = {"sectors",
                                           "info",
                                           "sector-size",
                                           "physical-sector-size",
                                           "feature-flush-cache",
                                           "feature-discard",
                                           "discard-granularity",
                                           "discard-alignment",
                                           "discard-secure",
                                           "feature-persistent",
                                           "feature-max-indirect-segments",
                                           NULL};
    static const char *const ring[] = {"feature-persistent",
                                       "protocol",
                                       "multi-queue-num-queues",
                                       "ring-page-order",
                                       "ring-ref",
                                       "event-channel",
                                       NULL};
    unsigned int i;

    xread(g, "%s/max-ring-page-order", d->be);
    xread(g, "%s/multi-queue-max-queues", d->be);
    xts(g);
    xwritev(g, d->fe, fe_keys, NULL);
    (void)xte(g);
    switch_state(g, d->fe, "3");
    xread(k, "%s/state", d->fe); /* otherend_changed: Initialised */
    for ( i = 0; ring[i]; i++ )
        xread(k, "%s/%s", d->fe, ring[i]);
    xts(k);
    xread(k, "%s/discard-enable", d->be);
    xwritev(k, d->be, be_keys, NULL);
    (void)xte(k);
    switch_state(k, d->be, "4");
    xread(g, "%s/state", d->be); /* Connected */
    for ( i = 0; fe_reads[i]; i++ )
        xread(g, "%s/%s", d->be, fe_reads[i]);
    switch_state(g, d->fe, "4");
    xread(k, "%s/state", d->fe);
}

/* talk_to_netback, xennet_connect; netback's connect, hotplug-status */
static void vif_connect(struct xo *g, struct xo *k, const struct dev *d)
{
    static const struct kv fe_keys[] = {{"tx-ring-ref", "10"},
                                        {"rx-ring-ref", "11"},
                                        {"event-channel", "12"},
                                        {"request-rx-copy", "1"},
                                        {"feature-rx-notify", "1"},
                                        {"feature-sg", "1"},
                                        {"feature-gso-tcpv4", "1"},
                                        {"feature-gso-tcpv6", "1"},
                                        {"feature-ipv6-csum-offload", "1"},
                                        {NULL, NULL}};
    static const char *const be_first[] = {
        "multi-queue-max-queues", "feature-split-event-channels",
        "feature-xdp-headroom", "feature-rx-copy", NULL};
    static const char *const fe_flags[] = {"multi-queue-num-queues",
                                           "request-rx-copy",
                                           "feature-rx-notify",
                                           "feature-sg",
                                           "feature-gso-tcpv4",
                                           "feature-gso-tcpv6",
                                           "feature-no-csum-offload",
                                           "feature-ipv6-csum-offload",
                                           "feature-multicast-control",
                                           "tx-ring-ref",
                                           "rx-ring-ref",
                                           "event-channel-tx",
                                           "event-channel",
                                           "ctrl-ring-ref",
                                           NULL};
    unsigned int i;

    for ( i = 0; be_first[i]; i++ )
        xread(g, "%s/%s", d->be, be_first[i]);
    xread(g, "%s/mac", d->fe);
    xts(g);
    xwritev(g, d->fe, fe_keys, NULL);
    (void)xte(g);
    switch_state(g, d->fe, "4");
    xread(k, "%s/state", d->fe); /* frontend_changed: Connected */
    xread(k, "%s/mac", d->be);
    xread(k, "%s/rate", d->be);
    for ( i = 0; fe_flags[i]; i++ )
        xread(k, "%s/%s", d->fe, fe_flags[i]);
    xwatch(k, "hs", "%s/hotplug-status", d->be);
    xread(k, "%s/hotplug-status", d->be); /* "connected" */
    switch_state(k, d->be, "4");
    xunwatch(k, "hs", "%s/hotplug-status", d->be);
    xread(g, "%s/state", d->be); /* Connected */
}

/* ---- one xl create ---- */

/* The guest's xenbus: per event on its "device" watch, xenbus_exists. */
static void guest_fe_events(struct xo *g, struct xo *w, uint64_t before,
                            const char *dom)
{
    uint64_t n;

    xunwatch(w, "fe", "%s/device", dom);
    /* The events came before UNWATCH's reply, on the watch's connection */
    n = xsd_client_events(w->c) - before;
    while ( n-- > 1 ) /* the registration's event: char_count < 2 */
        xdir(g, "%s/device", dom);
}

int wl_xl_create(struct wl_xl_client *cl, struct hv_cpu *cpu, domid_t id)
{
    static const struct kv con_fents[] = {{"backend-id", "0"}, {NULL, NULL}};
    static const struct kv vbd_fents[] = {
        {"backend-id", "0"},     {"state", "1"},   {"virtual-device", "51712"},
        {"device-type", "disk"}, {"trusted", "1"}, {NULL, NULL}};
    char con_b[4][24], con_r[2][24], vbd_b[2][32], vif_b[2][32];
    const struct kv con_bents[] = {{"frontend-id", con_b[0]},
                                   {"online", "1"},
                                   {"state", "1"},
                                   {"protocol", "vt100"},
                                   {NULL, NULL}};
    const struct kv con_ro[] = {{"limit", "1048576"}, {"type", "xenconsoled"},
                                {"output", "pty"},    {"tty", ""},
                                {"port", con_r[0]},   {"ring-ref", con_r[1]},
                                {NULL, NULL}};
    const struct kv vbd_bents[] = {{"params", vbd_b[0]},
                                   {"script", "/etc/xen/scripts/block"},
                                   {"frontend-id", vbd_b[1]},
                                   {"online", "1"},
                                   {"removable", "0"},
                                   {"bootable", "1"},
                                   {"state", "1"},
                                   {"dev", "xvda"},
                                   {"type", "phy"},
                                   {"mode", "w"},
                                   {"device-type", "disk"},
                                   {"discard-enable", "1"},
                                   {"specification", "xen"},
                                   {NULL, NULL}};
    const struct kv vif_bents[] = {{"frontend-id", vif_b[0]},
                                   {"online", "1"},
                                   {"state", "1"},
                                   {"script", "/etc/xen/scripts/vif-bridge"},
                                   {"mac", vif_b[1]},
                                   {"mtu", "1500"},
                                   {"bridge", "xenbr0"},
                                   {"handle", "0"},
                                   {"type", "vif"},
                                   {"hotplug-status", ""},
                                   {NULL, NULL}};
    const struct kv vif_fents[] = {{"backend-id", "0"}, {"state", "1"},
                                   {"handle", "0"},     {"mac", vif_b[1]},
                                   {"trusted", "1"},    {NULL, NULL}};
    static const struct kv vif_ro[] = {{"mtu", "1500"}, {NULL, NULL}};
    struct dev con = {.kind = "console",
                      .bents = con_bents,
                      .fents = con_fents,
                      .ro_fents = con_ro,
                      .ro_fe = true},
               vbd = {.kind = "vbd",
                      .devid = VBD_DEVID,
                      .bents = vbd_bents,
                      .fents = vbd_fents},
               vif = {.kind = "vif",
                      .bents = vif_bents,
                      .fents = vif_fents,
                      .ro_fents = vif_ro};
    struct xo o[WL_XL_NR_ROLES],
        *tk = &o[WL_XL_TOOLSTACK], *hp = &o[WL_XL_HOTPLUG],
        *kb = &o[WL_XL_BACKEND], *cd = &o[WL_XL_CONSOLED], *g = &o[WL_XL_GUEST];
    char dom[32], intro[40];
    struct vm v = {.id = id, .cpu = cpu};
    struct xo gw; /* the guest's frontend watch, a connection of its own */
    uint64_t fe_events;
    unsigned int r;

    for ( r = 0; r < WL_XL_NR_ROLES; r++ )
        xo_init(&o[r], cl, r);
    xo_init(&gw, cl, WL_XL_GUEST);
    gw.c = cl->fe_watch;
    vm_identity(&v, id);
    snprintf(dom, sizeof(dom), "/local/domain/%u", id);
    snprintf(con_b[0], sizeof(con_b[0]), "%u", id);
    snprintf(con_r[0], sizeof(con_r[0]), "%u", 2u);
    snprintf(con_r[1], sizeof(con_r[1]), "%u", 1044475u);
    snprintf(vbd_b[0], sizeof(vbd_b[0]), "/dev/vg/vm-%u", id);
    snprintf(vbd_b[1], sizeof(vbd_b[1]), "%u", id);
    snprintf(vif_b[0], sizeof(vif_b[0]), "%u", id);
    snprintf(vif_b[1], sizeof(vif_b[1]), "00:16:3e:%02x:%02x:%02x",
             (id >> 16) & 0xff, (id >> 8) & 0xff, id & 0xff);
    dev_paths(&con, id);
    dev_paths(&vbd, id);
    dev_paths(&vif, id);

    /* libxl__domain_make */
    xdom(tk, XSD_GET_DOMAIN_PATH, v.ids, strlen(v.ids) + 1);
    (void)xtxn(tk, domain_make_txn, &v, NULL);
    /* libxl__build_post, then xs_introduce_domain */
    xdom(tk, XSD_GET_DOMAIN_PATH, v.ids, strlen(v.ids) + 1);
    xread(tk, "%s/vm", dom);
    (void)xtxn(tk, build_post_txn, &v, NULL);
    r = (unsigned int)snprintf(intro, sizeof(intro), "%u%c1044476%c1", id, '\0',
                               '\0');
    xdom(tk, XSD_INTRODUCE, intro, r + 1);
    /* the console (libxl_console.c), then xenconsoled */
    (void)xtxn(tk, device_add_txn, &v, &con);
    consoled_add(cd, &v, con.fe);
    /* the disk: add, the backend's probe, libxl's wait, the script */
    (void)xtxn(tk, device_add_txn, &v, &vbd);
    devstate_watch(tk, &vbd);
    blkback_probe(kb, &vbd);
    devstate_wait(tk, &vbd);
    xread(tk, "%s/script", vbd.be); /* libxl__hotplug_disk */
    block_add(hp, &vbd, id);
    xread(kb, "%s/physical-device", vbd.be); /* blkback backend_changed */
    xread(kb, "%s/mode", vbd.be);
    xread(kb, "%s/device-type", vbd.fe);
    /* the vif, likewise */
    (void)xtxn(tk, device_add_txn, &v, &vif);
    devstate_watch(tk, &vif);
    netback_probe(kb, &vif);
    devstate_wait(tk, &vif);
    xread(tk, "%s/script", vif.be);     /* libxl__hotplug_nic */
    xread(tk, "%s/type", vif.be);       /* libxl__nic_type */
    xread(tk, "%s/gatewaydev", vif.be); /* get_hotplug_env */
    xread(tk, "%s/type", vif.be);
    vif_online(hp, &vif, id);
    /* xl create: libxl_evenable_domain_death, _disk_eject (xl_vmcontrol.c) */
    xwatch(tk, "dd", "@releaseDomain");
    xread(tk, "%s/dev", vbd.lx);
    xwatch(tk, "de", "%s/eject", vbd.fe);
    xread(tk, "%s/eject", vbd.fe);
    /* the guest runs: its xenbus, then the frontends connect */
    guest_probe(g, dom, &vbd, &vif);
    fe_events = xsd_client_events(cl->fe_watch);
    xwatch(&gw, "fe", "%s/device", dom); /* fe_watch */
    guest_control(g, dom);
    vbd_connect(g, kb, &vbd);
    vif_connect(g, kb, &vif);
    /* the end of the boot: the per-VM watches go (see the top) */
    guest_fe_events(g, &gw, fe_events, dom);
    xunwatch(g, "be", "%s/state", vbd.be);
    xunwatch(g, "be", "%s/state", vif.be);
    xunwatch(g, "ctl", "%s/control/shutdown", dom);
    xunwatch(g, "ctl", "%s/control/sysrq", dom);
    xunwatch(g, "mem", "%s/memory/target", dom);
    xunwatch(kb, "be", "%s/physical-device", vbd.be);
    xunwatch(kb, "fe", "%s/state", vbd.fe);
    xunwatch(kb, "fe", "%s/state", vif.fe);
    xunwatch(cd, "con", "%s", con.fe);
    xunwatch(tk, "dd", "@releaseDomain");
    xunwatch(tk, "de", "%s/eject", vbd.fe);
    for ( r = 0; r < WL_XL_NR_ROLES; r++ )
        if ( o[r].rc )
            return o[r].rc;
    return gw.rc;
}

int wl_xl_destroy(struct wl_xl_client *cl, domid_t id)
{
    static const char *const kinds[] = {"vbd", "vif", "console", NULL};
    struct vm v;
    struct xo o;
    unsigned int k;

    xo_init(&o, cl, WL_XL_TOOLSTACK);
    vm_identity(&v, id);
    for ( k = 0; kinds[k]; k++ )
        xrm(&o, "/local/domain/0/backend/%s/%u", kinds[k], id);
    xrm(&o, "%s", v.vm);
    xrm(&o, "/libxl/%u", id);
    xrm(&o, "/local/domain/%u", id);
    /*
     * The domain's death reaches xenstored from Xen (VIRQ_DOM_EXC): for
     * the run's daemon hv_domain_destroy's hv_xs_domain_release; an
     * external one, which has no Xen to ask, is told by a RELEASE.
     */
    if ( cl->x->external ) /* EINVAL: never introduced (its boot failed) */
        (void)xreq(&o, XSD_RELEASE, v.ids, strlen(v.ids) + 1, -EINVAL);
    return o.rc;
}

/* ---- the run's daemon and watchers ---- */

static void *serve(void *arg)
{
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
        rc = xopen(x, &x->watcher[i]);
    if ( rc == 0 && (rc = xopen(x, &x->kernel)) == 0 &&
         (rc = xopen(x, &x->control)) == 0 && x->external )
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
            rc = xopen(x, &cl->conn[r]);
    if ( rc == 0 )
        rc = xopen(x, &cl->fe_watch);
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
