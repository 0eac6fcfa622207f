/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The gate room (harness/gate/): two results files compared or gated
 * (cmd_compare.c, compare.c for the statistics, compare_views.c for what
 * is printed).  Two builds paired in one run are the twobuild room's.
 */
#ifndef HVB_GATE_PRIVATE_H
#define HVB_GATE_PRIVATE_H

#include <hvb/compare.h>

#endif /* HVB_GATE_PRIVATE_H */
