/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dup-boundary: a negative control of slot infolist (tests only).  It is
 * chunked with an off-by-one: the next call starts AT the last domain of
 * the previous chunk instead of after it (from = hd.domid), so every
 * chunk boundary's domain is listed twice.  test-getinfolist must catch
 * it (tests/unit/test-getinfolist.c, negative_control_is_caught).
 */
#include <stdlib.h>

#include <hv/hv.h>
#include <hv/infolist.h>

static int dup_getlist(struct hv_xc *xc, const void *opts, domid_t first,
                       struct hv_dominfo_list *out)
{
    const unsigned int nb =
        ((const struct hv_infolist_chunk_opts *)opts)->chunk;
    struct hv_xc_chunk *lst = NULL, *l;
    unsigned int from = first;
    int rc;

    for ( ;; )
    {
        rc = hv_xc_chunk(xc, (domid_t)from, nb, 0, &l);
        if ( rc )
        {
            hv_xc_chunks_free(lst);
            return rc;
        }
        l->next = lst;
        lst = l;
        if ( l->n < nb )
            break;
        from = l->info[0].domain; /* BUG: not + 1 */
    }
    return hv_xc_rev_concat(xc, lst, out);
}

static const struct hv_opt dup_opts[] = {
    HV_OPT_UINT_ROW(struct hv_infolist_chunk_opts, chunk, "chunk", "7", 2,
                    DOMID_FIRST_RESERVED, "domains per hypercall"),
    HV_OPT_TABLE_END,
};

static const struct hv_infolist_ops dup_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("infolist", "dup-boundary", struct hv_infolist_ops),
            .flags = HV_PF_TEST_ONLY,
            .summary = "negative control: lists each chunk boundary's "
                       "domain twice",
            .opts = dup_opts,
            .opts_size = sizeof(struct hv_infolist_chunk_opts),
        },
    .getlist = dup_getlist,
};

HV_REGISTER_PLUGIN(dup_ops);
