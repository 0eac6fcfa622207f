/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small blocking xenstore client over a Unix socket: one request, one
 * reply, as libxenstore does it without its reader thread.  Watch events
 * that arrive before a reply are skipped (counted).  Used by the
 * xenstore-ls workload's client=socket, the daemon's tests and xs-load.
 *
 *   struct xsd_client *c;
 *   xsd_client_open("/tmp/s", &c);
 *   xsd_client_request(c, XSD_READ, 0, "/a", 3, buf, sizeof(buf), &len);
 */
#ifndef XSD_CLIENT_H
#define XSD_CLIENT_H

#include <stddef.h>
#include <stdint.h>

struct xsd_client;

/* 0 or -errno. */
int xsd_client_open(const char *path, struct xsd_client **out);
void xsd_client_close(struct xsd_client *c);

/*
 * xsd_client_request - send @type with @body (@len bytes) in transaction
 * @tx, wait for its reply.  0 and the reply's payload in @buf (@cap
 * bytes, *@rlen its length; @buf NULL: not wanted); -errno from an
 * ERROR reply; -EIO if the
 * connection broke or the reply does not match the request (type, req_id,
 * tx_id), -E2BIG if the reply does not fit @buf.
 */
int xsd_client_request(struct xsd_client *c, uint32_t type, uint32_t tx,
                       const void *body, size_t len, void *buf, size_t cap,
                       size_t *rlen);

/*
 * xsd_client_wait_event - block until a watch event of @token (NULL: any)
 * arrives (others are counted and skipped), at most @timeout_ms (-1: forever).
 * 0 and its path in @path (@cap bytes, may be NULL); -ETIMEDOUT, or -EIO
 * if the connection broke.  Call it only with no request outstanding.
 */
int xsd_client_wait_event(struct xsd_client *c, const char *token,
                          int timeout_ms, char *path, size_t cap);

/*
 * @c's waits for events are waits for work (a watcher's, which has
 * nothing else to do): the profiler calls them idle (hv/thread.h).  A
 * toolstack's wait for a backend's state is not.
 */
void xsd_client_idle_waits(struct xsd_client *c);

/* Watch events received so far (skipped or waited for). */
uint64_t xsd_client_events(const struct xsd_client *c);

#endif /* XSD_CLIENT_H */
