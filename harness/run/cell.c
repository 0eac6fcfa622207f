/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The workload's view of its cell: parameter values, the resolved plugin
 * of a slot, and the error message a hook leaves behind.  Asking for a
 * parameter the workload does not declare, or with the wrong type, is a
 * bug in the workload: it stops the program with a message naming it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/matrix.h>

static void __attribute__((noreturn, format(printf, 2, 3)))
workload_bug(const struct hvb_cell *c, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "hvbench: internal error: workload %s: ",
            c->w && c->w->name ? c->w->name : "?");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static const struct hvb_pval *param(const struct hvb_cell *c, const char *name,
                                    enum hvb_param_type type)
{
    const struct hvb_mcell *mc = hvb_mcell_of(c);
    size_t i;

    for ( i = 0; i < mc->m->nr_params; i++ )
    {
        const struct hvb_param *p = mc->m->params[i].p;

        if ( strcmp(p->name, name) != 0 )
            continue;
        if ( type != HVB_PARAM_END && p->type != type )
            workload_bug(c, "param %s is a %s, not a %s", name,
                         hvb_param_type_name(p->type),
                         hvb_param_type_name(type));
        return hvb_mcell_param(mc, i);
    }
    workload_bug(c, "asks for param '%s', which it does not declare", name);
}

uint64_t hvb_param_uint(const struct hvb_cell *c, const char *name)
{
    return param(c, name, HVB_PARAM_UINT)->u;
}

const char *hvb_param_str(const struct hvb_cell *c, const char *name)
{
    return param(c, name, HVB_PARAM_END)->text;
}

unsigned int hvb_param_enum(const struct hvb_cell *c, const char *name)
{
    return param(c, name, HVB_PARAM_ENUM)->idx;
}

void hvb_cell_error(struct hvb_cell *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->error, sizeof(c->error), fmt, ap);
    va_end(ap);
}

const struct hv_plugin_inst *hvb_cell_plugin(const struct hvb_cell *c,
                                             const char *slot)
{
    const struct hvb_mcell *mc = hvb_mcell_of(c);
    size_t i;

    for ( i = 0; i < mc->m->nr_slots; i++ )
        if ( strcmp(mc->m->slots[i].slot, slot) == 0 )
            return hvb_mcell_plugin(mc, i);
    return NULL;
}
