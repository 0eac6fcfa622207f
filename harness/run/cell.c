/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The workload's view of its cell: the resolved plugin of a slot, and
 * the error message a hook leaves behind.  Parameter values are the typed
 * fields of the workload's own struct, c->params (hvb/workload.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/matrix.h>

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
