/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xs-ref: the reference xenstore of the differential test
 * (tests/unit/unit-xs-differential.c), written from the rules
 * (oxenstored 4.17's source, xs_wire.h and docs/misc/xenstore.txt of
 * xen.git) rather than from hv/xenstore/: a rules table, paths as
 * component vectors over a plain mutable tree, quota as a recount, and
 * commits that apply an effect log or replay the request log (xs-ref.c
 * says how and why).
 *
 * Same API shape as the model's: hv_xs_request's answers, errnos and
 * tids, hv_xs_domain_release, hv_xs_quota, hv_xs_walk (same order), and
 * the commit counters of hv_xs_get_stats.
 */
#ifndef HVB_XS_REF_H
#define HVB_XS_REF_H

#include <hv/xenstore.h>

struct xs_ref;

struct xs_ref *xs_ref_create(const struct hv_xs_config *cfg);
void xs_ref_destroy(struct xs_ref *x);
int xs_ref_request(struct xs_ref *x, const struct hv_xs_req *req,
                   struct hv_xs_rsp *rsp);
int xs_ref_domain_release(struct xs_ref *x, domid_t id);
int xs_ref_quota(struct xs_ref *x, domid_t id);
void xs_ref_walk(struct xs_ref *x, hv_xs_walk_fn fn, void *arg);
/* nodes, commits_*, conflicts and open_txns (no bytes, no copies). */
void xs_ref_stats(struct xs_ref *x, struct hv_xs_stats *st);

#endif /* HVB_XS_REF_H */
