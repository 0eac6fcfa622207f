/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The server: Unix stream sockets, one epoll loop in one thread
 * (oxenstored is single-threaded too), non-blocking connections.
 *
 * Input: each connection reassembles its stream in a buffer of one
 * message (16 + 4096 bytes); every whole message goes to the dispatcher
 * in order (clients write the header and the body separately, and pyxs
 * may send several requests before reading).  A header announcing more
 * than 4096 bytes cannot be resynchronised: it is logged and the
 * connection closed, as cxenstored does.  A client that goes mid-message
 * is logged; nothing else is affected.
 *
 * Output: replies and events are appended to the connection's queue and
 * written at the end of the loop's round (one write for a burst).  Limits
 * per connection, oxenstored's (quota-maxoutstanding, -maxwatchevents):
 *   - max_outstanding replies not yet read by the client: the server
 *     stops reading that connection's requests until it reads;
 *   - max_watch_events events not yet read: further events are dropped,
 *     counted, and logged once an episode: a line when the dropping
 *     starts, one with the count when the client has read below the
 *     limit again (or goes).
 *
 * Worked example: a client sends 2000 READs without reading.  The first
 * 1024 are answered and queued; the connection leaves the epoll read set;
 * the socket buffer fills and the client blocks in write.  When it reads,
 * the queue drains below 1024 and the server takes requests again.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <hv/thread.h>
#include <hv/trace.h>
#include <hv/types.h>

#include "xsd-private.h"

#define TAG_STOP ((void *)1)
#define TAG_RW   ((void *)2)
#define TAG_RO   ((void *)3)

void xsd_log(struct xsd_server *s, const char *fmt, ...)
{
    struct timespec ts;
    struct tm tm;
    va_list ap;
    char t[32];

    if ( s->opts.log == NULL )
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(s->opts.log, "%s.%03ldZ xenstored: ", t, ts.tv_nsec / 1000000);
    va_start(ap, fmt);
    vfprintf(s->opts.log, fmt, ap);
    va_end(ap);
    fputc('\n', s->opts.log);
    fflush(s->opts.log);
}

/*
 * A client's string for a log line: printable ASCII as is, any other
 * byte (a newline that would start a forged line, an escape sequence)
 * and '\' as \xHH; cut with "..." where @out (@cap bytes) is full.
 *   "/a\nB"  -> "/a\x0aB"
 */
const char *xsd_esc(char *out, size_t cap, const char *str)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    unsigned char ch;

    for ( ; (ch = (unsigned char)*str) != '\0'; str++ )
    {
        bool plain = ch >= 0x20 && ch < 0x7f && ch != '\\';

        if ( o + (plain ? 1 : 4) + 4 > cap )
        {
            memcpy(out + o, "...", 4);
            return out;
        }
        if ( plain )
            out[o++] = (char)ch;
        else
        {
            memcpy(out + o, "\\x", 2);
            out[o + 2] = hex[ch >> 4];
            out[o + 3] = hex[ch & 15];
            o += 4;
        }
    }
    out[o] = '\0';
    return out;
}

static void set_events(struct xsd_server *s, struct xsd_conn *c)
{
    struct epoll_event ev = {.data.ptr = c};
    bool want_in = c->replies < s->opts.max_outstanding;

    if ( want_in )
        ev.events |= EPOLLIN;
    if ( c->out_len > c->out_off )
        ev.events |= EPOLLOUT;
    epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
    c->reading = want_in;
}

static bool push_mark(struct xsd_conn *c, bool event)
{
    if ( c->nr_marks == c->cap_marks )
    {
        unsigned int cap = c->cap_marks ? c->cap_marks * 2 : 64, i;
        struct xsd_mark *m = malloc(sizeof(*m) * cap);

        if ( m == NULL )
            return false;
        for ( i = 0; i < c->nr_marks; i++ )
            m[i] = c->marks[(c->mark_head + i) % c->cap_marks];
        free(c->marks);
        c->marks = m;
        c->mark_head = 0;
        c->cap_marks = cap;
    }
    /* where the message just appended ends in the stream */
    c->marks[(c->mark_head + c->nr_marks++) % c->cap_marks] =
        (struct xsd_mark){c->appended, event};
    return true;
}

bool xsd_queue(struct xsd_server *s, struct xsd_conn *c, uint32_t type,
               uint32_t req_id, uint32_t tx_id, const void *payload, size_t len)
{
    bool event = type == XSD_WATCH_EVENT;
    size_t need = XSD_HDR_LEN + len;

    if ( c->closing )
        return false;
    if ( event && c->events >= s->opts.max_watch_events )
    {
        /* one line when an episode starts, one with its count at its end */
        s->stats.events_dropped++;
        if ( c->dropped++ == 0 )
            xsd_log(s, "A%u: %u watch events unread, dropping events", c->id,
                    c->events);
        return false;
    }
    if ( c->out_off == c->out_len )
        c->out_off = c->out_len = 0;
    if ( c->out_len + need > c->out_cap && c->out_off )
    {
        memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
        c->out_len -= c->out_off;
        c->out_off = 0;
    }
    if ( c->out_len + need > c->out_cap )
    {
        size_t cap = c->out_cap ? c->out_cap : 8192;
        uint8_t *o;

        while ( cap < c->out_len + need )
            cap *= 2;
        o = realloc(c->out, cap);
        if ( o == NULL )
            goto nomem;
        c->out = o;
        c->out_cap = cap;
    }
    xsd_encode(c->out + c->out_len, type, req_id, tx_id, payload, len);
    c->out_len += need;
    c->appended += need;
    if ( !push_mark(c, event) )
        goto nomem;
    if ( event )
        c->events++;
    else
        c->replies++;
    if ( type == XSD_ERROR )
        s->stats.errors++;
    if ( !c->dirty )
    {
        c->dirty = true;
        c->dirty_next = s->dirty;
        s->dirty = c;
    }
    return true;

nomem:
    /* The stream would lose a message: the connection cannot go on. */
    xsd_log(s, "A%u: out of memory queueing a reply, closing", c->id);
    c->closing = true;
    if ( !c->dirty )
    {
        c->dirty = true;
        c->dirty_next = s->dirty;
        s->dirty = c;
    }
    return false;
}

void xsd_queue_error(struct xsd_server *s, struct xsd_conn *c,
                     const struct xsd_hdr *h, int err)
{
    const char *name = xsd_errno_name(err);

    xsd_queue(s, c, XSD_ERROR, h->req_id, h->tx_id, name, strlen(name) + 1);
}

static void listeners_arm(struct xsd_server *s, bool on);

/* The end of an episode of dropped events: its one line, the count. */
static void log_dropped_events(struct xsd_server *s, struct xsd_conn *c,
                               const char *why)
{
    if ( c->dropped == 0 )
        return;
    xsd_log(s, "A%u: %" PRIu64 " watch events dropped, %s", c->id, c->dropped,
            why);
    c->dropped = 0;
}

static void conn_close(struct xsd_server *s, struct xsd_conn *c)
{
    struct xsd_conn **pp;

    log_dropped_events(s, c, "closing");
    xsd_conn_forget(s, c);
    epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    listeners_arm(s, true); /* a descriptor is free again */
    XSD_DL_UNLINK(s->conns, c, next, prev);
    if ( c->dirty )
        for ( pp = &s->dirty; *pp; pp = &(*pp)->dirty_next )
            if ( *pp == c )
            {
                *pp = c->dirty_next;
                break;
            }
    free(c->out);
    free(c->marks);
    free(c);
}

/* Write what is queued; false when the connection has to go. */
static bool flush(struct xsd_server *s, struct xsd_conn *c)
{
    ssize_t n;

    while ( c->out_off < c->out_len )
    {
        n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                 MSG_NOSIGNAL | MSG_DONTWAIT);
        if ( n < 0 && errno == EINTR )
            continue;
        if ( n < 0 && errno == EAGAIN )
            break;
        if ( n <= 0 )
        {
            xsd_log(s, "A%u: write: %s, closing", c->id,
                    n < 0 ? strerror(errno) : "closed");
            return false;
        }
        c->out_off += (size_t)n;
        c->sent += (uint64_t)n;
        /* Messages written out whole leave the limits' counts. */
        while ( c->nr_marks && c->marks[c->mark_head].end <= c->sent )
        {
            if ( c->marks[c->mark_head].event )
                c->events--;
            else
                c->replies--;
            c->mark_head = (c->mark_head + 1) % c->cap_marks;
            c->nr_marks--;
        }
        if ( c->dropped && c->events < s->opts.max_watch_events )
            log_dropped_events(s, c, "the client reads again");
    }
    return !c->closing;
}

static void process(struct xsd_server *s, struct xsd_conn *c);

/* End of a round: write every connection with new output. */
static void flush_dirty(struct xsd_server *s)
{
    struct xsd_conn *c;

    while ( (c = s->dirty) != NULL )
    {
        s->dirty = c->dirty_next;
        c->dirty = false;
        if ( !flush(s, c) )
        {
            conn_close(s, c);
            continue;
        }
        set_events(s, c);
        /* Requests left in the buffer when it stopped at the limit. */
        if ( c->reading && c->in_len >= XSD_HDR_LEN )
            process(s, c);
    }
}

/*
 * Hand every whole message in the buffer to the dispatcher.  While the
 * timeline recorder is on (run --trace), each request is an interval on
 * the daemon's row, named by its type, with the connection's id: the
 * time the daemon spent on it, beside the client's wait on the wire.
 */
static void process(struct xsd_server *s, struct xsd_conn *c)
{
    struct xsd_hdr h;
    size_t off = 0, mlen;
    uint64_t t0;
    int r;

    while ( c->replies < s->opts.max_outstanding && !c->closing )
    {
        r = xsd_frame(c->in + off, c->in_len - off, &h, &mlen);
        if ( r == 0 )
            break;
        if ( r < 0 )
        {
            xsd_log(s,
                    "A%u: framing error: %s request of %u bytes "
                    "(limit %u), closing",
                    c->id, xsd_type_name(h.type), h.len, XSD_PAYLOAD_MAX);
            s->stats.framing_errors++;
            c->closing = true;
            break;
        }
        t0 = hv_trace_active() ? hv_now_ns() : 0;
        xsd_dispatch(s, c, &h, c->in + off + XSD_HDR_LEN);
        hv_trace_span("xenstored", xsd_type_name(h.type), "conn", c->id, t0,
                      hv_now_ns());
        off += mlen;
    }
    if ( off )
    {
        memmove(c->in, c->in + off, c->in_len - off);
        c->in_len -= off;
    }
    if ( !c->dirty && (c->closing || c->replies >= s->opts.max_outstanding) )
    {
        c->dirty = true;
        c->dirty_next = s->dirty;
        s->dirty = c;
    }
}

static void on_input(struct xsd_server *s, struct xsd_conn *c)
{
    ssize_t n;
    int rounds;

    for ( rounds = 0; rounds < 16 && c->reading && !c->closing; rounds++ )
    {
        if ( c->in_len == sizeof(c->in) )
            return; /* a whole message waits for the limit (process) */
        n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len,
                 MSG_DONTWAIT);
        if ( n < 0 && errno == EINTR )
            continue;
        if ( n < 0 && errno == EAGAIN )
            return;
        if ( n <= 0 )
        {
            if ( c->in_len )
                xsd_log(s,
                        "A%u: closed mid-message (%zu bytes of a "
                        "message unread)",
                        c->id, c->in_len);
            else if ( n < 0 )
                xsd_log(s, "A%u: read: %s", c->id, strerror(errno));
            c->closing = true;
            if ( !c->dirty )
            {
                c->dirty = true;
                c->dirty_next = s->dirty;
                s->dirty = c;
            }
            return;
        }
        c->in_len += (size_t)n;
        process(s, c);
    }
}

/*
 * Accepting at the descriptor limit.  accept4() fails with EMFILE before
 * it looks at the queue: it fails whether a client waits or not, and a
 * level-triggered listening socket with a client waiting wakes epoll at
 * once again.  So a client that cannot be taken is taken and dropped
 * through the spare descriptor, and when even that fails (ENFILE, or the
 * spare is gone) the listening sockets leave the epoll set until a
 * connection closes or a second has passed.  The log says it once a
 * second at most, with the count.
 *
 * Worked example: a limit of 32 descriptors, 8 of them the daemon's own,
 * 40 clients connect.  24 are served; the 16 others are accepted through
 * the spare and closed at once (they read EOF), one log line "16 clients
 * dropped"; the queue is empty, accept4() on the spare says EAGAIN and
 * the loop waits in epoll again, where SIGTERM finds it.
 */
#define XSD_ACCEPT_BURST 64 /* clients taken per wake, before serving */

static void listeners_arm(struct xsd_server *s, bool on)
{
    struct epoll_event ev = {.events = EPOLLIN};
    int i;

    if ( s->accept_paused == !on )
        return;
    for ( i = 0; i < 2; i++ )
        if ( s->lfd[i] >= 0 )
        {
            ev.data.ptr = i ? TAG_RO : TAG_RW;
            epoll_ctl(s->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, s->lfd[i],
                      on ? &ev : NULL);
        }
    s->accept_paused = !on;
    if ( !on )
        s->paused_at = time(NULL);
}

/* One line a second at most for the clients dropped since the last. */
static void log_dropped(struct xsd_server *s, bool flush_now)
{
    time_t now = time(NULL);

    if ( !s->drops_unlogged || (!flush_now && now == s->drops_logged_at) )
        return;
    xsd_log(s,
            "accept: out of file descriptors: %" PRIu64 " client%s "
            "dropped%s",
            s->drops_unlogged, s->drops_unlogged == 1 ? "" : "s",
            s->accept_paused ? ", accepting paused" : "");
    s->drops_unlogged = 0;
    s->drops_logged_at = now;
}

/* At EMFILE/ENFILE: false when the loop has to stop accepting. */
static bool drop_one(struct xsd_server *s, int lfd)
{
    int fd, e;

    if ( s->spare_fd < 0 )
        return false;
    close(s->spare_fd);
    fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    e = errno;
    if ( fd >= 0 )
    {
        close(fd);
        s->stats.accept_dropped++;
        s->drops_unlogged++;
    }
    s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if ( fd >= 0 )
        return s->spare_fd >= 0;
    errno = e;
    return false;
}

static void on_accept(struct xsd_server *s, int lfd, bool ro)
{
    struct epoll_event ev;
    struct xsd_conn *c;
    int fd, burst;

    for ( burst = 0; burst < XSD_ACCEPT_BURST; burst++ )
    {
        fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if ( fd < 0 )
        {
            if ( errno == EINTR || errno == ECONNABORTED )
                continue;
            if ( errno == EMFILE || errno == ENFILE )
            {
                if ( drop_one(s, lfd) )
                    continue;
                if ( errno != EAGAIN && errno != EWOULDBLOCK )
                    listeners_arm(s, false);
                break;
            }
            break; /* EAGAIN: the queue is empty */
        }
        c = calloc(1, sizeof(*c));
        if ( c == NULL )
        {
            xsd_log(s, "accept: out of memory, client dropped");
            close(fd);
            continue;
        }
        c->fd = fd;
        c->ro = ro;
        c->id = ++s->next_id;
        c->reading = true;
        ev.events = EPOLLIN;
        ev.data.ptr = c;
        if ( epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) )
        {
            close(fd);
            free(c);
            continue;
        }
        XSD_DL_PUSH(s->conns, c, next, prev);
        s->stats.connections++;
    }
    log_dropped(s, s->accept_paused);
}

static int listen_on(const char *path, char *err, size_t len)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd, probe;

    if ( strlen(path) >= sizeof(a.sun_path) )
    {
        snprintf(err, len, "socket path '%s' is longer than %zu bytes", path,
                 sizeof(a.sun_path) - 1);
        return -ENAMETOOLONG;
    }
    strcpy(a.sun_path, path);
    /* A socket file nobody listens on is stale; a live one is refused. */
    probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if ( probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof(a)) == 0 )
    {
        close(probe);
        snprintf(err, len, "socket '%s' is in use by a running server", path);
        return -EADDRINUSE;
    }
    if ( probe >= 0 )
        close(probe);
    {
        struct stat st;

        if ( lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) )
            unlink(path);
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if ( fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
         listen(fd, 128) )
    {
        int e = errno;

        snprintf(err, len, "socket '%s': %s", path, strerror(e));
        if ( fd >= 0 )
            close(fd);
        return -e;
    }
    return fd;
}

int xsd_server_create(struct hv_xs *xs, const struct xsd_opts *opts,
                      struct xsd_server **out, char *err, size_t len)
{
    struct xsd_server *s = calloc(1, sizeof(*s));
    struct epoll_event ev;
    int rc = -ENOMEM, i;

    *out = NULL;
    if ( s == NULL )
        return -ENOMEM;
    s->xs = xs;
    s->opts = *opts;
    if ( !s->opts.max_outstanding )
        s->opts.max_outstanding = 1024;
    if ( !s->opts.max_watch_events )
        s->opts.max_watch_events = 1024;
    if ( !s->opts.max_watches )
        s->opts.max_watches = 8192;
    if ( !s->opts.max_watches_total )
        s->opts.max_watches_total = 65536;
    if ( !s->opts.max_watch_bytes )
        s->opts.max_watch_bytes = 32u << 20;
    if ( !s->opts.max_transactions )
        s->opts.max_transactions = 10;
    if ( !s->opts.max_transactions_total )
        s->opts.max_transactions_total = 1024;
    s->lfd[0] = s->lfd[1] = s->stop_fd = s->epfd = s->spare_fd = -1;
    if ( getrandom(&s->hash_seed, sizeof(s->hash_seed), GRND_NONBLOCK) !=
         (ssize_t)sizeof(s->hash_seed) )
        s->hash_seed = (uint32_t)time(NULL) ^ ((uint32_t)getpid() << 16);
    s->hash_seed ^= 2166136261u; /* FNV-1a's basis */
    s->introduced = calloc(DOMID_FIRST_RESERVED / 8 + 1, 1);
    if ( s->introduced == NULL )
    {
        snprintf(err, len, "out of memory");
        goto fail;
    }
    s->lfd[0] = rc = listen_on(opts->socket, err, len);
    if ( rc < 0 )
        goto fail;
    if ( opts->ro_socket )
    {
        s->lfd[1] = rc = listen_on(opts->ro_socket, err, len);
        if ( rc < 0 )
            goto fail;
    }
    s->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if ( s->stop_fd < 0 || s->epfd < 0 )
    {
        rc = -errno;
        snprintf(err, len, "epoll: %s", strerror(errno));
        goto fail;
    }
    ev.events = EPOLLIN;
    ev.data.ptr = TAG_STOP;
    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->stop_fd, &ev);
    for ( i = 0; i < 2; i++ )
        if ( s->lfd[i] >= 0 )
        {
            ev.data.ptr = i ? TAG_RO : TAG_RW;
            epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd[i], &ev);
        }
    *out = s;
    return 0;

fail:
    xsd_server_destroy(s);
    return rc;
}

int xsd_server_run(struct xsd_server *s)
{
    struct epoll_event evs[64];
    int n, i;

    xsd_log(s, "serving %s%s%s", s->opts.socket,
            s->opts.ro_socket ? ", read-only " : "",
            s->opts.ro_socket ? s->opts.ro_socket : "");
    for ( ;; )
    {
        /* Paused accepting and unlogged drops look again in a second. */
        n = hv_idle_epoll_wait(s->epfd, evs, 64,
                               s->accept_paused || s->drops_unlogged ? 1000
                                                                     : -1);
        if ( n < 0 && errno == EINTR )
            continue;
        if ( n < 0 )
            return -errno;
        if ( s->accept_paused && time(NULL) != s->paused_at )
            listeners_arm(s, true);
        log_dropped(s, false);
        for ( i = 0; i < n; i++ )
        {
            void *p = evs[i].data.ptr;
            struct xsd_conn *c = p;

            if ( p == TAG_STOP )
            {
                log_dropped(s, true);
                xsd_log(s, "stopping");
                return 0;
            }
            if ( p == TAG_RW || p == TAG_RO )
            {
                on_accept(s, s->lfd[p == TAG_RO], p == TAG_RO);
                continue;
            }
            if ( evs[i].events & EPOLLIN )
                on_input(s, c);
            else if ( evs[i].events & (EPOLLHUP | EPOLLERR) && !c->closing )
            {
                c->closing = true;
                if ( !c->dirty )
                {
                    c->dirty = true;
                    c->dirty_next = s->dirty;
                    s->dirty = c;
                }
            }
            if ( (evs[i].events & EPOLLOUT) && !c->dirty )
            {
                c->dirty = true;
                c->dirty_next = s->dirty;
                s->dirty = c;
            }
        }
        flush_dirty(s);
    }
}

void xsd_server_stop(struct xsd_server *s)
{
    uint64_t one = 1;
    ssize_t r = write(s->stop_fd, &one, sizeof(one));

    (void)r;
}

void xsd_server_destroy(struct xsd_server *s)
{
    if ( s == NULL )
        return;
    while ( s->conns )
        conn_close(s, s->conns);
    xsd_watch_destroy(s);
    if ( s->lfd[0] >= 0 )
    {
        close(s->lfd[0]);
        unlink(s->opts.socket);
    }
    if ( s->lfd[1] >= 0 )
    {
        close(s->lfd[1]);
        unlink(s->opts.ro_socket);
    }
    if ( s->stop_fd >= 0 )
        close(s->stop_fd);
    if ( s->epfd >= 0 )
        close(s->epfd);
    if ( s->spare_fd >= 0 )
        close(s->spare_fd);
    xsd_log(s,
            "stopped: %" PRIu64 " connections, %" PRIu64 " requests served, "
            "%" PRIu64 " clients dropped at the descriptor limit",
            s->stats.connections, s->stats.requests, s->stats.accept_dropped);
    free(s->introduced);
    free(s);
}
