/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The xenstore wire format (xen/include/public/io/xs_wire.h), without any
 * I/O: framing of a byte stream into messages, the split of a request's
 * body into its arguments per type, and the encoding of replies, errors
 * and watch events.  Everything here is a pure function of its input, so
 * the fuzz target (tests/fuzz/fuzz-xsd-wire.c) can drive it directly.
 *
 * A message is a 16-byte header of host-endian uint32_t (type, req_id,
 * tx_id, len) and len <= 4096 bytes of body.  Worked example, a
 * libxenstore xs_write(h, 0, "/a", "v", 1):
 *
 *   0b 00 00 00  00 00 00 00  00 00 00 00  04 00 00 00   "/a\0v"
 *   type WRITE   req_id 0     tx_id 0      len 4
 *
 * xsd_frame() sees the 16 + 4 bytes and says "one message of 20 bytes";
 * xsd_decode() gives args[0] = "/a", value = "v" (1 byte); the reply is
 * xsd_encode(WRITE, 0, 0, "OK\0", 3).
 */
#ifndef XSD_WIRE_H
#define XSD_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XSD_HDR_LEN     16
#define XSD_PAYLOAD_MAX 4096 /* XENSTORE_PAYLOAD_MAX */
#define XSD_MSG_MAX     (XSD_HDR_LEN + XSD_PAYLOAD_MAX)
#define XSD_MAX_ARGS    34 /* SET_PERMS: path + HV_XS_MAX_PERMS + 1 */

/* enum xsd_sockmsg_type of xs_wire.h (Xen 4.17). */
enum xsd_type {
    XSD_CONTROL = 0,
    XSD_DIRECTORY = 1,
    XSD_READ = 2,
    XSD_GET_PERMS = 3,
    XSD_WATCH = 4,
    XSD_UNWATCH = 5,
    XSD_TRANSACTION_START = 6,
    XSD_TRANSACTION_END = 7,
    XSD_INTRODUCE = 8,
    XSD_RELEASE = 9,
    XSD_GET_DOMAIN_PATH = 10,
    XSD_WRITE = 11,
    XSD_MKDIR = 12,
    XSD_RM = 13,
    XSD_SET_PERMS = 14,
    XSD_WATCH_EVENT = 15,
    XSD_ERROR = 16,
    XSD_IS_DOMAIN_INTRODUCED = 17,
    XSD_RESUME = 18,
    XSD_SET_TARGET = 19,
    /* 20: XS_RESTRICT, removed */
    XSD_RESET_WATCHES = 21,
    XSD_DIRECTORY_PART = 22,
    XSD_TYPE_COUNT
};

struct xsd_hdr {
    uint32_t type, req_id, tx_id, len;
};

/*
 * xsd_frame - is there a whole message at the start of @buf (@len bytes)?
 * 1 and *@hdr, *@msg_len (header + body) when there is; 0 when more bytes
 * are needed; -E2BIG when the header announces a body over
 * XSD_PAYLOAD_MAX (a framing error: the stream cannot be resynchronised,
 * the connection must be closed).
 */
int xsd_frame(const uint8_t *buf, size_t len, struct xsd_hdr *hdr,
              size_t *msg_len);

/* A request split into its arguments. */
struct xsd_req {
    enum xsd_type type;
    unsigned int nargs;
    const char *args[XSD_MAX_ARGS]; /* NUL-terminated, inside @body */
    const char *value;              /* WRITE, CONTROL: the raw rest */
    size_t value_len;
    unsigned long num[3]; /* domids, offset: the numeric arguments */
    bool commit;          /* TRANSACTION_END */
};

/*
 * xsd_decode - split the body of a request of @type, as oxenstored
 * reads it.  @body must stay alive while @req is used.  0, or the errno
 * the reply carries: ENOSYS for a type no client may send (unknown,
 * reply-only, removed), EINVAL for a body that is not what the type
 * takes (a string without its NUL, a missing or extra argument, a
 * number that is not decimal or out of range, "T"/"F" not given).
 * Paths and permission strings are the model's to check.
 */
int xsd_decode(uint32_t type, const uint8_t *body, size_t len,
               struct xsd_req *req);

/* The errno name of xs_wire.h's xsd_errors[] ("ENOENT"); "EIO" if none. */
const char *xsd_errno_name(int err);
/* The errno of a name, or -1. */
int xsd_errno_of(const char *name, size_t len);

/*
 * xsd_encode - write a message into @out (XSD_HDR_LEN + @len bytes):
 * the header and @len bytes of @payload.  Return the message's length.
 */
size_t xsd_encode(uint8_t *out, uint32_t type, uint32_t req_id, uint32_t tx_id,
                  const void *payload, size_t len);

/* The name of a type for logs ("WRITE"), "?" if unknown. */
const char *xsd_type_name(uint32_t type);

#endif /* XSD_WIRE_H */
