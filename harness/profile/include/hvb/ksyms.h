/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's function names for its code addresses, from
 * /proc/kallsyms (readable with its addresses by root, or where
 * kptr_restrict is 0): the call chains of the off-CPU view
 * (hvb/switches.h) start in the kernel.  Where the addresses are hidden,
 * every frame is "[kernel]".
 */
#ifndef HVB_KSYMS_H
#define HVB_KSYMS_H

#include <stdint.h>

struct hvb_ksyms;

/* Load the table (NULL: out of memory).  An unreadable one is empty. */
struct hvb_ksyms *hvb_ksyms_open(void);
/* The function containing @addr, "[kernel]" when unknown. */
const char *hvb_ksyms_name(const struct hvb_ksyms *k, uint64_t addr);
void hvb_ksyms_close(struct hvb_ksyms *k);

#endif /* HVB_KSYMS_H */
