/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One `xl create` on the xenstore wire (wl_xl.h): PV guest N, uuid U,
 * one vCPU, kernel + ramdisk + cmdline, disk phy xvda (devid 51712), vif
 * 0 on a bridge, console 0 served by xenconsoled; and its xl destroy.  The order is libxl's
 * (xen.git tools/libs/light): libxl__domain_make, libxl__build_post, the
 * console, the disk, the nic, xl's event registrations, then the guest's
 * frontends once it runs.  Each step below names its source.  Where a
 * component reacts to a watch event, the VM's toolstack thread sends its
 * requests in causal order on that component's connection; libxl's wait
 * for a backend's state is a real wait for the event (xsd_client_wait_event).
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
 *
 * The toolstack's steps and the hotplug scripts are here; the backends,
 * xenconsoled and the guest that answer them are in wl_xl_drivers.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/xenctrl.h>

#include "wl_xl_private.h"

#define VBD_DEVID 51712 /* xvda: (202 << 8) | (0 << 4) */

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
    xo_dom(o, XSD_GET_DOMAIN_PATH, v->ids, strlen(v->ids) + 1);
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
    xo_writev(o, dom, ents, NULL);
    xo_writev(o, vm, vments, NULL);
}

/* ---- libxl__device_generic_add (libxl_device.c) ---- */

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
        xo_writev(o, d->fe, d->fents, fe_perms);
    if ( d->ro_fents )
        xo_writev(o, d->fe, d->ro_fents, ro_perms);
    xrm(o, "%s", d->be);
    xmkdir(o, "%s", d->be);
    xperms(o, ro_perms, "%s", d->be);
    xwrite(o, d->fe, "%s/frontend", d->be);
    xo_writev(o, d->be, d->bents, NULL);
    xo_writev(o, d->lx, d->bents, NULL);
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

    if ( h->rc == 0 && (rc = xl_connect(h->x, &h->c)) != 0 )
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
    xo_ts(h);
    xdir(h, "%s", vbd);
    memcpy(doms, h->buf, h->len + 1);
    nd = h->len;
    (void)xo_te(h);
    cmd_close(h);
    for ( i = 0; i < nd && h->rc == 0; i += strlen(doms + i) + 1 )
    {
        cmd_open(h);
        xo_ts(h);
        xdir(h, "%s/%s", vbd, doms + i);
        memcpy(devs, h->buf, h->len + 1);
        nv = h->len;
        (void)xo_te(h);
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

/* ---- one xl create ---- */

/* A table into its place in struct devs, which must be its size. */
#define KV_SET(dst, src)                                            \
    do                                                              \
    {                                                               \
        _Static_assert(sizeof(dst) == sizeof(src), #dst "'s size"); \
        memcpy(dst, src, sizeof(src));                              \
    } while ( 0 )

/* The VM's console, disk and vif, with the values libxl writes. */
struct devs {
    struct dev con, vbd, vif;
    char params[32], mac[24];
    struct kv con_bents[5], con_ro[7], vbd_bents[14], vif_bents[11],
        vif_fents[6];
};

static void devs_init(struct devs *s, const struct vm *v)
{
    static const struct kv con_fents[] = {{"backend-id", "0"}, {NULL, NULL}};
    static const struct kv vbd_fents[] = {
        {"backend-id", "0"},     {"state", "1"},   {"virtual-device", "51712"},
        {"device-type", "disk"}, {"trusted", "1"}, {NULL, NULL}};
    static const struct kv vif_ro[] = {{"mtu", "1500"}, {NULL, NULL}};
    const struct kv con_bents[] = {{"frontend-id", v->ids},
                                   {"online", "1"},
                                   {"state", "1"},
                                   {"protocol", "vt100"},
                                   {NULL, NULL}};
    const struct kv con_ro[] = {{"limit", "1048576"}, {"type", "xenconsoled"},
                                {"output", "pty"},    {"tty", ""},
                                {"port", "2"},        {"ring-ref", "1044475"},
                                {NULL, NULL}};
    const struct kv vbd_bents[] = {
        {"params", s->params},    {"script", "/etc/xen/scripts/block"},
        {"frontend-id", v->ids},  {"online", "1"},
        {"removable", "0"},       {"bootable", "1"},
        {"state", "1"},           {"dev", "xvda"},
        {"type", "phy"},          {"mode", "w"},
        {"device-type", "disk"},  {"discard-enable", "1"},
        {"specification", "xen"}, {NULL, NULL}};
    const struct kv vif_bents[] = {{"frontend-id", v->ids},
                                   {"online", "1"},
                                   {"state", "1"},
                                   {"script", "/etc/xen/scripts/vif-bridge"},
                                   {"mac", s->mac},
                                   {"mtu", "1500"},
                                   {"bridge", "xenbr0"},
                                   {"handle", "0"},
                                   {"type", "vif"},
                                   {"hotplug-status", ""},
                                   {NULL, NULL}};
    const struct kv vif_fents[] = {{"backend-id", "0"}, {"state", "1"},
                                   {"handle", "0"},     {"mac", s->mac},
                                   {"trusted", "1"},    {NULL, NULL}};
    domid_t id = v->id;

    snprintf(s->params, sizeof(s->params), "/dev/vg/vm-%u", id);
    snprintf(s->mac, sizeof(s->mac), "00:16:3e:%02x:%02x:%02x",
             (id >> 16) & 0xff, (id >> 8) & 0xff, id & 0xff);
    KV_SET(s->con_bents, con_bents);
    KV_SET(s->con_ro, con_ro);
    KV_SET(s->vbd_bents, vbd_bents);
    KV_SET(s->vif_bents, vif_bents);
    KV_SET(s->vif_fents, vif_fents);
    s->con = (struct dev){.kind = "console",
                          .bents = s->con_bents,
                          .fents = con_fents,
                          .ro_fents = s->con_ro,
                          .ro_fe = true};
    s->vbd = (struct dev){.kind = "vbd",
                          .devid = VBD_DEVID,
                          .bents = s->vbd_bents,
                          .fents = vbd_fents};
    s->vif = (struct dev){.kind = "vif",
                          .bents = s->vif_bents,
                          .fents = s->vif_fents,
                          .ro_fents = vif_ro};
    dev_paths(&s->con, id);
    dev_paths(&s->vbd, id);
    dev_paths(&s->vif, id);
}

/* One xl create: the VM, its devices, each role's requests. */
struct boot {
    struct vm v;
    char dom[32]; /* /local/domain/ID */
    struct devs d;
    struct xo o[WL_XL_NR_ROLES];
    struct xo gw;       /* the guest's frontend watch, its own connection */
    uint64_t fe_events; /* gw's events before its WATCH */
};

static void boot_init(struct boot *b, struct wl_xl_client *cl,
                      struct hv_cpu *cpu, domid_t id)
{
    unsigned int r;

    for ( r = 0; r < WL_XL_NR_ROLES; r++ )
        xo_init(&b->o[r], cl, r);
    xo_init(&b->gw, cl, WL_XL_GUEST);
    b->gw.c = cl->fe_watch;
    b->v = (struct vm){.id = id, .cpu = cpu};
    xl_vm_identity(&b->v, id);
    snprintf(b->dom, sizeof(b->dom), "/local/domain/%u", id);
    devs_init(&b->d, &b->v);
}

/* libxl__domain_make, libxl__build_post, then xs_introduce_domain. */
static void domain_build(struct xo *tk, const struct vm *v, const char *dom)
{
    char intro[40];
    int n;

    xo_dom(tk, XSD_GET_DOMAIN_PATH, v->ids, strlen(v->ids) + 1);
    (void)xo_txn(tk, domain_make_txn, v, NULL);
    xo_dom(tk, XSD_GET_DOMAIN_PATH, v->ids, strlen(v->ids) + 1);
    xread(tk, "%s/vm", dom);
    (void)xo_txn(tk, build_post_txn, v, NULL);
    n = snprintf(intro, sizeof(intro), "%u%c1044476%c1", v->id, '\0', '\0');
    xo_dom(tk, XSD_INTRODUCE, intro, (size_t)n + 1);
}

/* The disk: add, the backend's probe, libxl's wait, the script. */
static void disk_add(struct boot *b)
{
    struct xo *tk = &b->o[WL_XL_TOOLSTACK], *kb = &b->o[WL_XL_BACKEND];
    const struct dev *vbd = &b->d.vbd;

    (void)xo_txn(tk, device_add_txn, &b->v, vbd);
    devstate_watch(tk, vbd);
    xl_blkback_probe(kb, vbd);
    devstate_wait(tk, vbd);
    xread(tk, "%s/script", vbd->be); /* libxl__hotplug_disk */
    block_add(&b->o[WL_XL_HOTPLUG], vbd, b->v.id);
    xread(kb, "%s/physical-device", vbd->be); /* blkback backend_changed */
    xread(kb, "%s/mode", vbd->be);
    xread(kb, "%s/device-type", vbd->fe);
}

/* The vif, likewise. */
static void vif_add(struct boot *b)
{
    struct xo *tk = &b->o[WL_XL_TOOLSTACK];
    const struct dev *vif = &b->d.vif;

    (void)xo_txn(tk, device_add_txn, &b->v, vif);
    devstate_watch(tk, vif);
    xl_netback_probe(&b->o[WL_XL_BACKEND], vif);
    devstate_wait(tk, vif);
    xread(tk, "%s/script", vif->be);     /* libxl__hotplug_nic */
    xread(tk, "%s/type", vif->be);       /* libxl__nic_type */
    xread(tk, "%s/gatewaydev", vif->be); /* get_hotplug_env */
    xread(tk, "%s/type", vif->be);
    vif_online(&b->o[WL_XL_HOTPLUG], vif, b->v.id);
}

/* The guest runs: its xenbus, then the frontends connect. */
static void guest_boot(struct boot *b)
{
    struct xo *g = &b->o[WL_XL_GUEST], *kb = &b->o[WL_XL_BACKEND];

    xl_guest_probe(g, b->dom, &b->d.vbd, &b->d.vif);
    b->fe_events = xsd_client_events(b->gw.c);
    xwatch(&b->gw, "fe", "%s/device", b->dom); /* fe_watch */
    xl_guest_control(g, b->dom);
    xl_vbd_connect(g, kb, &b->d.vbd);
    xl_vif_connect(g, kb, &b->d.vif);
}

/* The end of the boot: the per-VM watches go (see the top). */
static void boot_end(struct boot *b)
{
    struct xo *tk = &b->o[WL_XL_TOOLSTACK], *kb = &b->o[WL_XL_BACKEND],
              *g = &b->o[WL_XL_GUEST];
    const struct devs *d = &b->d;

    xl_guest_fe_events(g, &b->gw, b->fe_events, b->dom);
    xunwatch(g, "be", "%s/state", d->vbd.be);
    xunwatch(g, "be", "%s/state", d->vif.be);
    xunwatch(g, "ctl", "%s/control/shutdown", b->dom);
    xunwatch(g, "ctl", "%s/control/sysrq", b->dom);
    xunwatch(g, "mem", "%s/memory/target", b->dom);
    xunwatch(kb, "be", "%s/physical-device", d->vbd.be);
    xunwatch(kb, "fe", "%s/state", d->vbd.fe);
    xunwatch(kb, "fe", "%s/state", d->vif.fe);
    xunwatch(&b->o[WL_XL_CONSOLED], "con", "%s", d->con.fe);
    xunwatch(tk, "dd", "@releaseDomain");
    xunwatch(tk, "de", "%s/eject", d->vbd.fe);
}

int wl_xl_create(struct wl_xl_client *cl, struct hv_cpu *cpu, domid_t id)
{
    struct boot b;
    struct xo *tk = &b.o[WL_XL_TOOLSTACK];
    unsigned int r;

    boot_init(&b, cl, cpu, id);
    domain_build(tk, &b.v, b.dom);
    /* the console (libxl_console.c), then xenconsoled */
    (void)xo_txn(tk, device_add_txn, &b.v, &b.d.con);
    xl_consoled_add(&b.o[WL_XL_CONSOLED], &b.v, b.d.con.fe);
    disk_add(&b);
    vif_add(&b);
    /* xl create: libxl_evenable_domain_death, _disk_eject (xl_vmcontrol.c) */
    xwatch(tk, "dd", "@releaseDomain");
    xread(tk, "%s/dev", b.d.vbd.lx);
    xwatch(tk, "de", "%s/eject", b.d.vbd.fe);
    xread(tk, "%s/eject", b.d.vbd.fe);
    guest_boot(&b);
    boot_end(&b);
    for ( r = 0; r < WL_XL_NR_ROLES; r++ )
        if ( b.o[r].rc )
            return b.o[r].rc;
    return b.gw.rc;
}

int wl_xl_destroy(struct wl_xl_client *cl, domid_t id)
{
    static const char *const kinds[] = {"vbd", "vif", "console", NULL};
    struct vm v;
    struct xo o;
    unsigned int k;

    xo_init(&o, cl, WL_XL_TOOLSTACK);
    xl_vm_identity(&v, id);
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
        (void)xo_req(&o, XSD_RELEASE, v.ids, strlen(v.ids) + 1, -EINVAL);
    return o.rc;
}
