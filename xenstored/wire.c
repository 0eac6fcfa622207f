/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The xenstore wire format: framing, request bodies, replies (wire.h).
 *
 * Bodies are read as oxenstored 4.17 reads them (process.ml):
 *
 *   type                       body                         else
 *   READ DIRECTORY GET_PERMS   "path\0", nothing after       EINVAL
 *   MKDIR RM
 *   GET_DOMAIN_PATH RELEASE    "domid\0" (decimal)           EINVAL
 *   IS_DOMAIN_INTRODUCED RESUME
 *   WRITE                      "path\0" + value (any bytes)  EINVAL
 *   SET_PERMS                  "path\0perm\0..." (>= 1 perm) EINVAL
 *   WATCH UNWATCH              "path\0token\0"               EINVAL
 *   TRANSACTION_START          ignored ("\0" by the clients)
 *   TRANSACTION_END            "T" or "F", then NUL or end   EINVAL
 *   INTRODUCE                  "domid\0gfn\0port\0"          EINVAL
 *   SET_TARGET                 "domid\0domid\0"              EINVAL
 *   DIRECTORY_PART             "path\0offset\0"              EINVAL
 *   CONTROL                    "cmd\0" + data                EINVAL
 *   RESET_WATCHES              ignored
 *   WATCH_EVENT ERROR 20, >22  -                             ENOSYS
 */
#include <errno.h>
#include <string.h>

#include <xsd/wire.h>

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v)); /* host-endian, as every client writes it */
    return v;
}

int xsd_frame(const uint8_t *buf, size_t len, struct xsd_hdr *hdr,
              size_t *msg_len)
{
    if ( len < XSD_HDR_LEN )
        return 0;
    hdr->type = get32(buf);
    hdr->req_id = get32(buf + 4);
    hdr->tx_id = get32(buf + 8);
    hdr->len = get32(buf + 12);
    if ( hdr->len > XSD_PAYLOAD_MAX )
        return -E2BIG;
    if ( len < XSD_HDR_LEN + (size_t)hdr->len )
        return 0;
    *msg_len = XSD_HDR_LEN + hdr->len;
    return 1;
}

/*
 * Split @body into NUL-terminated strings.  @strict: the body must end
 * with a NUL (every byte belongs to a string).  Else the bytes after the
 * last NUL are left out.  The count, or -EINVAL (too many).
 */
static int split(const uint8_t *body, size_t len, bool strict,
                 struct xsd_req *req)
{
    const char *s = (const char *)body;
    size_t i, start = 0;

    req->nargs = 0;
    for ( i = 0; i < len; i++ )
    {
        if ( body[i] != '\0' )
            continue;
        if ( req->nargs == XSD_MAX_ARGS )
            return -EINVAL;
        req->args[req->nargs++] = s + start;
        start = i + 1;
    }
    if ( strict && start != len )
        return -EINVAL;
    return req->nargs;
}

/* A decimal number in [0, 2^31): no sign, no spaces, no leading "0x". */
static int number(const char *s, unsigned long *out)
{
    unsigned long v = 0;

    if ( *s == '\0' )
        return -EINVAL;
    for ( ; *s; s++ )
    {
        if ( *s < '0' || *s > '9' )
            return -EINVAL;
        v = v * 10 + (unsigned long)(*s - '0');
        if ( v >= 0x80000000ul )
            return -EINVAL;
    }
    *out = v;
    return 0;
}

/* Exactly @n strings, every byte in one; the last @nums are numbers. */
static int strings(const uint8_t *body, size_t len, unsigned int n,
                   unsigned int nums, struct xsd_req *req)
{
    unsigned int i;

    if ( split(body, len, true, req) != (int)n )
        return EINVAL;
    for ( i = 0; i < nums; i++ )
        if ( number(req->args[n - nums + i], &req->num[i]) )
            return EINVAL;
    return 0;
}

int xsd_decode(uint32_t type, const uint8_t *body, size_t len,
               struct xsd_req *req)
{
    const uint8_t *nul;
    size_t l;

    memset(req, 0, sizeof(*req));
    req->type = type;
    switch ( type )
    {
    case XSD_READ:
    case XSD_DIRECTORY:
    case XSD_GET_PERMS:
    case XSD_MKDIR:
    case XSD_RM:
        return strings(body, len, 1, 0, req);
    case XSD_GET_DOMAIN_PATH:
    case XSD_RELEASE:
    case XSD_IS_DOMAIN_INTRODUCED:
    case XSD_RESUME:
        return strings(body, len, 1, 1, req);
    case XSD_WATCH:
    case XSD_UNWATCH:
        return strings(body, len, 2, 0, req);
    case XSD_SET_TARGET:
        return strings(body, len, 2, 2, req);
    case XSD_DIRECTORY_PART:
        return strings(body, len, 2, 1, req);
    case XSD_INTRODUCE:
        return strings(body, len, 3, 3, req);
    case XSD_SET_PERMS:
        return split(body, len, true, req) < 2 ? EINVAL : 0;
    case XSD_WRITE:
    case XSD_CONTROL:
        nul = len ? memchr(body, '\0', len) : NULL;
        if ( nul == NULL )
            return EINVAL;
        l = (size_t)(nul - body) + 1;
        req->nargs = 1;
        req->args[0] = (const char *)body;
        req->value = (const char *)body + l;
        req->value_len = len - l;
        return 0;
    case XSD_TRANSACTION_END:
        nul = len ? memchr(body, '\0', len) : NULL;
        l = nul ? (size_t)(nul - body) : len;
        if ( l != 1 || (body[0] != 'T' && body[0] != 'F') )
            return EINVAL;
        req->commit = body[0] == 'T';
        return 0;
    case XSD_TRANSACTION_START:
    case XSD_RESET_WATCHES:
        return 0;
    default:
        return ENOSYS;
    }
}

/* xsd_errors[] of xs_wire.h, in its order. */
static const struct {
    int err;
    const char *name;
} errors[] = {
    {EINVAL, "EINVAL"}, {EACCES, "EACCES"},   {EEXIST, "EEXIST"},
    {EISDIR, "EISDIR"}, {ENOENT, "ENOENT"},   {ENOMEM, "ENOMEM"},
    {ENOSPC, "ENOSPC"}, {EIO, "EIO"},         {ENOTEMPTY, "ENOTEMPTY"},
    {ENOSYS, "ENOSYS"}, {EROFS, "EROFS"},     {EBUSY, "EBUSY"},
    {EAGAIN, "EAGAIN"}, {EISCONN, "EISCONN"}, {E2BIG, "E2BIG"},
    {EPERM, "EPERM"},
};

const char *xsd_errno_name(int err)
{
    size_t i;

    for ( i = 0; i < sizeof(errors) / sizeof(errors[0]); i++ )
        if ( errors[i].err == err )
            return errors[i].name;
    return "EIO";
}

int xsd_errno_of(const char *name, size_t len)
{
    size_t i;

    for ( i = 0; i < sizeof(errors) / sizeof(errors[0]); i++ )
        if ( strlen(errors[i].name) == len &&
             memcmp(errors[i].name, name, len) == 0 )
            return errors[i].err;
    return -1;
}

size_t xsd_encode(uint8_t *out, uint32_t type, uint32_t req_id, uint32_t tx_id,
                  const void *payload, size_t len)
{
    uint32_t h[4] = {type, req_id, tx_id, (uint32_t)len};

    memcpy(out, h, sizeof(h));
    if ( len )
        memcpy(out + XSD_HDR_LEN, payload, len);
    return XSD_HDR_LEN + len;
}

const char *xsd_type_name(uint32_t type)
{
    static const char *const names[XSD_TYPE_COUNT] = {
        "CONTROL",
        "DIRECTORY",
        "READ",
        "GET_PERMS",
        "WATCH",
        "UNWATCH",
        "TRANSACTION_START",
        "TRANSACTION_END",
        "INTRODUCE",
        "RELEASE",
        "GET_DOMAIN_PATH",
        "WRITE",
        "MKDIR",
        "RM",
        "SET_PERMS",
        "WATCH_EVENT",
        "ERROR",
        "IS_DOMAIN_INTRODUCED",
        "RESUME",
        "SET_TARGET",
        NULL,
        "RESET_WATCHES",
        "DIRECTORY_PART",
    };

    return type < XSD_TYPE_COUNT && names[type] ? names[type] : "?";
}
