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
 * The registry is one list: a write costs one pass over every watch,
 * nothing when there are none (the benchmarks' case).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xsd-private.h"

int xsd_watch_add(struct xsd_server *s, struct xsd_conn *c, const char *path,
                  const char *abs, const char *token)
{
    struct xsd_watch *w;

    for ( w = s->watches; w; w = w->next )
        if ( w->conn == c && strcmp(w->path, path) == 0 &&
             strcmp(w->token, token) == 0 )
            return -EEXIST;
    if ( c->nr_watches >= s->opts.max_watches )
        return -ENOSPC;
    w = calloc(1, sizeof(*w));
    if ( w == NULL )
        return -ENOMEM;
    w->conn = c;
    w->path = strdup(path);
    w->abs = strdup(abs);
    w->token = strdup(token);
    if ( !w->path || !w->abs || !w->token )
    {
        free(w->path);
        free(w->abs);
        free(w->token);
        free(w);
        return -ENOMEM;
    }
    w->abs_len = strlen(abs);
    w->relative = path[0] != '/' && path[0] != '@';
    w->next = s->watches;
    s->watches = w;
    s->nr_watches++;
    c->nr_watches++;
    return 0;
}

static void unlink_watch(struct xsd_server *s, struct xsd_watch **pp)
{
    struct xsd_watch *w = *pp;

    *pp = w->next;
    s->nr_watches--;
    w->conn->nr_watches--;
    free(w->path);
    free(w->abs);
    free(w->token);
    free(w);
}

int xsd_watch_del(struct xsd_server *s, struct xsd_conn *c, const char *path,
                  const char *token)
{
    struct xsd_watch **pp;

    for ( pp = &s->watches; *pp; pp = &(*pp)->next )
        if ( (*pp)->conn == c && strcmp((*pp)->path, path) == 0 &&
             strcmp((*pp)->token, token) == 0 )
        {
            unlink_watch(s, pp);
            return 0;
        }
    return -ENOENT;
}

void xsd_watch_del_conn(struct xsd_server *s, struct xsd_conn *c)
{
    struct xsd_watch **pp = &s->watches;

    while ( *pp )
        if ( (*pp)->conn == c )
            unlink_watch(s, pp);
        else
            pp = &(*pp)->next;
}

/* Is @a (@alen bytes) @b or an ancestor of @b? */
static bool covers(const char *a, size_t alen, const char *b, size_t blen)
{
    if ( alen == 1 && a[0] == '/' )
        return b[0] == '/';
    return blen >= alen && memcmp(a, b, alen) == 0 &&
           (blen == alen || b[alen] == '/');
}

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

void xsd_watch_fire(struct xsd_server *s, const char *abs, bool rm)
{
    size_t len = strlen(abs);
    struct xsd_watch *w;

    for ( w = s->watches; w; w = w->next )
    {
        if ( w->abs[0] == '@' )
            continue; /* special: not a node's */
        if ( covers(w->abs, w->abs_len, abs, len) )
            event(s, w, abs);
        else if ( rm && covers(abs, len, w->abs, w->abs_len) )
            event(s, w, w->abs);
    }
}

void xsd_watch_fire_special(struct xsd_server *s, const char *name)
{
    struct xsd_watch *w;

    for ( w = s->watches; w; w = w->next )
        if ( strcmp(w->abs, name) == 0 )
            event(s, w, name);
}
