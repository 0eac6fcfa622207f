/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fakexen.so: an LD_PRELOAD shim of the tests' own that lets Debian's
 * oxenstored (xen-utils-4.17) start on a machine without Xen, as the
 * reference daemon the tests and benchmarks compare with
 * (scripts/with-oxenstored.sh).  With --no-domain-init oxenstored still
 * opens xenctrl and the event channel device and binds the DOM_EXC VIRQ
 * at start, and raises RLIMIT_NOFILE: here xc_interface_open and the
 * xenevtchn_* calls succeed on a dummy handle whose fd (an eventfd) never
 * becomes readable, and an EPERM from raising the open-file limit is
 * ignored (a container may not raise its hard limit).  Nothing a socket
 * client sees goes through these calls.
 *
 * INTRODUCE (libxl's xs_introduce_domain): oxenstored 4.17's
 * Domains.create maps the guest's ring page with
 * Xenctrl.map_foreign_range (xc_map_foreign_range; gnttab only from
 * 4.18) and binds its event channel (xenevtchn_bind_interdomain); RELEASE
 * unbinds it and munmaps the page.  Here the "ring" is an anonymous
 * zeroed page (empty: its indexes 0, so oxenstored never reads a request
 * from it) and each bind a fresh local port, so @introduceDomain fires
 * and the domain is in oxenstored's table as on a real host; the guest's
 * own traffic comes over a socket instead.  Worked example: INTRODUCE
 * "7\0 1044476\0 1\0" maps one page for domain 7, binds port 2 (the
 * VIRQ has 1), fires @introduceDomain; RELEASE "7\0" unbinds port 2,
 * munmaps, fires @releaseDomain.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>

static int handle;
static int evfd = -1;
static _Atomic unsigned int next_port = 2; /* 1: the DOM_EXC VIRQ */

/* The prototypes are libxenctrl's and libxenevtchn's, opaque here. */
void *xc_interface_open(void *logger, void *dombuild_logger, unsigned flags);
int xc_interface_close(void *xch);
int xc_domain_getinfolist(void *xch, uint32_t first, unsigned int max,
                          void *info);
void *xenevtchn_open(void *logger, unsigned int flags);
void *xenevtchn_fdopen(void *logger, int fd, unsigned int flags);
int xenevtchn_close(void *xce);
int xenevtchn_fd(void *xce);
int xenevtchn_bind_virq(void *xce, unsigned int virq);
int xenevtchn_bind_interdomain(void *xce, uint32_t domid, unsigned int port);
int xenevtchn_unbind(void *xce, unsigned int port);
int xenevtchn_pending(void *xce);
int xenevtchn_unmask(void *xce, unsigned int port);
int xenevtchn_notify(void *xce, unsigned int port);
void *xc_map_foreign_range(void *xch, uint32_t dom, int size, int prot,
                           unsigned long mfn);

void *xc_map_foreign_range(void *xch, uint32_t dom, int size, int prot,
                           unsigned long mfn)
{
    void *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

void *xc_interface_open(void *logger, void *dombuild_logger, unsigned flags)
{
    return &handle;
}

int xc_interface_close(void *xch)
{
    return 0;
}

int xc_domain_getinfolist(void *xch, uint32_t first, unsigned int max,
                          void *info)
{
    return 0; /* no domains */
}

void *xenevtchn_open(void *logger, unsigned int flags)
{
    if ( evfd < 0 )
        evfd = eventfd(0, EFD_CLOEXEC);
    return evfd < 0 ? NULL : &handle;
}

void *xenevtchn_fdopen(void *logger, int fd, unsigned int flags)
{
    return xenevtchn_open(logger, flags);
}

int xenevtchn_close(void *xce)
{
    return 0;
}

int xenevtchn_fd(void *xce)
{
    return evfd;
}

int xenevtchn_bind_virq(void *xce, unsigned int virq)
{
    return 1;
}

int xenevtchn_bind_interdomain(void *xce, uint32_t domid, unsigned int port)
{
    return (int)atomic_fetch_add(&next_port, 1);
}

int xenevtchn_unbind(void *xce, unsigned int port)
{
    return 0;
}

int xenevtchn_pending(void *xce)
{
    errno = EAGAIN;
    return -1;
}

int xenevtchn_unmask(void *xce, unsigned int port)
{
    return 0;
}

int xenevtchn_notify(void *xce, unsigned int port)
{
    return 0;
}

int setrlimit(__rlimit_resource_t res, const struct rlimit *lim)
{
    int (*real)(__rlimit_resource_t, const struct rlimit *) =
        (int (*)(__rlimit_resource_t, const struct rlimit *))dlsym(RTLD_NEXT,
                                                                   "setrlimit");
    int rc = real(res, lim);

    if ( rc && errno == EPERM && res == RLIMIT_NOFILE )
        return 0;
    return rc;
}
