/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals of hvbench xenstored shared by its files (xsd/xenstored.h
 * lists them): a connection, the server, the watch registry.
 */
#ifndef XSD_PRIVATE_H
#define XSD_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <xsd/wire.h>
#include <xsd/xenstored.h>

#define XSD_HOME "/local/domain/0/" /* relative paths of a socket client */

/*
 * The doubly-linked lists here (connections, watched paths, a
 * connection's watches): @e in at the head of @head, or out of it, by
 * its @next and @prev fields.
 */
#define XSD_DL_PUSH(head, e, next, prev) \
    do                                   \
    {                                    \
        (e)->prev = NULL;                \
        (e)->next = (head);              \
        if ( head )                      \
            (head)->prev = (e);          \
        (head) = (e);                    \
    } while ( 0 )
#define XSD_DL_UNLINK(head, e, next, prev) \
    do                                     \
    {                                      \
        if ( (e)->prev )                   \
            (e)->prev->next = (e)->next;   \
        else                               \
            (head) = (e)->next;            \
        if ( (e)->next )                   \
            (e)->next->prev = (e)->prev;   \
    } while ( 0 )

/* A modification made in a transaction, fired at its commit. */
struct xsd_wop {
    char *path; /* absolute */
    bool rm;
};

/* A transaction a connection started (the model's tid). */
struct xsd_txn {
    struct xsd_txn *next;
    uint32_t id;
    struct xsd_wop *wops;
    unsigned int nr_wops, cap_wops;
};

/* A queued message's end in the output stream, for the limits. */
struct xsd_mark {
    uint64_t end;
    bool event;
};

struct xsd_conn {
    struct xsd_conn *next, *prev; /* every connection */
    struct xsd_conn *dirty_next;  /* output to flush this round */
    bool dirty, reading, closing;
    int fd;
    bool ro;
    unsigned int id; /* "A<id>" in the log, as oxenstored names them */
    uint8_t in[XSD_MSG_MAX];
    size_t in_len;
    uint8_t *out; /* out[out_off, out_len) not yet written */
    size_t out_off, out_len, out_cap;
    uint64_t appended, sent; /* bytes, over the connection's life */
    struct xsd_mark *marks;  /* ring of queued messages */
    unsigned int mark_head, nr_marks, cap_marks;
    unsigned int replies, events; /* queued, not yet written */
    uint64_t dropped; /* events dropped since the queue was last below
                         the limit (0: not dropping) */
    unsigned int nr_watches;
    struct xsd_watch *watches;
    struct xsd_txn *txns;
    unsigned int nr_txns;
};

/* An entry of a chained hash table (watch.c), first in its struct. */
struct xsd_hent {
    struct xsd_hent *next;
    uint32_t hash;
};

struct xsd_htab {
    struct xsd_hent **b;
    size_t mask, n; /* buckets - 1, entries */
};

/* A watched path: absolute, or the special "@..." name. */
struct xsd_wpath {
    struct xsd_hent hent;                  /* in s->wpaths, by path */
    struct xsd_wpath *all_next, *all_prev; /* every watched path */
    struct xsd_watch *first, *last;        /* its watches, in order */
    size_t len;
    char path[];
};

struct xsd_watch {
    struct xsd_hent hent;            /* in s->watch_tab: conn, wp, token */
    struct xsd_watch *next, *prev;   /* on its path */
    struct xsd_watch *cnext, *cprev; /* the connection's */
    struct xsd_conn *conn;
    struct xsd_wpath *wp;
    const char *path; /* as the client gave it (the initial event's
                         path): wp's, or its end after XSD_HOME */
    bool relative;    /* events carry paths relative to XSD_HOME */
    char token[];
};

struct xsd_server {
    struct hv_xs *xs;
    struct xsd_opts opts;
    int lfd[2];  /* read-write, read-only listening sockets, or -1 */
    int stop_fd; /* eventfd */
    int epfd;
    int spare_fd;       /* given up to accept and drop a client at EMFILE */
    bool accept_paused; /* listening sockets out of the epoll set */
    time_t paused_at;   /* when they left it */
    uint64_t drops_unlogged; /* clients dropped since the last log line */
    time_t drops_logged_at;
    struct xsd_conn *conns, *dirty;
    unsigned int next_id;
    struct xsd_htab wpaths, watch_tab;
    uint32_t hash_seed; /* FNV-1a basis, random */
    struct xsd_wpath *all_wpaths;
    size_t wpath_max_len; /* the longest node path watched so far */
    unsigned int nr_watches;
    size_t watch_bytes;
    unsigned int nr_txns;
    uint8_t *introduced; /* bitmap by domid */
    struct xsd_server_stats stats;
};

/* server.c: queue a message on @c (reply or event); false if dropped. */
bool xsd_queue(struct xsd_server *s, struct xsd_conn *c, uint32_t type,
               uint32_t req_id, uint32_t tx_id, const void *payload,
               size_t len);
void xsd_queue_error(struct xsd_server *s, struct xsd_conn *c,
                     const struct xsd_hdr *h, int err);
void xsd_log(struct xsd_server *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* @str made safe for a log line (every client string goes through it). */
const char *xsd_esc(char *out, size_t cap, const char *str);
#define XSD_ESC_LEN 264 /* a buffer for xsd_esc: 64 bytes of any kind */

/* dispatch.c */
void xsd_dispatch(struct xsd_server *s, struct xsd_conn *c,
                  const struct xsd_hdr *h, const uint8_t *body);
/* The connection goes: abort its transactions, drop its watches. */
void xsd_conn_forget(struct xsd_server *s, struct xsd_conn *c);

/* watch.c */
/* 0, -EEXIST, -ENOSPC (a limit), -ENOMEM. */
int xsd_watch_add(struct xsd_server *s, struct xsd_conn *c, const char *path,
                  const char *abs, const char *token);
/* The watch of @c on @abs (absolute, or "@name") with @token; -ENOENT. */
int xsd_watch_del(struct xsd_server *s, struct xsd_conn *c, const char *abs,
                  const char *token);
void xsd_watch_del_conn(struct xsd_server *s, struct xsd_conn *c);
void xsd_watch_destroy(struct xsd_server *s);
/* The node @abs changed (@rm: removed with its subtree): queue the events. */
void xsd_watch_fire(struct xsd_server *s, const char *abs, bool rm);
/* The daemon's event @name ("@releaseDomain"): its special watches. */
void xsd_watch_fire_special(struct xsd_server *s, const char *name);

#endif /* XSD_PRIVATE_H */
