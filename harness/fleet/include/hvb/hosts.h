/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hosts side by side: the same matrix run on several machines ("fleet
 * slurm --per-host", or any results files of one command), one column
 * per host.  First the environment ledger of each (CPU model, vCPUs,
 * NUMA nodes, hardware counters, kernel, hypervisor, clocksource,
 * governor, microcode, build), a row whose values differ marked ⚠️;
 * then per cell the median ns/op and, for a variant, its paired ratio
 * to the group's reference with the 95% CI:
 *
 *   | cell                         | n1 (numa)          | n2                 |
 *   | lookup/domlookup=rcu-noref/. | 88.1 (0.61 [0.58, 0.64]) | 41.0 (0.93 ...) |
 *
 * which is how "does this hold on NUMA hardware?" is answered.
 */
#ifndef HVB_HOSTS_H
#define HVB_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * hvb_hosts_print_files - the markdown tables above for the results
 * files @paths on @f.  The exit status (2: a file cannot be read).
 */
int hvb_hosts_print_files(FILE *f, char *const *paths, size_t n);

struct hvb_cmd_ctx;
/* "hvbench compare --hosts RUN.json...": the tables on stdout. */
int hvb_cmd_compare_hosts(struct hvb_cmd_ctx *ctx);

struct hvb_cmd_doc;
/* compare --hosts's form of the compare command, for its --help. */
extern const struct hvb_cmd_doc hvb_doc_compare_hosts;

#endif /* HVB_HOSTS_H */
