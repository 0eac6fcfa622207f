/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the model's tests; see testlib.h. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hv/plugin_registry.h>
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

unsigned int tl_force_offline(struct hv *hv)
{
    unsigned int i, n = 0;

    for ( i = 0; i < hv_nr_cpus(hv); i++ )
    {
        struct hv_cpu *c = hv_cpu_at(hv, i);

        if ( !atomic_load(&c->online) )
            continue;
        c->rcu_nesting = 0;
        hv_cpu_leave(c);
        n++;
    }
    return n;
}

bool tl_drain(struct hv *hv, const char *label, double timeout_s)
{
    tl_destroy_all(hv);
    if ( tl_wait_freed(hv, NULL, tl_created(hv), timeout_s) &&
         tl_freed(hv) == tl_created(hv) )
        return true;
    fprintf(stderr, "%s: accounting: %llu domains created, %llu freed\n", label,
            (unsigned long long)tl_created(hv),
            (unsigned long long)tl_freed(hv));
    return false;
}

int tl_child_status(void (*fn)(void *arg), void *arg)
{
    int status;
    pid_t pid;

    fflush(NULL); /* or the child would print the parent's buffers too */
    pid = fork();
    if ( pid < 0 )
        return -1;
    if ( pid == 0 )
    {
        fn(arg);
        _exit(0);
    }
    if ( waitpid(pid, &status, 0) != pid )
        return -1;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

bool tl_registry_init(const char *who)
{
    char err[512];

    if ( hv_plugin_registry_init(err, sizeof(err)) == 0 )
        return true;
    fprintf(stderr, "%s: %s\n", who, err);
    return false;
}
