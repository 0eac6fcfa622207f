/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-xsd-wire: libFuzzer over hvbench xenstored's message parser and
 * dispatcher (xenstored/wire.c, dispatch.c), built by clang with ASan and
 * UBSan (tests/xenstored/CMakeLists.txt, label fuzz).  The input is the
 * byte stream a client sends on one connection: xsd_frame() cuts it into
 * messages as the server does (a framing error ends the stream, as it
 * closes the connection there), each goes through xsd_decode() - whose
 * arguments must lie inside the body, NUL-terminated - and then through
 * xsd_dispatch() onto a fresh model store, on a connection without a
 * socket: the replies are only queued.  Every request must get exactly
 * one reply of its type or ERROR with its req_id and tx_id; at the end
 * the store's quota must equal the recount of owners.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/xenstore.h>

#include "testlib.h"
#include "xsd-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hv *machine(const char *quota)
{
    struct hv *hv = tl_hv_create_slot("quota", quota);

    if ( hv == NULL )
        abort();
    return hv;
}

/* The decoded arguments lie inside the body and end there with a NUL. */
static void check_decoded(const struct xsd_req *r, const uint8_t *body,
                          size_t len)
{
    const char *b = (const char *)body;
    unsigned int i;

    for ( i = 0; i < r->nargs; i++ )
        if ( r->args[i] < b || r->args[i] >= b + len ||
             memchr(r->args[i], '\0', (size_t)(b + len - r->args[i])) == NULL )
            abort();
    if ( r->value && (r->value < b || r->value + r->value_len != b + len) )
        abort();
}

/* Exactly one reply, with the request's ids, after the events. */
static void check_replies(const struct xsd_conn *c, size_t from,
                          const struct xsd_hdr *req)
{
    struct xsd_hdr h;
    size_t off = from, n;
    unsigned int replies = 0;

    while ( off < c->out_len )
    {
        if ( xsd_frame(c->out + off, c->out_len - off, &h, &n) != 1 )
            abort();
        if ( h.type != XSD_WATCH_EVENT )
        {
            replies++;
            if ( (h.type != req->type && h.type != XSD_ERROR) ||
                 h.req_id != req->req_id || h.tx_id != req->tx_id )
                abort();
        }
        else if ( h.req_id || h.tx_id )
            abort();
        off += n;
    }
    if ( replies != 1 )
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct xsd_conn conn; /* big: the input buffer */
    struct xsd_server s = {0};
    struct xsd_req r;
    struct xsd_hdr h;
    size_t off = 0, n, from;
    struct hv *hv;
    char err[256];

    hv = machine(size && (data[0] & 1) ? "hashtbl-copy" : "persistent");
    s.xs = hv_xs(hv);
    s.opts.max_outstanding = s.opts.max_watch_events = 1u << 30;
    s.opts.max_watches = 64;
    s.opts.max_watches_total = 64;
    s.opts.max_watch_bytes = 1u << 20;
    s.opts.max_transactions = s.opts.max_transactions_total = 10;
    s.lfd[0] = s.lfd[1] = s.stop_fd = s.epfd = s.spare_fd = -1;
    s.introduced = calloc(DOMID_FIRST_RESERVED / 8 + 1, 1);
    memset(&conn, 0, sizeof(conn));
    conn.fd = -1;
    conn.id = 1;
    conn.ro = size > 1 && data[1] == 0xff;
    s.conns = &conn;
    while ( xsd_frame(data + off, size - off, &h, &n) == 1 )
    {
        const uint8_t *body = data + off + XSD_HDR_LEN;

        if ( xsd_decode(h.type, body, h.len, &r) == 0 )
            check_decoded(&r, body, h.len);
        from = conn.out_len;
        xsd_dispatch(&s, &conn, &h, body);
        check_replies(&conn, from, &h);
        /* the client read everything */
        conn.out_off = conn.out_len = 0;
        conn.nr_marks = conn.replies = conn.events = 0;
        s.dirty = NULL;
        conn.dirty = false;
        off += n;
    }
    xsd_conn_forget(&s, &conn);
    xsd_watch_destroy(&s);
    if ( hv_xs_check(s.xs, err, sizeof(err)) )
    {
        fprintf(stderr, "fuzz-xsd-wire: %s\n", err);
        abort();
    }
    free(conn.out);
    free(conn.marks);
    free(s.introduced);
    hv_destroy(hv);
    return 0;
}
