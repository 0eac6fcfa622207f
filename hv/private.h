/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The layout of struct hv, private to the model (the files of hv/).  Plugins and the harness use
 * the accessors of hv/hv.h.
 */
#ifndef HV_PRIVATE_H
#define HV_PRIVATE_H

#include <pthread.h>

#include <hv/domain.h>
#include <hv/domlookup.h>
#include <hv/hv.h>
#include <hv/pgalloc.h>
#include <hv/rcu.h>
#include <hv/xenstore.h>
#include <hv/topology.h>

/* Per-CPU RCU state, one cache line each: only its CPU writes it. */
struct hv_rcu_cpu {
    _Atomic uint64_t qs; /* last gp_seq seen at a QS */
} __hv_cacheline_aligned;

#define HV_RCU_OFFLINE UINT64_MAX

struct hv_rcu {
    /* Read by every CPU at each quiescent state: keep it alone. */
    _Atomic uint64_t gp_seq __hv_cacheline_aligned;
    _Atomic unsigned long nr_pending __hv_cacheline_aligned;
    /* Callback queue, ordered by target. */
    hv_spinlock_t cb_lock __hv_cacheline_aligned;
    struct hv_rcu_head *cb_head, **cb_tail;
    /* CPUs coming and going vs the grace-period scan. */
    pthread_mutex_t registry;
    /* Serialises callback invocation (poll vs barrier). */
    pthread_mutex_t run_lock;
    struct hv_rcu_cpu *cpus;
    unsigned int nr_cpus;
};

/* The page heap (hv/page_alloc.c). */
struct hv_heap_state {
    hv_spinlock_t lock; /* Xen's heap_lock: ONE for every node */
    struct hv_heap h;   /* what strategies read */
    void *mem;          /* the machine's memory, reserved lazily */
    size_t mem_len;
    uint64_t total_pages;
    uint64_t node_start[HV_MAX_NUMNODES], node_end[HV_MAX_NUMNODES];
    uint8_t *memnodemap; /* phys_to_nid: mfn >> memnode_shift */
    unsigned int memnode_shift;
    uint64_t reserved[HV_MAX_NUMNODES];
    bool zones_bitwidth; /* HV_ZONES_BITWIDTH */
};

struct hv {
    struct hv_config cfg;
    struct hv_domtab domtab;
    const struct hv_domlookup_ops *domlookup;
    void *domlookup_priv;
    struct hv_rcu rcu;
    struct hv_cpu *cpus; /* nr_cpus, cache-line aligned */
    struct hv_stats stats;
    _Atomic uint64_t spin_iters_per_us; /* hv_spin_ns; 0: not yet */
    struct hv_xs *xs;                   /* hv/xenstore/ */
    struct hv_topology topo;
    struct hv_heap_state heap;
    const struct hv_pgalloc_ops *pgalloc;
    void *pgalloc_priv;
    /* The hypercall boundary (hv/hypercall.c). */
    struct hv_kvm *kvm; /* boundary=kvm: the VM */
    double crossing_ns; /* one crossing, measured at hv_create() */
    /* The toolstack's hypervisor side (hv/sysctl.c). */
    hv_spinlock_t sysctl_lock; /* Xen's sysctl_lock: every sysctl */
};

int hv_rcu_init(struct hv *hv);
void hv_rcu_fini(struct hv *hv);
void hv_rcu_cpu_online(struct hv_cpu *cpu);
void hv_rcu_cpu_offline(struct hv_cpu *cpu);

int hv_heap_init(struct hv *hv, char *err, size_t len);
void hv_heap_fini(struct hv *hv);

int hv_hypercall_init(struct hv *hv, char *err, size_t len);
void hv_hypercall_fini(struct hv *hv);
int hv_hypercall_cpu_online(struct hv_cpu *cpu);

void hv_sysctl_init(struct hv *hv);

void hv_domtab_init(struct hv *hv);
void hv_domtab_destroy_all(struct hv *hv);

#endif /* HV_PRIVATE_H */
