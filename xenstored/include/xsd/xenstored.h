/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvbench xenstored: the model's store (hv/xenstore/) behind the real
 * xenstore wire protocol on Unix sockets, for unmodified clients
 * (xenstore-utils, libxenstore, pyxs).  One store, two front doors: the
 * in-process API (hv/xenstore.h) and this server, which turns every
 * request into hv_xs_request() calls and adds what the model leaves out
 * (connections, watches, domain introduction).
 *
 *   wire.c      framing and bodies, no I/O (fuzzed)
 *   watch.c     the watch registry and event matching, no I/O
 *   dispatch.c  one request of one connection onto the model
 *   server.c    sockets, epoll loop, per-connection queues and limits
 *   client.c    a small blocking client (workloads, tests, xs-load)
 *   cmd.c       the "hvbench xenstored" command
 *
 * What others may use is in include/xsd/: this header (the server, and
 * the command for the table of commands), <xsd/client.h> and
 * <xsd/wire.h>; xsd-private.h is the daemon's own.  The daemon (library
 * hvb_xenstored) sees only the model; its command (hvb_xenstored_cmd)
 * sees the daemon and the harness's cmdline, and cli's table of
 * commands sees it: the house reads top to bottom.
 *
 * Every socket connection is dom0, as in oxenstored: the model's
 * permission checks and quota exemptions are dom0's.
 */
#ifndef XSD_XENSTORED_H
#define XSD_XENSTORED_H

#include <stdint.h>
#include <stdio.h>

struct hv_xs;
struct xsd_server;

struct xsd_opts {
    const char *socket;    /* read-write socket (required) */
    const char *ro_socket; /* read-only socket, or NULL */
    FILE *log;             /* one line per event worth a look; NULL: none */
    /* Per connection, oxenstored's defaults (0 takes them): */
    unsigned int max_outstanding;  /* replies not yet read; 1024 */
    unsigned int max_watch_events; /* events not yet read; 1024 */
    /*
     * Bounds on what a connection may hold, ENOSPC beyond (oxenstored's
     * EQUOTA).  oxenstored exempts dom0, and every socket client is
     * dom0: these are the daemon's, bounds on memory (0 takes the
     * default):
     */
    unsigned int max_watches;       /* per connection; 8192 */
    unsigned int max_watches_total; /* in all; 65536 */
    size_t max_watch_bytes;         /* their paths and tokens in all; 32 MiB */
    unsigned int max_transactions;  /* open per connection; 10 (the model's
                                       maxtxn, quota-transaction) */
    unsigned int max_transactions_total; /* open in all; 1024 */
};

/*
 * xsd_server_create - bind and listen on the sockets (a stale socket file
 * is replaced, a live one refused) and serve @xs once xsd_server_run()
 * runs.  0 or -errno with @err naming the problem in one line.
 */
int xsd_server_create(struct hv_xs *xs, const struct xsd_opts *opts,
                      struct xsd_server **out, char *err, size_t len);

/* Serve until xsd_server_stop(); 0, or -errno if the loop broke. */
int xsd_server_run(struct xsd_server *s);

/* Make xsd_server_run() return; async-signal-safe, any thread. */
void xsd_server_stop(struct xsd_server *s);

/* Close every connection (their transactions aborted), unlink sockets. */
void xsd_server_destroy(struct xsd_server *s);

struct xsd_server_stats {
    uint64_t connections, requests, errors, bad_requests, framing_errors;
    uint64_t events, events_dropped;
    uint64_t accept_dropped; /* clients taken and closed at EMFILE/ENFILE */
    uint64_t watch_steps;    /* registry entries visited: the watches' cost */
};

/*
 * "hvbench xenstored" (cmd.c): serve a model machine's store on the
 * sockets its options name; its row of hvb_commands[] (harness/cli/
 * commands.c) names these two.
 */
struct hvb_cmd_ctx;
struct hvb_cmd_doc;
int hvb_cmd_xenstored(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_xenstored;

#endif /* XSD_XENSTORED_H */
