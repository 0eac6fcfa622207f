/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the xenstore workloads: give domains quota (nodes they own)
 * so the quota map holds one entry per domain, as on a host with that
 * many guests.
 */
#ifndef HVB_WL_XS_H
#define HVB_WL_XS_H

#include <hv/xenstore.h>
#include <hvb/workload.h>

#include "wl.h"

#define WL_XS_FIRST_DOMID 1

/*
 * For each domid in [WL_XS_FIRST_DOMID, +@domains): dom0 creates
 * /local/domain/<id>/data/0 .. data/<nodes - 1> ("val") in one
 * transaction and gives the home directory and its nodes to the domain
 * (owner <id>, others none).  0 or -errno with an error on @c.
 */
int wl_xs_populate(struct hvb_cell *c, unsigned int domains,
                   unsigned int nodes);

/*
 * The quota-holder count, every xenstore workload's main axis: field @f
 * (uint64_t) of param struct @st.
 */
#define WL_XS_PARAM_DOMAINS(st, f)                                        \
    HV_OPT_U64_ROW(st, f, "domains", "1000", 1, DOMID_FIRST_RESERVED - 1, \
                   "domains holding quota (entries in the quota map)")

/*
 * The params of a one-request-per-op xenstore workload (xs-read,
 * xs-write): its whole param struct, so that one prepare hook serves
 * both; and its state, each domain holding its own node.
 */
struct wl_xs_req_params {
    uint64_t domains, batch;
};

struct wl_xs_req {
    unsigned int domains, batch;
};

/* prepare hook for such a workload: reads the params, populates. */
int wl_xs_req_prepare(struct hvb_cell *c);

#endif /* HVB_WL_XS_H */
