/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A string built in a caller's fixed buffer, for the lists of names that
 * errors and tables print ("valid: a, b, c"): appends never run past the
 * buffer, the string is always terminated, and a string that did not
 * fit says so (hv_strbuf_cut) instead of each caller clamping an offset
 * its own way.
 */
#ifndef HV_STRBUF_H
#define HV_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct hv_strbuf {
    char *s;
    size_t size; /* of @s, > 0 */
    size_t len;  /* of the whole string appended, cut or not */
};

/* Start an empty string in @s (@size bytes, at least 1). */
void hv_strbuf_init(struct hv_strbuf *b, char *s, size_t size);

/* Append printf(@fmt, ...), as much of it as fits. */
void hv_strbuf_add(struct hv_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The same after @sep unless the string is still empty: "a, b, c". */
void hv_strbuf_join(struct hv_strbuf *b, const char *sep, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Was anything cut? */
static inline bool hv_strbuf_cut(const struct hv_strbuf *b)
{
    return b->len >= b->size;
}

#endif /* HV_STRBUF_H */
