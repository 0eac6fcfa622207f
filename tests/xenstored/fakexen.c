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
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/resource.h>

static int handle;
static int evfd = -1;

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
    return 2;
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
