/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * append-2: xenctrl.ml's domain_getinfolist before November 2022
 * (xen@c3b6be714c~1), two domains per hypercall and a copying append:
 *
 *   let rec __getlist from =
 *     let l = _domain_getinfolist handle from nb in
 *     (if List.length l = nb then __getlist (last_domid l) else []) @ l
 *   in List.rev (__getlist first_domain)
 *
 * The recursion descends one level per chunk; on the way back up each
 * level copies the list of every later domain (OCaml's @ copies its left
 * operand), then List.rev copies everything once more.  Here a list is
 * an array: "rest @ l" is one allocation and a memcpy of rest and l.
 *
 * Worked example (domains 0, 5, 9, chunk 2): calls from 0 -> [5; 0],
 * from 6 -> [9]; 1 < 2 stops.  Back up: [] @ [9] = [9] (1 record
 * copied), [9] @ [5; 0] = [9; 5; 0] (3 copied), List.rev -> [0; 5; 9]
 * (3 copied).  N domains: N/2 + 1 calls (the short reply may be empty),
 * about N^2/4 records copied by the appends, N^2/4 list steps in Xen.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/infolist.h>

#define REC sizeof(struct hv_domaininfo)

/* rest @ l: a new list holding a copy of both. */
static int append(struct hv_xc *xc, struct hv_dominfo_list *rest,
                  const struct hv_xc_chunk *l)
{
    size_t n = (size_t)rest->n + l->n;
    struct hv_domaininfo *v = malloc(n ? n * REC : 1);

    if ( v == NULL )
        return -ENOMEM;
    hv_perfc_incr(xc->cpu, infolist_alloc);
    if ( rest->n )
        memcpy(v, rest->info, (size_t)rest->n * REC);
    memcpy(v + rest->n, l->info, (size_t)l->n * REC);
    hv_perfc_add(xc->cpu, infolist_copy_bytes, n * REC);
    free(rest->info);
    rest->info = v;
    rest->n = (unsigned int)n;
    return 0;
}

static int append2_getlist(struct hv_xc *xc, const void *opts, domid_t first,
                           struct hv_dominfo_list *out)
{
    const unsigned int nb =
        ((const struct hv_infolist_chunk_opts *)opts)->chunk;
    struct hv_xc_chunk *stack = NULL, *l;
    struct hv_dominfo_list rest = {0, NULL};
    unsigned int from = first, i;
    int rc;

    /* The descent: one hypercall per level, every chunk kept. */
    for ( ;; )
    {
        rc = hv_xc_chunk(xc, (domid_t)from, nb, 0, &l);
        if ( rc )
            goto fail;
        l->next = stack;
        stack = l;
        if ( l->n != nb || l->n == 0 )
            break;
        from = l->info[0].domain + 1u; /* last_domid: hd is the largest */
        if ( from >= DOMID_FIRST_RESERVED )
            break;
    }
    /* The way back up: rest @ l at every level, deepest first. */
    while ( (l = stack) != NULL )
    {
        rc = append(xc, &rest, l);
        if ( rc )
            goto fail;
        stack = l->next;
        free(l);
    }
    /* List.rev */
    out->n = rest.n;
    out->info = rest.n ? malloc((size_t)rest.n * REC) : NULL;
    if ( rest.n && out->info == NULL )
    {
        rc = -ENOMEM;
        goto fail;
    }
    if ( rest.n )
        hv_perfc_incr(xc->cpu, infolist_alloc);
    for ( i = 0; i < rest.n; i++ )
        memcpy(&out->info[i], &rest.info[rest.n - 1 - i], REC);
    hv_perfc_add(xc->cpu, infolist_copy_bytes, (uint64_t)rest.n * REC);
    free(rest.info);
    return 0;

fail:
    hv_xc_chunks_free(stack);
    free(rest.info);
    out->n = 0;
    out->info = NULL;
    return rc;
}

static const struct hv_opt append2_opts[] = {
    HV_INFOLIST_CHUNK_OPT("2"),
    HV_OPT_TABLE_END,
};

static const struct hv_infolist_ops append2_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("infolist", "append-2", struct hv_infolist_ops),
            .summary = "xenctrl.ml before 2022: 2 domains per hypercall, "
                       "a copying append per chunk (quadratic)",
            .opts = append2_opts,
            .opts_size = sizeof(struct hv_infolist_chunk_opts),
        },
    .getlist = append2_getlist,
};

HV_REGISTER_PLUGIN(append2_ops);
