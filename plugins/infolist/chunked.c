/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chunked: xenctrl.ml since November 2022 (c3b6be714c "make
 * domain_getinfolist tail recursive", 95db09b1b1 "use larger chunksize"):
 *
 *   let rec __getlist lst from =
 *     match _domain_getinfolist handle from nb with
 *     | [] -> rev_concat lst
 *     | (hd :: _) as l -> __getlist (l :: lst) (hd.domid + 1)
 *
 * Chunks of `chunk` domains (1024) are prepended to a list of chunks, and
 * one rev_concat at the end copies every record once: linear in the
 * client (hv_xc_getlist_chunked, hv/xenctrl.h).  It stops at an empty
 * reply, so N domains take N/chunk + 1 hypercalls, and each still walks
 * Xen's list from the head: about N^2 / (2 chunk) list steps, the cost
 * `cursor` removes.
 *
 * Worked example (domains 0, 5, 9, chunk 2): from 0 -> [5; 0], from 6 ->
 * [9], from 10 -> [] stops; rev_concat [[9]; [5; 0]] -> [0; 5; 9].
 */
#include <hv/hv.h>
#include <hv/infolist.h>

static int chunked_getlist(struct hv_xc *xc, const void *opts, domid_t first,
                           struct hv_dominfo_list *out)
{
    const struct hv_xc_chunk_loop how = {
        .nb = ((const struct hv_infolist_chunk_opts *)opts)->chunk,
    };

    return hv_xc_getlist_chunked(xc, first, &how, out);
}

static const struct hv_opt chunked_opts[] = {
    HV_INFOLIST_CHUNK_OPT("1024"),
    HV_OPT_TABLE_END,
};

static const struct hv_infolist_ops chunked_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("infolist", "chunked", struct hv_infolist_ops),
            .summary = "xenctrl.ml since 2022: 1024 domains per hypercall, "
                       "prepend + one rev_concat (linear client; Xen still "
                       "walks from the head)",
            .opts = chunked_opts,
            .opts_size = sizeof(struct hv_infolist_chunk_opts),
        },
    .getlist = chunked_getlist,
};

HV_REGISTER_PLUGIN(chunked_ops);
