/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small fixed-size table of named counters: one per measured thread
 * (hvb_counter_add() accumulates there without locks or allocation), and
 * one per cell that pins each name's flags so every run of a cell reports
 * a counter the same way.
 */
#ifndef HVB_COUNTERS_H
#define HVB_COUNTERS_H

#include <stdbool.h>

#define HVB_CTR_NAME_MAX 64 /* bytes, with the terminating NUL */
/*
 * Counters per table.  boot-storm over the wire with the libxl profile
 * reports 59 (the RPC pool's, the xenstore client's and daemon's, the
 * boot phases'); at 48 it lost 11 in every run, with a warning.
 */
#define HVB_CTR_MAX 96

struct hvb_ctr {
    char name[HVB_CTR_NAME_MAX];
    double value;
    unsigned int flags; /* HVB_CTR_* */
};

struct hvb_ctr_table {
    unsigned int nr;
    bool overflow; /* a counter was dropped: table full */
    bool too_long; /* a counter was dropped: name too long */
    struct hvb_ctr c[HVB_CTR_MAX];
};

/* The entry named @name, or NULL. */
struct hvb_ctr *hvb_ctr_find(struct hvb_ctr_table *t, const char *name);

/*
 * hvb_ctr_add - add @v to counter @name, creating it with @flags.
 * Returns the entry, or NULL (and sets overflow or too_long) if the
 * counter cannot be kept.  An existing entry keeps its first flags.
 */
struct hvb_ctr *hvb_ctr_add(struct hvb_ctr_table *t, const char *name, double v,
                            unsigned int flags);

/* Add every counter of @src into @dst. */
void hvb_ctr_merge(struct hvb_ctr_table *dst, const struct hvb_ctr_table *src);

#endif /* HVB_COUNTERS_H */
