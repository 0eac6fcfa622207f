/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a file gives the history.  A results file ("hvbench run --out"):
 * per cell the absolute median of time (ns/op) and of every per-op
 * counter (sim_instructions_per_op is the metric sim_instructions),
 * under the commit it was built from.  A review file (review.json): per
 * cell and metric the paired ratio head/base with its CI, and head's
 * absolute median beside it, under head's commit with base's as the
 * reference.
 *
 * E.g. review.json's cell "lookup/domlookup=rcu-ref/threads:1" with
 * verdicts.time {ratio 1.021, ci [1.012, 1.030], new 9.38} gives
 *   (cell, time, ratio, 1.021, [1.012, 1.030], "new/base")
 *   (cell, time, absolute, 9.38, null, "ns/op")
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <hvb/fsutil.h>

#include "private.h"

#define PER_OP "_per_op"

static void point(json_t *a, const char *cell, const char *metric,
                  const char *series, json_t *value, json_t *ci,
                  const char *unit)
{
    if ( !json_is_number(value) )
        return;
    json_array_append_new(a,
                          json_pack("{s:s, s:s, s:s, s:O, s:O?, s:s}", "cell",
                                    cell, "metric", metric, "series", series,
                                    "value", value, "ci", ci, "unit", unit));
}

/* The commit and dirty flag of @o ({"commit", "dirty"}). */
static void commit_of(struct hvb_hrun *r, json_t *o)
{
    r->commit = json_string_value(json_object_get(o, "commit"));
    r->dirty = json_is_true(json_object_get(o, "dirty"));
}

static void from_results(struct hvb_hrun *r, json_t *hv)
{
    json_t *cell, *v;
    const char *name, *k;
    char metric[256];
    size_t i, n;

    r->kind = "results";
    commit_of(r, json_object_get(hv, "git"));
    json_array_foreach(json_object_get(hv, "cells"), i, cell)
    {
        name = json_string_value(json_object_get(cell, "name"));
        if ( name == NULL ||
             strcmp(json_string_value(json_object_get(cell, "status")) ?: "ok",
                    "ok") )
            continue;
        point(r->points, name, "time", "absolute",
              json_object_get(json_object_get(cell, "summary"), "median"), NULL,
              "ns/op");
        json_object_foreach(json_object_get(cell, "counters"), k, v)
        {
            n = strlen(k);
            if ( n <= strlen(PER_OP) || strcmp(k + n - strlen(PER_OP), PER_OP) )
                continue;
            snprintf(metric, sizeof(metric), "%.*s", (int)(n - strlen(PER_OP)),
                     k);
            point(r->points, name, metric, "absolute",
                  json_object_get(json_object_get(v, "summary"), "median"),
                  NULL, "per op");
        }
    }
}

static void from_review(struct hvb_hrun *r, json_t *rv, json_t *doc)
{
    json_t *cell, *v;
    const char *name, *m;
    size_t i;

    r->kind = "review";
    commit_of(r, json_object_get(rv, "head"));
    r->base_commit = json_string_value(
        json_object_get(json_object_get(rv, "base"), "commit"));
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        name = json_string_value(json_object_get(cell, "name"));
        json_object_foreach(json_object_get(cell, "verdicts"), m, v)
        {
            if ( name == NULL )
                break;
            point(r->points, name, m, "ratio", json_object_get(v, "ratio"),
                  json_object_get(v, "ci"), "new/base");
            point(r->points, name, m, "absolute", json_object_get(v, "new"),
                  NULL, strcmp(m, "time") ? "per op" : "ns/op");
        }
    }
}

json_t *hvb_hrun_load(const char *path, char sha[65], char *err, size_t len)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0, i;
    json_error_t je;
    json_t *doc;
    struct stat st;
    size_t n;
    char *text;

    if ( stat(path, &st) == 0 && S_ISDIR(st.st_mode) )
    {
        /* It said "'[' or '{' expected". */
        snprintf(err, len, "%s: a directory (history import PATH walks one)",
                 path);
        return NULL;
    }
    text = hvb_slurp(path, &n);
    if ( text == NULL )
    {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if ( !EVP_Digest(text, n, md, &mdlen, EVP_sha256(), NULL) )
        mdlen = 0;
    for ( i = 0; i < mdlen && i < 32; i++ )
        snprintf(sha + 2 * i, 3, "%02x", md[i]);
    sha[2 * i] = '\0';
    doc = json_loadb(text, n, 0, &je);
    free(text);
    if ( doc == NULL )
        snprintf(err, len, "%s: line %d: %s", path, je.line, je.text);
    return doc;
}

/*
 * The machine a run is of, where --machine did not say: the file's own
 * context.host_name (where it ran), else this host (where it is
 * recorded).  Recording a CI machine's file elsewhere filed its points
 * under the recorder's name.
 */
static void machine_of(struct hvb_hrun *r, json_t *doc)
{
    static char host[256];

    if ( r->machine == NULL )
        r->machine = json_string_value(
            json_object_get(json_object_get(doc, "context"), "host_name"));
    if ( r->machine == NULL || *r->machine == '\0' )
    {
        if ( gethostname(host, sizeof(host)) != 0 )
            snprintf(host, sizeof(host), "unknown");
        host[sizeof(host) - 1] = '\0';
        r->machine = host;
    }
}

/* Does @s hold a control character (a newline, an escape)? */
static bool has_control(const char *s)
{
    for ( ; s != NULL && *s; s++ )
        if ( (unsigned char)*s < 0x20 || *s == 0x7f )
            return true;
    return false;
}

/*
 * The first field of @r that holds a control character, or NULL: such a
 * commit, cell or metric reached the terminal raw in every listing.
 */
static const char *control_field(const struct hvb_hrun *r)
{
    static const char *const keys[] = {"cell", "metric", "unit"};
    json_t *p;
    size_t i, k;

    if ( has_control(r->commit) )
        return "commit";
    if ( has_control(r->base_commit) )
        return "base commit";
    if ( has_control(r->machine) )
        return "host name";
    json_array_foreach(r->points, i, p)
    {
        for ( k = 0; k < 3; k++ )
            if ( has_control(json_string_value(json_object_get(p, keys[k]))) )
                return keys[k];
    }
    return NULL;
}

int hvb_hrun_from(struct hvb_hrun *r, json_t *doc, const char *path, char *err,
                  size_t len)
{
    const char *bad;

    json_t *hv = json_object_get(doc, "hvbench");
    json_t *rv = json_object_get(doc, "review");

    r->source = path;
    r->points = json_array();
    machine_of(r, doc);
    if ( json_is_object(rv) )
        from_review(r, rv, doc);
    else if ( json_is_object(hv) &&
              json_is_array(json_object_get(hv, "cells")) )
        from_results(r, hv);
    else
    {
        snprintf(err, len,
                 "%s: neither hvbench results (hvbench.cells) nor a review "
                 "(review.json)",
                 path);
        return -EINVAL;
    }
    if ( (bad = control_field(r)) != NULL )
    {
        snprintf(err, len,
                 "%s: a %s holds a control character (a newline, an "
                 "escape): refused",
                 path, bad);
        return -EINVAL;
    }
    if ( json_array_size(r->points) == 0 )
    {
        snprintf(err, len, "%s: no figures to record (no cell succeeded)",
                 path);
        return -EINVAL;
    }
    return 0;
}
