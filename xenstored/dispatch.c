/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One request of one connection onto the model's store.  The store's
 * answers are the model's (hv_xs_request(), caller dom0); what is added
 * here is what the model leaves out:
 *
 *  - exactly one reply per request: the request's type (or ERROR with
 *    the errno name), req_id and tx_id echoed;
 *  - transactions belong to the connection that started them: another
 *    connection's tid, or one never started, is ENOENT; a connection
 *    that goes (or sends RESET_WATCHES) aborts its own;
 *  - watches (watch.c): the reply first, then the events, as oxenstored
 *    sends them; in a transaction the changes fire at a successful commit;
 *  - domains: INTRODUCE / RELEASE / IS_DOMAIN_INTRODUCED over a set of
 *    domids (there is no ring to map); RELEASE is the model's
 *    hv_xs_domain_release();
 *  - DIRECTORY_PART, from the model's full child list (libxenstore falls
 *    back to it when DIRECTORY says E2BIG);
 *  - the read-only socket: every request that could change the store or
 *    the daemon is EACCES;
 *  - the requests that never reach the store (watches, domains, CONTROL)
 *    pay its per-packet quota copy all the same (hv_xs_request_bare), as
 *    oxenstored makes every packet's transaction before its type is
 *    looked at (process.ml process_packet).
 *
 * Worked example (libxenstore, xs_transaction_start + xs_write + end):
 *   TRANSACTION_START tx 0 "\0"        -> "7\0"   (the model's tid 7)
 *   WRITE tx 7 "/a\0v"                 -> "OK\0"  (queued wop /a)
 *   TRANSACTION_END tx 7 "T\0"         -> "OK\0", then events for /a
 * Had another connection sent WRITE tx 7, it would get ENOENT.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/types.h>
#include <hv/xenstore.h>

#include "xsd-private.h"

static const char ok[] = "OK";

static void reply(struct xsd_server *s, struct xsd_conn *c,
                  const struct xsd_hdr *h, const void *p, size_t len)
{
    xsd_queue(s, c, h->type, h->req_id, h->tx_id, p, len);
}

static struct xsd_txn *find_txn(struct xsd_conn *c, uint32_t id,
                                struct xsd_txn ***prevp)
{
    struct xsd_txn **pp, *t;

    for ( pp = &c->txns; (t = *pp) != NULL; pp = &t->next )
        if ( t->id == id )
        {
            if ( prevp )
                *prevp = pp;
            return t;
        }
    return NULL;
}

/* @t has left @c's list: free it, out of the limits' counts. */
static void free_txn(struct xsd_server *s, struct xsd_conn *c,
                     struct xsd_txn *t)
{
    unsigned int i;

    c->nr_txns--;
    s->nr_txns--;

    for ( i = 0; i < t->nr_wops; i++ )
        free(t->wops[i].path);
    free(t->wops);
    free(t);
}

void xsd_conn_forget(struct xsd_server *s, struct xsd_conn *c)
{
    struct xsd_txn *t;

    while ( (t = c->txns) != NULL )
    {
        c->txns = t->next;
        hv_xs_txn_end(s->xs, 0, t->id, false);
        free_txn(s, c, t);
    }
    xsd_watch_del_conn(s, c);
}

/* A change: fire now, or at the commit of its transaction. */
static void changed(struct xsd_server *s, struct xsd_txn *t, const char *path,
                    bool rm)
{
    char abs[HV_XS_ABS_PATH_MAX + sizeof(XSD_HOME)];
    struct xsd_wop *w;

    if ( t == NULL && s->nr_watches == 0 )
        return;
    /* the model took it: "/a", "rel" (under XSD_HOME), "@x" (the node /@x) */
    if ( hv_xs_path_abs(path, 0, abs, sizeof(abs)) )
        return;
    if ( t == NULL )
    {
        xsd_watch_fire(s, abs, rm);
        return;
    }
    if ( t->nr_wops == t->cap_wops )
    {
        unsigned int cap = t->cap_wops ? t->cap_wops * 2 : 8;

        w = realloc(t->wops, sizeof(*w) * cap);
        if ( w == NULL )
            return; /* the commit goes on; its events are lost (logged) */
        t->wops = w;
        t->cap_wops = cap;
    }
    w = &t->wops[t->nr_wops];
    w->path = strdup(abs);
    w->rm = rm;
    if ( w->path )
        t->nr_wops++;
}

/*
 * A decimal domid that is all of @s (@len bytes): leading zeros are
 * fine ("0007" is 7), anything else but digits, nothing, or a value of
 * DOMID_FIRST_RESERVED or more is -EINVAL.
 */
static int parse_domid(const char *s, size_t len, domid_t *out)
{
    unsigned long id = 0;
    size_t i;

    if ( len == 0 )
        return -EINVAL;
    for ( i = 0; i < len; i++ )
    {
        if ( s[i] < '0' || s[i] > '9' )
            return -EINVAL;
        id = id * 10 + (unsigned long)(s[i] - '0');
        if ( id >= DOMID_FIRST_RESERVED )
            return -EINVAL;
    }
    *out = (domid_t)id;
    return 0;
}

/* "n5", "r0", "w7", "b3": the letter and a decimal domid. */
static int parse_perm(const char *s, struct hv_xs_perm *p)
{
    static const char letters[] = "nrwb";
    const char *l = s[0] ? strchr(letters, s[0]) : NULL;

    if ( l == NULL || parse_domid(s + 1, strlen(s + 1), &p->id) )
        return -EINVAL;
    p->perm = (uint8_t)(l - letters);
    return 0;
}

static bool is_change(uint32_t type)
{
    switch ( type )
    {
    case XSD_WRITE:
    case XSD_MKDIR:
    case XSD_RM:
    case XSD_SET_PERMS:
    case XSD_INTRODUCE:
    case XSD_RELEASE:
    case XSD_RESUME:
    case XSD_SET_TARGET:
    case XSD_CONTROL:
        return true;
    default:
        return false;
    }
}

/* The model's answer to a store request, and its events. */
static void store_op(struct xsd_server *s, struct xsd_conn *c,
                     const struct xsd_hdr *h, const struct xsd_req *r,
                     struct xsd_txn *t)
{
    struct hv_xs_perm perms[XSD_MAX_ARGS];
    char buf[HV_XS_PAYLOAD_MAX], e1[XSD_ESC_LEN], e2[XSD_ESC_LEN];
    struct hv_xs_req q = {.caller = 0, .tid = h->tx_id, .path = r->args[0]};
    struct hv_xs_rsp rsp = {.buf = buf, .cap = sizeof(buf)};
    bool fire = true;
    unsigned int i;
    int rc;

    switch ( r->type )
    {
    case XSD_READ:
        q.op = HV_XS_READ;
        break;
    case XSD_DIRECTORY:
        q.op = HV_XS_DIRECTORY;
        break;
    case XSD_GET_PERMS:
        q.op = HV_XS_GET_PERMS;
        break;
    case XSD_WRITE:
        q.op = HV_XS_WRITE;
        q.value = r->value;
        q.value_len = r->value_len;
        break;
    case XSD_MKDIR:
        q.op = HV_XS_MKDIR;
        /* An existing node is success without an event (both daemons). */
        if ( t == NULL && s->nr_watches &&
             hv_xs_read(s->xs, 0, 0, r->args[0], buf, sizeof(buf), NULL) !=
                 -ENOENT )
            fire = false;
        break;
    case XSD_RM:
        q.op = HV_XS_RM;
        break;
    default: /* XSD_SET_PERMS */
        q.op = HV_XS_SET_PERMS;
        q.nr_perms = r->nargs - 1;
        for ( i = 1; i < r->nargs; i++ )
            if ( parse_perm(r->args[i], &perms[i - 1]) )
            {
                xsd_log(s, "A%u: SET_PERMS %s: bad permission '%s'", c->id,
                        xsd_esc(e1, sizeof(e1), r->args[0]),
                        xsd_esc(e2, sizeof(e2), r->args[i]));
                s->stats.bad_requests++;
                xsd_queue_error(s, c, h, EINVAL);
                return;
            }
        q.perms = perms;
        break;
    }
    rc = hv_xs_request(s->xs, &q, &rsp);
    if ( rc )
    {
        if ( rc == -EINVAL )
            xsd_log(s, "A%u: %s %s: EINVAL", c->id, xsd_type_name(h->type),
                    xsd_esc(e1, sizeof(e1), r->args[0]));
        xsd_queue_error(s, c, h, -rc);
        return;
    }
    if ( q.op == HV_XS_READ || q.op == HV_XS_DIRECTORY ||
         q.op == HV_XS_GET_PERMS )
    {
        reply(s, c, h, buf, rsp.len);
        return;
    }
    reply(s, c, h, ok, sizeof(ok));
    if ( fire )
        changed(s, t, r->args[0], q.op == HV_XS_RM);
}

/*
 * DIRECTORY_PART (cxenstored's send_directory_part): "<gen>\0" and the
 * child list from byte @off, cut at a name, with one more NUL when it
 * reaches the end.  The model keeps no generation count: <gen> is a hash
 * of the whole list, which changes when the list does (all the client
 * needs: it restarts when <gen> changes between parts).
 */
static void directory_part(struct xsd_server *s, struct xsd_conn *c,
                           const struct xsd_hdr *h, const struct xsd_req *r)
{
    struct hv_xs_req q = {.op = HV_XS_DIRECTORY,
                          .caller = 0,
                          .tid = h->tx_id,
                          .path = r->args[0]};
    struct hv_xs_rsp rsp = {.cap = 65536};
    char out[XSD_PAYLOAD_MAX];
    uint64_t gen = 0xcbf29ce484222325ull;
    size_t i, off = r->num[0], len = 0, genlen, l;
    int rc;

    for ( ;; )
    {
        rsp.buf = malloc(rsp.cap);
        if ( rsp.buf == NULL )
        {
            xsd_queue_error(s, c, h, ENOMEM);
            return;
        }
        rc = hv_xs_request(s->xs, &q, &rsp);
        if ( rc != -E2BIG || rsp.len <= rsp.cap )
            break;
        free(rsp.buf);
        rsp.cap = rsp.len;
    }
    if ( rc )
    {
        free(rsp.buf);
        xsd_queue_error(s, c, h, -rc);
        return;
    }
    for ( i = 0; i < rsp.len; i++ )
        gen = (gen ^ (uint8_t)rsp.buf[i]) * 0x100000001b3ull;
    genlen = (size_t)snprintf(out, sizeof(out), "%" PRIu64, gen) + 1;
    if ( off < rsp.len )
    {
        while ( off + len < rsp.len )
        {
            l = strlen(rsp.buf + off + len) + 1;
            if ( genlen + len + l + 1 > sizeof(out) )
                break;
            len += l;
        }
        memcpy(out + genlen, rsp.buf + off, len);
    }
    if ( off >= rsp.len || off + len == rsp.len )
        out[genlen + len++] = '\0';
    free(rsp.buf);
    reply(s, c, h, out, genlen + len);
}

static void txn_start(struct xsd_server *s, struct xsd_conn *c,
                      const struct xsd_hdr *h)
{
    struct xsd_txn *t;
    char id[16];
    uint32_t tid;
    int rc;

    if ( h->tx_id )
    {
        xsd_queue_error(s, c, h, EBUSY);
        return;
    }
    if ( c->nr_txns >= s->opts.max_transactions ||
         s->nr_txns >= s->opts.max_transactions_total )
    {
        xsd_queue_error(s, c, h, ENOSPC); /* oxenstored: EQUOTA */
        return;
    }
    t = calloc(1, sizeof(*t));
    if ( t == NULL )
    {
        xsd_queue_error(s, c, h, ENOMEM);
        return;
    }
    rc = hv_xs_txn_start(s->xs, 0, &tid);
    if ( rc )
    {
        free(t);
        xsd_queue_error(s, c, h, -rc);
        return;
    }
    t->id = tid;
    t->next = c->txns;
    c->txns = t;
    c->nr_txns++;
    s->nr_txns++;
    reply(s, c, h, id, (size_t)snprintf(id, sizeof(id), "%u", tid) + 1);
}

static void txn_end(struct xsd_server *s, struct xsd_conn *c,
                    const struct xsd_hdr *h, const struct xsd_req *r)
{
    struct xsd_txn **pp, *t = find_txn(c, h->tx_id, &pp);
    unsigned int i;
    int rc;

    if ( t == NULL )
    {
        xsd_queue_error(s, c, h, ENOENT);
        return;
    }
    *pp = t->next;
    rc = hv_xs_txn_end(s->xs, 0, t->id, r->commit);
    if ( rc )
        xsd_queue_error(s, c, h, -rc);
    else
    {
        reply(s, c, h, ok, sizeof(ok));
        for ( i = 0; r->commit && i < t->nr_wops; i++ )
            xsd_watch_fire(s, t->wops[i].path, t->wops[i].rm);
    }
    free_txn(s, c, t);
}

static void watch(struct xsd_server *s, struct xsd_conn *c,
                  const struct xsd_hdr *h, const struct xsd_req *r)
{
    char abs[HV_XS_ABS_PATH_MAX + sizeof(XSD_HOME)], ev[XSD_PAYLOAD_MAX];
    char e[XSD_ESC_LEN];
    const char *path = r->args[0], *token = r->args[1];
    size_t pl = strlen(path) + 1, tl = strlen(token) + 1;
    int rc;

    /*
     * The model says whether the path is one: EINVAL, or E2BIG (too
     * long).  "@name" is a special watch (the event's name, as both
     * daemons take it) with the characters of a path; a node /@name
     * is a watch of its own.  A watch is known by its absolute path
     * (UNWATCH "/local/domain/0/a" ends the watch "a", as there).
     */
    rc = hv_xs_path_abs(path, 0, abs, sizeof(abs));
    if ( rc == 0 && path[0] == '@' )
        memmove(abs, abs + 1, strlen(abs));
    if ( h->type == XSD_UNWATCH )
    {
        rc = rc ? -ENOENT : xsd_watch_del(s, c, abs, token);
        if ( rc )
            xsd_queue_error(s, c, h, -rc);
        else
            reply(s, c, h, ok, sizeof(ok));
        return;
    }
    if ( rc == 0 )
        rc = xsd_watch_add(s, c, path, abs, token);
    if ( rc )
    {
        if ( rc == -EINVAL )
            xsd_log(s, "A%u: WATCH %s: EINVAL", c->id,
                    xsd_esc(e, sizeof(e), path));
        xsd_queue_error(s, c, h, -rc);
        return;
    }
    reply(s, c, h, ok, sizeof(ok));
    memcpy(ev, path, pl);
    memcpy(ev + pl, token, tl);
    xsd_queue(s, c, XSD_WATCH_EVENT, 0, 0, ev, pl + tl);
}

static bool introduced(struct xsd_server *s, unsigned long id)
{
    return id == 0 || (s->introduced[id / 8] & (1u << (id % 8)));
}

static void domain_op(struct xsd_server *s, struct xsd_conn *c,
                      const struct xsd_hdr *h, const struct xsd_req *r)
{
    unsigned long id = r->num[0];
    char buf[64];
    int rc;

    if ( id >= DOMID_FIRST_RESERVED ||
         (r->type == XSD_SET_TARGET && r->num[1] >= DOMID_FIRST_RESERVED) )
    {
        xsd_queue_error(s, c, h, EINVAL);
        return;
    }
    switch ( r->type )
    {
    case XSD_GET_DOMAIN_PATH:
        reply(s, c, h, buf,
              (size_t)snprintf(buf, sizeof(buf), "/local/domain/%lu", id) + 1);
        return;
    case XSD_IS_DOMAIN_INTRODUCED:
        reply(s, c, h, introduced(s, id) ? "T" : "F", 2);
        return;
    case XSD_INTRODUCE:
        if ( id == 0 )
        {
            xsd_queue_error(s, c, h, EINVAL);
            return;
        }
        s->introduced[id / 8] |= 1u << (id % 8);
        reply(s, c, h, ok, sizeof(ok));
        xsd_watch_fire_special(s, "@introduceDomain");
        return;
    case XSD_RELEASE:
        if ( id == 0 || !introduced(s, id) )
        {
            xsd_queue_error(s, c, h, EINVAL);
            return;
        }
        rc = hv_xs_domain_release(s->xs, (domid_t)id);
        if ( rc )
        {
            xsd_queue_error(s, c, h, -rc);
            return;
        }
        s->introduced[id / 8] &= ~(1u << (id % 8));
        reply(s, c, h, ok, sizeof(ok));
        xsd_watch_fire_special(s, "@releaseDomain");
        return;
    case XSD_RESUME:
        if ( !introduced(s, id) )
            xsd_queue_error(s, c, h, ENOENT);
        else
            reply(s, c, h, ok, sizeof(ok));
        return;
    default: /* SET_TARGET: the model has no device-model targets */
        xsd_queue_error(s, c, h, ENOSYS);
        return;
    }
}

/*
 * CONTROL commands (xenstore-control CMD): "check" (quota == recount of
 * owners), "quota DOMID" (its node count), "stats" (the model's and the
 * daemon's counters), "help".
 */
static void control(struct xsd_server *s, struct xsd_conn *c,
                    const struct xsd_hdr *h, const struct xsd_req *r)
{
    static const char help[] = "check\nquota DOMID\nstats\nhelp\n";
    const char *cmd = r->args[0];
    char buf[1024], e[4 * sizeof(buf)];
    struct hv_xs_stats st;
    domid_t id;
    size_t n;
    int len;

    if ( strcmp(cmd, "check") == 0 )
    {
        if ( hv_xs_check(s->xs, buf, sizeof(buf)) )
        {
            xsd_log(s, "A%u: CONTROL check: %s", c->id,
                    xsd_esc(e, sizeof(e), buf));
            xsd_queue_error(s, c, h, EINVAL);
        }
        else
            reply(s, c, h, ok, sizeof(ok));
        return;
    }
    if ( strcmp(cmd, "quota") == 0 )
    {
        /* xenstore-control sends "7\0"; by hand it may be "7\n" */
        n = r->value_len;
        if ( n && r->value[n - 1] == '\0' )
            n--;
        if ( n && r->value[n - 1] == '\n' )
            n--;
        if ( parse_domid(r->value, n, &id) )
        {
            xsd_queue_error(s, c, h, EINVAL);
            return;
        }
        len = snprintf(buf, sizeof(buf), "%d\n", hv_xs_quota(s->xs, id));
        reply(s, c, h, buf, (size_t)len + 1);
        return;
    }
    if ( strcmp(cmd, "stats") == 0 )
    {
        hv_xs_get_stats(s->xs, &st);
        len = snprintf(
            buf, sizeof(buf),
            "nodes %" PRIu64 "\nquota_copies %" PRIu64 "\ncommits_fast %" PRIu64
            "\ncommits_coalesce %" PRIu64 "\ncommits_replay %" PRIu64
            "\nconflicts %" PRIu64 "\nopen_txns %u\nconnections %" PRIu64
            "\nrequests %" PRIu64 "\nerrors %" PRIu64 "\nbad_requests %" PRIu64
            "\nframing_errors %" PRIu64 "\nevents %" PRIu64
            "\nevents_dropped %" PRIu64 "\naccept_dropped %" PRIu64
            "\nwatches %u\nwatch_bytes %zu\nwatch_steps %" PRIu64
            "\ntransactions %u\n",
            st.nodes, st.quota_copies, st.commits_fast, st.commits_coalesce,
            st.commits_replay, st.conflicts, st.open_txns, s->stats.connections,
            s->stats.requests, s->stats.errors, s->stats.bad_requests,
            s->stats.framing_errors, s->stats.events, s->stats.events_dropped,
            s->stats.accept_dropped, s->nr_watches, s->watch_bytes,
            s->stats.watch_steps, s->nr_txns);
        reply(s, c, h, buf, (size_t)len + 1);
        return;
    }
    if ( strcmp(cmd, "help") == 0 )
    {
        reply(s, c, h, help, sizeof(help));
        return;
    }
    xsd_log(s, "A%u: CONTROL %s: unknown command", c->id,
            xsd_esc(e, sizeof(e), cmd));
    xsd_queue_error(s, c, h, EINVAL);
}

void xsd_dispatch(struct xsd_server *s, struct xsd_conn *c,
                  const struct xsd_hdr *h, const uint8_t *body)
{
    struct xsd_txn *t = NULL;
    struct xsd_req r;
    int err;

    s->stats.requests++;
    err = xsd_decode(h->type, body, h->len, &r);
    if ( err )
    {
        xsd_log(s, "A%u: bad %s request (type %u, %u bytes): %s", c->id,
                xsd_type_name(h->type), h->type, h->len, xsd_errno_name(err));
        s->stats.bad_requests++;
        xsd_queue_error(s, c, h, err);
        return;
    }
    if ( c->ro && is_change(h->type) )
    {
        xsd_queue_error(s, c, h, EACCES);
        return;
    }
    switch ( h->type )
    {
    case XSD_READ:
    case XSD_DIRECTORY:
    case XSD_GET_PERMS:
    case XSD_WRITE:
    case XSD_MKDIR:
    case XSD_RM:
    case XSD_SET_PERMS:
    case XSD_DIRECTORY_PART:
        if ( h->tx_id && (t = find_txn(c, h->tx_id, NULL)) == NULL )
        {
            xsd_queue_error(s, c, h, ENOENT);
            return;
        }
        if ( h->type == XSD_DIRECTORY_PART )
            directory_part(s, c, h, &r);
        else
            store_op(s, c, h, &r, t);
        return;
    case XSD_TRANSACTION_START:
        txn_start(s, c, h);
        return;
    case XSD_TRANSACTION_END:
        txn_end(s, c, h, &r);
        return;
    default:
        break;
    }
    /*
     * The rest never reach the store, but pay its per-packet copy (WATCH's
     * path check is hv_xs_path_abs(), which reads nothing).
     */
    if ( h->tx_id == 0 || h->type == XSD_UNWATCH || h->type == XSD_WATCH )
        (void)hv_xs_request_bare(s->xs);
    switch ( h->type )
    {
    case XSD_WATCH:
    case XSD_UNWATCH:
        watch(s, c, h, &r);
        return;
    case XSD_RESET_WATCHES:
        xsd_conn_forget(s, c);
        reply(s, c, h, ok, sizeof(ok));
        return;
    case XSD_CONTROL:
        control(s, c, h, &r);
        return;
    default:
        domain_op(s, c, h, &r);
        return;
    }
}
