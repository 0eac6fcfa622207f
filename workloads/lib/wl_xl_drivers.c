/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who answers the toolstack in one xl create (wl_xl_create.c calls them
 * in its order): the dom0 kernel's backends probing a new device,
 * xenconsoled taking the console, and the guest's frontends once it runs,
 * each on its own connection.  A step that follows a watch event sends
 * what the component sends on that event; each names its source in Linux
 * (drivers/xen) or Xen (tools/console).
 *
 * E.g. the disk: blkback's probe (xl_blkback_probe) reads the backend's
 * state and the frontend's id, watches physical-device and the frontend's
 * state and switches to InitWait (2) in a transaction of its own; once the
 * guest runs, blkfront writes its ring and switches to Initialised (3),
 * blkback reads the ring and goes Connected (4), blkfront follows
 * (xl_vbd_connect).
 */
#include <stdio.h>
#include <string.h>

#include "wl_xl_private.h"

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
    xo_ts(o);
    xread(o, "%s/state", node);
    xwrite(o, state, "%s/state", node);
    (void)xo_te(o);
    o->tx = tx;
}

/* xen_blkbk_probe (xen-blkback/xenbus.c) */
void xl_blkback_probe(struct xo *o, const struct dev *d)
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
void xl_netback_probe(struct xo *o, const struct dev *d)
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
    xo_ts(o);
    xo_writev(o, d->be, features, NULL);
    (void)xo_te(o);
    xwrite(o, "1", "%s/feature-split-event-channels", d->be);
    xwrite(o, "4", "%s/multi-queue-max-queues", d->be);
    xwrite(o, "1", "%s/feature-ctrl-ring", d->be);
    switch_state(o, d->be, "2");
    xread(o, "%s/script", d->be);
    xread(o, "%s/handle", d->be);
    xwatch(o, "fe", "%s/state", d->fe);
    xread(o, "%s/state", d->fe);
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
void xl_consoled_add(struct xo *o, const struct vm *v, const char *cons)
{
    xo_dom(o, XSD_GET_DOMAIN_PATH, v->ids, strlen(v->ids) + 1);
    xwatch(o, "con", "%s", cons);
    console_ring(o, cons); /* the registration's event */
    xread(o, "%s/tty", cons);
    xwrite(o, "/dev/pts/1", "%s/tty", cons);
    console_ring(o, cons); /* the event of its own write */
}

/* ---- the guest (Linux drivers/xen/xenbus/xenbus_probe_frontend.c,
 * manage.c, xen-balloon.c, xen-blkfront.c, xen-netfront.c) ---- */

/* xenbus_probe_devices(frontend): the device classes and devices. */
void xl_guest_probe(struct xo *g, const char *dom, const struct dev *vbd,
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
void xl_guest_control(struct xo *g, const char *dom)
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
        xo_ts(g); /* shutdown_handler / sysrq_handler on its first event */
        xread(g, "%s/%s", ctl, nodes[i]);
        (void)xo_te(g);
    }
    xo_writev(g, ctl, features, NULL);
    xwatch(g, "mem", "%s/memory/target", dom);
    xread(g, "%s/memory/target", dom);
}

/* talk_to_blkback, then blkback's connect_ring and connect, blkfront's */
void xl_vbd_connect(struct xo *g, struct xo *k, const struct dev *d)
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
    xo_ts(g);
    xo_writev(g, d->fe, fe_keys, NULL);
    (void)xo_te(g);
    switch_state(g, d->fe, "3");
    xread(k, "%s/state", d->fe); /* otherend_changed: Initialised */
    for ( i = 0; ring[i]; i++ )
        xread(k, "%s/%s", d->fe, ring[i]);
    xo_ts(k);
    xread(k, "%s/discard-enable", d->be);
    xo_writev(k, d->be, be_keys, NULL);
    (void)xo_te(k);
    switch_state(k, d->be, "4");
    xread(g, "%s/state", d->be); /* Connected */
    for ( i = 0; fe_reads[i]; i++ )
        xread(g, "%s/%s", d->be, fe_reads[i]);
    switch_state(g, d->fe, "4");
    xread(k, "%s/state", d->fe);
}

/* talk_to_netback, xennet_connect; netback's connect, hotplug-status */
void xl_vif_connect(struct xo *g, struct xo *k, const struct dev *d)
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
    xo_ts(g);
    xo_writev(g, d->fe, fe_keys, NULL);
    (void)xo_te(g);
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

/* The guest's xenbus: per event on its "device" watch, xenbus_exists. */
void xl_guest_fe_events(struct xo *g, struct xo *w, uint64_t before,
                        const char *dom)
{
    uint64_t n;

    xunwatch(w, "fe", "%s/device", dom);
    /* The events came before UNWATCH's reply, on the watch's connection */
    n = xsd_client_events(w->c) - before;
    while ( n-- > 1 ) /* the registration's event: char_count < 2 */
        xdir(g, "%s/device", dom);
}
