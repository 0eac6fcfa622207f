/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The workload registry: walks the "hvb_workloads" linker section that
 * HVB_REGISTER_WORKLOAD() fills.  Nothing is copied or cached, so there
 * is no mutable state: workloads are listed sorted by name by ranking
 * them on every call (there are a few dozen at most).
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hv/plugin.h>
#include <hv/plugin_registry.h>
#include <hvb/params.h>
#include <hvb/registry.h>

/* Weak: a binary that links no workload has no section at all. */
extern const struct hvb_workload *const __start_hvb_workloads[]
    __attribute__((weak));
extern const struct hvb_workload *const __stop_hvb_workloads[]
    __attribute__((weak));

static size_t section_count(void)
{
    if ( __start_hvb_workloads == NULL || __stop_hvb_workloads == NULL )
        return 0;
    return (size_t)(__stop_hvb_workloads - __start_hvb_workloads);
}

static const struct hvb_workload *section_at(size_t i)
{
    return i < section_count() ? __start_hvb_workloads[i] : NULL;
}

/* Total order for listing: by name, then by address (duplicates). */
static bool before(const struct hvb_workload *a, const struct hvb_workload *b)
{
    int c = strcmp(a->name ? a->name : "", b->name ? b->name : "");

    return c < 0 || (c == 0 && (uintptr_t)a < (uintptr_t)b);
}

const struct hvb_workload *hvb_workload_at(size_t idx)
{
    size_t i, j, n = section_count();

    for ( i = 0; i < n; i++ )
    {
        const struct hvb_workload *w = section_at(i);
        size_t rank = 0;

        if ( w == NULL )
            continue;
        for ( j = 0; j < n; j++ )
            if ( section_at(j) != NULL && before(section_at(j), w) )
                rank++;
        if ( rank == idx )
            return w;
    }
    return NULL;
}

const struct hvb_workload *hvb_workload_find(const char *name)
{
    size_t i;

    for ( i = 0; i < section_count(); i++ )
    {
        const struct hvb_workload *w = section_at(i);

        if ( w != NULL && w->name != NULL && strcmp(w->name, name) == 0 )
            return w;
    }
    return NULL;
}

void hvb_workload_names(char *buf, size_t len)
{
    const struct hvb_workload *w;
    struct hv_strbuf b;
    size_t i;

    hv_strbuf_init(&b, buf, len);
    for ( i = 0; (w = hvb_workload_at(i)) != NULL; i++ )
        hv_strbuf_join(&b, ", ", "%s", w->name);
    if ( b.len == 0 )
        hv_strbuf_add(&b, "none");
}

void hvb_workload_slot_names(const struct hvb_workload *w, char *buf,
                             size_t len)
{
    const char *const *s;
    struct hv_strbuf b;

    hv_strbuf_init(&b, buf, len);
    for ( s = w->slots; s != NULL && *s != NULL; s++ )
        hv_strbuf_join(&b, ", ", "%s", *s);
    if ( b.len == 0 )
        hv_strbuf_add(&b, "none");
}

static int check_one(const struct hvb_workload *w, char *err, size_t len)
{
    const char *const *s, *const *t;

    if ( !hv_name_ok(w->name, "-") || w->summary == NULL || w->thread == NULL ||
         (w->kind != HVB_MICRO && w->kind != HVB_MACRO) )
    {
        snprintf(
            err, len,
            "workload '%s' needs a name of [a-z0-9-], a summary, a kind and a thread hook",
            w->name ? w->name : "(null)");
        return -EINVAL;
    }
    for ( s = w->slots; s != NULL && *s != NULL; s++ )
    {
        if ( hv_slot_find(*s) == NULL )
        {
            snprintf(err, len, "workload %s uses unknown slot '%s'", w->name,
                     *s);
            return -EINVAL;
        }
        for ( t = w->slots; t != s; t++ )
            if ( strcmp(*t, *s) == 0 )
            {
                snprintf(err, len, "workload %s lists slot %s twice", w->name,
                         *s);
                return -EINVAL;
            }
    }
    return hvb_params_check(w, err, len);
}

int hvb_workload_registry_check(char *err, size_t len)
{
    size_t i, j, n = section_count();
    int rc;

    for ( i = 0; i < n; i++ )
    {
        const struct hvb_workload *w = section_at(i);

        if ( w == NULL )
        {
            snprintf(err, len, "workload registry entry %zu is NULL", i);
            return -EINVAL;
        }
        rc = check_one(w, err, len);
        if ( rc )
            return rc;
        for ( j = 0; j < i; j++ )
            if ( section_at(j) != NULL &&
                 strcmp(section_at(j)->name, w->name) == 0 )
            {
                snprintf(err, len, "two workloads named %s", w->name);
                return -EINVAL;
            }
    }
    return 0;
}
