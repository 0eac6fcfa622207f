/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Watches: which connection hears of which change, as oxenstored fires
 * them (connections.ml, connection.ml).  A change of the node P fires
 * every watch on P or an ancestor of P with the event path P; removing P
 * also fires every watch below P, with the watch's own path (it fires
 * even if that node never existed, as Trie.sub does there).  A watch given
 * a relative path hears paths relative to /local/domain/0/.  Special
 * watches ("@introduceDomain", "@releaseDomain") hear only the daemon's
 * event of their name (INTRODUCE, RELEASE), never a node's change: a
 * path beginning with '@' is never relative, and in a store request it
 * is the node under the root (WRITE "@introduceDomain" writes the node
 * /@introduceDomain and fires the watches on "/" and on that node, as
 * oxenstored does).
 *
 * Worked example, watches W1 "/a" and W2 "b/c" (relative, abs
 * /local/domain/0/b/c):
 *   write /a/x                     W1: "/a/x"
 *   rm /local/domain/0/b           W2: "b/c"   (its own path: below P)
 *   write /local/domain/0/b/c/d    W2: "b/c/d" (relative)
 *
 * The registry, so that neither a registration nor a change costs a
 * pass over every watch (65,536 watches on one connection took minutes
 * to register, and made every other client's WRITE 100x slower):
 *
 *   - a watched path (struct xsd_wpath: the absolute path, or the
 *     special name) is in a hash table by its string, with its watches
 *     in registration order; a change of /a/b/c looks up "/", "/a",
 *     "/a/b" and "/a/b/c" (one FNV-1a hash over the path, taken at each
 *     '/'), so it costs its depth, not the number of watches; the hash
 *     starts from a random seed per server, so that a client cannot
 *     choose paths that share a bucket;
 *   - a watch is in a second table by (connection, watched path, token),
 *     for the duplicate check and UNWATCH, and on its connection's list
 *     for the connection's end;
 *   - an RM also looks for watched paths below P: one pass over the
 *     distinct watched paths (bounded by max_watches_total), skipped
 *     when P is as long as the longest path watched so far.
 *
 * The limits (xsd/xenstored.h): watches per connection, watches in all,
 * and the bytes of their paths and tokens in all; ENOSPC beyond any
 * (oxenstored's EQUOTA, the daemon's mapping), before anything changes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xsd-private.h"

#define FNV_PRIME 16777619u

static uint32_t fnv(uint32_t h, const void *p, size_t len)
{
    const uint8_t *b = p;
    size_t i;

    for ( i = 0; i < len; i++ )
        h = (h ^ b[i]) * FNV_PRIME;
    return h;
}

/* ---- a chained hash table of struct xsd_hent, grown at load 1 ---- */

static struct xsd_hent **bucket(struct xsd_htab *t, uint32_t hash)
{
    return &t->b[hash & t->mask];
}

/* Insert @e (its hash set); false: out of memory (nothing changed). */
static bool htab_add(struct xsd_htab *t, struct xsd_hent *e)
{
    if ( t->n >= t->mask ) /* also the first: mask 0, no buckets */
    {
        size_t cap = t->b ? (t->mask + 1) * 2 : 64, i;
        struct xsd_hent **b = calloc(cap, sizeof(*b)), *x, *next;

        if ( b == NULL )
            return false;
        for ( i = 0; t->b && i <= t->mask; i++ )
            for ( x = t->b[i]; x; x = next )
            {
                next = x->next;
                x->next = b[x->hash & (cap - 1)];
                b[x->hash & (cap - 1)] = x;
            }
        free(t->b);
        t->b = b;
        t->mask = cap - 1;
    }
    e->next = *bucket(t, e->hash);
    *bucket(t, e->hash) = e;
    t->n++;
    return true;
}

static void htab_del(struct xsd_htab *t, struct xsd_hent *e)
{
    struct xsd_hent **pp = bucket(t, e->hash);

    while ( *pp != e )
        pp = &(*pp)->next;
    *pp = e->next;
    t->n--;
}

/* ---- watched paths ---- */

static struct xsd_wpath *wpath_find(struct xsd_server *s, const char *p,
                                    size_t len, uint32_t hash)
{
    struct xsd_hent *e;

    s->stats.watch_steps++;
    if ( s->wpaths.b == NULL )
        return NULL;
    for ( e = *bucket(&s->wpaths, hash); e; e = e->next )
    {
        struct xsd_wpath *wp = (struct xsd_wpath *)e;

        s->stats.watch_steps++;

        if ( e->hash == hash && wp->len == len &&
             memcmp(wp->path, p, len) == 0 )
            return wp;
    }
    return NULL;
}

static uint32_t watch_hash(const struct xsd_server *s, const struct xsd_conn *c,
                           const struct xsd_wpath *wp, const char *token)
{
    uint32_t h = fnv(s->hash_seed, &c->id, sizeof(c->id));

    h = fnv(h, &wp->hent.hash, sizeof(wp->hent.hash));
    return fnv(h, token, strlen(token));
}

static struct xsd_watch *watch_find(struct xsd_server *s, struct xsd_conn *c,
                                    const char *abs, const char *token)
{
    size_t len = strlen(abs);
    struct xsd_wpath *wp = wpath_find(s, abs, len, fnv(s->hash_seed, abs, len));
    struct xsd_hent *e;
    uint32_t h;

    if ( wp == NULL )
        return NULL;
    h = watch_hash(s, c, wp, token);
    for ( e = *bucket(&s->watch_tab, h); e; e = e->next )
    {
        struct xsd_watch *w = (struct xsd_watch *)e;

        s->stats.watch_steps++;

        if ( e->hash == h && w->conn == c && w->wp == wp &&
             strcmp(w->token, token) == 0 )
            return w;
    }
    return NULL;
}

/* A watched path without watches left. */
static void wpath_drop(struct xsd_server *s, struct xsd_wpath *wp)
{
    htab_del(&s->wpaths, &wp->hent);
    XSD_DL_UNLINK(s->all_wpaths, wp, all_next, all_prev);
    free(wp);
}

/* The bytes a watch holds against the limit: its strings, as sent. */
static size_t watch_bytes(const char *path, const char *token)
{
    return strlen(path) + strlen(token) + 2;
}

int xsd_watch_add(struct xsd_server *s, struct xsd_conn *c, const char *path,
                  const char *abs, const char *token)
{
    size_t alen = strlen(abs), hl = sizeof(XSD_HOME) - 1,
           tlen = strlen(token) + 1, bytes = watch_bytes(path, token);
    uint32_t ah = fnv(s->hash_seed, abs, alen);
    bool relative = path[0] != '/' && path[0] != '@';
    struct xsd_wpath *wp;
    struct xsd_watch *w;

    /* the client's path is @abs, or its end after XSD_HOME: not kept */
    if ( strcmp(relative && strncmp(abs, XSD_HOME, hl) == 0 ? abs + hl : abs,
                path) != 0 )
        return -EINVAL;
    if ( watch_find(s, c, abs, token) )
        return -EEXIST;
    if ( c->nr_watches >= s->opts.max_watches ||
         s->nr_watches >= s->opts.max_watches_total ||
         s->watch_bytes + bytes > s->opts.max_watch_bytes )
        return -ENOSPC;
    w = malloc(sizeof(*w) + tlen);
    if ( w == NULL )
        return -ENOMEM;
    wp = wpath_find(s, abs, alen, ah);
    if ( wp == NULL )
    {
        wp = calloc(1, sizeof(*wp) + alen + 1);
        if ( wp == NULL )
            goto nomem;
        memcpy(wp->path, abs, alen + 1);
        wp->len = alen;
        wp->hent.hash = ah;
        if ( !htab_add(&s->wpaths, &wp->hent) )
        {
            free(wp);
            goto nomem;
        }
        XSD_DL_PUSH(s->all_wpaths, wp, all_next, all_prev);
        if ( abs[0] == '/' && alen > s->wpath_max_len )
            s->wpath_max_len = alen;
    }
    memset(w, 0, sizeof(*w));
    w->conn = c;
    w->wp = wp;
    memcpy(w->token, token, tlen);
    w->path = wp->path + (relative ? hl : 0);
    w->relative = relative;
    w->hent.hash = watch_hash(s, c, wp, token);
    if ( !htab_add(&s->watch_tab, &w->hent) )
    {
        if ( wp->first == NULL )
            wpath_drop(s, wp);
        goto nomem;
    }
    /* at the end of its path's list: registration order */
    w->prev = wp->last;
    if ( wp->last )
        wp->last->next = w;
    else
        wp->first = w;
    wp->last = w;
    XSD_DL_PUSH(c->watches, w, cnext, cprev);
    s->nr_watches++;
    s->watch_bytes += bytes;
    c->nr_watches++;
    return 0;

nomem:
    free(w);
    return -ENOMEM;
}

static void unlink_watch(struct xsd_server *s, struct xsd_watch *w)
{
    struct xsd_wpath *wp = w->wp;
    struct xsd_conn *c = w->conn;

    htab_del(&s->watch_tab, &w->hent);
    if ( w->prev )
        w->prev->next = w->next;
    else
        wp->first = w->next;
    if ( w->next )
        w->next->prev = w->prev;
    else
        wp->last = w->prev;
    XSD_DL_UNLINK(c->watches, w, cnext, cprev);
    s->nr_watches--;
    s->watch_bytes -= watch_bytes(w->path, w->token);
    c->nr_watches--;
    if ( wp->first == NULL )
        wpath_drop(s, wp);
    free(w);
}

int xsd_watch_del(struct xsd_server *s, struct xsd_conn *c, const char *abs,
                  const char *token)
{
    struct xsd_watch *w = watch_find(s, c, abs, token);

    if ( w == NULL )
        return -ENOENT;
    unlink_watch(s, w);
    return 0;
}

void xsd_watch_del_conn(struct xsd_server *s, struct xsd_conn *c)
{
    while ( c->watches )
        unlink_watch(s, c->watches);
}

void xsd_watch_destroy(struct xsd_server *s)
{
    struct xsd_conn *c;

    for ( c = s->conns; c; c = c->next )
        xsd_watch_del_conn(s, c);
    free(s->wpaths.b);
    free(s->watch_tab.b);
}

/* ---- events ---- */

static void event(struct xsd_server *s, struct xsd_watch *w, const char *path)
{
    char buf[XSD_PAYLOAD_MAX], e[XSD_ESC_LEN];
    size_t hl = sizeof(XSD_HOME) - 1, pl, tl;

    if ( w->relative && strncmp(path, XSD_HOME, hl) == 0 )
        path += hl;
    pl = strlen(path) + 1;
    tl = strlen(w->token) + 1;
    if ( pl + tl > sizeof(buf) )
    {
        xsd_log(s, "A%u: watch event for %s too long, dropped", w->conn->id,
                xsd_esc(e, sizeof(e), path));
        s->stats.events_dropped++;
        return;
    }
    memcpy(buf, path, pl);
    memcpy(buf + pl, w->token, tl);
    if ( xsd_queue(s, w->conn, XSD_WATCH_EVENT, 0, 0, buf, pl + tl) )
        s->stats.events++;
}

static void fire_all(struct xsd_server *s, struct xsd_wpath *wp,
                     const char *path)
{
    struct xsd_watch *w;

    for ( w = wp->first; w; w = w->next )
    {
        s->stats.watch_steps++;
        event(s, w, path ? path : w->path);
    }
}

/* Is @a (@alen bytes) strictly below @b (@blen bytes, not "/")? */
static bool below(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen > blen && a[blen] == '/' && memcmp(a, b, blen) == 0;
}

void xsd_watch_fire(struct xsd_server *s, const char *abs, bool rm)
{
    size_t len = strlen(abs), i;
    struct xsd_wpath *wp;
    uint32_t h = s->hash_seed;

    if ( s->nr_watches == 0 )
        return;
    /* "/", then each ancestor at its '/', then @abs itself: root first */
    for ( i = 0; i < len; i++ )
    {
        if ( i == 1 || (i > 1 && abs[i] == '/') )
        {
            wp = wpath_find(s, abs, i, h);
            if ( wp )
                fire_all(s, wp, abs);
        }
        h = (h ^ (uint8_t)abs[i]) * FNV_PRIME;
    }
    wp = wpath_find(s, abs, len, h);
    if ( wp )
        fire_all(s, wp, abs);
    if ( !rm || len >= s->wpath_max_len )
        return;
    /* removed with its subtree: the watches below, their own path */
    for ( wp = s->all_wpaths; wp; wp = wp->all_next, s->stats.watch_steps++ )
        if ( wp->path[0] == '/' &&
             (len == 1 ? wp->len > 1 : below(wp->path, wp->len, abs, len)) )
            fire_all(s, wp, NULL);
}

void xsd_watch_fire_special(struct xsd_server *s, const char *name)
{
    size_t len = strlen(name);
    struct xsd_wpath *wp =
        wpath_find(s, name, len, fnv(s->hash_seed, name, len));

    if ( wp )
        fire_all(s, wp, name);
}
