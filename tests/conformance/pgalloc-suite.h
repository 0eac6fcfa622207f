/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pgalloc conformance suite: the tests every strategy of the slot
 * must pass (heap invariants after its allocations, MEMF_exact_node,
 * ENOMEM on exhaustion, memory-less and CPU-less nodes, preemption, memory
 * returned at domain destruction), plus the helpers the locality test and
 * the unit tests share.
 */
#ifndef HVB_PGALLOC_SUITE_H
#define HVB_PGALLOC_SUITE_H

#include <hv/hv.h>

/*
 * pgalloc_model - a model with pgalloc plugin @spec (test-only allowed)
 * over @topology ("2x16M") with 4 model CPUs.  NULL and a message on
 * failure.
 */
struct hv *pgalloc_model(const char *spec, const char *topology);

/* The zone layout pgalloc_model() uses (HV_ZONES_DOM by default). */
extern unsigned int pgalloc_model_zones;

/* Domain @id with one vCPU on the first CPU of @node. */
struct hv_domain *pgalloc_domain(struct hv *hv, domid_t id, unsigned int node);

/*
 * pgalloc_random_ops - @nr random allocations and frees of orders
 * 0..@max_order by @nr_domains domains, heap check every @check_every ops.
 * Returns 0, or -1 with a message; frees everything at the end and checks
 * the free lists are back in their initial shape.
 */
int pgalloc_random_ops(struct hv *hv, struct hv_cpu *cpu,
                       unsigned int nr_domains, unsigned long nr,
                       unsigned int max_order, unsigned long check_every,
                       uint64_t seed);

/* Run the suite on @spec as group "pgalloc/@label"; failures, or -1. */
int pgalloc_suite_run(const char *spec, const char *label);

#endif /* HVB_PGALLOC_SUITE_H */
