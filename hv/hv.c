/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine: create and destroy a model instance, bring threads on and
 * off line as model CPUs, and the accessors plugins and the harness use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

const char *const hv_perfc_names[HV_PERFC_NR] = {
#define HV_PERFC(name, descr) #name,
#include <hv/perfc-defn.h>
#undef HV_PERFC
};

void hv_config_init(struct hv_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->nr_cpus = 64;
    cfg->maptrack_entries = 4096;
    hv_xs_config_init(&cfg->xs);
    cfg->mem_bytes = 256ull << 20;
}

/* Iterations of a dependent multiply chain per microsecond. */
static uint64_t calibrate_spin(void)
{
    uint64_t best = UINT64_MAX, iters = 1u << 16, x = 1;
    int round;

    for ( round = 0; round < 5; round++ )
    {
        uint64_t t0 = hv_now_ns(), i, dt;

        for ( i = 0; i < iters; i++ )
        {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            hv_do_not_optimize(x);
        }
        dt = hv_now_ns() - t0;
        if ( dt && dt < best )
            best = dt;
    }
    return best == UINT64_MAX ? 1000 : iters * 1000 / best;
}

void hv_spin_calibrate(struct hv *hv)
{
    if ( atomic_load_explicit(&hv->spin_iters_per_us, memory_order_relaxed) )
        return;
    /* Racing callers both calibrate; either result will do. */
    atomic_store_explicit(&hv->spin_iters_per_us, calibrate_spin(),
                          memory_order_relaxed);
}

void hv_spin_ns(const struct hv *hv, unsigned int ns)
{
    uint64_t rate, n, i, x = ns;

    if ( ns == 0 )
        return;
    rate = atomic_load_explicit(&hv->spin_iters_per_us, memory_order_relaxed);
    if ( unlikely(rate == 0) )
    {
        /* First modelled cost of this machine: calibrate now. */
        hv_spin_calibrate((struct hv *)hv);
        rate =
            atomic_load_explicit(&hv->spin_iters_per_us, memory_order_relaxed);
    }
    n = rate * ns / 1000;
    for ( i = 0; i < n; i++ )
    {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        hv_do_not_optimize(x);
    }
}

static void maptrack_init(struct hv_cpu *c)
{
    uint32_t i, n = c->hv->cfg.maptrack_entries;

    for ( i = 0; i < n; i++ )
    {
        c->maptrack[i].in_use = false;
        c->maptrack[i].next_free = i + 1 < n ? i + 1 : UINT32_MAX;
    }
    c->maptrack_free = n ? 0 : UINT32_MAX;
}

/* Copy each slot's plugin, resolving the default where none is named. */
static int resolve_plugins(struct hv *hv, const struct hv_config *cfg,
                           char *err, size_t len)
{
    const struct hv_slot *slot;
    unsigned int i;
    int rc;

    for ( i = 0; (slot = hv_slot_at(i)) != NULL; i++ )
    {
        const struct hv_plugin_inst *sel = &cfg->plugins[slot->id];

        if ( sel->hdr == NULL )
            rc = hv_plugin_resolve(slot->name, slot->default_plugin, false,
                                   &hv->cfg.plugins[slot->id], err, len);
        else if ( strcmp(sel->hdr->slot, slot->name) != 0 )
        {
            snprintf(err, len, "plugin %s/%s given for slot %s", sel->hdr->slot,
                     sel->hdr->name, slot->name);
            rc = -EINVAL;
        }
        else if ( (rc = hv_plugin_inst_copy(&hv->cfg.plugins[slot->id], sel)) !=
                  0 )
            snprintf(err, len, "out of memory creating the model");
        if ( rc )
            return rc;
    }
    return 0;
}

static void free_plugins(struct hv *hv)
{
    unsigned int i;

    for ( i = 0; i < HV_SLOT_NR; i++ )
        hv_plugin_inst_free(&hv->cfg.plugins[i]);
}

/* Steps of hv_create() done so far; teardown undoes exactly these. */
enum {
    INIT_plugins = 1u << 0,
    INIT_heap = 1u << 1,
    INIT_cpus = 1u << 2,
    INIT_rcu = 1u << 3,
    INIT_domlookup = 1u << 4,
    INIT_pgalloc = 1u << 5,
    INIT_xs = 1u << 6,
    INIT_hypercall = 1u << 7,
};

static void hv_teardown(struct hv *hv, unsigned int init_status)
{
    unsigned int i;

    if ( init_status & INIT_hypercall )
        hv_hypercall_fini(hv);
    if ( init_status & INIT_xs )
    {
        hv_xs_destroy(hv->xs);
        hv->xs = NULL; /* domains destroyed below release nothing */
    }
    if ( init_status & INIT_domlookup )
    {
        hv_domtab_destroy_all(hv);
        hv_rcu_barrier(hv);
        if ( hv->domlookup->fini )
            hv->domlookup->fini(hv, hv->domlookup_priv);
    }
    /* Plugins' own deferred frees may have queued model callbacks. */
    if ( init_status & INIT_rcu )
        hv_rcu_fini(hv);
    if ( init_status & INIT_domlookup )
        HV_BUG_ON(atomic_load(&hv->stats.domains_created) !=
                  atomic_load(&hv->stats.domains_freed));
    if ( init_status & INIT_pgalloc && hv->pgalloc->fini )
        hv->pgalloc->fini(hv, hv->pgalloc_priv);
    if ( hv->cpus )
        for ( i = 0; i < hv->cfg.nr_cpus; i++ )
            free(hv->cpus[i].maptrack);
    free(hv->cpus);
    if ( init_status & INIT_heap )
        hv_heap_fini(hv);
    free_plugins(hv);
    free(hv);
}

static int check_config(const struct hv_config *cfg, char *err, size_t len)
{
    if ( cfg->nr_cpus == 0 || cfg->nr_cpus > HV_MAX_CPUS )
    {
        snprintf(err, len, "nr_cpus must be in [1, %u]", HV_MAX_CPUS);
        return -EINVAL;
    }
    if ( cfg->maptrack_entries == 0 || cfg->maptrack_entries > (1u << 24) )
    {
        snprintf(err, len, "maptrack_entries must be in [1, 2^24]");
        return -EINVAL;
    }
    return 0;
}

/* The machine, zeroed, with its copy of @cfg (no plugins yet); or NULL. */
static struct hv *machine_alloc(const struct hv_config *cfg)
{
    struct hv *hv = aligned_alloc(
        HV_CACHELINE, (sizeof(*hv) + HV_CACHELINE - 1) & ~(HV_CACHELINE - 1));

    if ( hv == NULL )
        return NULL;
    memset(hv, 0, sizeof(*hv));
    hv->cfg = *cfg;
    memset(hv->cfg.plugins, 0, sizeof(hv->cfg.plugins));
    /* The strings need not outlive hv_create(). */
    hv->cfg.topology = hv->cfg.distance = NULL;
    return hv;
}

/* The model CPUs, each with its maptrack.  0 or -ENOMEM. */
static int cpus_init(struct hv *hv)
{
    unsigned int i, n = hv->cfg.nr_cpus;

    hv->cpus = aligned_alloc(HV_CACHELINE, sizeof(*hv->cpus) * n);
    if ( hv->cpus == NULL )
        return -ENOMEM;
    memset(hv->cpus, 0, sizeof(*hv->cpus) * n);
    for ( i = 0; i < n; i++ )
    {
        struct hv_cpu *c = &hv->cpus[i];

        c->hv = hv;
        c->id = i;
        c->current_domain = 0;
        c->maptrack = calloc(hv->cfg.maptrack_entries, sizeof(*c->maptrack));
        if ( c->maptrack == NULL )
            return -ENOMEM;
        maptrack_init(c);
    }
    return 0;
}

/*
 * The domain table, then the domlookup and pgalloc strategies' init
 * hooks; *@done gets the INIT_ bit of each that succeeded.
 */
static int strategies_init(struct hv *hv, unsigned int *done, char *err,
                           size_t len)
{
    int rc;

    hv_domtab_init(hv);
    if ( hv->domlookup->init &&
         (rc = hv->domlookup->init(hv, hv->cfg.plugins[HV_SLOT_DOMLOOKUP].opts,
                                   &hv->domlookup_priv)) != 0 )
    {
        snprintf(err, len, "domlookup/%s: init failed: %s",
                 hv->domlookup->hdr.name, strerror(-rc));
        return rc;
    }
    *done |= INIT_domlookup;

    if ( hv->pgalloc->init &&
         (rc = hv->pgalloc->init(hv, hv->cfg.plugins[HV_SLOT_PGALLOC].opts,
                                 &hv->pgalloc_priv)) != 0 )
    {
        snprintf(err, len, "pgalloc/%s: init failed: %s", hv->pgalloc->hdr.name,
                 strerror(-rc));
        return rc;
    }
    *done |= INIT_pgalloc;
    return 0;
}

/* The store, with the quota slot's strategy. */
static int xenstore_init(struct hv *hv, const struct hv_config *cfg, char *err,
                         size_t len)
{
    int rc = hv_xs_create(
        &cfg->xs,
        (const struct hv_quota_ops *)hv->cfg.plugins[HV_SLOT_QUOTA].hdr,
        hv->cfg.plugins[HV_SLOT_QUOTA].opts, &hv->xs);

    if ( rc )
        snprintf(err, len, "xenstore: %s", strerror(-rc));
    return rc;
}

/*
 * Worked example, a machine of 4 CPUs with the default plugins: the
 * config checked, the machine allocated, every slot's plugin resolved
 * (INIT_plugins), the heap laid over the topology (INIT_heap), 4 CPUs
 * (INIT_cpus), RCU, the domain table and the strategies, the store, the
 * hypercall boundary.  A step that fails undoes exactly the steps done
 * (hv_teardown() of init_status).
 */
int hv_create(const struct hv_config *cfg, struct hv **out, char *err,
              size_t len)
{
    unsigned int init_status = 0;
    struct hv *hv;
    int rc;

    *out = NULL;
    rc = check_config(cfg, err, len);
    if ( rc )
        return rc;
    hv = machine_alloc(cfg);
    if ( hv == NULL )
    {
        snprintf(err, len, "out of memory creating the model");
        return -ENOMEM;
    }

    rc = resolve_plugins(hv, cfg, err, len);
    if ( rc )
        goto fail;
    init_status |= INIT_plugins;
    hv->domlookup =
        (const struct hv_domlookup_ops *)hv->cfg.plugins[HV_SLOT_DOMLOOKUP].hdr;
    hv->pgalloc =
        (const struct hv_pgalloc_ops *)hv->cfg.plugins[HV_SLOT_PGALLOC].hdr;
    if ( cfg->gnttab_map_cost_ns )
        hv_spin_calibrate(hv);

    rc = hv_topology_parse(&hv->topo, cfg->topology, cfg->distance,
                           cfg->mem_bytes, cfg->nr_cpus, err, len);
    if ( rc )
        goto fail;
    rc = hv_heap_init(hv, err, len);
    if ( rc )
        goto fail;
    init_status |= INIT_heap;

    rc = cpus_init(hv);
    if ( rc )
        goto fail_nomem;
    init_status |= INIT_cpus;
    rc = -ENOMEM;
    if ( hv_rcu_init(hv) )
        goto fail_nomem;
    init_status |= INIT_rcu;

    rc = strategies_init(hv, &init_status, err, len);
    if ( rc )
        goto fail;
    rc = xenstore_init(hv, cfg, err, len);
    if ( rc )
        goto fail;
    init_status |= INIT_xs;

    hv_sysctl_init(hv);
    rc = hv_hypercall_init(hv, err, len);
    if ( rc )
        goto fail;
    init_status |= INIT_hypercall;

    *out = hv;
    return 0;

fail_nomem:
    snprintf(err, len, "out of memory creating the model");
fail:
    hv_teardown(hv, init_status);
    return rc;
}

void hv_destroy(struct hv *hv)
{
    unsigned int i;

    if ( hv == NULL )
        return;
    for ( i = 0; i < hv->cfg.nr_cpus; i++ )
        HV_BUG_ON(atomic_load(&hv->cpus[i].online));
    hv_teardown(hv, ~0u);
}

struct hv_cpu *hv_cpu_enter(struct hv *hv, unsigned int id)
{
    struct hv_cpu *c;
    bool was = false;

    if ( id >= hv->cfg.nr_cpus )
    {
        errno = EINVAL;
        return NULL;
    }
    c = &hv->cpus[id];
    if ( !atomic_compare_exchange_strong(&c->online, &was, true) )
    {
        errno = EBUSY;
        return NULL;
    }
    hv_rcu_cpu_online(c);
    if ( hv->domlookup->cpu_online &&
         hv->domlookup->cpu_online(c, hv->domlookup_priv) )
    {
        hv_rcu_cpu_offline(c);
        atomic_store(&c->online, false);
        errno = EIO;
        return NULL;
    }
    if ( hv_hypercall_cpu_online(c) )
    {
        if ( hv->domlookup->cpu_offline )
            hv->domlookup->cpu_offline(c, hv->domlookup_priv);
        hv_rcu_cpu_offline(c);
        atomic_store(&c->online, false);
        errno = ENODEV;
        return NULL;
    }
    return c;
}

void hv_cpu_leave(struct hv_cpu *cpu)
{
    struct hv *hv = cpu->hv;

    if ( hv->domlookup->cpu_offline )
        hv->domlookup->cpu_offline(cpu, hv->domlookup_priv);
    hv_rcu_cpu_offline(cpu);
    atomic_store(&cpu->online, false);
}

struct hv_xs *hv_xs(struct hv *hv)
{
    return hv->xs;
}

struct hv_domtab *hv_domtab(struct hv *hv)
{
    return &hv->domtab;
}

const struct hv_plugin_inst *hv_slot_plugin(struct hv *hv, enum hv_slot_id id)
{
    return id < HV_SLOT_NR ? &hv->cfg.plugins[id] : NULL;
}

unsigned int hv_nr_cpus(const struct hv *hv)
{
    return hv->cfg.nr_cpus;
}

struct hv_cpu *hv_cpu_at(struct hv *hv, unsigned int id)
{
    return id < hv->cfg.nr_cpus ? &hv->cpus[id] : NULL;
}

const struct hv_stats *hv_stats(const struct hv *hv)
{
    return &hv->stats;
}

uint64_t hv_perfc_sum(struct hv *hv, enum hv_perfc c)
{
    uint64_t sum = 0;
    unsigned int i;

    for ( i = 0; i < hv->cfg.nr_cpus; i++ )
        sum += hv->cpus[i].perfc[c];
    return sum;
}

void hv_perfc_reset(struct hv *hv)
{
    unsigned int i;

    for ( i = 0; i < hv->cfg.nr_cpus; i++ )
        memset(hv->cpus[i].perfc, 0, sizeof(hv->cpus[i].perfc));
}
