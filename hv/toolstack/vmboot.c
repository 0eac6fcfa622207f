/* SPDX-License-Identifier: GPL-2.0-only */
/* One VM booted end to end, and taken down; see hv/vmboot.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/page_alloc.h>
#include <hv/topology.h>
#include <hv/trace.h>
#include <hv/virt_qemu.h>
#include <hv/virt_rpc.h>
#include <hv/vmboot.h>
#include <hv/xenstore.h>

const char *const hv_vmboot_phase_names[HV_VMBOOT_NR_PHASES] = {
    "define", "label", "create", "populate", "xenstore"};

/* The entries of one vif device: the frontend's, then the backend's. */
static const char *const vif_front[] = {"backend",       "backend-id",
                                        "state",         "handle",
                                        "mac",           "mtu",
                                        "tx-ring-ref",   "rx-ring-ref",
                                        "event-channel", "request-rx-copy"};
static const char *const vif_back[] = {
    "frontend", "frontend-id", "online", "state", "script",
    "mac",      "bridge",      "handle", "type",  "hotplug-status"};
/*
 * The guest's base entries below its home, parents first, so that each
 * write makes exactly one node (the guest's quota is their count).
 */
static const char *const base[] = {"name",
                                   "domid",
                                   "vm",
                                   "memory",
                                   "memory/target",
                                   "cpu",
                                   "cpu/0",
                                   "cpu/0/availability",
                                   "control",
                                   "control/shutdown",
                                   "console",
                                   "console/ring-ref",
                                   "device",
                                   "device/vif"};

#define VIF_NODES (HV_ARRAY_SIZE(vif_front) + HV_ARRAY_SIZE(vif_back))

int hv_vmboot_host_init(struct hv *hv)
{
    return hv_xs_simple(hv_xs(hv), HV_XS_MKDIR, 0, 0,
                        "/local/domain/0/backend/vif");
}

void hv_vmboot_identity(domid_t id, char *name, unsigned int len,
                        unsigned char *uuid)
{
    snprintf(name, len, "vm-%u", id);
    hv_virt_uuid(id, uuid);
}

/*
 * One RPC; *@ns (may be NULL) gets its client-side time, and the
 * timeline the interval as phase @phase (NULL: none) of VM @id.
 */
static int rpc(struct hv_rpc_client *conn, int (*fn)(void *),
               struct hv_virt_req *c, bool prio, uint64_t *ns,
               const char *phase, domid_t id)
{
    struct hv_rpc_call call = {.fn = fn, .arg = c, .prio = prio};
    int rc = hv_rpc_call(conn, &call);

    if ( ns )
        *ns = call.t_end - call.t_submit;
    if ( phase )
        hv_trace_span("boot", phase, "vm", id, call.t_submit, call.t_end);
    return rc;
}

/* Phase @p of VM @id, begun at @t, ends now. */
static void phase_end(struct hv_vmboot_result *res, enum hv_vmboot_phase p,
                      domid_t id, uint64_t t)
{
    uint64_t now = hv_now_ns();

    res->ns[p] = now - t;
    hv_trace_span("boot", hv_vmboot_phase_names[p], "vm", id, t, now);
}

/* populate_physmap: one domain lookup per hypercall, as Xen's. */
static int populate(struct hv_cpu *cpu, const struct hv_vmboot_config *cfg,
                    domid_t id, unsigned int *hypercalls)
{
    unsigned long left = cfg->mem_pages >> cfg->extent_order;
    struct hv_domain *d;
    int rc = 0;

    while ( left && rc == 0 )
    {
        struct hv_memop op = {
            .nr_extents = left < cfg->batch ? left : cfg->batch,
            .extent_order = cfg->extent_order,
        };

        do
        {
            d = hv_domain_lock_by_id(cpu, id);
            if ( d == NULL )
                return -ESRCH;
            rc = hv_increase_reservation(cpu, d, &op);
            hv_domain_unlock(cpu, d);
            hv_rcu_quiescent(cpu);
            ++*hypercalls;
        } while ( rc == -ERESTART );
        left -= op.nr_done;
    }
    return rc;
}

/* A dom0 write of "<dir>/<leaf>" in transaction @tid. */
static int xs_put(struct hv_xs *xs, uint32_t tid, const char *dir,
                  const char *leaf, const char *value)
{
    char path[128];

    snprintf(path, sizeof(path), "%s/%s", dir, leaf);
    return hv_xs_write(xs, 0, tid, path, value);
}

/*
 * One try of the transaction; *@written counts its writes, *@owned the
 * guest's nodes.  The guest's home is created by dom0 and given to the
 * guest (owner id; entry 0 is the owner), so every node below it is the
 * guest's and charged to its quota; the backend directories stay dom0's.
 */
static int xs_try(struct hv_xs *xs, const struct hv_vmboot_config *cfg,
                  domid_t id, unsigned int *written, unsigned int *owned)
{
    const struct hv_xs_perm home_perms[] = {{id, HV_XS_PERM_NONE},
                                            {0, HV_XS_PERM_READ}};
    char home[48], dir[96], val[24];
    unsigned int k, dev, n, mine;
    uint32_t tid;
    int rc;

    rc = hv_xs_txn_start(xs, 0, &tid);
    if ( rc )
        return rc;
    snprintf(home, sizeof(home), "/local/domain/%u", id);
    snprintf(val, sizeof(val), "%u", id);
    rc = hv_xs_write(xs, 0, tid, home, "");
    if ( rc == 0 )
        rc = hv_xs_set_perms(xs, 0, tid, home, home_perms, 2);
    n = mine = 1;
    for ( k = 0; rc == 0 && k < HV_ARRAY_SIZE(base); k++, n++, mine++ )
        rc = xs_put(xs, tid, home, base[k], val);
    for ( dev = 0; rc == 0 && n + VIF_NODES + 1 <= cfg->xs_nodes; dev++ )
    {
        snprintf(dir, sizeof(dir), "%s/device/vif/%u", home, dev);
        rc = hv_xs_write(xs, 0, tid, dir, "");
        n++, mine++;
        for ( k = 0; rc == 0 && k < HV_ARRAY_SIZE(vif_front); k++ )
            rc = xs_put(xs, tid, dir, vif_front[k], val);
        n += k, mine += k;
        snprintf(dir, sizeof(dir), "/local/domain/0/backend/vif/%u/%u", id,
                 dev);
        for ( k = 0; rc == 0 && k < HV_ARRAY_SIZE(vif_back); k++ )
            rc = xs_put(xs, tid, dir, vif_back[k], val);
        n += k;
    }
    if ( rc )
    {
        (void)hv_xs_txn_end(xs, 0, tid, false);
        return rc;
    }
    rc = hv_xs_txn_end(xs, 0, tid, true);
    *written = n;
    *owned = mine;
    return rc;
}

int hv_vmboot(struct hv_cpu *cpu, struct hv_rpc_client *conn,
              const struct hv_vmboot_config *cfg, domid_t id,
              struct hv_vmboot_result *res)
{
    struct hv *hv = cpu->hv;
    struct hv_xs *xs = hv_xs(hv);
    struct hv_virt_req c = {.v = cfg->virt};
    struct hv_domain *d;
    unsigned int vcpu, ref, tries;
    uint64_t t;
    int rc;

    memset(res, 0, sizeof(*res));
    if ( id == 0 || id >= DOMID_FIRST_RESERVED || cfg->virt == NULL ||
         cfg->batch == 0 || cfg->extent_order > HV_MAX_ORDER ||
         cfg->xs_nodes < HV_VMBOOT_XS_MIN || cfg->xs_nodes > HV_VMBOOT_XS_MAX )
        return -EINVAL;
    hv_vmboot_identity(id, c.name, sizeof(c.name), c.uuid);

    rc = rpc(conn, hv_virt_req_define, &c, false, &res->ns[HV_VMBOOT_DEFINE],
             hv_vmboot_phase_names[HV_VMBOOT_DEFINE], id);
    if ( rc )
        return rc;
    rc = rpc(conn, hv_virt_req_start, &c, false, &res->ns[HV_VMBOOT_LABEL],
             hv_vmboot_phase_names[HV_VMBOOT_LABEL], id);
    if ( rc )
        goto undefine;

    t = hv_now_ns();
    res->node = (cfg->first_node + id) % hv_topology(hv)->nr_nodes;
    vcpu = hv_node_nearest_cpu(hv, res->node);
    rc = hv_domain_create(hv, id, cfg->nr_grants, &d);
    if ( rc )
        goto stop;
    rc = hv_domain_set_vcpus(d, &vcpu, 1);
    /* The domctls that follow (max_vcpus, unpause) look it up. */
    if ( rc == 0 && (d = hv_domain_lock_by_id(cpu, id)) == NULL )
        rc = -ESRCH;
    else if ( rc == 0 )
        hv_domain_unlock(cpu, d);
    hv_rcu_quiescent(cpu);
    phase_end(res, HV_VMBOOT_CREATE, id, t);
    if ( rc )
        goto destroy;

    t = hv_now_ns();
    rc = populate(cpu, cfg, id, &res->hypercalls);
    phase_end(res, HV_VMBOOT_POPULATE, id, t);
    if ( rc )
        goto destroy;

    t = hv_now_ns();
    for ( ref = 0; rc == 0 && ref < cfg->nr_grants; ref++ )
        rc = hv_gnttab_grant_access(cpu, id, ref, 0, ref, false);
    hv_rcu_quiescent(cpu);
    if ( rc == 0 && cfg->xs_boot )
        rc = cfg->xs_boot(cfg->xs_arg, cpu, id);
    for ( tries = 0; rc == 0 && !cfg->xs_boot; tries++ )
    {
        uint64_t t_txn = hv_trace_active() ? hv_now_ns() : 0;

        rc = xs_try(xs, cfg, id, &res->xs_written, &res->xs_owned);
        hv_trace_span("xenstore", "transaction", "vm", id, t_txn, hv_now_ns());
        if ( rc != -EAGAIN || tries + 1 >= cfg->xs_max_retries )
            break;
        res->xs_retries++;
        rc = 0;
    }
    phase_end(res, HV_VMBOOT_XENSTORE, id, t);
    if ( rc == 0 )
        return 0;
destroy:
    (void)!hv_domain_destroy(hv, id); /* ours: it cannot fail */
stop:
    (void)rpc(conn, hv_virt_req_stop, &c, true, NULL, NULL, id);
undefine:
    (void)rpc(conn, hv_virt_req_undefine, &c, true, NULL, NULL, id);
    return rc;
}

int hv_vmboot_teardown(struct hv_cpu *cpu, struct hv_rpc_client *conn,
                       const struct hv_vmboot_config *cfg, domid_t id)
{
    struct hv_virt_req c = {.v = cfg->virt};
    char path[64];
    int rc, rc2;

    hv_vmboot_identity(id, c.name, sizeof(c.name), c.uuid);
    rc = cfg->xs_teardown ? cfg->xs_teardown(cfg->xs_arg, cpu, id) : 0;
    snprintf(path, sizeof(path), "/local/domain/0/backend/vif/%u", id);
    rc2 = hv_xs_simple(hv_xs(cpu->hv), HV_XS_RM, 0, 0, path);
    rc = rc ? rc : rc2;
    rc2 = rpc(conn, hv_virt_req_stop, &c, true, NULL, "stop", id);
    rc = rc ? rc : rc2;
    rc2 = rpc(conn, hv_virt_req_undefine, &c, true, NULL, "undefine", id);
    rc = rc ? rc : rc2;
    rc2 = hv_domain_destroy(cpu->hv, id);
    return rc ? rc : rc2;
}
