/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reference hypervisor model: one struct hv holds the whole machine
 * and the active strategy of every slot.  There is no global state, so a
 * test may run several instances side by side.
 *
 * Threads enter the model as CPUs: hv_cpu_enter() makes the calling thread
 * model CPU @id (an RCU participant and a per-CPU counter block) and
 * hv_cpu_leave() takes it off line again.  Writers that only create and
 * destroy domains need not be CPUs.
 */
#ifndef HV_HV_H
#define HV_HV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hv/compiler.h>
#include <hv/cpu.h>
#include <hv/domain.h>
#include <hv/gnttab.h>
#include <hv/perfc.h>
#include <hv/plugin.h>
#include <hv/plugin_registry.h>
#include <hv/types.h>
#include <hv/xenstore.h>

#define HV_MAX_CPUS 256

struct hv_domlookup_ops;

struct hv_config {
    unsigned int nr_cpus; /* model CPUs; default 64 */
    /*
     * The strategy of each slot, indexed by enum hv_slot_id; a NULL hdr
     * means the slot's documented default.  hv_create() copies them.
     */
    struct hv_plugin_inst plugins[HV_SLOT_NR];
    unsigned int gnttab_map_cost_ns; /* modelled PTE update; default 0 */
    unsigned int maptrack_entries;   /* per CPU; default 4096 */
    /*
     * Lifetime checking: freed domains are poisoned and kept for this
     * many further grace periods, aging one step per grace period, before
     * free().  0 frees at once.  Tests use it to catch early frees.
     */
    unsigned int quarantine_gps;
    struct hv_xs_config xs; /* xenstore limits; oxenstored's by default */
    /*
     * Memory and NUMA topology (hv/topology.h has the syntax).  The
     * strings need only live until hv_create() returns.  NULL topology:
     * "host"; NULL distance: "10:20".  mem_bytes: the memory of a "host"
     * topology (default 256 MiB).  scrub: zero every extent on allocation.
     */
    const char *topology;
    const char *distance;
    uint64_t mem_bytes;
    bool scrub;
    unsigned int zones; /* HV_ZONES_DOM (default) or HV_ZONES_BITWIDTH */
    /* The hypercall boundary (hv/hypercall.h): enum hv_boundary; 0 none. */
    unsigned int boundary;
};

/* Zone layouts of the page heap (hv/page_alloc.c). */
#define HV_ZONES_DOM      0 /* 2006: one zone holds all domain memory */
#define HV_ZONES_BITWIDTH 1 /* Xen today: zone = fls(mfn), up to 41 */

struct hv_maptrack {
    domid_t dom;
    grant_ref_t ref;
    uint32_t next_free; /* free-list link; UINT32_MAX ends */
    bool in_use;
};

struct hv_stats {
    _Atomic uint64_t domains_created;
    _Atomic uint64_t domains_freed;
    _Atomic uint64_t retire_ns_total; /* unlink -> free, summed */
    _Atomic uint64_t retire_ns_max;
};

/*
 * hv_create - build a machine from @cfg (copied; plugin options too).
 * Return 0 or -errno (-EINVAL for a bad config, -ENOMEM); @err names the
 * problem in one line.
 */
int HV_MUST_CHECK hv_create(const struct hv_config *cfg, struct hv **out,
                            char *err, size_t len);

/* Destroy every domain, wait for every grace period, free everything. */
void hv_destroy(struct hv *hv);

/* Defaults for every field. */
void hv_config_init(struct hv_config *cfg);

/*
 * hv_cpu_enter - the calling thread becomes model CPU @id.
 * Return the CPU, or NULL with errno EINVAL (bad id) or EBUSY (in use).
 */
struct hv_cpu *hv_cpu_enter(struct hv *hv, unsigned int id);
void hv_cpu_leave(struct hv_cpu *cpu);

/* The domain whose hypercalls @cpu runs (for grant maps). */
static inline void hv_cpu_set_domain(struct hv_cpu *cpu, domid_t d)
{
    cpu->current_domain = d;
}

/* Accessors for plugins and the harness. */
struct hv_domtab *hv_domtab(struct hv *hv);
/* The resolved plugin of slot @id in this machine. */
const struct hv_plugin_inst *hv_slot_plugin(struct hv *hv, enum hv_slot_id id);
unsigned int hv_nr_cpus(const struct hv *hv);
struct hv_cpu *hv_cpu_at(struct hv *hv, unsigned int id);
const struct hv_stats *hv_stats(const struct hv *hv);

/* Sum of one perf counter over all CPUs. */
uint64_t hv_perfc_sum(struct hv *hv, enum hv_perfc c);
void hv_perfc_reset(struct hv *hv);

/*
 * hv_spin_ns - burn about @ns nanoseconds of CPU (modelled costs only).
 * The rate is calibrated once per machine: by hv_create() when a cost
 * of the config is set (gnttab_map_cost_ns), by hv_spin_calibrate(),
 * or else by the first hv_spin_ns() with @ns > 0.  A workload that
 * models a cost of its own (a parameter) calls hv_spin_calibrate() in
 * prepare, so the calibration (about 1 ms) is not measured.
 */
void hv_spin_ns(const struct hv *hv, unsigned int ns);
void hv_spin_calibrate(struct hv *hv);

#endif /* HV_HV_H */
