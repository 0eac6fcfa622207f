/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one number grammar (hv/num.h): decimal digits, then at most one
 * of k/K, M, G.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <hv/num.h>

int hv_num_parse(const char *s, uint64_t *out)
{
    uint64_t v = 0, mult = 1;
    const char *p = s;

    if ( !isdigit((unsigned char)*p) )
        return -EINVAL;
    for ( ; isdigit((unsigned char)*p); p++ )
    {
        unsigned int d = (unsigned int)(*p - '0');

        if ( v > (UINT64_MAX - d) / 10 )
            return -ERANGE;
        v = v * 10 + d;
    }
    switch ( *p )
    {
    case '\0':
        break;
    case 'k':
    case 'K':
        mult = 1000;
        p++;
        break;
    case 'M':
        mult = 1000000;
        p++;
        break;
    case 'G':
        mult = 1000000000;
        p++;
        break;
    default:
        return -EINVAL;
    }
    if ( *p != '\0' )
        return -EINVAL;
    if ( v > UINT64_MAX / mult )
        return -ERANGE;
    *out = v * mult;
    return 0;
}

void hv_num_allowed(uint64_t min, uint64_t max, char *buf, size_t len)
{
    snprintf(buf, len,
             "an integer in [%" PRIu64 ", %" PRIu64
             "]; k/M/G suffixes multiply by 1000",
             min, max);
}
