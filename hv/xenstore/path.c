/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Xenstore paths, checked as xenstored does (docs/misc/xenstore.txt):
 * characters [A-Za-z0-9-/_@], no "//", no trailing "/" (except "/"), not
 * empty; a relative path (no leading "/") resolves under
 * /local/domain/<caller> and is at most HV_XS_REL_PATH_MAX bytes, an
 * absolute one at most HV_XS_ABS_PATH_MAX.  Over-long is -E2BIG, any
 * other fault -EINVAL.  A path beginning with '@' is never relative: it
 * names a node under the root, as oxenstored's path_validate takes it
 * ("@introduceDomain" is the node /@introduceDomain oxenstored keeps for
 * that special watch; cxenstored answers EINVAL).
 *
 *   "/a/b"   caller 7 -> "/a/b"                     comps a, b
 *   "dev/x"  caller 7 -> "/local/domain/7/dev/x"    comps local ... x
 *   "@sp"    caller 7 -> "/@sp"                     comp @sp
 *   "/"               -> "/"                         no comps
 *   "/a//b", "/a/", "", "/a b"                      -EINVAL
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xs-private.h"

static bool valid_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '-' || c == '/' || c == '_' ||
           c == '@';
}

int xs_path_parse_abs(const char *path, size_t len, struct xs_path *out)
{
    size_t i, start;

    if ( len == 0 || path[0] != '/' )
        return -EINVAL;
    if ( len > HV_XS_ABS_PATH_MAX )
        return -E2BIG;
    memmove(out->buf, path, len);
    out->buf[len] = '\0';
    out->len = len;
    out->n = 0;
    if ( len == 1 )
        return 0;
    if ( path[len - 1] == '/' )
        return -EINVAL;
    start = 1;
    for ( i = 1; i <= len; i++ )
    {
        if ( i < len && path[i] != '/' )
        {
            if ( !valid_char(path[i]) )
                return -EINVAL;
            continue;
        }
        if ( i == start ) /* "//" */
            return -EINVAL;
        out->off[out->n] = start;
        out->clen[out->n] = i - start;
        out->n++;
        start = i + 1;
    }
    return 0;
}

int xs_path_resolve(const char *path, domid_t caller, struct xs_path *out)
{
    char tmp[HV_XS_ABS_PATH_MAX + 1];
    size_t len = strnlen(path, HV_XS_ABS_PATH_MAX + 1);
    int n;

    if ( len == 0 )
        return -EINVAL;
    if ( path[0] == '/' )
        return xs_path_parse_abs(path, len, out);
    if ( path[0] == '@' )
        n = snprintf(tmp, sizeof(tmp), "/%s", path);
    else if ( len > HV_XS_REL_PATH_MAX )
        return -E2BIG;
    else
        n = snprintf(tmp, sizeof(tmp), "/local/domain/%u/%s", caller, path);
    if ( n < 0 || (size_t)n >= sizeof(tmp) )
        return -E2BIG;
    return xs_path_parse_abs(tmp, n, out);
}

unsigned int xs_path_comps_in(const struct xs_path *p, size_t len)
{
    unsigned int k = 0;

    while ( k < p->n && (size_t)p->off[k] + p->clen[k] <= len )
        k++;
    return k;
}

size_t xs_path_parent_len(const struct xs_path *p)
{
    if ( p->n <= 1 )
        return 1;
    return p->off[p->n - 1] - 1;
}
