/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The option engine (hv/opt.h): text to typed struct fields and back,
 * for plugin options and workload parameters alike.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <hv/num.h>
#include <hv/opt.h>
#include <hv/strbuf.h>

/* Characters of an HV_OPT_STR word. */
static const char word_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "abcdefghijklmnopqrstuvwxyz0123456789.:+_-";

const char *hv_opt_type_name(enum hv_opt_type t)
{
    switch ( t )
    {
    case HV_OPT_UINT:
    case HV_OPT_U64:
        return "uint";
    case HV_OPT_BOOL:
        return "bool";
    case HV_OPT_ENUM:
        return "enum";
    case HV_OPT_STR:
        return "string";
    case HV_OPT_END:
        break;
    }
    return "?";
}

/* The upper bound a row can hold: its max, capped by its field. */
static uint64_t row_max(const struct hv_opt *o)
{
    if ( o->type == HV_OPT_UINT && o->max > UINT_MAX )
        return UINT_MAX;
    return o->max;
}

static int parse_bool(const char *v, uint64_t *out)
{
    if ( !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") ||
         !strcmp(v, "on") )
        *out = 1;
    else if ( !strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no") ||
              !strcmp(v, "off") )
        *out = 0;
    else
        return -EINVAL;
    return 0;
}

/* Index of @v in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *v)
{
    size_t n = strlen(v);
    const char *p = choices;
    int i = 0;

    while ( p != NULL && *p != '\0' )
    {
        size_t l = strcspn(p, "|");

        if ( n > 0 && l == n && strncmp(p, v, n) == 0 )
            return i;
        i++;
        p += l;
        p = *p == '|' ? p + 1 : NULL;
    }
    return -1;
}

/* Choice @idx of "a|b|c" into @buf ("?" if out of range). */
static void hv_opt_choice(const char *choices, unsigned int idx, char *buf,
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

/* The canonical text of @v->u (numeric types) into @v->text. */
static void canon(const struct hv_opt *o, struct hv_opt_val *v)
{
    switch ( o->type )
    {
    case HV_OPT_BOOL:
        snprintf(v->text, sizeof(v->text), "%s", v->u ? "true" : "false");
        break;
    case HV_OPT_ENUM:
        hv_opt_choice(o->choices, (unsigned int)v->u, v->text, sizeof(v->text));
        break;
    default:
        snprintf(v->text, sizeof(v->text), "%" PRIu64, v->u);
        break;
    }
}

int hv_opt_parse(const struct hv_opt *o, const char *text, struct hv_opt_val *v)
{
    int i;

    memset(v, 0, sizeof(*v));
    if ( text == NULL )
        return -EINVAL;
    switch ( o->type )
    {
    case HV_OPT_UINT:
    case HV_OPT_U64:
        if ( hv_num_parse(text, &v->u) || v->u < o->min || v->u > row_max(o) )
            return -EINVAL;
        break;
    case HV_OPT_BOOL:
        if ( parse_bool(text, &v->u) )
            return -EINVAL;
        break;
    case HV_OPT_ENUM:
        i = choice_index(o->choices, text);
        if ( i < 0 )
            return -EINVAL;
        v->u = (uint64_t)i;
        break;
    case HV_OPT_STR:
        if ( *text == '\0' || strlen(text) >= sizeof(v->text) ||
             text[strspn(text, word_chars)] != '\0' )
            return -EINVAL;
        snprintf(v->text, sizeof(v->text), "%s", text);
        return 0;
    default:
        return -EINVAL;
    }
    canon(o, v);
    return 0;
}

void hv_opt_store(const struct hv_opt *o, const struct hv_opt_val *v,
                  void *opts)
{
    void *dst = (char *)opts + o->off;

    switch ( o->type )
    {
    case HV_OPT_UINT:
    case HV_OPT_ENUM:
        *(unsigned int *)dst = (unsigned int)v->u;
        break;
    case HV_OPT_U64:
        *(uint64_t *)dst = v->u;
        break;
    case HV_OPT_BOOL:
        *(bool *)dst = v->u != 0;
        break;
    case HV_OPT_STR:
        memcpy(dst, v->text, sizeof(v->text));
        break;
    case HV_OPT_END:
        break;
    }
}

void hv_opt_load(const struct hv_opt *o, const void *opts, struct hv_opt_val *v)
{
    const void *src = (const char *)opts + o->off;

    memset(v, 0, sizeof(*v));
    switch ( o->type )
    {
    case HV_OPT_UINT:
    case HV_OPT_ENUM:
        v->u = *(const unsigned int *)src;
        break;
    case HV_OPT_U64:
        v->u = *(const uint64_t *)src;
        break;
    case HV_OPT_BOOL:
        v->u = *(const bool *)src;
        break;
    case HV_OPT_STR:
        snprintf(v->text, sizeof(v->text), "%s", (const char *)src);
        return;
    case HV_OPT_END:
        return;
    }
    canon(o, v);
}

/* "a|b|c" -> "a, b, c" */
static void choices_list(const char *choices, char *buf, size_t len)
{
    const char *p = choices;
    struct hv_strbuf b;

    hv_strbuf_init(&b, buf, len);
    while ( p != NULL && *p != '\0' )
    {
        size_t l = strcspn(p, "|");

        hv_strbuf_join(&b, ", ", "%.*s", (int)l, p);
        p += l;
        if ( *p == '|' )
            p++;
    }
}

void hv_opt_allowed(const struct hv_opt *o, char *buf, size_t len)
{
    char list[256];

    switch ( o->type )
    {
    case HV_OPT_UINT:
    case HV_OPT_U64:
        hv_num_allowed(o->min, row_max(o), buf, len);
        return;
    case HV_OPT_BOOL:
        snprintf(buf, len, "true or false");
        return;
    case HV_OPT_ENUM:
        choices_list(o->choices, list, sizeof(list));
        snprintf(buf, len, "one of: %s", list);
        return;
    case HV_OPT_STR:
        snprintf(buf, len, "%s", o->choices ? o->choices : "a word");
        return;
    case HV_OPT_END:
        break;
    }
    snprintf(buf, len, "nothing (bad option type)");
}

void hv_opt_range(const struct hv_opt *o, char *buf, size_t len)
{
    switch ( o->type )
    {
    case HV_OPT_UINT:
    case HV_OPT_U64:
        snprintf(buf, len, "[%" PRIu64 ", %" PRIu64 "]", o->min, row_max(o));
        return;
    case HV_OPT_BOOL:
        snprintf(buf, len, "true|false");
        return;
    default:
        snprintf(buf, len, "%s", o->choices ? o->choices : "");
        return;
    }
}

void hv_opt_bad_value(const struct hv_opt *o, const char *text,
                      const char *kind, const char *owner, char *err,
                      size_t len)
{
    char allowed[320];

    hv_opt_allowed(o, allowed, sizeof(allowed));
    snprintf(err, len, "bad value '%s' for %s %s of %s (%s)",
             text ? text : "(null)", kind, o->name, owner, allowed);
}

int hv_opt_set(const struct hv_opt *o, const char *text, void *opts,
               const char *kind, const char *owner, char *err, size_t len)
{
    struct hv_opt_val v;

    if ( hv_opt_parse(o, text, &v) )
    {
        hv_opt_bad_value(o, text, kind, owner, err, len);
        return -EINVAL;
    }
    hv_opt_store(o, &v, opts);
    return 0;
}

const struct hv_opt *hv_opt_find(const struct hv_opt *table, const char *name)
{
    const struct hv_opt *o;

    for ( o = table; o != NULL && o->name != NULL; o++ )
        if ( strcmp(o->name, name) == 0 )
            return o;
    return NULL;
}

size_t hv_opt_count(const struct hv_opt *table)
{
    size_t n = 0;

    while ( table != NULL && table[n].name != NULL )
        n++;
    return n;
}

void hv_opt_names(const struct hv_opt *table, char *buf, size_t len)
{
    const struct hv_opt *o;
    struct hv_strbuf b;

    hv_strbuf_init(&b, buf, len);
    for ( o = table; o != NULL && o->name != NULL; o++ )
        hv_strbuf_join(&b, ", ", "%s", o->name);
    if ( b.len == 0 )
        hv_strbuf_add(&b, "none");
}

/* Bytes of @o's field; 0 for a type the engine does not know. */
static size_t field_size(const struct hv_opt *o)
{
    switch ( o->type )
    {
    case HV_OPT_UINT:
    case HV_OPT_ENUM:
        return sizeof(unsigned int);
    case HV_OPT_U64:
        return sizeof(uint64_t);
    case HV_OPT_BOOL:
        return sizeof(bool);
    case HV_OPT_STR:
        return HV_OPT_TEXT_MAX;
    case HV_OPT_END:
        break;
    }
    return 0;
}

bool hv_name_ok(const char *s, const char *extra)
{
    if ( s == NULL || *s == '\0' || strlen(s) > 32 )
        return false;
    for ( ; *s; s++ )
        if ( !islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
             strchr(extra, *s) == NULL )
            return false;
    return true;
}

int hv_opt_defaults(const struct hv_opt *table, void *opts, size_t size,
                    const char *kind, const char *owner, char *err, size_t len)
{
    const struct hv_opt *o, *p;
    size_t fs;

    for ( o = table; o != NULL && o->name != NULL; o++ )
    {
        fs = field_size(o);
        if ( !hv_name_ok(o->name, "-_") || o->help == NULL || o->def == NULL ||
             fs == 0 || o->off > size || size - o->off < fs ||
             ((o->type == HV_OPT_UINT || o->type == HV_OPT_U64) &&
              o->min > o->max) ||
             (o->type == HV_OPT_ENUM &&
              (o->choices == NULL || *o->choices == '\0')) )
        {
            snprintf(err, len, "%s: bad %s table entry '%s'", owner, kind,
                     o->name);
            return -EINVAL;
        }
        for ( p = table; p != o; p++ )
            if ( strcmp(p->name, o->name) == 0 )
            {
                snprintf(err, len, "%s: %s %s twice", owner, kind, o->name);
                return -EINVAL;
            }
        if ( hv_opt_set(o, o->def, opts, kind, owner, err, len) )
            return -EINVAL;
    }
    return 0;
}
