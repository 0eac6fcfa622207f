/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The closest name to a mistyped one (hv/suggest.h): optimal string
 * alignment distance, two rows and a third for the swaps.
 */
#include <stdio.h>
#include <string.h>

#include <hv/suggest.h>

#define MAX_NAME 64

static unsigned int min3(unsigned int a, unsigned int b, unsigned int c)
{
    unsigned int m = a < b ? a : b;

    return m < c ? m : c;
}

static unsigned int distance(const char *a, const char *b)
{
    unsigned int rows[3][MAX_NAME + 1];
    unsigned int *pp = rows[0], *p = rows[1], *c = rows[2], *t;
    size_t n = strlen(a), m = strlen(b), i, j;

    if ( n > MAX_NAME || m > MAX_NAME )
        return ~0u;
    for ( j = 0; j <= m; j++ )
        p[j] = (unsigned int)j;
    for ( i = 1; i <= n; i++ )
    {
        c[0] = (unsigned int)i;
        for ( j = 1; j <= m; j++ )
        {
            unsigned int cost = a[i - 1] != b[j - 1];

            c[j] = min3(p[j] + 1, c[j - 1] + 1, p[j - 1] + cost);
            if ( i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
                 a[i - 2] == b[j - 1] && pp[j - 2] + 1 < c[j] )
                c[j] = pp[j - 2] + 1;
        }
        t = pp;
        pp = p;
        p = c;
        c = t;
    }
    return p[m];
}

void hv_suggest_init(struct hv_suggest *s, const char *typo)
{
    s->typo = typo;
    s->best = NULL;
    s->dist = ~0u;
}

void hv_suggest_add(struct hv_suggest *s, const char *name)
{
    unsigned int d = distance(s->typo, name);

    if ( d < s->dist )
    {
        s->dist = d;
        s->best = name;
    }
}

const char *hv_suggest_best(const struct hv_suggest *s)
{
    size_t n = strlen(s->typo);
    unsigned int most = n >= 3 ? (unsigned int)(n / 3) : 1;

    if ( s->best == NULL || s->dist == 0 || s->dist > most || s->dist >= n )
        return NULL;
    return s->best;
}

const char *hv_suggest_fmt(const struct hv_suggest *s, char *buf,
                           unsigned int len)
{
    const char *b = hv_suggest_best(s);

    if ( b == NULL )
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "; did you mean '%s'?", b);
    return buf;
}
