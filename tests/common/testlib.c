/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the model's tests; see testlib.h. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <hv/rcu.h>

#include "testlib.h"

double tl_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct hv *tl_hv_create_cfg(struct hv_config *cfg, const char *slot,
                            const char *spec)
{
    const struct hv_slot *sl = hv_slot_find(slot);
    struct hv *hv = NULL;
    char err[512];
    int rc;

    if ( sl == NULL )
    {
        fprintf(stderr, "no slot %s\n", slot);
        return NULL;
    }
    if ( spec != NULL )
    {
        rc = hv_plugin_resolve(slot, spec, true, &cfg->plugins[sl->id], err,
                               sizeof(err));
        if ( rc )
        {
            fprintf(stderr, "resolve %s: %s (%s)\n", spec, err, strerror(-rc));
            return NULL;
        }
    }
    rc = hv_create(cfg, &hv, err, sizeof(err));
    hv_plugin_inst_free(&cfg->plugins[sl->id]);
    if ( rc )
    {
        fprintf(stderr, "hv_create(%s): %s (%s)\n", spec ? spec : "default",
                err, strerror(-rc));
        return NULL;
    }
    return hv;
}

struct hv *tl_hv_create(const char *spec, unsigned int nr_cpus,
                        unsigned int quarantine_gps)
{
    struct hv_config cfg;

    hv_config_init(&cfg);
    cfg.nr_cpus = nr_cpus;
    cfg.quarantine_gps = quarantine_gps;
    return tl_hv_create_cfg(&cfg, "domlookup", spec);
}

struct hv *tl_hv_create_slot(const char *slot, const char *spec)
{
    struct hv_config cfg;

    hv_config_init(&cfg);
    cfg.nr_cpus = 1;
    return tl_hv_create_cfg(&cfg, slot, spec);
}

bool tl_wait_freed(struct hv *hv, struct hv_cpu *cpu, uint64_t freed,
                   double timeout_s)
{
    double deadline = tl_now() + timeout_s;

    for ( ;; )
    {
        if ( cpu != NULL )
            hv_rcu_quiescent(cpu);
        hv_rcu_poll(hv);
        if ( tl_freed(hv) >= freed )
            return true;
        if ( tl_now() > deadline )
            return false;
        sched_yield();
    }
}

unsigned int tl_destroy_all(struct hv *hv)
{
    domid_t ids[64];
    domid_t first = 0;
    unsigned int n, i, started = 0;

    while ( (n = hv_domain_list_ids(hv, first, ids, HV_ARRAY_SIZE(ids))) )
    {
        for ( i = 0; i < n; i++ )
            if ( hv_domain_destroy(hv, ids[i]) == 0 )
                started++;
        if ( ids[n - 1] >= DOMID_FIRST_RESERVED - 1 )
            break;
        first = ids[n - 1] + 1;
    }
    return started;
}
