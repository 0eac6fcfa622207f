/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workload parameter values: parse, validate against the workload's
 * table, and describe what is allowed when a value is rejected.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/params.h>

const char *hvb_param_type_name(enum hvb_param_type t)
{
    switch ( t )
    {
    case HVB_PARAM_UINT:
        return "uint";
    case HVB_PARAM_ENUM:
        return "enum";
    case HVB_PARAM_STR:
        return "string";
    case HVB_PARAM_END:
        break;
    }
    return "?";
}

void hvb_param_bounds(const struct hvb_param *p, uint64_t *min, uint64_t *max)
{
    *min = p->min;
    *max = p->max;
    if ( p->min == 0 && p->max == 0 )
        *max = UINT64_MAX;
}

const struct hvb_param *hvb_param_find(const struct hvb_param *table,
                                       const char *name)
{
    const struct hvb_param *p;

    for ( p = table; p != NULL && p->name != NULL; p++ )
        if ( strcmp(p->name, name) == 0 )
            return p;
    return NULL;
}

size_t hvb_param_count(const struct hvb_param *table)
{
    size_t n = 0;

    while ( table != NULL && table[n].name != NULL )
        n++;
    return n;
}

void hvb_param_names(const struct hvb_param *table, char *buf, size_t len)
{
    const struct hvb_param *p;
    size_t used = 0;

    buf[0] = '\0';
    for ( p = table; p != NULL && p->name != NULL; p++ )
        used += snprintf(buf + used, used < len ? len - used : 0, "%s%s",
                         used ? ", " : "", p->name);
    if ( used == 0 )
        snprintf(buf, len, "none");
}

/* "a|b|c" -> "a, b, c" */
static void choices_list(const char *choices, char *buf, size_t len)
{
    const char *p = choices;
    size_t used = 0;

    buf[0] = '\0';
    while ( p != NULL && *p != '\0' )
    {
        size_t l = strcspn(p, "|");

        used += snprintf(buf + used, used < len ? len - used : 0, "%s%.*s",
                         used ? ", " : "", (int)l, p);
        p += l;
        if ( *p == '|' )
            p++;
    }
}

void hvb_param_allowed(const struct hvb_param *p, char *buf, size_t len)
{
    char list[256];
    uint64_t min, max;

    switch ( p->type )
    {
    case HVB_PARAM_UINT:
        hvb_param_bounds(p, &min, &max);
        snprintf(buf, len,
                 "an integer in [%" PRIu64 ", %" PRIu64
                 "]; k/M/G suffixes multiply by 1000",
                 min, max);
        return;
    case HVB_PARAM_ENUM:
        choices_list(p->choices ? p->choices : "", list, sizeof(list));
        snprintf(buf, len, "one of: %s", list);
        return;
    case HVB_PARAM_STR:
        snprintf(buf, len, "%s", p->choices ? p->choices : "a word");
        return;
    case HVB_PARAM_END:
        break;
    }
    snprintf(buf, len, "nothing (bad parameter type)");
}

void hvb_choice_name(const char *choices, unsigned int idx, char *buf,
                     size_t len)
{
    const char *p = choices;

    while ( idx-- && p != NULL )
    {
        p = strchr(p, '|');
        if ( p != NULL )
            p++;
    }
    if ( p == NULL )
    {
        snprintf(buf, len, "?");
        return;
    }
    snprintf(buf, len, "%.*s", (int)strcspn(p, "|"), p);
}

/* Index of @v in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *v)
{
    size_t n = strlen(v);
    const char *p = choices;
    int i = 0;

    while ( p != NULL && *p != '\0' )
    {
        const char *bar = strchr(p, '|');
        size_t l = bar ? (size_t)(bar - p) : strlen(p);

        if ( n > 0 && l == n && strncmp(p, v, n) == 0 )
            return i;
        i++;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

/* Decimal digits, then at most one of k, M, G.  -EINVAL or -ERANGE. */
static int parse_uint(const char *s, uint64_t *out)
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

int hvb_param_parse(const char *workload, const struct hvb_param *p,
                    const char *text, struct hvb_pval *out, char *err,
                    size_t len)
{
    char allowed[320], canon[64];
    uint64_t min, max;
    int i;

    memset(out, 0, sizeof(*out));
    switch ( p->type )
    {
    case HVB_PARAM_UINT:
        hvb_param_bounds(p, &min, &max);
        if ( parse_uint(text, &out->u) || out->u < min || out->u > max )
            goto bad;
        snprintf(canon, sizeof(canon), "%" PRIu64, out->u);
        break;
    case HVB_PARAM_ENUM:
        i = choice_index(p->choices, text);
        if ( i < 0 )
            goto bad;
        out->idx = (unsigned int)i;
        snprintf(canon, sizeof(canon), "%s", text);
        break;
    case HVB_PARAM_STR:
        if ( *text == '\0' || strlen(text) >= sizeof(canon) ||
             text[strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "abcdefghijklmnopqrstuvwxyz0123456789.:+_-")] )
            goto bad;
        snprintf(canon, sizeof(canon), "%s", text);
        break;
    case HVB_PARAM_END:
    default:
        snprintf(err, len, "param %s of workload %s has a bad type", p->name,
                 workload);
        return -EINVAL;
    }
    out->text = strdup(canon);
    if ( out->text == NULL )
    {
        snprintf(err, len, "out of memory");
        return -ENOMEM;
    }
    return 0;

bad:
    hvb_param_allowed(p, allowed, sizeof(allowed));
    snprintf(err, len, "bad value '%s' for param %s of workload %s (%s)", text,
             p->name, workload, allowed);
    return -EINVAL;
}

void hvb_pval_free(struct hvb_pval *v)
{
    free(v->text);
    memset(v, 0, sizeof(*v));
}
