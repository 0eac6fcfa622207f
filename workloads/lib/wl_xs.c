/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the xenstore workloads (wl_xs.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/xenstore.h>

#include "wl_xs.h"

static int own(struct hv_xs *xs, uint32_t tid, const char *path, domid_t id)
{
    struct hv_xs_perm p = {id, HV_XS_PERM_NONE};

    return hv_xs_set_perms(xs, 0, tid, path, &p, 1);
}

int wl_xs_populate(struct hvb_cell *c, unsigned int domains, unsigned int nodes)
{
    struct hv_xs *xs = hv_xs(c->hv);
    char path[64];
    unsigned int i, j;
    uint32_t tid;
    int rc;

    for ( i = 0; i < domains; i++ )
    {
        domid_t id = WL_XS_FIRST_DOMID + i;

        rc = hv_xs_txn_start(xs, 0, &tid);
        snprintf(path, sizeof(path), "/local/domain/%u", id);
        if ( rc == 0 )
            rc = hv_xs_simple(xs, HV_XS_MKDIR, 0, tid, path);
        if ( rc == 0 )
            rc = own(xs, tid, path, id);
        for ( j = 0; rc == 0 && j < nodes; j++ )
        {
            snprintf(path, sizeof(path), "/local/domain/%u/data/%u", id, j);
            rc = hv_xs_write(xs, 0, tid, path, "val");
            if ( rc == 0 )
                rc = own(xs, tid, path, id);
        }
        if ( rc == 0 )
            rc = hv_xs_txn_end(xs, 0, tid, true);
        if ( rc )
        {
            hvb_cell_error(c, "populating domain %u: %s", id, strerror(-rc));
            return rc;
        }
    }
    return 0;
}

int wl_xs_req_prepare(struct hvb_cell *c)
{
    const struct wl_xs_req_params *p = c->params;
    struct wl_xs_req *s = calloc(1, sizeof(*s));

    if ( s == NULL )
        return -ENOMEM;
    s->domains = p->domains;
    s->batch = p->batch;
    c->priv = s;
    return wl_xs_populate(c, s->domains, 1);
}
