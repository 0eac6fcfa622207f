/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `hvbench report DIR --out OUT` of a reproduce directory: the results
 * files its reproduce.json lists (the runs of that invocation), each put
 * through the readers' check as any RESULT.json argument is, and
 * "--seeds DIR" for report.py's seeds section (hvb/reproduce.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/reproduce.h>
#include <hvb/results.h>

static int push(char ***args, size_t *n, size_t *cap, char *s)
{
    char **v;

    if ( s == NULL )
        return -ENOMEM;
    if ( *n + 1 >= *cap )
    {
        v = realloc(*args, (*cap * 2 + 8) * sizeof(*v));
        if ( v == NULL )
            return -ENOMEM;
        *args = v;
        *cap = *cap * 2 + 8;
    }
    (*args)[(*n)++] = s;
    (*args)[*n] = NULL;
    return 0;
}

int hvb_rp_report_inputs(const char *dir, char ***args, size_t *n, size_t *cap,
                         char *err, size_t len)
{
    char path[4096], lerr[768];
    json_error_t je;
    json_t *doc, *runs, *r, *res;
    const char *file;
    size_t i;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/%s", dir, HVB_RP_JSON);
    doc = json_load_file(path, 0, &je);
    if ( doc == NULL )
    {
        snprintf(err, len, "'%s' is not a reproduce directory: %s: %s", dir,
                 path, je.text);
        return -EINVAL;
    }
    runs = json_object_get(doc, "runs");
    if ( !json_is_integer(json_object_get(doc, "hvbench_reproduce")) ||
         !json_is_array(runs) )
    {
        snprintf(err, len, "'%s' is not a reproduce table (no runs)", path);
        json_decref(doc);
        return -EINVAL;
    }
    if ( push(args, n, cap, strdup("--seeds")) ||
         push(args, n, cap, strdup(dir)) )
        rc = -ENOMEM;
    json_array_foreach(runs, i, r)
    {
        file = json_string_value(json_object_get(r, "file"));
        if ( rc || file == NULL || strchr(file, '/') ||
             json_is_null(json_object_get(r, "results")) )
            continue; /* a failed run: the seeds section says so */
        snprintf(path, sizeof(path), "%s/%s", dir, file);
        res = hvb_results_load(path, lerr, sizeof(lerr));
        if ( res == NULL )
        {
            snprintf(err, len, "%s", lerr);
            rc = -EINVAL;
            break;
        }
        json_decref(res);
        if ( push(args, n, cap, strdup(path)) )
            rc = -ENOMEM;
    }
    if ( rc == -ENOMEM )
        snprintf(err, len, "out of memory");
    json_decref(doc);
    return rc;
}
