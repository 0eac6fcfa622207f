/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The NUMA topology of the model: nodes, the memory each holds, which
 * model CPUs sit on which node, and the SLIT distance table.  Real (the
 * host's nodes through libnuma, memory bound with mbind) when the host has
 * several nodes and the spec says "host"; otherwise emulated from a spec.
 *
 * Spec syntax (no commas, so it survives `--param k=v1,v2` splitting):
 *
 *   host             the host's nodes if it has several, else one node
 *   4x1G             four nodes of 1 GiB each (K, M, G, T: powers of 1024)
 *   1G+1G+0+512M     per-node sizes joined by '+'; 0 is a memory-less node
 *   2x1G+1G-nocpu    "-nocpu": a CPU-less node (memory only)
 *
 * Distance syntax: "10:21" (local:remote for every pair) or N*N values
 * row-major ("10:21:21:10"); default 10:20 (Linux's REMOTE_DISTANCE).
 */
#ifndef HV_TOPOLOGY_H
#define HV_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>

#define HV_MAX_NUMNODES 64 /* Xen's Kconfig default */
#define HV_NUMA_NO_NODE 0xFFu
#define HV_LOCAL_DIST   10u
#define HV_REMOTE_DIST  20u
#define HV_MAX_VCPUS    8 /* per domain in the model */
#define HV_PAGE_SHIFT   12
#define HV_PAGE_SIZE    (1ul << HV_PAGE_SHIFT)

struct hv;
struct hv_domain;

struct hv_topology {
    unsigned int nr_nodes;
    bool real; /* host nodes (libnuma), else emulated */
    uint64_t node_pages[HV_MAX_NUMNODES];
    bool node_has_cpus[HV_MAX_NUMNODES];
    int host_node[HV_MAX_NUMNODES]; /* real: host node id, else -1 */
    uint8_t distance[HV_MAX_NUMNODES][HV_MAX_NUMNODES];
    unsigned int nr_cpus;
    uint8_t cpu_to_node[256]; /* model CPU -> node (HV_MAX_CPUS) */
    int cpu_to_host_cpu[256]; /* real: the host CPU it runs on, else -1 */
};

/*
 * hv_topology_parse - build @t from @spec and @distance (either may be
 * NULL: "host" and "10:20") for @nr_cpus model CPUs; @host_bytes is the
 * memory of a "host" topology (split across the host's nodes when real).
 * Return 0 or -EINVAL with @err naming the problem.
 */
int HV_MUST_CHECK hv_topology_parse(struct hv_topology *t, const char *spec,
                                    const char *distance, uint64_t host_bytes,
                                    unsigned int nr_cpus, char *err,
                                    size_t len);

/* The topology of a machine. */
const struct hv_topology *hv_topology(const struct hv *hv);

/* The first model CPU on @node, or -1 if the node has none. */
int hv_node_first_cpu(const struct hv *hv, unsigned int node);

/*
 * The first model CPU of @node, or else of the next node (in id order,
 * wrapping) that has CPUs: where a vCPU meant for a CPU-less node runs.
 */
unsigned int hv_node_nearest_cpu(const struct hv *hv, unsigned int node);

/*
 * hv_domain_set_vcpus - give @d @nr vCPUs running on model CPUs @cpus;
 * its node affinity becomes the set of their nodes (Xen's
 * domain_update_node_affinity()).  Return 0 or -EINVAL.
 */
int HV_MUST_CHECK hv_domain_set_vcpus(struct hv_domain *d,
                                      const unsigned int *cpus,
                                      unsigned int nr);

/*
 * hv_topology_pin_cpu - real topology: pin the calling thread to the host
 * CPU of model CPU @cpu.  0, or -ENOTSUP on an emulated topology.
 */
int hv_topology_pin_cpu(const struct hv *hv, unsigned int cpu);

#endif /* HV_TOPOLOGY_H */
