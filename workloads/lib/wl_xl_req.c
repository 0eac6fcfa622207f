/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One component's requests (struct xo, wl_xl_private.h): each request
 * of a component goes on its connection (a hotplug command's on one of
 * its own, opened and closed around it), is counted for its role, and
 * after the first error the rest are skipped, so a step reads as a list
 * of requests and the caller looks at o->rc once.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/trace.h>
#include <hv/vmboot.h>

#include "wl_xl_private.h"

int xl_connect(struct wl_xl *x, struct xsd_client **c)
{
    atomic_fetch_add_explicit(&x->opens, 1, memory_order_relaxed);
    return xsd_client_open(x->sock, c);
}

void xo_init(struct xo *o, struct wl_xl_client *cl, enum wl_xl_role r)
{
    o->x = cl->x;
    o->c = cl->conn[r];
    o->role = r;
    o->tx = 0;
    o->rc = 0;
    o->len = 0;
}

/* One request; @ok: an error the caller expects (ENOENT of a read). */
int xo_req(struct xo *o, uint32_t type, const void *body, size_t len, int ok)
{
    struct xsd_client *c = o->c;
    uint64_t t0;
    int rc;

    if ( o->rc )
        return o->rc;
    if ( c == NULL && (rc = xl_connect(o->x, &c)) != 0 )
        return o->rc = rc;
    atomic_fetch_add_explicit(&o->x->role_requests[o->role], 1,
                              memory_order_relaxed);
    t0 = hv_trace_active() ? hv_now_ns() : 0;
    rc = xsd_client_request(c, type, o->tx, body, len, o->buf,
                            sizeof(o->buf) - 1, &o->len);
    hv_trace_span("wire", xsd_type_name(type), "tx", o->tx, t0, hv_now_ns());
    if ( o->c == NULL )
        xsd_client_close(c);
    if ( rc == 0 )
        o->buf[o->len] = '\0';
    else
        o->len = 0;
    if ( rc && rc != ok )
        o->rc = rc;
    return rc;
}

/* A request of path @fmt (and @val: WRITE's value, SET_PERMS' list). */
static int xpath(struct xo *o, uint32_t type, const char *val, int ok,
                 const char *fmt, va_list ap)
{
    char body[XSD_PAYLOAD_MAX];
    int n = vsnprintf(body, sizeof(body), fmt, ap);
    size_t len = (size_t)n + 1, vl = val ? strlen(val) : 0;

    if ( n < 0 || len + vl > sizeof(body) )
        return o->rc ? o->rc : (o->rc = -E2BIG);
    if ( vl )
        memcpy(body + len, val, vl);
    if ( type == XSD_WATCH )
        atomic_fetch_add_explicit(&o->x->watches, 1, memory_order_relaxed);
    if ( type == XSD_SET_PERMS || type == XSD_WATCH || type == XSD_UNWATCH )
    {
        /* "n0 r7" -> "n0\0r7\0"; a token -> "token\0" */
        for ( n = 0; type == XSD_SET_PERMS && (size_t)n < vl; n++ )
            if ( body[len + n] == ' ' )
                body[len + n] = '\0';
        if ( len + vl + 1 > sizeof(body) )
            return o->rc ? o->rc : (o->rc = -E2BIG);
        body[len + vl++] = '\0';
    }
    return xo_req(o, type, body, len + vl, ok);
}

int xo_path(struct xo *o, uint32_t type, const char *val, int ok,
            const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = xpath(o, type, val, ok, fmt, ap);
    va_end(ap);
    return rc;
}

void xo_ts(struct xo *o)
{
    if ( xo_req(o, XSD_TRANSACTION_START, "", 1, 0) == 0 )
        o->tx = (uint32_t)strtoul(o->buf, NULL, 10);
}

/* TRANSACTION_END(T); -EAGAIN is the caller's to retry, and clears. */
int xo_te(struct xo *o)
{
    int rc;

    if ( o->tx == 0 )
        return o->rc;
    if ( o->rc )
    {
        rc = o->rc;
        o->rc = 0;
        (void)xo_req(o, XSD_TRANSACTION_END, "F", 2, 0);
        o->tx = 0;
        o->rc = rc;
        return rc;
    }
    rc = xo_req(o, XSD_TRANSACTION_END, "T", 2, -EAGAIN);
    o->tx = 0;
    return rc;
}

/* A domain request of @nums ("7", "7\0 1\0 2" ...), @len bytes. */
void xo_dom(struct xo *o, uint32_t type, const char *nums, size_t len)
{
    (void)xo_req(o, type, nums, len, 0);
}

/* VM @id's name, uuid (hv_vmboot_identity) and /vm path. */
void xl_vm_identity(struct vm *v, domid_t id)
{
    unsigned char u[16];

    v->id = id;
    hv_vmboot_identity(id, v->name, sizeof(v->name), u);
    snprintf(v->ids, sizeof(v->ids), "%u", id);
    snprintf(v->uuid, sizeof(v->uuid),
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
             u[11], u[12], u[13], u[14], u[15]);
    snprintf(v->vm, sizeof(v->vm), "/vm/%s", v->uuid);
}

int xo_txn(struct xo *o, xo_txn_fn body, const struct vm *v, const void *arg)
{
    unsigned int tries = 0;
    int rc;

    do
    {
        xo_ts(o);
        body(o, v, arg);
        rc = xo_te(o);
    } while ( rc == -EAGAIN && ++tries < 64 );
    return o->rc ? o->rc : rc;
}

void xo_writev(struct xo *o, const char *dir, const struct kv *kv,
               const char *perms)
{
    for ( ; kv->k; kv++ )
    {
        xwrite(o, kv->v, "%s/%s", dir, kv->k);
        if ( perms )
            xperms(o, perms, "%s/%s", dir, kv->k);
    }
}
