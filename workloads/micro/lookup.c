/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lookup: threads look up domains by id and release them, reporting a
 * quiescent state after every batch as a CPU leaving the hypervisor does.
 * distribution=hot looks up one backend domain (every CPU shares its
 * lines: the netback case of seed 004); uniform spreads over all domains.
 * churn > 0 destroys and re-creates domains beside the readers.
 */
#include <errno.h>
#include <stdlib.h>

#include <hv/hv.h>

#include "../lib/wl.h"

/* The params (lookup_param_table[] below names each field). */
struct lookup_params {
    uint64_t domains;
    unsigned int distribution;
    uint64_t churn;
    uint64_t batch;
};

enum {
    DIST_HOT,
    DIST_UNIFORM
};

#define HOT_DOMID 1

struct lookup {
    unsigned int domains;
    unsigned int batch;
    unsigned int dist;
    uint64_t churn;
};

static int lookup_check(struct hvb_cell *c)
{
    const struct lookup_params *p = c->params;

    return wl_check_churn(c, p->churn);
}

static int lookup_prepare(struct hvb_cell *c)
{
    const struct lookup_params *p = c->params;
    struct lookup *s = calloc(1, sizeof(*s));

    if ( s == NULL )
        return -ENOMEM;
    s->domains = p->domains;
    s->batch = p->batch;
    s->dist = p->distribution;
    s->churn = p->churn;
    c->priv = s;
    return wl_create_domains(c, HOT_DOMID, s->domains, 0);
}

static void lookup_thread(struct hvb_thread *t)
{
    const struct lookup *s = t->cell->priv;
    struct hv_cpu *cpu = t->cpu;
    unsigned int i;

    while ( hvb_keep_running_batch(t, s->batch) )
    {
        for ( i = 0; i < s->batch; i++ )
        {
            domid_t id = s->dist == DIST_HOT
                             ? HOT_DOMID
                             : HOT_DOMID + hvb_rand_below(t, s->domains);
            struct hv_domain *d = hv_domain_lock_by_id(cpu, id);

            if ( d != NULL )
            {
                HV_BUG_ON(d->domain_id != id);
                hv_domain_unlock(cpu, d);
            }
        }
        hv_rcu_quiescent(cpu);
    }
}

/* Churn spares the hot domain, so hot lookups always find it. */
static void lookup_background(struct hvb_thread *t)
{
    const struct lookup *s = t->cell->priv;

    if ( s->dist == DIST_HOT )
        wl_churn(t, HOT_DOMID + 1, s->domains - 1, s->churn, 0);
    else
        wl_churn(t, HOT_DOMID, s->domains, s->churn, 0);
}

static const struct hv_opt lookup_param_table[] = {
    HVB_PARAM_UINT_ROW(struct lookup_params, domains, "100", 1,
                       DOMID_FIRST_RESERVED - 1,
                       "domains in the table (domids 1..N)"),
    HVB_PARAM_ENUM_ROW(struct lookup_params, distribution, "hot", "hot|uniform",
                       "hot: every lookup hits domain 1; uniform: random "
                       "domain"),
    HVB_PARAM_UINT_ROW(struct lookup_params, churn, "0", 0, 1000000,
                       "domain destroy+create pairs per second in the "
                       "background"),
    HVB_PARAM_UINT_ROW(struct lookup_params, batch, "64", 1, 1000000,
                       "lookups per quiescent state (per hypervisor entry)"),
    HVB_PARAM_TABLE_END,
};

static const char *const lookup_slots[] = {"domlookup", NULL};

HVB_REGISTER_WORKLOAD(lookup_workload) = {
    .name = "lookup",
    .kind = HVB_MICRO,
    .summary = "look up a domain by id and release it (seed 004)",
    .slots = lookup_slots,
    .params = lookup_param_table,
    .params_size = sizeof(struct lookup_params),
    .check = lookup_check,
    .prepare = lookup_prepare,
    .thread = lookup_thread,
    .background = lookup_background,
    .cleanup = wl_free_priv,
    .smoke = "domains=16 distribution=hot,uniform",
};
