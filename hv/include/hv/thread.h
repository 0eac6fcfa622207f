/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a profiler tells the model's threads apart: their role, and the
 * waits where they have nothing to do.
 *
 * A role is the thread's name in the kernel (its comm, as ps -L, top and
 * perf show it), set once as the thread starts: boot-storm's toolstack
 * threads are "client", libvirtd's pool "libvirtd-worker", the xenstore
 * daemon's thread "xenstored".  The off-CPU and wall views of
 * hvbench profile put it at the root of each stack, so a storm of 1,800
 * threads reads as a few towers, one per role.  libvirt names its pool
 * threads the same way (virThreadPool: "rpc-libvirtd", "prio-rpc-...").
 *
 * An idle wait is one where the thread waits for work (a pool worker
 * with no call, a daemon with no request, a paced thread before its next
 * period), not for something it asked for (a reply, a lock).  The waits
 * below are those, each its own function so that its name is on the
 * stack: the views call their time "[off-cpu: idle]", and a differential
 * ranks it apart.  E.g. libvirtd's worker waiting for a call:
 *
 *   libvirtd-worker;start_thread;worker_main;hv_idle_cond_wait_at;
 *     pthread_cond_wait;...;[off-cpu: idle]
 */
#ifndef HV_THREAD_H
#define HV_THREAD_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>

#include <hv/lock.h>

/* The calling thread's role: at most 15 characters (longer is cut). */
void hv_thread_role(const char *role);
/*
 * The calling thread's role now, into @buf (16 bytes at least): to give
 * it back, where a thread takes a role for a while (a harness thread
 * that runs a workload's clients).
 */
void hv_thread_role_get(char *buf, size_t len);

/*
 * Idle waits: hv_cond_wait(), epoll_wait(2), poll(2) and a sleep to @deadline_ns
 * (CLOCK_MONOTONIC, hv_now_ns()) that the profiler knows as idle.
 */
void hv_idle_cond_wait_at(pthread_cond_t *c, hv_mutex_t *l,
                          const struct hv_lock_site *site);
#define hv_idle_cond_wait(c, l) hv_idle_cond_wait_at((c), (l), HV_LOCK_SITE())
int hv_idle_epoll_wait(int epfd, struct epoll_event *ev, int n, int timeout);
int hv_idle_poll(struct pollfd *fds, nfds_t n, int timeout);
void hv_idle_sleep_until(uint64_t deadline_ns);

#endif /* HV_THREAD_H */
