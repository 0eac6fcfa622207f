/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the xl create profile (wl_xl.h), shared by its files:
 *
 *   wl_xl.c          the run's daemon and watchers, the toolstack
 *                    threads' connections, the counters
 *   wl_xl_req.c      one component's requests (struct xo): sticky
 *                    errors, transactions, the path requests below
 *   wl_xl_create.c   one xl create and xl destroy: libxl's steps, the
 *                    hotplug scripts, the order of the whole boot
 *   wl_xl_drivers.c  who answers the toolstack: the dom0 kernel's
 *                    backends, xenconsoled, the guest's frontends
 *
 * Connections: per toolstack thread one each for xl, the dom0 kernel's
 * backends, xenconsoled and the guest (whose frontends use its ring in
 * Xen: a socket here, so it is dom0 to the daemon); per hotplug command
 * one (each xenstore-read / -write / -list is a process); for the run two
 * watchers: the dom0 kernel's xenbus watch on "backend" and xenconsoled's
 * @introduceDomain / @releaseDomain, drained by a thread each.
 *
 * A component's requests read as libxl's and Linux's do, each sticky:
 *
 *   struct xo o;
 *   xo_init(&o, cl, WL_XL_TOOLSTACK);
 *   xo_ts(&o);                                    TRANSACTION_START
 *   xwrite(&o, "pv", "/libxl/%u/type", id);       WRITE path\0value
 *   xread(&o, "%s/vm", dom);                      READ (ENOENT is no error)
 *   rc = xo_te(&o);                               TRANSACTION_END "T"
 *
 * and after the first error every further request of @o is skipped.
 */
#ifndef HVB_WL_XL_PRIVATE_H
#define HVB_WL_XL_PRIVATE_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/types.h>
#include <xsd/client.h>
#include <xsd/wire.h>

#include "wl_xl.h"

#define WAIT_MS     10000 /* the longest wait for an event */
#define NR_WATCHERS 2

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

/* A VM: its domid, name, uuid and /vm path, the CPU of its toolstack. */
struct vm {
    domid_t id;
    char ids[8], name[32], uuid[40], vm[48];
    struct hv_cpu *cpu;
};

/* libxl__xs_writev(_perms): key/value pairs, ended by a NULL key. */
struct kv {
    const char *k, *v;
};

/* A device of the VM: its nodes below the frontend, backend and /libxl. */
struct dev {
    const char *kind; /* "vbd", "vif", "console" */
    unsigned int devid;
    char fe[64], be[80], lx[64];
    const struct kv *bents, *fents, *ro_fents;
    bool ro_fe; /* console 0: the frontend directory read-only */
};

/* ---- wl_xl_req.c ---- */

/* A connection to the daemon, counted (an external one's "connections"). */
int xl_connect(struct wl_xl *x, struct xsd_client **c);

/* @o: role @r's requests on @cl's connection of that role. */
void xo_init(struct xo *o, struct wl_xl_client *cl, enum wl_xl_role r);

/* One request; @ok: an error the caller expects (ENOENT of a read). */
int xo_req(struct xo *o, uint32_t type, const void *body, size_t len, int ok);

/* A request of path @fmt (and @val: WRITE's value, SET_PERMS' list). */
int xo_path(struct xo *o, uint32_t type, const char *val, int ok,
            const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#define xwrite(o, val, ...)   xo_path(o, XSD_WRITE, val, 0, __VA_ARGS__)
#define xperms(o, perms, ...) xo_path(o, XSD_SET_PERMS, perms, 0, __VA_ARGS__)
#define xread(o, ...)         xo_path(o, XSD_READ, NULL, -ENOENT, __VA_ARGS__)
#define xrm(o, ...)           xo_path(o, XSD_RM, NULL, -ENOENT, __VA_ARGS__)
#define xmkdir(o, ...)        xo_path(o, XSD_MKDIR, NULL, 0, __VA_ARGS__)
#define xdir(o, ...)          xo_path(o, XSD_DIRECTORY, NULL, -ENOENT, __VA_ARGS__)

/* WATCH / UNWATCH with the token @tok (the body is path\0token\0). */
#define xwatch(o, tok, ...)   xo_path(o, XSD_WATCH, tok, 0, __VA_ARGS__)
#define xunwatch(o, tok, ...) xo_path(o, XSD_UNWATCH, tok, 0, __VA_ARGS__)

/* libxl__xs_mknod: an empty node and its permissions. */
#define xmknod(o, perms, ...) \
    (xwrite(o, "", __VA_ARGS__), xperms(o, perms, __VA_ARGS__))

/* TRANSACTION_START; TRANSACTION_END(T): -EAGAIN is the caller's to retry. */
void xo_ts(struct xo *o);
int xo_te(struct xo *o);

/* A domain request of @nums ("7", "7\0 1\0 2" ...), @len bytes. */
void xo_dom(struct xo *o, uint32_t type, const char *nums, size_t len);

/* A transaction body, retried on EAGAIN as libxl's retry_transaction. */
typedef void (*xo_txn_fn)(struct xo *o, const struct vm *v, const void *arg);
int xo_txn(struct xo *o, xo_txn_fn body, const struct vm *v, const void *arg);

/* libxl__xs_writev(_perms): @kv below @dir (and each one's @perms). */
void xo_writev(struct xo *o, const char *dir, const struct kv *kv,
               const char *perms);

/* VM @id's name, uuid (hv_vmboot_identity) and /vm path. */
void xl_vm_identity(struct vm *v, domid_t id);

/* ---- wl_xl_drivers.c: each names its source ---- */

/* The dom0 kernel's backends: a new device's probe. */
void xl_blkback_probe(struct xo *o, const struct dev *d);
void xl_netback_probe(struct xo *o, const struct dev *d);
/* xenconsoled on @introduceDomain: the console at @cons. */
void xl_consoled_add(struct xo *o, const struct vm *v, const char *cons);
/* The guest @g at @dom: its xenbus probe, control and balloon watches. */
void xl_guest_probe(struct xo *g, const char *dom, const struct dev *vbd,
                    const struct dev *vif);
void xl_guest_control(struct xo *g, const char *dom);
/* A frontend (guest @g) and its backend (kernel @k) connect. */
void xl_vbd_connect(struct xo *g, struct xo *k, const struct dev *d);
void xl_vif_connect(struct xo *g, struct xo *k, const struct dev *d);
/* The guest's watch on "device", @w, goes: its events since @before. */
void xl_guest_fe_events(struct xo *g, struct xo *w, uint64_t before,
                        const char *dom);

#endif /* HVB_WL_XL_PRIVATE_H */
