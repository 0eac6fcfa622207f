/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Slot "infolist": how xenctrl's domain_getinfolist builds the list of
 * every domain out of getdomaininfolist hypercalls (seed 002): the chunk
 * size (hypercalls, and the hypervisor's walk from the head per call)
 * and the accumulation (a copying append per chunk, or prepend + one
 * reverse).  The hypercall, the stub and rev_concat are the toolstack's
 * (hv/xenctrl.h); a strategy combines them.
 *
 * Dispatch happens once per enumeration.
 */
#ifndef HV_INFOLIST_H
#define HV_INFOLIST_H

#include <hv/plugin.h>
#include <hv/xenctrl.h>

struct hv_infolist_ops {
    struct hv_plugin_hdr hdr;

    /*
     * getlist - every domain from @first in domid order, each exactly
     * once, into @out (malloc'd records).  @opts is the plugin's parsed
     * option struct (may be NULL).  0 or -errno.
     */
    int (*getlist)(struct hv_xc *xc, const void *opts, domid_t first,
                   struct hv_dominfo_list *out);
};

/* ABI v1 ends at .getlist: hooks appended later are read with HV_OPS_HAS(). */
#define HV_INFOLIST_OPS_V1_SIZE \
    HV_OPS_SIZE_UPTO(struct hv_infolist_ops, getlist)

/* The usual option: records per hypercall, and its table row. */
struct hv_infolist_chunk_opts {
    unsigned int chunk;
};

#define HV_INFOLIST_CHUNK_OPT(def_)                                           \
    HV_OPT_UINT_ROW(struct hv_infolist_chunk_opts, chunk, "chunk", (def_), 1, \
                    DOMID_FIRST_RESERVED, "domains per hypercall")

#endif /* HV_INFOLIST_H */
