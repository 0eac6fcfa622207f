/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by workloads; see wl.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hv/hv.h>
#include <hv/thread.h>

#include "wl.h"

int wl_create_domains(struct hvb_cell *c, domid_t first, unsigned int n,
                      unsigned int nr_grants)
{
    unsigned int i;
    int rc;

    for ( i = 0; i < n; i++ )
    {
        rc = hv_domain_create(c->hv, (domid_t)(first + i), nr_grants, NULL);
        if ( rc )
        {
            hvb_cell_error(c, "creating domain %u: %s", first + i,
                           strerror(-rc));
            return rc;
        }
    }
    return 0;
}

int wl_grant_all(struct hvb_cell *c, domid_t owner, domid_t grantee,
                 unsigned int nr)
{
    struct hv_cpu *cpu = hv_cpu_enter(c->hv, 0);
    unsigned int ref;
    int rc = 0;

    if ( cpu == NULL )
    {
        hvb_cell_error(c, "cannot enter CPU 0: %s", strerror(errno));
        return -errno;
    }
    for ( ref = 0; ref < nr && rc == 0; ref++ )
        rc = hv_gnttab_grant_access(cpu, owner, ref, grantee, ref, false);
    hv_rcu_quiescent(cpu);
    hv_cpu_leave(cpu);
    if ( rc )
        hvb_cell_error(c, "granting d%u's entries to d%u: %s", owner, grantee,
                       strerror(-rc));
    return rc;
}

uint64_t wl_clock_ns(clockid_t clk)
{
    struct timespec ts;

    if ( clock_gettime(clk, &ts) )
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void wl_churn(struct hvb_thread *t, domid_t first, unsigned int n,
              uint64_t per_sec, unsigned int nr_grants)
{
    struct hv *hv = t->cell->hv;
    uint64_t period = per_sec ? 1000000000ull / per_sec : 0, next;
    uint64_t done = 0;

    if ( per_sec == 0 || n == 0 )
        return;
    next = hv_now_ns();
    while ( !hvb_bg_should_stop(t) )
    {
        domid_t id = (domid_t)(first + hvb_rand_below(t, n));

        if ( hv_now_ns() < next )
        {
            hv_idle_sleep_until(next);
            continue;
        }
        next += period;
        /*
         * Destroy, then create whether or not the destroy found it: a
         * domain still referenced by a reader stays linked (create says
         * -EEXIST) and one missing from an earlier such tick comes back.
         * Churn never waits for readers.
         */
        if ( hv_domain_destroy(hv, id) == 0 )
            done++;
        if ( hv_domain_create(hv, id, nr_grants, NULL) == 0 )
            done++;
        hv_rcu_poll(hv);
    }
    hvb_counter_add(t, "churn_ops_per_s", (double)done, HVB_CTR_RATE);
}

int wl_check_churn(struct hvb_cell *c, uint64_t churn)
{
    const struct hv_plugin_inst *p = hvb_cell_plugin(c, "domlookup");

    if ( churn && p && (p->hdr->flags & HV_PF_NO_CHURN) )
    {
        hvb_cell_error(c,
                       "plugin domlookup=%s is unsafe with churn > 0 "
                       "(domains would be freed under readers)",
                       p->hdr->name);
        return -EINVAL;
    }
    return 0;
}

unsigned int wl_gnttab_round(struct hvb_thread *t, struct hv_gnttab_map_op *map,
                             struct hv_gnttab_unmap_op *unmap, domid_t guest,
                             unsigned int batch, unsigned int grants)
{
    return wl_gnttab_round_cpu(t->cpu, t->index, map, unmap, guest, batch,
                               grants);
}

unsigned int wl_gnttab_round_cpu(struct hv_cpu *cpu, unsigned int index,
                                 struct hv_gnttab_map_op *map,
                                 struct hv_gnttab_unmap_op *unmap,
                                 domid_t guest, unsigned int batch,
                                 unsigned int grants)
{
    unsigned int i, failed = 0, base = index * batch;

    for ( i = 0; i < batch; i++ )
    {
        map[i].dom = guest;
        map[i].ref = (base + i) % grants;
        map[i].flags = 0;
    }
    hv_gnttab_map(cpu, map, batch);
    hv_rcu_quiescent(cpu);
    for ( i = 0; i < batch; i++ )
    {
        if ( map[i].status != GNTST_okay )
        {
            failed++;
            unmap[i].handle = UINT32_MAX; /* rejected as a bad handle */
        }
        else
            unmap[i].handle = map[i].handle;
    }
    hv_gnttab_unmap(cpu, unmap, batch);
    hv_rcu_quiescent(cpu);
    for ( i = 0; i < batch; i++ )
        if ( map[i].status == GNTST_okay && unmap[i].status != GNTST_okay )
            failed++;
    return failed;
}

void wl_free_priv(struct hvb_cell *c)
{
    free(c->priv);
    c->priv = NULL;
}
