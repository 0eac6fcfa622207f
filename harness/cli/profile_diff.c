/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench profile --diff SLOT=A,B": which two plugins of a slot the
 * differential flame graphs compare, checked against the matrix before
 * anything runs (cli/cmd_profile.c draws them).  E.g. "--diff
 * domlookup=rwlock-ref,rcu-noref" for a run with --plugin
 * domlookup=rwlock-ref,rcu-noref pairs each rwlock-ref cell with the
 * rcu-noref cell of the same parameters and threads.
 */
#include <stdio.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/cli.h>
#include <hvb/matrix.h>

#include "private.h"

/* The slot axis index and labels A, B of --diff SLOT=A,B. */
int hvb_profile_diff_parse(const struct hvb_matrix *m, const char *spec,
                           size_t *slot, char *a, char *b, size_t len)
{
    const char *eq = strchr(spec, '='), *comma;
    size_t i;

    if ( eq == NULL || (comma = strchr(eq + 1, ',')) == NULL ||
         strchr(comma + 1, ',') != NULL || comma == eq + 1 || !comma[1] )
        return -1;
    for ( i = 0; i < m->nr_slots; i++ )
        if ( strlen(m->slots[i].slot) == (size_t)(eq - spec) &&
             strncmp(m->slots[i].slot, spec, (size_t)(eq - spec)) == 0 )
            break;
    if ( i == m->nr_slots )
        return -1;
    *slot = i;
    snprintf(a, len, "%.*s", (int)(comma - eq - 1), eq + 1);
    snprintf(b, len, "%s", comma + 1);
    return 0;
}

bool hvb_profile_same_but(const struct hvb_mcell *x, const struct hvb_mcell *y,
                          size_t slot)
{
    size_t i;

    if ( x->cell.threads != y->cell.threads )
        return false;
    for ( i = 0; i < x->m->nr_slots; i++ )
        if ( i != slot && x->slot_sel[i] != y->slot_sel[i] )
            return false;
    for ( i = 0; i < x->m->nr_params; i++ )
        if ( x->param_sel[i] != y->param_sel[i] )
            return false;
    return true;
}

/* Does slot axis @a of @m have a plugin labelled @label? */
static bool has_label(const struct hvb_slot_axis *a, const char *label)
{
    size_t k;

    for ( k = 0; k < a->nr; k++ )
        if ( strcmp(a->labels[k], label) == 0 )
            return true;
    return false;
}

/*
 * --diff SLOT=A,B names a slot of the workload and two plugins of it
 * that run, with a pair of cells differing only there: else exit 2
 * before anything is measured (it used to be ignored silently).
 * Returns 0 or the exit status, the message printed.
 */
int hvb_profile_diff_check(const char *diff, const struct hvb_matrix *m)
{
    char la[256], lb[256], slots[512], labels[512];
    struct hv_strbuf b;
    size_t slot, i, c, d;
    const struct hvb_slot_axis *a;
    const char *miss = NULL;

    if ( diff == NULL )
        return 0;
    if ( hvb_profile_diff_parse(m, diff, &slot, la, lb, sizeof(la)) )
    {
        hv_strbuf_init(&b, slots, sizeof(slots));
        for ( i = 0; i < m->nr_slots; i++ )
            hv_strbuf_join(&b, ", ", "%s", m->slots[i].slot);
        return hvb_usage_error(
            "bad value '%s' for --diff: SLOT=A,B with SLOT one of %s's slots "
            "(%s)",
            diff, m->w->name, slots[0] ? slots : "none");
        return -1;
    }
    a = &m->slots[slot];
    hv_strbuf_init(&b, labels, sizeof(labels));
    for ( i = 0; i < a->nr; i++ )
        hv_strbuf_join(&b, ", ", "%s", a->labels[i]);
    miss = !has_label(a, la) ? la : !has_label(a, lb) ? lb : NULL;
    if ( miss != NULL )
    {
        return hvb_usage_error("--diff %s: %s=%s does not run (this "
                               "run's %s plugins: %s; add it with "
                               "--plugin %s=%s,%s)",
                               diff, a->slot, miss, a->slot, labels, a->slot,
                               la, lb);
        return -1;
    }
    if ( strcmp(la, lb) == 0 )
        return hvb_usage_error("--diff %s: A and B are one plugin", diff);
    for ( c = 0; c < m->nr_cells; c++ )
        for ( d = 0; d < m->nr_cells; d++ )
            if ( strcmp(a->labels[m->cells[c].slot_sel[slot]], la) == 0 &&
                 strcmp(a->labels[m->cells[d].slot_sel[slot]], lb) == 0 &&
                 hvb_profile_same_but(&m->cells[c], &m->cells[d], slot) )
                return 0;
    return hvb_usage_error("--diff %s: no two cells differ only in %s", diff,
                           a->slot);
}
