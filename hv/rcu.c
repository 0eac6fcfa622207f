/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model's RCU: see hv/include/hv/rcu.h for the ordering argument and
 * a worked example.  One global grace-period sequence, one quiescent
 * sequence per CPU, one FIFO of callbacks ordered by the sequence that
 * frees them.  Callbacks run in whichever thread polls: call_rcu() itself,
 * every 64th quiescent state of a CPU, hv_rcu_poll() and hv_rcu_barrier().
 *
 * While the timeline recorder is on (hv/trace.h), a callback's queueing
 * time is kept by its target sequence in gp_start[] (a callback whose
 * slot was reused has none), and a poll that runs callbacks records one
 * grace period: from the oldest one's queueing (or the end of the last
 * grace period recorded, so the row's intervals do not overlap) to now.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include <hv/trace.h>

#include "private.h"

static HV_LOCK_CLASS(rcu_cb_class, "rcu_cb_lock");

#define GP_SLOTS 256

/* Tracing: when the callback of (@r, @seq) was queued (under cb_lock). */
struct gp_start {
    const struct hv_rcu *r;
    uint64_t seq, t;
};
static struct gp_start gp_start[GP_SLOTS];
static uint64_t gp_last_end; /* under run_lock */

int hv_rcu_init(struct hv *hv)
{
    struct hv_rcu *r = &hv->rcu;
    unsigned int i;

    r->nr_cpus = hv->cfg.nr_cpus;
    r->cpus = aligned_alloc(HV_CACHELINE, sizeof(*r->cpus) * r->nr_cpus);
    if ( r->cpus == NULL )
        return -ENOMEM;
    for ( i = 0; i < r->nr_cpus; i++ )
        atomic_init(&r->cpus[i].qs, HV_RCU_OFFLINE);
    atomic_init(&r->gp_seq, 1);
    atomic_init(&r->nr_pending, 0);
    hv_spin_init(&r->cb_lock, &rcu_cb_class);
    r->cb_head = NULL;
    r->cb_tail = &r->cb_head;
    pthread_mutex_init(&r->registry, NULL);
    pthread_mutex_init(&r->run_lock, NULL);
    return 0;
}

void hv_rcu_fini(struct hv *hv)
{
    hv_rcu_barrier(hv);
    pthread_mutex_destroy(&hv->rcu.registry);
    pthread_mutex_destroy(&hv->rcu.run_lock);
    free(hv->rcu.cpus);
}

void hv_rcu_cpu_online(struct hv_cpu *cpu)
{
    struct hv_rcu *r = &cpu->hv->rcu;

    pthread_mutex_lock(&r->registry);
    atomic_store_explicit(
        &r->cpus[cpu->id].qs,
        atomic_load_explicit(&r->gp_seq, memory_order_acquire),
        memory_order_release);
    pthread_mutex_unlock(&r->registry);
    cpu->rcu_nesting = 0;
}

void hv_rcu_cpu_offline(struct hv_cpu *cpu)
{
    struct hv_rcu *r = &cpu->hv->rcu;

    HV_BUG_ON(cpu->rcu_nesting != 0);
    pthread_mutex_lock(&r->registry);
    atomic_store_explicit(&r->cpus[cpu->id].qs, HV_RCU_OFFLINE,
                          memory_order_release);
    pthread_mutex_unlock(&r->registry);
}

void hv_rcu_quiescent(struct hv_cpu *cpu)
{
    struct hv_rcu *r = &cpu->hv->rcu;

    HV_BUG_ON(cpu->rcu_nesting != 0);
    atomic_store_explicit(
        &r->cpus[cpu->id].qs,
        atomic_load_explicit(&r->gp_seq, memory_order_acquire),
        memory_order_release);
    hv_perfc_incr(cpu, rcu_qs);
    if ( unlikely((++cpu->rcu_qs_count & 63) == 0) &&
         atomic_load_explicit(&r->nr_pending, memory_order_relaxed) )
        hv_rcu_poll(cpu->hv);
}

void hv_call_rcu(struct hv *hv, struct hv_rcu_head *head,
                 void (*func)(struct hv_rcu_head *head))
{
    struct hv_rcu *r = &hv->rcu;

    head->func = func;
    head->next = NULL;
    hv_spin_lock(&r->cb_lock);
    /* Anything a CPU reads after seeing this value sees our unlink. */
    head->target =
        atomic_fetch_add_explicit(&r->gp_seq, 1, memory_order_acq_rel) + 1;
    if ( hv_trace_active() )
        gp_start[head->target % GP_SLOTS] =
            (struct gp_start){r, head->target, hv_now_ns()};
    *r->cb_tail = head;
    r->cb_tail = &head->next;
    atomic_fetch_add_explicit(&r->nr_pending, 1, memory_order_relaxed);
    hv_spin_unlock(&r->cb_lock);
    hv_rcu_poll(hv);
}

/* The grace period every online CPU has passed. */
static uint64_t rcu_completed(struct hv_rcu *r)
{
    uint64_t min = HV_RCU_OFFLINE;
    unsigned int i;

    pthread_mutex_lock(&r->registry);
    for ( i = 0; i < r->nr_cpus; i++ )
    {
        uint64_t qs =
            atomic_load_explicit(&r->cpus[i].qs, memory_order_acquire);

        if ( qs < min )
            min = qs;
    }
    pthread_mutex_unlock(&r->registry);
    return min;
}

/* When @r's callback of @seq was queued (under cb_lock); 0: unknown. */
static uint64_t gp_queued(const struct hv_rcu *r, uint64_t seq)
{
    const struct gp_start *g = &gp_start[seq % GP_SLOTS];

    return g->r == r && g->seq == seq ? g->t : 0;
}

/* A grace period from @t0 to now that freed @n callbacks (run_lock). */
static void gp_trace(uint64_t t0, unsigned int n)
{
    uint64_t t1 = hv_now_ns();

    hv_trace_rcu_gp(t0 > gp_last_end ? t0 : gp_last_end, t1, n);
    gp_last_end = t1;
}

unsigned int hv_rcu_poll(struct hv *hv)
{
    struct hv_rcu *r = &hv->rcu;
    struct hv_rcu_head *ready, **tail, *h;
    unsigned int n = 0;
    uint64_t done, t0 = 0;

    if ( atomic_load_explicit(&r->nr_pending, memory_order_relaxed) == 0 )
        return 0;
    /* One poller at a time; others have nothing to add. */
    if ( pthread_mutex_trylock(&r->run_lock) != 0 )
        return 0;
    done = rcu_completed(r);

    hv_spin_lock(&r->cb_lock);
    tail = &r->cb_head;
    while ( *tail != NULL && (*tail)->target <= done )
        tail = &(*tail)->next;
    if ( tail == &r->cb_head )
    {
        hv_spin_unlock(&r->cb_lock);
        pthread_mutex_unlock(&r->run_lock);
        return 0;
    }
    ready = r->cb_head; /* ready .. *tail: grace period over */
    r->cb_head = *tail;
    *tail = NULL;
    if ( r->cb_head == NULL )
        r->cb_tail = &r->cb_head;
    if ( hv_trace_active() )
        t0 = gp_queued(r, ready->target);
    hv_spin_unlock(&r->cb_lock);

    while ( (h = ready) != NULL )
    {
        ready = h->next;
        atomic_fetch_sub_explicit(&r->nr_pending, 1, memory_order_relaxed);
        h->func(h); /* may queue more callbacks */
        n++;
    }
    if ( t0 != 0 )
        gp_trace(t0, n);
    pthread_mutex_unlock(&r->run_lock);
    return n;
}

unsigned long hv_rcu_pending(const struct hv *hv)
{
    return atomic_load_explicit(&hv->rcu.nr_pending, memory_order_relaxed);
}

void hv_rcu_barrier(struct hv *hv)
{
    while ( hv_rcu_pending(hv) != 0 )
    {
        if ( hv_rcu_poll(hv) == 0 )
            sched_yield();
    }
}
