/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The toolstack's xenctrl (dom0 user space; seed 002): a libxc-like
 * handle that makes the getdomaininfolist sysctl through a bounce buffer,
 * the OCaml C stub's chunk (records prepended into a fresh list, so a
 * chunk comes back largest domid first), and domain_getinfolist, whose
 * list building is the slot "infolist" (hv/infolist.h).
 *
 * One call of hv_xc_domain_getinfolist(xc, first, max, ...):
 *   libxc   bounce = hypercall buffer (cached per handle, grown as needed)
 *   Xen     walk + fill + copy_to_guest into the bounce buffer
 *   libxc   memcpy bounce -> the caller's buffer ("bounce out")
 * One call of hv_xc_chunk(xc, first, nb, flags):
 *   stub    posix_memalign(nb records), hv_xc_domain_getinfolist(), a new
 *           list of the n records in reverse (the OCaml list), free
 *
 * A handle belongs to one thread, which is a model CPU (hv_cpu_enter).
 */
#ifndef HV_XENCTRL_H
#define HV_XENCTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>
#include <hv/sysctl.h>

struct hv;
struct hv_cpu;

struct hv_xc {
    struct hv_cpu *cpu;
    struct hv_domaininfo *bounce; /* libxc's hypercall buffer */
    size_t bounce_cap;            /* records */
};

/* An OCaml-side chunk: @n records, largest domid first. */
struct hv_xc_chunk {
    struct hv_xc_chunk *next; /* for lists of chunks (l :: lst) */
    unsigned int n;
    struct hv_domaininfo info[];
};

/* The result of domain_getinfolist: @n records in domid order. */
struct hv_dominfo_list {
    unsigned int n;
    struct hv_domaininfo *info; /* malloc'd; NULL when n == 0 */
};

void hv_xc_open(struct hv_xc *xc, struct hv_cpu *cpu);
void hv_xc_close(struct hv_xc *xc);

/*
 * xc_domain_getinfolist - up to @max records from @first into @info.
 * The count, or -errno (-ENOMEM for the bounce buffer, the sysctl's).
 */
int HV_MUST_CHECK hv_xc_domain_getinfolist(struct hv_xc *xc, domid_t first,
                                           unsigned int max, uint32_t flags,
                                           struct hv_domaininfo *info);

/*
 * The stub: a chunk of up to @nb records from @first, largest first, in
 * one allocation (counted: perfc infolist_alloc, infolist_copy_bytes).
 * 0 and *@out (free() it), or -errno.
 */
int HV_MUST_CHECK hv_xc_chunk(struct hv_xc *xc, domid_t first, unsigned int nb,
                              uint32_t flags, struct hv_xc_chunk **out);

/*
 * The chunk loop of the linear strategies (xenctrl.ml since 2022):
 * chunks of @nb from @first, each prepended (l :: lst) and the next call
 * starting after its largest domid, then one rev_concat.  It ends at an
 * empty reply, or with @stop_short at any short one; with @resume every
 * call after the first asks Xen to resume after the last domain
 * (HV_GDIL_RESUME).  0 or -errno.
 */
struct hv_xc_chunk_loop {
    unsigned int nb;
    bool stop_short;
    bool resume;
};
int HV_MUST_CHECK hv_xc_getlist_chunked(struct hv_xc *xc, domid_t first,
                                        const struct hv_xc_chunk_loop *how,
                                        struct hv_dominfo_list *out);

/* Free every chunk of a list of chunks. */
void hv_xc_chunks_free(struct hv_xc_chunk *lst);

/*
 * domain_getinfolist - every domain from @first, in domid order, built
 * by the machine's infolist strategy.  0 or -errno; @out->info is the
 * caller's to free().
 */
int HV_MUST_CHECK hv_xc_domain_getinfolist_all(struct hv_xc *xc, domid_t first,
                                               struct hv_dominfo_list *out);

#endif /* HV_XENCTRL_H */
