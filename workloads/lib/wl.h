/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by several workloads: populating domains, granting
 * pages, and the create/destroy churn that runs beside measured threads.
 */
#ifndef HVB_WL_H
#define HVB_WL_H

#include <time.h>

#include <hvb/workload.h>

/* Create domains [first, first + n) with @nr_grants entries each. */
int wl_create_domains(struct hvb_cell *c, domid_t first, unsigned int n,
                      unsigned int nr_grants);

/* @owner grants @grantee its entries [0, nr) (frame = ref). */
int wl_grant_all(struct hvb_cell *c, domid_t owner, domid_t grantee,
                 unsigned int nr);

/*
 * Churn: destroy and re-create a random domain of [first, first + n) at
 * @per_sec pairs per second until the background thread is told to stop.
 */
void wl_churn(struct hvb_thread *t, domid_t first, unsigned int n,
              uint64_t per_sec, unsigned int nr_grants);

/*
 * One netback-style round on @t's CPU: a map hypercall of @batch grants
 * of @guest (entries [index * batch, (index + 1) * batch) modulo
 * @grants, so threads map disjoint entries while the table is big
 * enough), then an unmap hypercall of the same; a quiescent state after
 * each, as on return to the guest.  Returns the number of failed ops.
 */
unsigned int wl_gnttab_round(struct hvb_thread *t, struct hv_gnttab_map_op *map,
                             struct hv_gnttab_unmap_op *unmap, domid_t guest,
                             unsigned int batch, unsigned int grants);

/* The same on @cpu, as thread @index of a set (disjoint entries). */
unsigned int wl_gnttab_round_cpu(struct hv_cpu *cpu, unsigned int index,
                                 struct hv_gnttab_map_op *map,
                                 struct hv_gnttab_unmap_op *unmap,
                                 domid_t guest, unsigned int batch,
                                 unsigned int grants);

/* Clock @clk (a thread's or the process's CPU clock) in ns; 0 on error. */
uint64_t wl_clock_ns(clockid_t clk);

/* A cleanup hook for workloads whose state is one malloc'd block. */
void wl_free_priv(struct hvb_cell *c);

/* 0, or -EINVAL with an error if a NO_CHURN plugin meets churn > 0. */
int wl_check_churn(struct hvb_cell *c, uint64_t churn);

#endif /* HVB_WL_H */
