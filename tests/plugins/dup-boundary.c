/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dup-boundary: a negative control of slot infolist (tests only).  It is
 * chunked with the off-by-one of a next call that starts AT the last
 * domain of the previous chunk instead of after it (from = hd.domid):
 * every chunk boundary's domain is listed twice.  It gets the right list
 * and then doubles those records, which is what that loop returns.
 * unit-getinfolist must catch it (tests/unit/unit-getinfolist.c,
 * negative_control_is_caught).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/infolist.h>

static int dup_getlist(struct hv_xc *xc, const void *opts, domid_t first,
                       struct hv_dominfo_list *out)
{
    const struct hv_xc_chunk_loop how = {
        .nb = ((const struct hv_infolist_chunk_opts *)opts)->chunk,
    };
    struct hv_domaininfo *v;
    unsigned int i, n = 0;
    int rc = hv_xc_getlist_chunked(xc, first, &how, out);

    if ( rc || out->n < how.nb )
        return rc;
    v = malloc((out->n + out->n / how.nb) * sizeof(*v));
    if ( v == NULL )
        return -ENOMEM;
    for ( i = 0; i < out->n; i++ )
    {
        v[n++] = out->info[i];
        if ( (i + 1) % how.nb == 0 ) /* BUG: the boundary again */
            v[n++] = out->info[i];
    }
    free(out->info);
    out->info = v;
    out->n = n;
    return 0;
}

static const struct hv_opt dup_opts[] = {
    HV_INFOLIST_CHUNK_OPT("7"),
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
