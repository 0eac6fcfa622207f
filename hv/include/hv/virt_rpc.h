/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libvirtd RPC layer (virNetServer, seed 003): a bounded worker pool
 * and a per-client in-flight cap.
 *
 *  - max_workers workers take any call, oldest first; prio_workers more
 *    take only priority calls (domainDestroy and the like), so those
 *    still run when every ordinary worker is stuck;
 *  - a client (one connection) has at most max_client_requests calls in
 *    flight; the server does not read its later calls until one ends, so
 *    they wait (libvirtd stops polling the socket).
 *
 * hv_rpc_call() is synchronous: the caller's thread blocks until a
 * worker has run the call.  The transport is in-process (a queue under
 * the "virNetServer" lock, not a socket): what is studied is the pool
 * and the caps.  Saturation figures come from hv_rpc_stats().
 */
#ifndef HV_VIRT_RPC_H
#define HV_VIRT_RPC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <hv/compiler.h>

struct hv_rpc_server;
struct hv_rpc_client;

struct hv_rpc_config {
    unsigned int max_workers;         /* libvirtd.conf default 20 */
    unsigned int prio_workers;        /* default 5 */
    unsigned int max_client_requests; /* default 5 */
};

/* One call.  fn runs on a worker; its return value is the call's. */
struct hv_rpc_call {
    int (*fn)(void *arg);
    void *arg;
    bool prio;
    /* Filled in by the server: */
    int rc;
    uint64_t t_submit, t_read, t_start, t_end; /* ns, hv_now_ns() */
    /* Private: */
    struct hv_rpc_call *next;
    struct hv_rpc_client *client;
    unsigned int trace_tid; /* the caller's row on the timeline */
    pthread_cond_t done_cond;
    bool done;
};

struct hv_rpc_stats {
    uint64_t calls;
    uint64_t throttled, throttle_ns; /* held by the client cap */
    uint64_t queued, queue_ns;       /* read with every worker taken; wait */
    unsigned int busy_max;           /* most ordinary workers busy at once */
    uint64_t busy_ns;                /* integral of busy workers over time */
    uint64_t elapsed_ns;             /* since creation or the last reset */
    unsigned int max_workers;
};

void hv_rpc_config_init(struct hv_rpc_config *cfg);

/* Start the workers.  0, -EINVAL (@err) or -errno. */
int HV_MUST_CHECK hv_rpc_server_create(const struct hv_rpc_config *cfg,
                                       struct hv_rpc_server **out, char *err,
                                       size_t len);
/* Stop and join the workers; no call may be in flight. */
void hv_rpc_server_destroy(struct hv_rpc_server *s);

struct hv_rpc_client *hv_rpc_client_open(struct hv_rpc_server *s);
void hv_rpc_client_close(struct hv_rpc_client *c);

/* Run @call through the server and wait for it; returns call->rc. */
int hv_rpc_call(struct hv_rpc_client *c, struct hv_rpc_call *call);

void hv_rpc_stats(struct hv_rpc_server *s, struct hv_rpc_stats *st);
void hv_rpc_stats_reset(struct hv_rpc_server *s);
/* The most calls in flight one client ever had (tests). */
unsigned int hv_rpc_client_inflight_max(struct hv_rpc_client *c);

#endif /* HV_VIRT_RPC_H */
