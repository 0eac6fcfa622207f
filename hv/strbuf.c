/* SPDX-License-Identifier: GPL-2.0-only */
/* A string in a fixed buffer (hv/strbuf.h). */
#include <stdarg.h>
#include <stdio.h>

#include <hv/strbuf.h>

void hv_strbuf_init(struct hv_strbuf *b, char *s, size_t size)
{
    b->s = s;
    b->size = size;
    b->len = 0;
    s[0] = '\0';
}

static void vadd(struct hv_strbuf *b, const char *fmt, va_list ap)
{
    int n = b->len < b->size
                ? vsnprintf(b->s + b->len, b->size - b->len, fmt, ap)
                : vsnprintf(NULL, 0, fmt, ap);

    if ( n > 0 )
        b->len += (size_t)n;
}

void hv_strbuf_add(struct hv_strbuf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vadd(b, fmt, ap);
    va_end(ap);
}

void hv_strbuf_join(struct hv_strbuf *b, const char *sep, const char *fmt, ...)
{
    va_list ap;

    if ( b->len > 0 )
        hv_strbuf_add(b, "%s", sep);
    va_start(ap, fmt);
    vadd(b, fmt, ap);
    va_end(ap);
}
