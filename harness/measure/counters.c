/* SPDX-License-Identifier: GPL-2.0-only */
/* Fixed-size named counter tables; see hvb/counters.h. */
#include <string.h>

#include <hvb/counters.h>

struct hvb_ctr *hvb_ctr_find(struct hvb_ctr_table *t, const char *name)
{
    unsigned int i;

    for ( i = 0; i < t->nr; i++ )
        if ( strcmp(t->c[i].name, name) == 0 )
            return &t->c[i];
    return NULL;
}

struct hvb_ctr *hvb_ctr_add(struct hvb_ctr_table *t, const char *name, double v,
                            unsigned int flags)
{
    struct hvb_ctr *c = hvb_ctr_find(t, name);

    if ( c == NULL )
    {
        if ( strlen(name) >= HVB_CTR_NAME_MAX || *name == '\0' )
        {
            t->too_long = true;
            return NULL;
        }
        if ( t->nr == HVB_CTR_MAX )
        {
            t->overflow = true;
            return NULL;
        }
        c = &t->c[t->nr++];
        strcpy(c->name, name);
        c->value = 0;
        c->flags = flags;
    }
    c->value += v;
    return c;
}

void hvb_ctr_merge(struct hvb_ctr_table *dst, const struct hvb_ctr_table *src)
{
    unsigned int i;

    for ( i = 0; i < src->nr; i++ )
        hvb_ctr_add(dst, src->c[i].name, src->c[i].value, src->c[i].flags);
    dst->overflow |= src->overflow;
    dst->too_long |= src->too_long;
}
