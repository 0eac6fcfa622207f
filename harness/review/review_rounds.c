/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the explanations share: one command of a build with its output in
 * a log, and a line run by both builds in alternating rounds (AB BA AB
 * BA), so that drift within a pair of rounds falls on both builds alike.
 * E.g. the flame graph's 4 rounds of line 1 run, in this order,
 *   OUT/flame/rounds/1-1-base, 1-1-head, 1-2-head, 1-2-base,
 *   1-3-base, 1-3-head, 1-4-head, 1-4-base
 * each with its log beside it (1-1-base.log, ...).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvb/exec.h>
#include <hvb/fsutil.h>

#include "private.h"

#define ROUND_TIMEOUT_S 1800.0

/*
 * @bin @cmd LINE... [--cell @cells] @extra... -> @out (its log:
 * @out.log).
 */
static int one_round(const char *bin, const char *cmd,
                     const struct review_line *ln, const char *cells,
                     char *const *extra, const char *out, char *err, size_t len)
{
    char logp[4500];
    size_t n = 0, i, nx = 0;
    char **av;
    struct hvb_exec c = {.timeout_s = ROUND_TIMEOUT_S};
    int rc;

    while ( extra[nx] != NULL )
        nx++;
    /* BIN CMD LINE... [--cell CELLS] --out OUT EXTRA... NULL */
    av = calloc(ln->nr + nx + 7, sizeof(*av));
    if ( av == NULL )
        return -ENOMEM;
    av[n++] = (char *)bin;
    av[n++] = (char *)cmd;
    for ( i = 0; i < ln->nr; i++ )
        av[n++] = ln->words[i];
    if ( cells != NULL )
    {
        av[n++] = "--cell";
        av[n++] = (char *)cells;
    }
    av[n++] = "--out";
    av[n++] = (char *)out;
    for ( i = 0; i < nx; i++ )
        av[n++] = extra[i];
    av[n] = NULL;
    c.argv = av;
    snprintf(logp, sizeof(logp), "%s.log", out);
    rc = hvb_irdiff_exec_log(&c, logp, err, len);
    free(av);
    return rc;
}

int hvb_review_alternate(struct review *rv, size_t l, const char *sub,
                         const char *cmd, char *const *extra,
                         unsigned int rounds, hvb_review_round_fn *fn,
                         void *ctx, char *err, size_t len)
{
    char dir[4200], out[4400];
    unsigned int r, j, k;
    int rc;

    snprintf(dir, sizeof(dir), "%s/%s/rounds", rv->o.out, sub);
    rc = hvb_mkdirs(dir);
    if ( rc )
    {
        snprintf(err, len, "%s: %s", dir, strerror(-rc));
        return rc;
    }
    for ( r = 0; r < rounds && rc == 0; r++ )
        for ( j = 0; j < 2 && rc == 0; j++ )
        {
            k = (r & 1) ? 1 - j : j;
            snprintf(out, sizeof(out), "%s/%zu-%u-%s", dir, l + 1, r + 1,
                     k ? "head" : "base");
            rc = one_round(rv->builds[k].bin, cmd, &rv->lines[l], rv->cells,
                           extra, out, err, len);
            if ( rc == 0 )
                rc = fn(ctx, k, r, out, err, len);
        }
    return rc;
}

json_t *hvb_review_cells(const char *path, json_t **doc, char *err, size_t len)
{
    json_error_t je;

    *doc = json_load_file(path, 0, &je);
    if ( *doc == NULL )
    {
        snprintf(err, len, "%s: %s", path, je.text);
        return NULL;
    }
    return json_object_get(json_object_get(*doc, "hvbench"), "cells");
}
