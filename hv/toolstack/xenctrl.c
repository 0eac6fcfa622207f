/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xenctrl: libxc's xc_domain_getinfolist, the OCaml stub's chunk and
 * rev_concat, and the dispatch of domain_getinfolist to the machine's
 * infolist strategy.  See hv/xenctrl.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/infolist.h>
#include <hv/xenctrl.h>

#define REC sizeof(struct hv_domaininfo)

void hv_xc_open(struct hv_xc *xc, struct hv_cpu *cpu)
{
    xc->cpu = cpu;
    xc->bounce = NULL;
    xc->bounce_cap = 0;
}

void hv_xc_close(struct hv_xc *xc)
{
    free(xc->bounce);
    xc->bounce = NULL;
    xc->bounce_cap = 0;
}

int hv_xc_domain_getinfolist(struct hv_xc *xc, domid_t first, unsigned int max,
                             uint32_t flags, struct hv_domaininfo *info)
{
    struct hv_sysctl_getdomaininfolist op = {
        .first_domain = first,
        .max_domains = max,
        .flags = flags,
    };
    int rc;

    /* xc_hypercall_bounce_pre: hypercall-safe memory, cached. */
    if ( max > xc->bounce_cap )
    {
        void *b = realloc(xc->bounce, (size_t)max * REC);

        if ( b == NULL )
            return -ENOMEM;
        xc->bounce = b;
        xc->bounce_cap = max;
    }
    op.buffer = xc->bounce;
    rc = hv_sysctl_getdomaininfolist(xc->cpu, &op);
    if ( rc )
        return rc;
    /* xc_hypercall_bounce_post: copy out. */
    memcpy(info, xc->bounce, (size_t)op.num_domains * REC);
    hv_perfc_add(xc->cpu, sysctl_bounce_bytes, (uint64_t)op.num_domains * REC);
    return (int)op.num_domains;
}

int hv_xc_chunk(struct hv_xc *xc, domid_t first, unsigned int nb,
                uint32_t flags, struct hv_xc_chunk **out)
{
    struct hv_domaininfo *buf;
    struct hv_xc_chunk *l;
    int n, i;

    *out = NULL;
    /* stub_xc_domain_getinfolist: posix_memalign(nb records). */
    if ( posix_memalign((void **)&buf, 64, (size_t)(nb ? nb : 1) * REC) )
        return -ENOMEM;
    hv_perfc_incr(xc->cpu, infolist_alloc);
    n = hv_xc_domain_getinfolist(xc, first, nb, flags, buf);
    if ( n < 0 )
    {
        free(buf);
        return n;
    }
    /* The OCaml list, built by prepending: largest first. */
    l = malloc(sizeof(*l) + (size_t)n * REC);
    if ( l == NULL )
    {
        free(buf);
        return -ENOMEM;
    }
    hv_perfc_incr(xc->cpu, infolist_alloc);
    l->next = NULL;
    l->n = (unsigned int)n;
    for ( i = 0; i < n; i++ )
        memcpy(&l->info[n - 1 - i], &buf[i], REC);
    hv_perfc_add(xc->cpu, infolist_copy_bytes, (uint64_t)n * REC);
    free(buf);
    *out = l;
    return 0;
}

void hv_xc_chunks_free(struct hv_xc_chunk *lst)
{
    while ( lst != NULL )
    {
        struct hv_xc_chunk *next = lst->next;

        free(lst);
        lst = next;
    }
}

/*
 * rev_concat (xenctrl.ml): the chunks of @lst, newest (largest domids)
 * first, each largest first, into one list in domid order: one
 * allocation and one copy of every record.  Frees the chunks.  Never
 * inlined into its one caller: profiles show it as a frame of its own
 * (docs/seeds.md's 6%).
 */
static int __attribute__((noinline))
hv_xc_rev_concat(struct hv_xc *xc, struct hv_xc_chunk *lst,
                 struct hv_dominfo_list *out)
{
    struct hv_xc_chunk *l;
    size_t total = 0, pos;
    unsigned int i;

    out->n = 0;
    out->info = NULL;
    for ( l = lst; l != NULL; l = l->next )
        total += l->n;
    if ( total > 0 )
    {
        out->info = malloc(total * REC);
        if ( out->info == NULL )
        {
            hv_xc_chunks_free(lst);
            return -ENOMEM;
        }
        hv_perfc_incr(xc->cpu, infolist_alloc);
    }
    /* fold_left rev_append: the newest chunk ends the list. */
    pos = total;
    for ( l = lst; l != NULL; l = l->next )
        for ( i = 0; i < l->n; i++ )
            memcpy(&out->info[--pos], &l->info[i], REC);
    hv_perfc_add(xc->cpu, infolist_copy_bytes, (uint64_t)total * REC);
    out->n = (unsigned int)total;
    hv_xc_chunks_free(lst);
    return 0;
}

int hv_xc_getlist_chunked(struct hv_xc *xc, domid_t first,
                          const struct hv_xc_chunk_loop *how,
                          struct hv_dominfo_list *out)
{
    struct hv_xc_chunk *lst = NULL, *l;
    unsigned int from = first;
    uint32_t flags = 0;
    int rc;

    while ( from < DOMID_FIRST_RESERVED )
    {
        rc = hv_xc_chunk(xc, (domid_t)from, how->nb, flags, &l);
        if ( rc )
        {
            hv_xc_chunks_free(lst);
            return rc;
        }
        l->next = lst;
        lst = l;
        if ( l->n == 0 || (how->stop_short && l->n < how->nb) )
            break;
        from = l->info[0].domain + 1u; /* hd.domid + 1 */
        if ( how->resume )
            flags = HV_GDIL_RESUME;
    }
    return hv_xc_rev_concat(xc, lst, out);
}

int hv_xc_domain_getinfolist_all(struct hv_xc *xc, domid_t first,
                                 struct hv_dominfo_list *out)
{
    const struct hv_plugin_inst *p =
        hv_slot_plugin(xc->cpu->hv, HV_SLOT_INFOLIST);
    const struct hv_infolist_ops *ops = (const void *)p->hdr;

    out->n = 0;
    out->info = NULL;
    return ops->getlist(xc, p->opts, first, out);
}
