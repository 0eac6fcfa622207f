/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The xenstore traffic of one `xl create` of a PV guest with one disk
 * (phy, blkback) and one vif (bridge, netback), driven through hvbench
 * xenstored's server (xenstored/) on a Unix socket: the toolstack
 * (libxl), the hotplug scripts (one connection per xenstore-* command),
 * the dom0 kernel's backends (blkback, netback, xenbus), xenconsoled, and
 * the guest's frontends, each on connections of their own, with the
 * watches each holds and the events every write fires.  The profile, its
 * counts and their sources: wl_xl_create.c, wl_xl_drivers.c and
 * docs/xenstored.md.
 *
 *   struct wl_xl *x;              one per cell: the daemon and watchers
 *   wl_xl_open(c, xs, NULL, &x);  NULL: the run's own daemon
 *   wl_xl_client_open(x, &cl);    one per toolstack thread
 *   wl_xl_create(cl, cpu, 7);     VM 7's boot traffic
 *   wl_xl_destroy(cl, 7);         and its removal (xl destroy)
 */
#ifndef HVB_WL_XL_H
#define HVB_WL_XL_H

#include <stdbool.h>
#include <stdint.h>

#include <hv/types.h>
#include <hvb/workload.h>

struct hv_cpu;
struct hv_xs;
struct wl_xl;
struct wl_xl_client;

/* Who sends a request: the rows of the profile's table. */
enum wl_xl_role {
    WL_XL_TOOLSTACK, /* xl / libxl */
    WL_XL_HOTPLUG,   /* /etc/xen/scripts/block, vif-bridge */
    WL_XL_BACKEND,   /* dom0 kernel: xenbus, blkback, netback */
    WL_XL_CONSOLED,  /* xenconsoled */
    WL_XL_GUEST,     /* the guest's xenbus, blkfront, netfront */
    WL_XL_NR_ROLES
};

/*
 * What the daemon counted (CONTROL stats), and what each role sent.  With
 * an external daemon (wl_xl_open's @ext) requests, connections and events
 * are counted here, on the client side (client_side), quota_copies is 0,
 * and server_cpu_ns is its process's (/proc/PID/stat), if @ext->pid.
 */
struct wl_xl_stats {
    uint64_t requests, connections, events, events_dropped, quota_copies;
    uint64_t server_cpu_ns; /* the daemon's thread, CPU time so far */
    uint64_t role_requests[WL_XL_NR_ROLES];
    bool client_side, has_cpu;
};

/* An external xenstored: its socket, its pid (0: unknown). */
struct wl_xl_external {
    const char *socket;
    int pid;
};

/*
 * wl_xl_open - start the daemon on a socket of its own, serving @xs in a
 * thread (@ext NULL), or use the external one at @ext->socket (Debian's
 * oxenstored, say); then the watchers that hold watches for the whole run
 * (the dom0 kernel's "backend", xenconsoled's @introduceDomain /
 * @releaseDomain); make the host's directories (/vm, /libxl, dom0's name
 * and backends): in @xs before the daemon starts, or over the wire to an
 * external one.  0 or -errno with an error on @c.
 */
int wl_xl_open(struct hvb_cell *c, struct hv_xs *xs,
               const struct wl_xl_external *ext, struct wl_xl **out);
void wl_xl_close(struct wl_xl *x);

/* The connections of one toolstack thread.  0 or -errno. */
int wl_xl_client_open(struct wl_xl *x, struct wl_xl_client **out);
void wl_xl_client_close(struct wl_xl_client *cl);

/* VM @id's boot traffic, on @cpu (getinfolist's).  0 or -errno. */
int wl_xl_create(struct wl_xl_client *cl, struct hv_cpu *cpu, domid_t id);

/*
 * What xl destroy removes of VM @id (libxl__destroy_domid), and with an
 * external daemon the RELEASE that Xen's VIRQ_DOM_EXC would have caused
 * (its domain's death).  0 or -errno.
 */
int wl_xl_destroy(struct wl_xl_client *cl, domid_t id);

/* The daemon's counters now, and each role's requests so far. */
int wl_xl_stats(struct wl_xl *x, struct wl_xl_stats *st);

/*
 * wl_xl_counters - what the daemon counted for @vms VMs between the
 * snapshots @a and @b, as counters of @t: requests, watch events and
 * connections per VM, each role's requests per VM, the quota copies per
 * VM and the dropped events (counted client side: two counters that say
 * so in their place), and the daemon's CPU share of @wall ns.
 */
void wl_xl_counters(struct hvb_thread *t, const struct wl_xl_stats *a,
                    const struct wl_xl_stats *b, unsigned int vms,
                    uint64_t wall);

#endif /* HVB_WL_XL_H */
