/* SPDX-License-Identifier: GPL-2.0-only */
/* XEN_SYSCTL_getdomaininfolist; see hv/sysctl.h. */
#include <errno.h>
#include <string.h>

#include <hv/hypercall.h>
#include <hv/sysctl.h>

#include "private.h"

static HV_LOCK_CLASS(sysctl_class, "sysctl_lock");

void hv_sysctl_init(struct hv *hv)
{
    hv_spin_init(&hv->sysctl_lock, &sysctl_class);
}

/* getdomaininfo(): the record of @d, summing its vCPUs (O(vcpus)). */
static void getdomaininfo(const struct hv_domain *d, struct hv_domaininfo *info)
{
    uint64_t cpu_time = 0;
    unsigned int v, online = 0, max_id = 0;
    /* Published by hv_domain_set_vcpus() while the domain is listed. */
    unsigned int nr = __atomic_load_n(&d->nr_vcpus, __ATOMIC_ACQUIRE);

    memset(info, 0, sizeof(*info));
    info->domain = d->domain_id;
    if ( atomic_load_explicit(&d->is_dying, memory_order_relaxed) )
        info->flags |= HV_DOMINF_dying;
    for ( v = 0; v < nr && v < HV_ARRAY_SIZE(d->vcpu_processor); v++ )
    {
        cpu_time +=
            __atomic_load_n(&d->vcpu_processor[v], __ATOMIC_RELAXED) + 1u;
        online++;
        max_id = v;
    }
    info->cpu_time = cpu_time;
    info->nr_online_vcpus = online;
    info->max_vcpu_id = max_id;
    info->tot_pages = __atomic_load_n(&d->tot_pages, __ATOMIC_RELAXED);
    info->max_pages = info->tot_pages;
    info->shared_info_frame = d->domain_id;
    memcpy(info->handle, &d->domain_id, sizeof(d->domain_id));
    info->gpaddr_bits = 52;
}

/*
 * Lifetime check: a domain freed while the walk can reach it stays
 * poisoned in quarantine (cfg.quarantine_gps); count it, tests assert 0.
 */
static inline void walk_check(struct hv_cpu *cpu, const struct hv_domain *d)
{
    if ( unlikely(atomic_load_explicit(&d->magic, memory_order_relaxed) !=
                  HV_DOMAIN_MAGIC) )
        hv_perfc_incr(cpu, sysctl_walk_freed);
}

/* Where the walk starts: the head, or after the resume domain. */
static struct hv_domain *
walk_start(struct hv_cpu *cpu, struct hv_domtab *t,
           const struct hv_sysctl_getdomaininfolist *op)
{
    struct hv_domain *d;

    if ( (op->flags & HV_GDIL_RESUME) && op->first_domain > 0 )
    {
        d = hv_rcu_dereference(t->hash[HV_DOMAIN_HASH(op->first_domain - 1)]);
        for ( ; d != NULL; d = hv_rcu_dereference(d->next_in_hashbucket) )
        {
            hv_perfc_incr(cpu, sysctl_list_step);
            if ( d->domain_id == op->first_domain - 1 )
                return hv_rcu_dereference(d->next_in_list);
        }
    }
    return hv_rcu_dereference(t->list);
}

int hv_sysctl_getdomaininfolist(struct hv_cpu *cpu,
                                struct hv_sysctl_getdomaininfolist *op)
{
    const uint64_t args[HV_HC_NR_ARGS] = {XEN_SYSCTL_getdomaininfolist,
                                          op->first_domain, op->max_domains,
                                          op->flags};
    struct hv *hv = cpu->hv;
    struct hv_domaininfo info;
    struct hv_domain *d;
    uint32_t num = 0;

    hv_hypercall(cpu, HV_HC_SYSCTL, args);
    if ( op->flags & ~HV_GDIL_RESUME )
        return -EINVAL;
    if ( op->buffer == NULL && op->max_domains > 0 )
        return -EFAULT;

    hv_spin_lock(&hv->sysctl_lock);
    hv_domain_walk_begin(cpu);
    for ( d = walk_start(cpu, &hv->domtab, op); d != NULL;
          d = hv_rcu_dereference(d->next_in_list) )
    {
        hv_perfc_incr(cpu, sysctl_list_step);
        walk_check(cpu, d);
        if ( d->domain_id < op->first_domain )
            continue;
        if ( num == op->max_domains )
            break;
        getdomaininfo(d, &info);
        hv_perfc_incr(cpu, sysctl_fill);
        /* copy_to_guest_offset(buffer, num, &info, 1) */
        memcpy(&op->buffer[num], &info, sizeof(info));
        hv_perfc_add(cpu, sysctl_bounce_bytes, sizeof(info));
        num++;
        walk_check(cpu, d); /* and once it is filled: freed meanwhile? */
    }
    hv_domain_walk_end(cpu);
    hv_spin_unlock(&hv->sysctl_lock);
    op->num_domains = num;
    return 0;
}
