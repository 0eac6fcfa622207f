/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The blocking client (xsd/client.h): the header and the body in one
 * sendmsg, the reply read whole.  req_id counts up per connection so a
 * mismatch is caught.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <hv/thread.h>
#include <xsd/client.h>
#include <xsd/wire.h>

struct xsd_client {
    int fd;
    uint32_t next_req;
    uint64_t events;
    bool idle_waits; /* a watcher's: waits for events are for work */
};

int xsd_client_open(const char *path, struct xsd_client **out)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    struct xsd_client *c;
    int fd, e;

    *out = NULL;
    if ( strlen(path) >= sizeof(a.sun_path) )
        return -ENAMETOOLONG;
    strcpy(a.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if ( fd < 0 )
        return -errno;
    if ( connect(fd, (struct sockaddr *)&a, sizeof(a)) )
    {
        e = errno;
        close(fd);
        return -e;
    }
    c = calloc(1, sizeof(*c));
    if ( c == NULL )
    {
        close(fd);
        return -ENOMEM;
    }
    c->fd = fd;
    *out = c;
    return 0;
}

void xsd_client_close(struct xsd_client *c)
{
    if ( c == NULL )
        return;
    close(c->fd);
    free(c);
}

static int read_all(int fd, void *buf, size_t len)
{
    size_t got = 0;
    ssize_t n;

    while ( got < len )
    {
        n = read(fd, (char *)buf + got, len - got);
        if ( n < 0 && errno == EINTR )
            continue;
        if ( n <= 0 )
            return -EIO;
        got += (size_t)n;
    }
    return 0;
}

int xsd_client_request(struct xsd_client *c, uint32_t type, uint32_t tx,
                       const void *body, size_t len, void *buf, size_t cap,
                       size_t *rlen)
{
    uint8_t hdr[XSD_HDR_LEN], payload[XSD_PAYLOAD_MAX];
    struct iovec iov[2] = {{hdr, sizeof(hdr)}, {(void *)body, len}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
    uint32_t rid = c->next_req++;
    struct xsd_hdr h;
    size_t want = sizeof(hdr) + len, mlen, sent = 0;
    ssize_t n;
    int e;

    if ( len > XSD_PAYLOAD_MAX )
        return -E2BIG;
    xsd_encode(hdr, type, rid, tx, NULL, 0);
    memcpy(hdr + 12, &(uint32_t){(uint32_t)len}, 4);
    while ( sent < want )
    {
        n = sendmsg(c->fd, &m, MSG_NOSIGNAL);
        if ( n < 0 && errno == EINTR )
            continue;
        if ( n <= 0 )
            return -EIO;
        sent += (size_t)n;
        while ( m.msg_iovlen && (size_t)n >= m.msg_iov[0].iov_len )
        {
            n -= (ssize_t)m.msg_iov[0].iov_len;
            m.msg_iov++;
            m.msg_iovlen--;
        }
        if ( m.msg_iovlen )
        {
            m.msg_iov[0].iov_base = (char *)m.msg_iov[0].iov_base + n;
            m.msg_iov[0].iov_len -= (size_t)n;
        }
    }
    for ( ;; )
    {
        if ( read_all(c->fd, hdr, sizeof(hdr)) ||
             xsd_frame(hdr, sizeof(hdr), &h, &mlen) < 0 ||
             read_all(c->fd, payload, h.len) )
            return -EIO;
        if ( h.type != XSD_WATCH_EVENT )
            break;
        c->events++;
    }
    if ( h.req_id != rid || h.tx_id != tx ||
         (h.type != type && h.type != XSD_ERROR) )
        return -EIO;
    if ( h.type == XSD_ERROR )
    {
        e = xsd_errno_of((const char *)payload, h.len ? h.len - 1 : 0);
        return e > 0 ? -e : -EIO;
    }
    if ( rlen )
        *rlen = h.len;
    if ( buf == NULL )
        return 0; /* the payload is not wanted */
    if ( h.len > cap )
        return -E2BIG;
    if ( h.len )
        memcpy(buf, payload, h.len);
    return 0;
}

void xsd_client_idle_waits(struct xsd_client *c)
{
    c->idle_waits = true;
}

int xsd_client_wait_event(struct xsd_client *c, const char *token,
                          int timeout_ms, char *path, size_t cap)
{
    uint8_t hdr[XSD_HDR_LEN], payload[XSD_PAYLOAD_MAX];
    struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
    struct xsd_hdr h;
    size_t mlen, pl;
    int n;

    for ( ;; )
    {
        n = c->idle_waits ? hv_idle_poll(&pfd, 1, timeout_ms)
                          : poll(&pfd, 1, timeout_ms);
        if ( n < 0 && errno == EINTR )
            continue;
        if ( n == 0 )
            return -ETIMEDOUT;
        if ( n < 0 || read_all(c->fd, hdr, sizeof(hdr)) ||
             xsd_frame(hdr, sizeof(hdr), &h, &mlen) < 0 ||
             read_all(c->fd, payload, h.len) )
            return -EIO;
        if ( h.type != XSD_WATCH_EVENT )
            return -EIO; /* a reply with no request */
        c->events++;
        pl = strnlen((const char *)payload, h.len);
        if ( token &&
             (pl + 1 >= h.len ||
              strncmp((const char *)payload + pl + 1, token, h.len - pl - 1)) )
            continue; /* another watch's */
        if ( path && cap )
            snprintf(path, cap, "%.*s", (int)pl, (const char *)payload);
        return 0;
    }
}

uint64_t xsd_client_events(const struct xsd_client *c)
{
    return c->events;
}
