/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Some cells of a built matrix kept, the rest dropped: by name (run
 * --cell, hvb_matrix_select_cells()) or by whole group (--shard,
 * hvb_shard_select() in the session room).  The kept cells are numbered
 * as a run of them alone numbers them, so that the summary's reference
 * of a cell (cells[i - variant]) and the console's groups stay right.
 *
 * Example: lookup --plugin domlookup=rwlock-ref,rcu-ref --threads 1,2
 * is 4 cells in 2 groups (rwlock-ref the reference of each); with
 *   --cell lookup/domlookup=rcu-ref/threads:2
 * one is left: index 0, group 0, variant 0 (its own reference: the run
 * prints no ratio column), full_index 3.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/suggest.h>
#include <hvb/matrix.h>

static void drop_cell(struct hvb_mcell *mc)
{
    free(mc->slot_sel);
    free(mc->param_sel);
    free(mc->params);
    free(mc->name);
    free(mc->group_name);
}

void hvb_matrix_compact(struct hvb_matrix *m, const bool *keep)
{
    size_t i, kept = 0, groups = 0, variant = 0, last = SIZE_MAX;

    m->nr_variants = 0;
    for ( i = 0; i < m->nr_cells; i++ )
    {
        struct hvb_mcell mc = m->cells[i];

        if ( !keep[i] )
        {
            drop_cell(&mc);
            continue;
        }
        if ( mc.group != last )
        {
            groups++, last = mc.group;
            variant = 0;
        }
        mc.group = groups - 1;
        mc.variant = variant++;
        mc.index = kept;
        if ( variant > m->nr_variants )
            m->nr_variants = variant;
        m->cells[kept++] = mc;
    }
    m->nr_cells = kept;
    m->nr_groups = groups;
}

bool hvb_matrix_listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p;

    for ( p = list; p && *p; p += strcspn(p, ","), p += *p == ',' )
        if ( strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0') )
            return true;
    return false;
}

/* Each name of @list is a cell of @m: 0, or -EINVAL naming the first not. */
static int all_known(const struct hvb_matrix *m, const char *list, char *err,
                     size_t len)
{
    char one[512], hint[600];
    const char *p;
    size_t i, n;

    for ( p = list;; p += n + 1 )
    {
        struct hv_suggest s;

        n = strcspn(p, ",");
        snprintf(one, sizeof(one), "%.*s", (int)n, p);
        hv_suggest_init(&s, one);
        for ( i = 0; i < m->nr_cells && strcmp(m->cells[i].name, one); i++ )
            hv_suggest_add(&s, m->cells[i].name);
        if ( n == 0 || i == m->nr_cells )
        {
            snprintf(err, len,
                     "bad value for --cell: '%s' is no cell of this run "
                     "(its first: %s; 'run --plan' lists them)%s",
                     one, m->cells[0].name,
                     hv_suggest_fmt(&s, hint, sizeof(hint)));
            return -EINVAL;
        }
        if ( p[n] == '\0' )
            return 0;
    }
}

int hvb_matrix_select_cells(struct hvb_matrix *m, const char *list, char *err,
                            size_t len)
{
    bool *keep;
    size_t i;
    int rc = all_known(m, list, err, len);

    if ( rc )
        return rc;
    keep = calloc(m->nr_cells + 1, sizeof(*keep));
    if ( keep == NULL )
        return -ENOMEM;
    for ( i = 0; i < m->nr_cells; i++ )
        keep[i] = hvb_matrix_listed(list, m->cells[i].name);
    hvb_matrix_compact(m, keep);
    free(keep);
    return 0;
}
