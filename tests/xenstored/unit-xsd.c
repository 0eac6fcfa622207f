/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvbench xenstored without external clients: the wire parser on its
 * own, then a live server (in a thread of this test) fed raw bytes - bad
 * input, split and pipelined messages, the per-connection limits, the
 * read-only socket, transactions owned by their connection - and the
 * differential: one random request stream through the socket and through
 * the in-process API of a second store, every answer compared.
 *
 * Usage: unit-xsd [SEEDS REQUESTS]   (differential size; default 20 2000)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include <hv/hv.h>
#include <hv/xenstore.h>
#include <xsd/client.h>
#include <xsd/wire.h>
#include <xsd/xenstored.h>

#include "testlib.h"

static unsigned int diff_seeds = 20, diff_requests = 2000;

/* ---- the parser ---- */

static void test_frame(void **state)
{
    uint8_t m[XSD_MSG_MAX + 8];
    struct xsd_hdr h;
    size_t n, len;

    len = xsd_encode(m, XSD_WRITE, 7, 3, "/a\0v", 4);
    assert_int_equal(len, 20);
    for ( n = 0; n < len; n++ )
        assert_int_equal(xsd_frame(m, n, &h, &len), 0);
    assert_int_equal(xsd_frame(m, 20, &h, &n), 1);
    assert_int_equal(n, 20);
    assert_int_equal(h.type, XSD_WRITE);
    assert_int_equal(h.req_id, 7);
    assert_int_equal(h.tx_id, 3);
    assert_int_equal(h.len, 4);
    /* 4096 is the limit, 4097 a framing error known from the header */
    xsd_encode(m, XSD_READ, 0, 0, NULL, 0);
    memcpy(m + 12, &(uint32_t){4096}, 4);
    assert_int_equal(xsd_frame(m, 16, &h, &n), 0);
    memcpy(m + 12, &(uint32_t){4097}, 4);
    assert_int_equal(xsd_frame(m, 16, &h, &n), -E2BIG);
    memcpy(m + 12, &(uint32_t){0xffffffffu}, 4);
    assert_int_equal(xsd_frame(m, 16, &h, &n), -E2BIG);
}

static int dec(uint32_t type, const char *body, size_t len, struct xsd_req *r)
{
    return xsd_decode(type, (const uint8_t *)body, len, r);
}

static void test_decode(void **state)
{
    struct xsd_req r;

    assert_int_equal(dec(XSD_READ, "/a", 3, &r), 0);
    assert_string_equal(r.args[0], "/a");
    assert_int_equal(dec(XSD_READ, "/a", 2, &r), EINVAL); /* no NUL */
    assert_int_equal(dec(XSD_READ, "/a\0b", 5, &r), EINVAL);
    assert_int_equal(dec(XSD_READ, "", 0, &r), EINVAL);
    assert_int_equal(dec(XSD_WRITE, "/a\0v\0w", 6, &r), 0);
    assert_int_equal(r.value_len, 3); /* the value may hold NULs */
    assert_memory_equal(r.value, "v\0w", 3);
    assert_int_equal(dec(XSD_WRITE, "/a", 3, &r), 0);
    assert_int_equal(r.value_len, 0);
    assert_int_equal(dec(XSD_WRITE, "/a", 2, &r), EINVAL);
    assert_int_equal(dec(XSD_SET_PERMS, "/a\0n5\0r7", 9, &r), 0);
    assert_int_equal(r.nargs, 3);
    assert_int_equal(dec(XSD_SET_PERMS, "/a", 3, &r), EINVAL);
    assert_int_equal(dec(XSD_SET_PERMS, "/a\0n5", 5, &r), EINVAL);
    assert_int_equal(dec(XSD_WATCH, "/a\0tok", 7, &r), 0);
    assert_string_equal(r.args[1], "tok");
    assert_int_equal(dec(XSD_WATCH, "/a", 3, &r), EINVAL);
    assert_int_equal(dec(XSD_TRANSACTION_END, "T", 2, &r), 0);
    assert_true(r.commit);
    assert_int_equal(dec(XSD_TRANSACTION_END, "F", 1, &r), 0);
    assert_false(r.commit);
    assert_int_equal(dec(XSD_TRANSACTION_END, "X", 2, &r), EINVAL);
    assert_int_equal(dec(XSD_TRANSACTION_END, "TT", 3, &r), EINVAL);
    assert_int_equal(dec(XSD_INTRODUCE,
                         "3\0"
                         "12\0"
                         "5",
                         7, &r),
                     0);
    assert_int_equal(r.num[0], 3);
    assert_int_equal(r.num[1], 12);
    assert_int_equal(r.num[2], 5);
    assert_int_equal(dec(XSD_INTRODUCE,
                         "3\0x\0"
                         "5",
                         6, &r),
                     EINVAL);
    assert_int_equal(dec(XSD_GET_DOMAIN_PATH, "-1", 3, &r), EINVAL);
    assert_int_equal(dec(XSD_GET_DOMAIN_PATH, "99999999999", 12, &r), EINVAL);
    assert_int_equal(dec(XSD_DIRECTORY_PART,
                         "/a\0"
                         "10",
                         6, &r),
                     0);
    assert_int_equal(r.num[0], 10);
    assert_int_equal(dec(XSD_WATCH_EVENT, "", 0, &r), ENOSYS);
    assert_int_equal(dec(XSD_ERROR, "", 0, &r), ENOSYS);
    assert_int_equal(dec(20, "", 0, &r), ENOSYS);
    assert_int_equal(dec(23, "", 0, &r), ENOSYS);
    assert_int_equal(dec(0xffff, "", 0, &r), ENOSYS);
    assert_string_equal(xsd_errno_name(ENOENT), "ENOENT");
    assert_string_equal(xsd_errno_name(EPERM), "EPERM");
    assert_int_equal(xsd_errno_of("EAGAIN", 6), EAGAIN);
    assert_int_equal(xsd_errno_of("EQUOTA", 6), -1);
}

/* ---- a live server ---- */

struct live {
    struct hv *hv;
    struct xsd_server *s;
    pthread_t th;
    char dir[64], sock[96], ro[96], log[96];
    FILE *logf;
};

/*
 * The running server, so that a failed test still stops and cleans it: a
 * copy, as a failed assertion leaves the test's frame (and its struct
 * live) behind.
 */
static struct live running, *current;

static struct hv *machine(const char *quota)
{
    struct hv *hv = tl_hv_create_slot("quota", quota);

    assert_non_null(hv);
    return hv;
}

static void *serve(void *arg)
{
    struct live *l = arg;

    xsd_server_run(l->s);
    return NULL;
}

/* A server under @quota with the limits of @lim (its zeros: defaults). */
static void live_start_opts(struct live *l, const char *quota,
                            const struct xsd_opts *lim)
{
    struct xsd_opts o = *lim;
    char err[256];

    memset(l, 0, sizeof(*l));
    strcpy(l->dir, "/tmp/hvb-xsd-test.XXXXXX");
    assert_non_null(mkdtemp(l->dir));
    snprintf(l->sock, sizeof(l->sock), "%s/sock", l->dir);
    snprintf(l->ro, sizeof(l->ro), "%s/ro", l->dir);
    snprintf(l->log, sizeof(l->log), "%s/log", l->dir);
    l->logf = fopen(l->log, "w");
    assert_non_null(l->logf);
    l->hv = machine(quota);
    o.socket = l->sock;
    o.ro_socket = l->ro;
    o.log = l->logf;
    if ( xsd_server_create(hv_xs(l->hv), &o, &l->s, err, sizeof(err)) )
        fail_msg("server: %s", err);
    running = *l;
    assert_int_equal(pthread_create(&running.th, NULL, serve, &running), 0);
    l->th = running.th;
    current = &running;
}

static void live_start(struct live *l, const char *quota, unsigned int max_out,
                       unsigned int max_ev)
{
    struct xsd_opts lim = {.max_outstanding = max_out,
                           .max_watch_events = max_ev};

    live_start_opts(l, quota, &lim);
}

/* Stop, destroy, remove the directory; false if a socket was left. */
static bool live_end(struct live *l)
{
    char path[128];
    bool unlinked;

    current = NULL;
    xsd_server_stop(l->s);
    pthread_join(l->th, NULL);
    xsd_server_destroy(l->s);
    hv_destroy(l->hv);
    fclose(l->logf);
    unlinked = access(l->sock, F_OK) == -1 && access(l->ro, F_OK) == -1;
    snprintf(path, sizeof(path), "rm -rf %s", l->dir);
    return system(path) == 0 && unlinked;
}

static void live_stop(struct live *l)
{
    assert_true(live_end(l));
}

/* After every test: a server a failed test left running. */
static int teardown(void **state)
{
    if ( current )
        live_end(current);
    return 0;
}

static bool log_has(struct live *l, const char *what)
{
    char line[512];
    bool found = false;
    FILE *f;

    fflush(l->logf);
    f = fopen(l->log, "r");
    while ( f && !found && fgets(line, sizeof(line), f) )
        found = strstr(line, what) != NULL;
    if ( f )
        fclose(f);
    return found;
}

/* Every line of the log one of the daemon's: its stamp, printable. */
static bool log_lines_clean(struct live *l)
{
    char line[8192];
    bool clean = true;
    size_t i, n;
    FILE *f;

    fflush(l->logf);
    f = fopen(l->log, "r");
    while ( f && clean && fgets(line, sizeof(line), f) )
    {
        n = strlen(line);
        clean = n > 40 && line[n - 1] == '\n' && line[4] == '-' &&
                line[10] == 'T' && strncmp(line + 23, "Z xenstored: ", 13) == 0;
        for ( i = 0; clean && i + 1 < n; i++ )
            clean = line[i] >= 0x20 && line[i] < 0x7f;
        if ( !clean )
            print_error("log line not the daemon's: '%s'\n", line);
    }
    if ( f )
        fclose(f);
    return f && clean;
}

/* How many lines of the log hold @what. */
static unsigned int log_count(struct live *l, const char *what)
{
    char line[512];
    unsigned int n = 0;
    FILE *f;

    fflush(l->logf);
    f = fopen(l->log, "r");
    while ( f && fgets(line, sizeof(line), f) )
        n += strstr(line, what) != NULL;
    if ( f )
        fclose(f);
    return n;
}

static int raw_open(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    strcpy(a.sun_path, path);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

static void raw_send(int fd, uint32_t type, uint32_t rid, uint32_t tx,
                     const void *body, size_t len)
{
    uint8_t m[XSD_MSG_MAX];
    size_t n = xsd_encode(m, type, rid, tx, body, len);

    assert_int_equal(write(fd, m, n), (ssize_t)n);
}

/* The next message; its payload NUL-terminated in @buf.  -1 on EOF. */
static int raw_recv(int fd, struct xsd_hdr *h, char *buf)
{
    uint8_t hdr[XSD_HDR_LEN];
    size_t got = 0, n;
    ssize_t r;

    while ( got < sizeof(hdr) )
    {
        r = read(fd, hdr + got, sizeof(hdr) - got);
        if ( r <= 0 )
            return -1;
        got += (size_t)r;
    }
    xsd_frame(hdr, sizeof(hdr), h, &n);
    for ( got = 0; got < h->len; got += (size_t)r )
    {
        r = read(fd, buf + got, h->len - got);
        if ( r <= 0 )
            return -1;
    }
    buf[h->len] = '\0';
    return 0;
}

/* A server under persistent with the default limits, and a client. */
static int live_client(struct live *l)
{
    live_start(l, "persistent", 0, 0);
    return raw_open(l->sock);
}

/* Send, then expect a reply of @type (ERROR: payload @want). */
static void expect(int fd, uint32_t type, uint32_t rid, uint32_t tx,
                   const void *body, size_t len, uint32_t rtype,
                   const char *want)
{
    char buf[XSD_PAYLOAD_MAX + 1];
    struct xsd_hdr h;

    raw_send(fd, type, rid, tx, body, len);
    assert_int_equal(raw_recv(fd, &h, buf), 0);
    if ( h.type != rtype || (want && strcmp(buf, want) != 0) )
        fail_msg("%s: reply %s '%s', want %s '%s'", xsd_type_name(type),
                 xsd_type_name(h.type), buf, xsd_type_name(rtype),
                 want ? want : "");
    assert_int_equal(h.req_id, rid);
    assert_int_equal(h.tx_id, tx);
}

/* What a read-only connection may not send (request ids 51 on). */
static const struct {
    uint32_t type;
    const char *body;
    size_t len;
} ro_refused[] = {
    {XSD_WRITE, "/ok\0w", 5},          {XSD_RM, "/ok", 4},
    {XSD_SET_PERMS, "/ok\0n1", 7},     {XSD_MKDIR, "/m", 3},
    {XSD_INTRODUCE, "1\0002\0003", 6}, {XSD_CONTROL, "check", 6},
};

static void test_bad_input(void **state)
{
    char buf[XSD_PAYLOAD_MAX + 1];
    struct xsd_hdr h;
    struct live l;
    uint8_t m[64];
    int a, b, i;

    live_start(&l, "persistent", 0, 0);
    a = raw_open(l.sock);
    b = raw_open(l.sock);
    expect(b, XSD_WRITE, 1, 0, "/ok\0v", 5, XSD_WRITE, "OK");

    /* unknown and reply-only types: ENOSYS, ids echoed */
    expect(a, 99, 11, 0, "", 0, XSD_ERROR, "ENOSYS");
    expect(a, XSD_WATCH_EVENT, 12, 0, "/a\0t", 5, XSD_ERROR, "ENOSYS");
    expect(a, 20, 13, 0, "", 0, XSD_ERROR, "ENOSYS");
    /* strings without terminator, bad paths, bad permissions */
    expect(a, XSD_READ, 14, 0, "/ok", 3, XSD_ERROR, "EINVAL");
    expect(a, XSD_WRITE, 15, 0, "/ok", 3, XSD_ERROR, "EINVAL");
    expect(a, XSD_READ, 16, 0, "/a//b", 6, XSD_ERROR, "EINVAL");
    expect(a, XSD_READ, 17, 0, "/a b", 5, XSD_ERROR, "EINVAL");
    expect(a, XSD_WRITE, 18, 0, "/a/\0v", 5, XSD_ERROR, "EINVAL");
    expect(a, XSD_SET_PERMS, 19, 0, "/ok\0x5", 7, XSD_ERROR, "EINVAL");
    expect(a, XSD_SET_PERMS, 20, 0, "/ok\0n", 6, XSD_ERROR, "EINVAL");
    expect(a, XSD_SET_PERMS, 21, 0, "/ok\0n32752", 11, XSD_ERROR, "EINVAL");
    expect(a, XSD_SET_PERMS, 22, 0, "/ok\0r5x", 8, XSD_ERROR, "EINVAL");
    expect(a, XSD_TRANSACTION_END, 23, 0, "Q", 2, XSD_ERROR, "EINVAL");
    expect(a, XSD_GET_DOMAIN_PATH, 24, 0, "1x", 3, XSD_ERROR, "EINVAL");
    expect(a, XSD_GET_DOMAIN_PATH, 25, 0, "40000", 6, XSD_ERROR, "EINVAL");
    /* transactions: not this connection's, not started, nested */
    expect(a, XSD_READ, 26, 77, "/ok", 4, XSD_ERROR, "ENOENT");
    expect(a, XSD_TRANSACTION_START, 27, 0, "", 1, XSD_TRANSACTION_START, "1");
    expect(b, XSD_READ, 28, 1, "/ok", 4, XSD_ERROR, "ENOENT");
    expect(b, XSD_TRANSACTION_END, 29, 1, "T", 2, XSD_ERROR, "ENOENT");
    expect(a, XSD_TRANSACTION_START, 30, 1, "", 1, XSD_ERROR, "EBUSY");
    expect(a, XSD_READ, 31, 1, "/ok", 4, XSD_READ, "v");
    expect(a, XSD_TRANSACTION_END, 32, 1, "T", 2, XSD_TRANSACTION_END, "OK");
    expect(a, XSD_TRANSACTION_END, 33, 1, "T", 2, XSD_ERROR, "ENOENT");
    /* the model's limits: a value over maxsize, for dom0 too */
    memset(buf, 'v', sizeof(buf));
    memcpy(buf, "/big", 5);
    expect(a, XSD_WRITE, 34, 0, buf, 5 + 2049, XSD_ERROR, "E2BIG");
    assert_true(log_has(&l, "bad ? request (type 99"));
    assert_true(log_has(&l, "bad READ request"));
    assert_true(log_has(&l, "bad permission 'x5'"));

    /* framing error: over the payload limit closes that connection */
    xsd_encode(m, XSD_READ, 40, 0, NULL, 0);
    memcpy(m + 12, &(uint32_t){XSD_PAYLOAD_MAX + 1}, 4);
    assert_int_equal(write(a, m, 16), 16);
    assert_int_equal(raw_recv(a, &h, buf), -1);
    close(a);
    assert_true(log_has(&l, "framing error"));
    /* closed mid-message */
    a = raw_open(l.sock);
    memcpy(m + 12, &(uint32_t){100}, 4);
    assert_int_equal(write(a, m, 26), 26);
    close(a);
    /* the other connection goes on */
    expect(b, XSD_READ, 41, 0, "/ok", 4, XSD_READ, "v");
    for ( i = 0; i < 50 && !log_has(&l, "closed mid-message"); i++ )
        usleep(10000);
    assert_true(log_has(&l, "closed mid-message"));

    /* split: a message byte by byte; pipelined: ten in one write */
    xsd_encode(m, XSD_READ, 42, 0, "/ok", 4);
    for ( i = 0; i < 20; i++ )
    {
        assert_int_equal(write(b, m + i, 1), 1);
        usleep(200);
    }
    assert_int_equal(raw_recv(b, &h, buf), 0);
    assert_int_equal(h.req_id, 42);
    assert_string_equal(buf, "v");
    {
        uint8_t many[10 * 20];

        for ( i = 0; i < 10; i++ )
            xsd_encode(many + 20 * i, XSD_READ, 100 + i, 0, "/ok", 4);
        assert_int_equal(write(b, many, sizeof(many)), (ssize_t)sizeof(many));
        for ( i = 0; i < 10; i++ )
        {
            assert_int_equal(raw_recv(b, &h, buf), 0);
            assert_int_equal(h.type, XSD_READ);
            assert_int_equal(h.req_id, 100 + i);
        }
    }

    /* the read-only socket: reads and watches, every change refused */
    a = raw_open(l.ro);
    expect(a, XSD_READ, 50, 0, "/ok", 4, XSD_READ, "v");
    for ( i = 0; i < (int)HV_ARRAY_SIZE(ro_refused); i++ )
        expect(a, ro_refused[i].type, 51 + i, 0, ro_refused[i].body,
               ro_refused[i].len, XSD_ERROR, "EACCES");
    expect(a, XSD_WATCH, 57, 0, "/ok\0t", 6, XSD_WATCH, "OK");
    close(a);
    expect(b, XSD_READ, 58, 0, "/ok", 4, XSD_READ, "v");

    /* domains: introduce, release (the model's domain release) */
    expect(b, XSD_WRITE, 60, 0, "/local/domain/4/x\0v", 19, XSD_WRITE, "OK");
    expect(b, XSD_RELEASE, 61, 0, "4", 2, XSD_ERROR, "EINVAL");
    expect(b, XSD_INTRODUCE, 62, 0,
           "4\0"
           "1\0"
           "2",
           6, XSD_INTRODUCE, "OK");
    expect(b, XSD_IS_DOMAIN_INTRODUCED, 63, 0, "4", 2, XSD_IS_DOMAIN_INTRODUCED,
           "T");
    expect(b, XSD_RELEASE, 64, 0, "4", 2, XSD_RELEASE, "OK");
    expect(b, XSD_IS_DOMAIN_INTRODUCED, 65, 0, "4", 2, XSD_IS_DOMAIN_INTRODUCED,
           "F");
    expect(b, XSD_READ, 66, 0, "/local/domain/4/x", 18, XSD_ERROR, "ENOENT");
    expect(b, XSD_CONTROL, 67, 0, "check", 6, XSD_CONTROL, "OK");
    expect(b, XSD_CONTROL, 68, 0, "nosuch", 7, XSD_ERROR, "EINVAL");
    close(b);
    live_stop(&l);
}

/*
 * CONTROL "quota DOMID": the whole argument is the domid (it was cut to
 * 15 characters: "0000000000000007" answered for dom0, "7\0x" for 7).
 */
static void test_control_quota(void **state)
{
    static const struct {
        const char *arg;
        size_t len;
        const char *want; /* NULL: EINVAL */
    } cases[] = {
        {"7", 2, "1\n"},
        {"7\n", 3, "1\n"},
        {"0000000000000007", 17, "1\n"},
        {"00000000000000000000000000000000000000007", 42, "1\n"},
        {"7\0x", 4, NULL},
        {"7x", 3, NULL},
        {"x7", 3, NULL},
        {"-7", 3, NULL},
        {"", 1, NULL},
        {"", 0, NULL},
        {"32752", 6, NULL},
        {"99999999999999999999999", 24, NULL},
        {"7 ", 3, NULL},
    };
    char body[64];
    struct live l;
    unsigned int i;
    int a;

    a = live_client(&l);
    expect(a, XSD_WRITE, 1, 0, "/q7\0v", 5, XSD_WRITE, "OK");
    expect(a, XSD_SET_PERMS, 2, 0, "/q7\0n7", 7, XSD_SET_PERMS, "OK");
    expect(a, XSD_WRITE, 3, 0, "/d0/a/b\0v", 9, XSD_WRITE, "OK");
    expect(a, XSD_CONTROL, 4, 0,
           "quota\0"
           "0",
           8, XSD_CONTROL, "4\n");
    for ( i = 0; i < HV_ARRAY_SIZE(cases); i++ )
    {
        memcpy(body, "quota", 6);
        memcpy(body + 6, cases[i].arg, cases[i].len);
        expect(a, XSD_CONTROL, 10 + i, 0, body, 6 + cases[i].len,
               cases[i].want ? XSD_CONTROL : XSD_ERROR,
               cases[i].want ? cases[i].want : "EINVAL");
    }
    close(a);
    live_stop(&l);
}

/*
 * Log injection: a client's path, permission, command with a newline
 * (or another control byte) is logged escaped, never as a line of its
 * own.
 */
static void test_log_escape(void **state)
{
    static const struct {
        uint32_t type;
        const char *body;
        size_t len;
    } bad[] = {
        {XSD_WRITE, "/a\nFORGED xenstored: x\0v", 25},
        {XSD_READ, "rel\r\nFORGED", 12},
        {XSD_SET_PERMS, "/ok\0n5\nFORGED", 14},
        {XSD_SET_PERMS, "/p\n\x1b[2J\0z", 10},
        {XSD_CONTROL, "nosuch\nFORGED", 14},
        {XSD_WATCH, "/w\nFORGED\0t", 12},
    };
    struct live l;
    unsigned int i;
    int a;

    a = live_client(&l);
    expect(a, XSD_WRITE, 1, 0, "/ok\0v", 5, XSD_WRITE, "OK");
    for ( i = 0; i < HV_ARRAY_SIZE(bad); i++ )
        expect(a, bad[i].type, 10 + i, 0, bad[i].body, bad[i].len, XSD_ERROR,
               "EINVAL");
    close(a);
    assert_true(log_lines_clean(&l));
    assert_true(log_has(&l, "WRITE /a\\x0aFORGED xenstored: x: EINVAL"));
    assert_true(log_has(&l, "READ rel\\x0d\\x0aFORGED: EINVAL"));
    assert_true(log_has(&l, "bad permission 'n5\\x0aFORGED'"));
    assert_true(log_has(&l, "SET_PERMS /p\\x0a\\x1b[2J: bad permission 'z'"));
    assert_true(log_has(&l, "CONTROL nosuch\\x0aFORGED: unknown command"));
    assert_true(log_has(&l, "WATCH /w\\x0aFORGED: EINVAL"));
    live_stop(&l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Read @fd's messages up to the reply to a READ of "/" sent now: the
 * events queued before it, "path token" each, sorted (the order of one
 * change's events is not the point), '|'-separated in @out.
 */
static void events_until_sync(int fd, char *out, size_t cap)
{
    char buf[XSD_PAYLOAD_MAX + 1], *ev[32];
    struct xsd_hdr h;
    size_t n = 0, i, nev = 0;

    raw_send(fd, XSD_READ, 999, 0, "/", 2);
    for ( ;; )
    {
        assert_int_equal(raw_recv(fd, &h, buf), 0);
        if ( h.type != XSD_WATCH_EVENT )
            break;
        assert_true(nev < HV_ARRAY_SIZE(ev));
        ev[nev] = malloc(strlen(buf) + h.len);
        assert_non_null(ev[nev]);
        sprintf(ev[nev++], "%s %s", buf, buf + strlen(buf) + 1);
    }
    assert_int_equal(h.req_id, 999);
    qsort(ev, nev, sizeof(ev[0]), cmp_str);
    out[0] = '\0';
    for ( i = 0; i < nev; i++ )
    {
        n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? "|" : "", ev[i]);
        assert_true(n < cap);
        free(ev[i]);
    }
}

/* WATCH @body (@len bytes): OK, then the initial event, its own path. */
static void watch_ok(int fd, uint32_t rid, const char *body, size_t len)
{
    char buf[XSD_PAYLOAD_MAX + 1];
    struct xsd_hdr h;

    expect(fd, XSD_WATCH, rid, 0, body, len, XSD_WATCH, "OK");
    assert_int_equal(raw_recv(fd, &h, buf), 0);
    assert_int_equal(h.type, XSD_WATCH_EVENT);
    assert_string_equal(buf, body);
}

/*
 * A path beginning with '@': never relative, in a store request the node
 * under the root (oxenstored's reading), so a WRITE of "@introduceDomain"
 * fires the watches on "/" and "/@introduceDomain" and never the special
 * watch: that hears INTRODUCE only.  It wrote
 * /local/domain/0/@introduceDomain and forged the special event.
 */
static void test_special_paths(void **state)
{
    char ev[1024];
    struct live l;
    int a, w;

    live_start(&l, "persistent", 0, 0);
    a = raw_open(l.sock);
    w = raw_open(l.sock);
    watch_ok(w, 1, "@introduceDomain\0sp", 20);
    watch_ok(w, 2, "/\0root", 7);
    watch_ok(w, 3, "/local/domain/0\0home", 21);
    watch_ok(w, 4, "/@introduceDomain\0node", 23);

    expect(a, XSD_WRITE, 10, 0, "@introduceDomain\0x", 18, XSD_WRITE, "OK");
    events_until_sync(w, ev, sizeof(ev));
    assert_string_equal(ev, "/@introduceDomain node|/@introduceDomain root");
    expect(a, XSD_READ, 11, 0, "/@introduceDomain", 18, XSD_READ, "x");
    expect(a, XSD_READ, 12, 0, "@introduceDomain", 17, XSD_READ, "x");
    expect(a, XSD_READ, 13, 0, "/local/domain/0/@introduceDomain", 33,
           XSD_ERROR, "ENOENT");
    /* MKDIR, SET_PERMS, RM and a transaction's commit: the same */
    expect(a, XSD_SET_PERMS, 14, 0, "@introduceDomain\0b0", 20, XSD_SET_PERMS,
           "OK");
    expect(a, XSD_MKDIR, 15, 0, "@introduceDomain/m", 19, XSD_MKDIR, "OK");
    expect(a, XSD_TRANSACTION_START, 16, 0, "", 1, XSD_TRANSACTION_START, "1");
    expect(a, XSD_WRITE, 17, 1, "@introduceDomain\0y", 18, XSD_WRITE, "OK");
    expect(a, XSD_TRANSACTION_END, 18, 1, "T", 2, XSD_TRANSACTION_END, "OK");
    expect(a, XSD_RM, 19, 0, "@introduceDomain", 17, XSD_RM, "OK");
    events_until_sync(w, ev, sizeof(ev));
    assert_string_equal(ev, "/@introduceDomain node|/@introduceDomain node|"
                            "/@introduceDomain node|/@introduceDomain root|"
                            "/@introduceDomain root|/@introduceDomain root|"
                            "/@introduceDomain/m node|/@introduceDomain/m "
                            "root");
    /* the daemon's own event: the special watch only */
    expect(a, XSD_INTRODUCE, 20, 0,
           "5\0"
           "1\0"
           "2",
           6, XSD_INTRODUCE, "OK");
    events_until_sync(w, ev, sizeof(ev));
    assert_string_equal(ev, "@introduceDomain sp");
    /* special watch paths have a path's characters; a relative '@' one */
    expect(w, XSD_WATCH, 21, 0, "@a b\0t", 7, XSD_ERROR, "EINVAL");
    expect(w, XSD_WATCH, 22, 0, "@a\nb\0t", 7, XSD_ERROR, "EINVAL");
    expect(w, XSD_WATCH, 23, 0, "@a//b\0t", 8, XSD_ERROR, "EINVAL");
    expect(w, XSD_WATCH, 24, 0, "@a/\0t", 6, XSD_ERROR, "EINVAL");
    watch_ok(w, 25, "@x/y\0t", 7);
    expect(w, XSD_WRITE, 26, 0, "@x/y\0v", 6, XSD_WRITE, "OK");
    events_until_sync(w, ev, sizeof(ev));
    assert_string_equal(ev, "/@x/y root");
    expect(w, XSD_UNWATCH, 27, 0, "@introduceDomain\0sp", 20, XSD_UNWATCH,
           "OK");
    expect(w, XSD_UNWATCH, 28, 0, "@introduceDomain\0sp", 20, XSD_ERROR,
           "ENOENT");
    close(a);
    close(w);
    live_stop(&l);
}

/* Many connections at once, interleaved; a watcher hears all of them. */
static void test_many_connections(void **state)
{
    enum {
        N = 300
    };
    char buf[XSD_PAYLOAD_MAX + 1], body[32], want[32];
    static int fd[N];
    struct xsd_hdr h;
    struct live l;
    int w, i, n;

    live_start(&l, "persistent", 0, 0);
    w = raw_open(l.sock);
    expect(w, XSD_WATCH, 1, 0, "/m\0t", 5, XSD_WATCH, "OK");
    assert_int_equal(raw_recv(w, &h, buf), 0); /* the initial event */
    for ( i = 0; i < N; i++ )
        fd[i] = raw_open(l.sock);
    for ( i = 0; i < N; i++ )
    {
        n = snprintf(body, sizeof(body), "/m/%d%c%d", i, 0, i);
        raw_send(fd[i], XSD_WRITE, (uint32_t)i, 0, body, (size_t)n);
    }
    for ( i = N; i-- > 0; )
    {
        assert_int_equal(raw_recv(fd[i], &h, buf), 0);
        assert_int_equal(h.type, XSD_WRITE);
        assert_int_equal(h.req_id, (uint32_t)i);
        n = snprintf(body, sizeof(body), "/m/%d", i) + 1;
        snprintf(want, sizeof(want), "%d", i);
        expect(fd[i], XSD_READ, 7, 0, body, (size_t)n, XSD_READ, want);
    }
    for ( i = 0; i < N; i++ )
    {
        assert_int_equal(raw_recv(w, &h, buf), 0);
        assert_int_equal(h.type, XSD_WATCH_EVENT);
        assert_int_equal(strncmp(buf, "/m/", 3), 0);
        close(fd[i]);
    }
    close(w);
    live_stop(&l);
}

/* Large directories: DIRECTORY says E2BIG, DIRECTORY_PART cuts them. */
static void test_directory_part(void **state)
{
    char buf[XSD_PAYLOAD_MAX + 1], path[64], *all = malloc(1 << 16);
    size_t off = 0, n = 0, glen;
    struct xsd_hdr h;
    struct live l;
    int fd, i;

    live_start(&l, "hashtbl-copy", 0, 0);
    fd = raw_open(l.sock);
    for ( i = 0; i < 600; i++ )
    {
        n = (size_t)snprintf(path, sizeof(path), "/big/child-%04d", i) + 1;
        expect(fd, XSD_WRITE, 1, 0, path, n, XSD_WRITE, "OK");
    }
    expect(fd, XSD_DIRECTORY, 2, 0, "/big", 5, XSD_ERROR, "E2BIG");
    n = 0;
    for ( ;; )
    {
        int len = snprintf(path, sizeof(path), "/big%c%zu", 0, off);

        raw_send(fd, XSD_DIRECTORY_PART, 3, 0, path, (size_t)len + 1);
        assert_int_equal(raw_recv(fd, &h, buf), 0);
        assert_int_equal(h.type, XSD_DIRECTORY_PART);
        glen = strlen(buf) + 1;
        memcpy(all + n, buf + glen, h.len - glen);
        n += h.len - glen;
        off = n;
        if ( n >= 2 && all[n - 1] == '\0' && all[n - 2] == '\0' )
            break;
        assert_true(n < 600 * 11 + 2);
    }
    assert_int_equal(n, 600 * 11 + 1); /* "child-NNNN\0" x 600, one more */
    for ( i = 0; i < 600; i++ )
    {
        snprintf(path, sizeof(path), "child-%04d", i);
        assert_string_equal(all + 11 * i, path);
    }
    close(fd);
    free(all);
    live_stop(&l);
}

/* The quota copies CONTROL stats has counted so far. */
static unsigned long copies(int fd)
{
    char buf[XSD_PAYLOAD_MAX + 1];
    struct xsd_hdr h;
    const char *p;

    raw_send(fd, XSD_CONTROL, 9, 0, "stats", 6);
    assert_int_equal(raw_recv(fd, &h, buf), 0);
    assert_int_equal(h.type, XSD_CONTROL);
    p = strstr(buf, "quota_copies ");
    assert_non_null(p);
    return strtoul(p + 13, NULL, 10);
}

/*
 * Every packet outside a transaction pays one quota copy before its type
 * is looked at (process.ml process_packet), the ones that never reach the
 * store too: WATCH, UNWATCH, GET_DOMAIN_PATH, CONTROL; a read pays 1, a
 * write 3, a request inside a transaction none.
 */
static void test_packet_copies(void **state)
{
    char buf[XSD_PAYLOAD_MAX + 1];
    struct xsd_hdr h;
    struct live l;
    unsigned long c0;
    uint32_t tid;
    int fd;

    live_start(&l, "hashtbl-copy", 0, 0);
    fd = raw_open(l.sock);
    c0 = copies(fd);
    expect(fd, XSD_WATCH, 1, 0, "/w\0t", 5, XSD_WATCH, "OK");
    assert_int_equal(raw_recv(fd, &h, buf), 0); /* its first event */
    expect(fd, XSD_UNWATCH, 2, 0, "/w\0t", 5, XSD_UNWATCH, "OK");
    expect(fd, XSD_GET_DOMAIN_PATH, 3, 0, "3", 2, XSD_GET_DOMAIN_PATH,
           "/local/domain/3");
    assert_int_equal(copies(fd) - c0, 4); /* the three, and CONTROL */
    c0 = copies(fd);
    expect(fd, XSD_WRITE, 4, 0, "/a\0v", 4, XSD_WRITE, "OK");
    expect(fd, XSD_READ, 5, 0, "/a", 3, XSD_READ, "v");
    raw_send(fd, XSD_TRANSACTION_START, 6, 0, "", 1);
    assert_int_equal(raw_recv(fd, &h, buf), 0);
    tid = (uint32_t)strtoul(buf, NULL, 10);
    expect(fd, XSD_READ, 7, tid, "/a", 3, XSD_READ, "v");
    expect(fd, XSD_TRANSACTION_END, 8, tid, "F", 2, XSD_TRANSACTION_END, "OK");
    assert_int_equal(copies(fd) - c0, 3 + 1 + 3 + 1); /* + CONTROL */
    close(fd);
    live_stop(&l);
}

/*
 * The limits: a client that does not read.  Replies are never lost (the
 * server stops reading instead); events over max_watch_events are dropped
 * and counted.
 */
static void test_limits(void **state)
{
    char buf[XSD_PAYLOAD_MAX + 1], path[2100];
    struct xsd_hdr h;
    struct live l;
    int w, a, i, fl, sent = 0, events = 0;
    uint8_t m[32];

    live_start(&l, "persistent", 4, 8);
    /* outstanding: 3000 READs written without reading, all answered */
    a = raw_open(l.sock);
    fl = fcntl(a, F_GETFL);
    fcntl(a, F_SETFL, fl | O_NONBLOCK);
    xsd_encode(m, XSD_READ, 0, 0, "/", 2);
    for ( i = 0; i < 3000; i++ )
    {
        memcpy(m + 4, &(uint32_t){(uint32_t)i}, 4);
        if ( write(a, m, 18) != 18 )
            break;
        sent++;
    }
    fcntl(a, F_SETFL, fl);
    assert_true(sent > 100);
    for ( i = 0; i < sent; i++ )
    {
        assert_int_equal(raw_recv(a, &h, buf), 0);
        assert_int_equal(h.type, XSD_READ);
        assert_int_equal(h.req_id, (uint32_t)i);
    }
    close(a);

    /* watch events: the watcher reads nothing while 400 big ones fire */
    w = raw_open(l.sock);
    a = raw_open(l.sock);
    memset(path, 'p', sizeof(path));
    memcpy(path, "/e/", 3);
    path[2000] = '\0';
    expect(w, XSD_WATCH, 1, 0, "/e\0t", 5, XSD_WATCH, "OK");
    for ( i = 0; i < 400; i++ )
    {
        memcpy(path + 3, &"0123456789"[i % 10], 1);
        expect(a, XSD_WRITE, 2, 0, path, 2001, XSD_WRITE, "OK");
    }
    expect(a, XSD_WRITE, 3, 0, "/done\0", 6, XSD_WRITE, "OK");
    raw_send(a, XSD_CONTROL, 4, 0, "stats", 6);
    assert_int_equal(raw_recv(a, &h, buf), 0);
    assert_null(strstr(buf, "events_dropped 0\n"));
    fl = fcntl(w, F_GETFL);
    fcntl(w, F_SETFL, fl | O_NONBLOCK);
    for ( i = 0; i < 200; i++ )
    {
        while ( raw_recv(w, &h, buf) == 0 )
            events++;
        usleep(5000);
    }
    /* the initial event and fewer than the 400 changes */
    assert_true(events > 8 && events < 401);
    close(w);
    close(a);
    assert_true(log_has(&l, "dropping events"));
    live_stop(&l);
}

/* ---- the limits on what a connection holds ---- */

/* The value of @name in CONTROL stats, asked on @fd. */
static uint64_t stat_of(int fd, const char *name)
{
    char buf[XSD_PAYLOAD_MAX + 1], key[64];
    struct xsd_hdr h;
    const char *p;

    raw_send(fd, XSD_CONTROL, 77, 0, "stats", 6);
    assert_int_equal(raw_recv(fd, &h, buf), 0);
    assert_int_equal(h.type, XSD_CONTROL);
    snprintf(key, sizeof(key), "\n%s ", name);
    p = strstr(buf, key);
    if ( p == NULL )
        fail_msg("no '%s' in CONTROL stats", name);
    return strtoull(p + strlen(key), NULL, 10);
}

/*
 * WATCH "<prefix><i>" token "t" for i in [from, from + n), pipelined 256
 * at a time: how many were OK (their initial events read), the rest's
 * error the same each (in *@err, "" if none).
 */
static unsigned int watch_many(int fd, const char *prefix, unsigned int from,
                               unsigned int n, char *err)
{
    uint8_t out[256 * 64];
    char buf[XSD_PAYLOAD_MAX + 1], body[48];
    struct xsd_hdr h;
    unsigned int i, k, ok = 0;
    size_t len;
    int bl;

    err[0] = '\0';
    for ( i = 0; i < n; i += k )
    {
        for ( k = 0, len = 0; k < 256 && i + k < n; k++ )
        {
            bl = snprintf(body, sizeof(body), "%s%u%ct", prefix, from + i + k,
                          0);
            len += xsd_encode(out + len, XSD_WATCH, i + k, 0, body,
                              (size_t)bl + 1);
        }
        assert_int_equal(write(fd, out, len), (ssize_t)len);
        for ( k = 0; k < 256 && i + k < n; k++ )
        {
            assert_int_equal(raw_recv(fd, &h, buf), 0);
            assert_int_equal(h.req_id, i + k);
            if ( h.type == XSD_ERROR )
            {
                assert_true(err[0] == '\0' || strcmp(err, buf) == 0);
                strcpy(err, buf);
                continue;
            }
            assert_int_equal(h.type, XSD_WATCH);
            assert_int_equal(raw_recv(fd, &h, buf), 0); /* initial event */
            assert_int_equal(h.type, XSD_WATCH_EVENT);
            ok++;
        }
    }
    return ok;
}

/*
 * Watches per connection and in all, and their bytes: ENOSPC beyond
 * (oxenstored's EQUOTA), a duplicate EEXIST first; a watch is known by
 * its absolute path; an UNWATCH or a connection's end gives room back.
 */
static void test_watch_limits(void **state)
{
    struct xsd_opts lim = {
        .max_watches = 4, .max_watches_total = 6, .max_watch_bytes = 200};
    char err[32], tok[128];
    struct live l;
    int a, b, c;

    live_start_opts(&l, "persistent", &lim);
    a = raw_open(l.sock);
    b = raw_open(l.sock);
    assert_int_equal(watch_many(a, "/a/", 0, 5, err), 4);
    assert_string_equal(err, "ENOSPC");
    expect(a, XSD_WATCH, 1, 0, "/a/0\0t", 7, XSD_ERROR, "EEXIST");
    assert_int_equal(watch_many(b, "/b/", 0, 3, err), 2);
    assert_string_equal(err, "ENOSPC"); /* 6 in all */
    expect(a, XSD_UNWATCH, 2, 0, "/a/0\0t", 7, XSD_UNWATCH, "OK");
    assert_int_equal(watch_many(b, "/b/", 2, 1, err), 1);
    /* relative: the same watch as its absolute path */
    expect(a, XSD_UNWATCH, 3, 0, "/a/1\0t", 7, XSD_UNWATCH, "OK");
    watch_ok(a, 4, "rel\0t", 6);
    expect(a, XSD_WATCH, 5, 0, "/local/domain/0/rel\0t", 22, XSD_ERROR,
           "EEXIST");
    expect(a, XSD_UNWATCH, 6, 0, "/local/domain/0/rel\0t", 22, XSD_UNWATCH,
           "OK");
    expect(a, XSD_UNWATCH, 7, 0, "rel\0t", 6, XSD_ERROR, "ENOENT");
    expect(a, XSD_UNWATCH, 8, 0, "/a b\0t", 7, XSD_ERROR, "ENOENT");
    assert_int_equal(stat_of(a, "watches"), 5);
    close(a); /* its two go */
    assert_int_equal(watch_many(b, "/b/", 3, 2, err), 1);
    assert_string_equal(err, "ENOSPC"); /* 4 on one connection */
    /* bytes: B's 4 watches hold 4 x ("/b/N" + "t" + 2) = 28 of 200 */
    c = raw_open(l.sock);
    memset(tok, 'k', sizeof(tok));
    memcpy(tok, "/c\0", 3);
    tok[103] = '\0'; /* token of 100 bytes: 2 + 100 + 2 */
    watch_ok(c, 9, tok, 104);
    assert_int_equal(stat_of(c, "watch_bytes"), 28 + 104);
    tok[1] = 'd';
    expect(c, XSD_WATCH, 10, 0, tok, 104, XSD_ERROR, "ENOSPC");
    assert_int_equal(stat_of(c, "watches"), 5);
    watch_ok(c, 11, "/d\0t", 5);
    assert_int_equal(stat_of(c, "watch_bytes"), 28 + 104 + 5);
    close(b);
    close(c);
    live_stop(&l);
}

/*
 * The default bound per connection (8192), and the registry's cost in a
 * deterministic metric (CONTROL stats watch_steps: entries visited).  A
 * registration visited every watch (the duplicate check), and so did
 * every change of any node: 8192 watches cost 8192 steps a WRITE.  Then
 * a client that does not read while an RM fires 8192 events: 1024 queued
 * (max_watch_events), 7168 dropped, one log line when the dropping
 * starts and one with the count when it ends (the log had a line every
 * 1024 drops: 97,656 lines for one slow client).
 */
static void test_watch_cost(void **state)
{
    char buf[XSD_PAYLOAD_MAX + 1], err[32], line[128];
    struct xsd_hdr h;
    struct live l;
    uint64_t steps;
    unsigned int i;
    int a, b;

    a = live_client(&l);
    b = raw_open(l.sock);
    steps = stat_of(b, "watch_steps");
    assert_int_equal(watch_many(a, "/a/", 0, 8193, err), 8192);
    assert_string_equal(err, "ENOSPC");
    steps = stat_of(b, "watch_steps") - steps;
    if ( steps > 8 * 8193 )
        fail_msg("8193 registrations visited %lu entries",
                 (unsigned long)steps);
    steps = stat_of(b, "watch_steps");
    expect(b, XSD_WRITE, 1, 0, "/w/x\0v", 6, XSD_WRITE, "OK");
    steps = stat_of(b, "watch_steps") - steps;
    if ( steps > 32 )
        fail_msg("a WRITE beside 8192 watches visited %lu entries",
                 (unsigned long)steps);
    expect(b, XSD_WRITE, 2, 0, "/a/5\0v", 6, XSD_WRITE, "OK");
    assert_int_equal(raw_recv(a, &h, buf), 0);
    assert_int_equal(h.type, XSD_WATCH_EVENT);
    assert_string_equal(buf, "/a/5");

    /* an RM of /a: every watch below, A not reading */
    expect(b, XSD_RM, 3, 0, "/a", 3, XSD_RM, "OK");
    assert_int_equal(stat_of(b, "events_dropped"), 8192 - 1024);
    for ( i = 0; i < 1024; i++ )
    {
        assert_int_equal(raw_recv(a, &h, buf), 0);
        assert_int_equal(h.type, XSD_WATCH_EVENT);
    }
    expect(a, XSD_READ, 4, 0, "/w/x", 5, XSD_READ, "v");
    snprintf(line, sizeof(line), "A1: 1024 watch events unread, dropping");
    assert_int_equal(log_count(&l, "dropping"), 1);
    assert_true(log_has(&l, line));
    assert_int_equal(log_count(&l, "watch events dropped"), 1);
    assert_true(log_has(&l, "A1: 7168 watch events dropped"));
    close(a);
    close(b);
    live_stop(&l);
}

/*
 * Open transactions per connection and in all: ENOSPC beyond (20,000 on
 * one connection cost 61 MB); an END, RESET_WATCHES or the connection's
 * end gives room back.  The default: 10 a connection.
 */
static void test_txn_limits(void **state)
{
    struct xsd_opts lim = {.max_transactions = 3, .max_transactions_total = 5};
    char buf[XSD_PAYLOAD_MAX + 1];
    struct xsd_hdr h;
    struct live l;
    uint32_t id[3];
    int a, b, i;

    a = live_client(&l);
    for ( i = 0; i < 10; i++ )
        expect(a, XSD_TRANSACTION_START, 1, 0, "", 1, XSD_TRANSACTION_START,
               NULL);
    expect(a, XSD_TRANSACTION_START, 2, 0, "", 1, XSD_ERROR, "ENOSPC");
    assert_int_equal(stat_of(a, "transactions"), 10);
    close(a);
    live_stop(&l);

    live_start_opts(&l, "hashtbl-copy", &lim);
    a = raw_open(l.sock);
    b = raw_open(l.sock);
    for ( i = 0; i < 3; i++ )
    {
        raw_send(a, XSD_TRANSACTION_START, 1, 0, "", 1);
        assert_int_equal(raw_recv(a, &h, buf), 0);
        assert_int_equal(h.type, XSD_TRANSACTION_START);
        id[i] = (uint32_t)strtoul(buf, NULL, 10);
    }
    expect(a, XSD_TRANSACTION_START, 2, 0, "", 1, XSD_ERROR, "ENOSPC");
    expect(b, XSD_TRANSACTION_START, 3, 0, "", 1, XSD_TRANSACTION_START, NULL);
    expect(b, XSD_TRANSACTION_START, 4, 0, "", 1, XSD_TRANSACTION_START, NULL);
    expect(b, XSD_TRANSACTION_START, 5, 0, "", 1, XSD_ERROR, "ENOSPC");
    expect(a, XSD_TRANSACTION_END, 6, id[0], "F", 2, XSD_TRANSACTION_END, "OK");
    expect(b, XSD_TRANSACTION_START, 7, 0, "", 1, XSD_TRANSACTION_START, NULL);
    expect(a, XSD_TRANSACTION_START, 8, 0, "", 1, XSD_ERROR, "ENOSPC");
    expect(a, XSD_RESET_WATCHES, 9, 0, "", 1, XSD_RESET_WATCHES, "OK");
    assert_int_equal(stat_of(b, "transactions"), 3);
    expect(a, XSD_TRANSACTION_START, 10, 0, "", 1, XSD_TRANSACTION_START, NULL);
    close(b);
    expect(a, XSD_TRANSACTION_START, 11, 0, "", 1, XSD_TRANSACTION_START, NULL);
    assert_int_equal(stat_of(a, "transactions"), 2);
    close(a);
    live_stop(&l);
}

/* ---- the differential ---- */

static const char *const paths[] = {
    "/d", "/d/a", "/d/a/b", "/d/c", "/e", "/e/f/g", "rel", "rel/x", "@sp", "/",
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))

/* The reference socket (--against): the real oxenstored. */
static const char *against;
/*
 * --plant rm-ok: the negative control of the differential.  Our side's
 * failed RM is taken as a success ("an RM whose node is missing returns
 * 0"), a model bug the comparison with the real oxenstored must catch
 * (ctest xsd-oxenstored-planted passes only on that mismatch's message).
 */
static bool plant_rm_ok;

struct gen {
    uint64_t rng;
    uint32_t txn, rtxn; /* open transaction here and on the reference */
};

/* One random request, in its wire form and its in-process form. */
struct greq {
    uint32_t type;
    char body[256];
    size_t blen;
    struct hv_xs_req q;
    struct hv_xs_perm perms[2];
};

static void gen_request(struct gen *g, struct greq *r)
{
    /* Each wire type and the in-process operation it is. */
    static const struct {
        uint32_t type;
        enum hv_xs_op op;
    } kinds[] = {
        {XSD_READ, HV_XS_READ},
        {XSD_WRITE, HV_XS_WRITE},
        {XSD_MKDIR, HV_XS_MKDIR},
        {XSD_RM, HV_XS_RM},
        {XSD_DIRECTORY, HV_XS_DIRECTORY},
        {XSD_GET_PERMS, HV_XS_GET_PERMS},
        {XSD_SET_PERMS, HV_XS_SET_PERMS},
        {XSD_TRANSACTION_START, HV_XS_TXN_START},
        {XSD_TRANSACTION_END, HV_XS_TXN_END},
    };
    /* the reference's root holds its own nodes: "/" is left out there */
    const char *p = paths[tl_rand(&g->rng) % (NPATHS - (against != NULL))];
    unsigned int k = tl_rand(&g->rng) % HV_ARRAY_SIZE(kinds);
    size_t room;

    memset(r, 0, sizeof(*r));
    r->type = kinds[k].type;
    r->q = (struct hv_xs_req){
        .op = kinds[k].op, .caller = 0, .tid = g->txn, .path = p};
    r->blen = strlen(p) + 1;
    memcpy(r->body, p, r->blen);
    room = sizeof(r->body) - r->blen;
    switch ( r->type )
    {
    case XSD_WRITE:
        r->q.value_len = tl_rand(&g->rng) % 4;
        r->q.value = "abcd";
        memcpy(r->body + r->blen, r->q.value, r->q.value_len);
        r->blen += r->q.value_len;
        break;
    case XSD_SET_PERMS:
        r->q.nr_perms = 1 + tl_rand(&g->rng) % 2;
        r->perms[0] = (struct hv_xs_perm){(domid_t)(tl_rand(&g->rng) % 4),
                                          (uint8_t)(tl_rand(&g->rng) % 4)};
        r->perms[1] = (struct hv_xs_perm){5, HV_XS_PERM_READ};
        r->q.perms = r->perms;
        r->blen +=
            (size_t)snprintf(r->body + r->blen, room, "%c%u%cr5",
                             "nrwb"[r->perms[0].perm], r -> perms[0].id, 0) +
            1;
        if ( r->q.nr_perms == 1 )
            r->blen -= 3; /* without "r5\0" */
        break;
    case XSD_TRANSACTION_START:
        r->body[0] = '\0';
        r->blen = 1;
        break;
    case XSD_TRANSACTION_END:
        r->q.commit = tl_rand(&g->rng) % 3 != 0;
        r->blen = 2;
        memcpy(r->body, r->q.commit ? "T" : "F", 2);
        break;
    default:
        break; /* the path is the whole body */
    }
}

static bool has_data(uint32_t type)
{
    return type == XSD_READ || type == XSD_DIRECTORY || type == XSD_GET_PERMS;
}

/*
 * Our socket against the other front door: the in-process API of a second
 * store (@xs), or the reference daemon (@ref).  Every answer must be the
 * same but for the documented difference (docs/xenstored.md): the
 * reference's transaction ids are its own.
 */
static void compare(const struct gen *g, uint64_t seed, unsigned int i,
                    const struct greq *r, int src, const char *sbuf,
                    size_t slen, int orc, const char *obuf, size_t olen)
{
    if ( plant_rm_ok && r->type == XSD_RM && src != 0 )
    {
        src = 0;
        sbuf = "OK";
        slen = 3;
    }
    if ( src != orc )
        fail_msg("seed %lu request %u (%s %s tx %u): socket %d, "
                 "%s %d",
                 (unsigned long)seed, i, xsd_type_name(r->type), r->body,
                 g->txn, src, against ? "oxenstored" : "in-process", orc);
    if ( src || (against && r->type == XSD_TRANSACTION_START) )
        return;
    if ( slen != olen || memcmp(sbuf, obuf, olen) != 0 )
        fail_msg("seed %lu request %u (%s %s): answers differ ('%.*s' and "
                 "'%.*s')",
                 (unsigned long)seed, i, xsd_type_name(r->type), r->body,
                 (int)slen, sbuf, (int)olen, obuf);
}

static void one_stream(const char *quota, uint64_t seed, unsigned int nreq)
{
    char sbuf[XSD_PAYLOAD_MAX], obuf[XSD_PAYLOAD_MAX];
    struct gen g = {tl_seed(seed), 0, 0};
    struct hv *ref = against ? NULL : machine(quota);
    struct xsd_client *c, *o = NULL;
    struct live l;
    struct greq r;
    unsigned int i;

    live_start(&l, quota, 0, 0);
    assert_int_equal(xsd_client_open(l.sock, &c), 0);
    if ( against )
    {
        assert_int_equal(xsd_client_open(against, &o), 0);
        for ( i = 0; i < NPATHS - 1; i++ ) /* a clean start there */
            xsd_client_request(o, XSD_RM, 0, paths[i], strlen(paths[i]) + 1,
                               NULL, 0, NULL);
        /* and no /local/domain/0 left by an earlier stream ("rel") */
        xsd_client_request(o, XSD_RM, 0, "/local/domain", 14, NULL, 0, NULL);
    }
    for ( i = 0; i < nreq; i++ )
    {
        struct hv_xs_rsp rsp = {.buf = obuf, .cap = sizeof(obuf)};
        size_t slen = 0, olen = 0;
        int src, orc;

        gen_request(&g, &r);
        src = xsd_client_request(c, r.type, g.txn, r.body, r.blen, sbuf,
                                 sizeof(sbuf), &slen);
        if ( o )
            orc = xsd_client_request(o, r.type, g.rtxn, r.body, r.blen, obuf,
                                     sizeof(obuf), &olen);
        else
        {
            orc = hv_xs_request(hv_xs(ref), &r.q, &rsp);
            olen = rsp.len;
            if ( orc == 0 && r.type == XSD_TRANSACTION_START )
                olen = (size_t)snprintf(obuf, sizeof(obuf), "%u", rsp.tid) + 1;
            else if ( orc == 0 && !has_data(r.type) )
                olen = (size_t)snprintf(obuf, sizeof(obuf), "OK") + 1;
        }
        compare(&g, seed, i, &r, src, sbuf, slen, orc, obuf, olen);
        if ( r.type == XSD_TRANSACTION_END )
            g.txn = g.rtxn = 0; /* gone, committed or not */
        if ( r.type == XSD_TRANSACTION_START && src == 0 )
        {
            g.txn = (uint32_t)strtoul(sbuf, NULL, 10);
            g.rtxn = o ? (uint32_t)strtoul(obuf, NULL, 10) : g.txn;
        }
    }
    if ( g.txn )
        xsd_client_request(c, XSD_TRANSACTION_END, g.txn, "F", 2, NULL, 0,
                           NULL);
    if ( o && g.rtxn )
        xsd_client_request(o, XSD_TRANSACTION_END, g.rtxn, "F", 2, NULL, 0,
                           NULL);
    if ( ref )
    {
        if ( g.txn )
            hv_xs_txn_end(hv_xs(ref), 0, g.txn, false);
        assert_int_equal(hv_xs_check(hv_xs(ref), NULL, 0), 0);
        hv_destroy(ref);
    }
    assert_int_equal(hv_xs_check(hv_xs(l.hv), NULL, 0), 0);
    xsd_client_close(o);
    xsd_client_close(c);
    live_stop(&l);
}

static void test_differential(void **state)
{
    static const char *const quotas[] = {"hashtbl-copy", "persistent"};
    unsigned int s, q;

    for ( q = 0; q < 2; q++ )
        for ( s = 1; s <= diff_seeds; s++ )
            one_stream(quotas[q], s, diff_requests);
    if ( against )
        printf("against %s: %u x 2 streams of %u requests the same\n", against,
               diff_seeds, diff_requests);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_frame, teardown),
        cmocka_unit_test_teardown(test_decode, teardown),
        cmocka_unit_test_teardown(test_bad_input, teardown),
        cmocka_unit_test_teardown(test_control_quota, teardown),
        cmocka_unit_test_teardown(test_log_escape, teardown),
        cmocka_unit_test_teardown(test_special_paths, teardown),
        cmocka_unit_test_teardown(test_many_connections, teardown),
        cmocka_unit_test_teardown(test_directory_part, teardown),
        cmocka_unit_test_teardown(test_packet_copies, teardown),
        cmocka_unit_test_teardown(test_limits, teardown),
        cmocka_unit_test_teardown(test_watch_limits, teardown),
        cmocka_unit_test_teardown(test_watch_cost, teardown),
        cmocka_unit_test_teardown(test_txn_limits, teardown),
        cmocka_unit_test_teardown(test_differential, teardown),
    };
    const struct CMUnitTest against_tests[] = {
        cmocka_unit_test_teardown(test_differential, teardown),
    };

    if ( argc > 2 && strcmp(argv[1], "--against") == 0 )
    {
        against = argv[2];
        argc -= 2;
        argv += 2;
    }
    if ( argc > 2 && strcmp(argv[1], "--plant") == 0 )
    {
        plant_rm_ok = strcmp(argv[2], "rm-ok") == 0;
        if ( !plant_rm_ok )
        {
            fprintf(stderr, "unit-xsd: --plant: only rm-ok is known\n");
            return 2;
        }
        argc -= 2;
        argv += 2;
    }
    if ( argc == 3 )
    {
        diff_seeds = (unsigned int)strtoul(argv[1], NULL, 0);
        diff_requests = (unsigned int)strtoul(argv[2], NULL, 0);
    }
    if ( against )
        return cmocka_run_group_tests(against_tests, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
