/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Threads' roles and idle waits (hv/thread.h).  The waits are out of
 * line and never inlined: the profiler finds them by name on the stack.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <time.h>

#include <hv/thread.h>
#include <hv/compiler.h>

void hv_thread_role(const char *role)
{
    char name[16];

    /* The kernel keeps 15 characters and refuses more (ERANGE). */
    strncpy(name, role, sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    (void)pthread_setname_np(pthread_self(), name);
}

void hv_thread_role_get(char *buf, size_t len)
{
    if ( pthread_getname_np(pthread_self(), buf, len) != 0 && len > 0 )
        buf[0] = '\0';
}

__attribute__((noinline)) void
hv_idle_cond_wait_at(pthread_cond_t *c, hv_mutex_t *l,
                     const struct hv_lock_site *site)
{
    hv_cond_wait_at(c, l, site);
    __asm__ volatile("" ::: "memory"); /* no tail call: stay on the stack */
}

__attribute__((noinline)) int
hv_idle_epoll_wait(int epfd, struct epoll_event *ev, int n, int timeout)
{
    int rc = epoll_wait(epfd, ev, n, timeout);

    __asm__ volatile("" ::: "memory");
    return rc;
}

__attribute__((noinline)) int hv_idle_poll(struct pollfd *fds, nfds_t n,
                                           int timeout)
{
    int rc = poll(fds, n, timeout);

    __asm__ volatile("" ::: "memory");
    return rc;
}

__attribute__((noinline)) void hv_idle_sleep_until(uint64_t deadline_ns)
{
    uint64_t now = hv_now_ns();
    struct timespec ts;

    if ( deadline_ns <= now )
        return;
    deadline_ns -= now;
    if ( deadline_ns > 1000000 )
        deadline_ns = 1000000; /* wake at least every ms */
    ts.tv_sec = 0;
    ts.tv_nsec = (long)deadline_ns;
    nanosleep(&ts, NULL);
    __asm__ volatile("" ::: "memory");
}
