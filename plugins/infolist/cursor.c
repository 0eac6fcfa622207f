/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cursor: chunked, plus two steps further.
 *
 *  - A resume cursor in the hypervisor (HV_GDIL_RESUME, hv/sysctl.h): each
 *    call after the first says "first_domain - 1 is the last one I got",
 *    and Xen starts its walk after that domain, found through its hash
 *    bucket, instead of at the head: N/chunk calls walk about N + N/256
 *    per call entries in all instead of N^2 / (2 chunk).
 *  - A short reply ends the enumeration: no final empty hypercall, so N
 *    domains take ceil(N / chunk) calls (1 at N = 1000), and 1 when there
 *    are none.
 *
 * What is left is linear: one fill and three copies per record (into
 * the bounce buffer, out of it, into the list) and the rev_concat.
 *
 * Worked example (domains 0, 5, 9, chunk 2): from 0 -> [5; 0] (full), from
 * 6 with RESUME: Xen finds 5 in bucket 5, walks 9 -> [9] (short: stop);
 * rev_concat -> [0; 5; 9]: 2 calls, 3 + 1 + 2 = 6 steps.
 */
#include <hv/hv.h>
#include <hv/infolist.h>

static int cursor_getlist(struct hv_xc *xc, const void *opts, domid_t first,
                          struct hv_dominfo_list *out)
{
    const struct hv_xc_chunk_loop how = {
        .nb = ((const struct hv_infolist_chunk_opts *)opts)->chunk,
        .stop_short = true,
        .resume = true,
    };

    return hv_xc_getlist_chunked(xc, first, &how, out);
}

static const struct hv_opt cursor_opts[] = {
    HV_INFOLIST_CHUNK_OPT("1024"),
    HV_OPT_TABLE_END,
};

static const struct hv_infolist_ops cursor_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("infolist", "cursor", struct hv_infolist_ops),
            .summary = "chunked + a resume cursor in the hypervisor (no "
                       "walk from the head) and no final empty call",
            .opts = cursor_opts,
            .opts_size = sizeof(struct hv_infolist_chunk_opts),
        },
    .getlist = cursor_getlist,
};

HV_REGISTER_PLUGIN(cursor_ops);
