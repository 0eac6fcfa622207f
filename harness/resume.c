/* SPDX-License-Identifier: GPL-2.0-only */
/* Loading the finished rounds of an interrupted run; see hvb/resume.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvb/resume.h>
#include <hvb/results.h>

static char *dup_str(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Is every sample of counter object @k zero? */
static bool all_zero(json_t *k)
{
    json_t *v;
    size_t i;

    json_array_foreach(json_object_get(k, "samples"), i, v)
    {
        if ( json_is_number(v) && json_number_value(v) != 0 )
            return false;
    }
    return true;
}

/*
 * The counters of good sample @g of cell object @c into @s.  A zero is
 * left out (a perf counter that did not move is absent from its row),
 * unless the counter is zero in every sample: then it is a measured zero
 * (allocs_per_op of a path that never allocates), which must stay a zero
 * and not become absent.
 */
static int load_counters(json_t *c, size_t g, struct hvb_engine_sample *s)
{
    json_t *ctrs = json_object_get(c, "counters"), *k;
    const char *name;

    s->counters = calloc(json_object_size(ctrs) + 1, sizeof(*s->counters));
    if ( s->counters == NULL )
        return -ENOMEM;
    json_object_foreach(ctrs, name, k)
    {
        json_t *v = json_array_get(json_object_get(k, "samples"), g), *f;
        struct hvb_engine_counter *d;
        size_t i;

        if ( !json_is_number(v) || (json_number_value(v) == 0 && !all_zero(k)) )
            continue;
        d = &s->counters[s->nr_counters];
        d->name = strdup(name);
        if ( d->name == NULL )
            return -ENOMEM;
        d->value = json_number_value(v);
        json_array_foreach(json_object_get(k, "flags"), i, f)
        {
            if ( strcmp(json_string_value(f) ?: "", "per_op") == 0 )
                d->flags |= HVB_ENGINE_CTR_PER_OP;
            else if ( strcmp(json_string_value(f) ?: "", "rate") == 0 )
                d->flags |= HVB_ENGINE_CTR_RATE;
        }
        s->nr_counters++;
    }
    return 0;
}

static int load_cell(json_t *c, size_t cell, unsigned int rounds,
                     unsigned int repetitions, unsigned int base,
                     struct hvb_engine_result *res)
{
    json_t *real = json_object_get(c, "samples_ns_per_op");
    json_t *cpu = json_object_get(c, "cpu_samples_ns_per_op");
    json_t *its = json_object_get(c, "iterations");
    size_t k, g = 0;
    int rc;

    for ( k = 0; k < rounds; k++ )
    {
        struct hvb_engine_sample *s = &res->samples[res->nr_samples++];
        json_t *v = json_array_get(real, k);

        memset(s, 0, sizeof(*s));
        s->bench = cell;
        s->repetition_index = (int64_t)(base + k);
        s->repetitions = repetitions;
        s->threads = json_integer_value(json_object_get(c, "threads"));
        s->iterations = json_integer_value(json_array_get(its, k));
        if ( !json_is_number(v) )
        {
            s->error = true;
            s->error_message = dup_str(
                json_string_value(json_object_get(c, "error")) ?: "failed");
            continue;
        }
        s->real_ns = json_number_value(v);
        s->cpu_ns = json_number_value(json_array_get(cpu, k));
        rc = load_counters(c, g++, s);
        if ( rc )
            return rc;
    }
    return 0;
}

int hvb_resume_load(const char *path, const struct hvb_matrix *m,
                    unsigned int repetitions, int64_t *iters,
                    struct hvb_engine_result *res, unsigned int *first,
                    char *err, size_t len)
{
    json_t *root, *h, *run, *cells, *ctx;
    unsigned int rounds;
    size_t i;
    int rc = 0;

    *first = 0;
    if ( access(path, F_OK) != 0 )
        return 0;
    root = hvb_results_load(path, err, len);
    if ( root == NULL )
        return -EINVAL;
    h = json_object_get(root, "hvbench");
    run = json_object_get(h, "run");
    cells = json_object_get(h, "cells");
    rounds =
        (unsigned int)json_integer_value(json_object_get(run, "rounds_done"));
    if ( json_array_size(cells) != m->nr_cells ||
         json_integer_value(json_object_get(run, "repetitions")) !=
             repetitions )
    {
        snprintf(err, len,
                 "--resume: '%s' is not a run of these cells and repetitions",
                 path);
        rc = -EINVAL;
        goto out;
    }
    for ( i = 0; i < m->nr_cells; i++ )
    {
        json_t *c = json_array_get(cells, i);

        if ( strcmp(json_string_value(json_object_get(c, "name")) ?: "",
                    m->cells[i].name) != 0 ||
             json_array_size(json_object_get(c, "samples_ns_per_op")) <
                 rounds ||
             !json_is_integer(json_object_get(c, "shared_iterations")) )
        {
            snprintf(
                err, len,
                "--resume: '%s' is not a run of these cells (cell %zu differs)",
                path, i);
            rc = -EINVAL;
            goto out;
        }
    }
    if ( rounds > repetitions )
        rounds = repetitions;
    res->samples = calloc(m->nr_cells * rounds + 1, sizeof(*res->samples));
    ctx = json_pack("{sO}", "context", json_object_get(root, "context"));
    res->context_json = ctx ? json_dumps(ctx, JSON_COMPACT) : NULL;
    json_decref(ctx);
    if ( res->samples == NULL || res->context_json == NULL )
    {
        rc = -ENOMEM;
        goto out;
    }
    for ( i = 0; i < m->nr_cells && rc == 0; i++ )
    {
        json_t *c = json_array_get(cells, i);

        iters[i] = json_integer_value(json_object_get(c, "shared_iterations"));
        rc = load_cell(c, i, rounds, repetitions, 0, res);
    }
    if ( rc )
        snprintf(err, len, "out of memory");
    else
        *first = rounds;
out:
    json_decref(root);
    return rc;
}

int hvb_resume_pool(const char *path, const struct hvb_matrix *m,
                    unsigned int rounds, unsigned int base,
                    unsigned int repetitions, int64_t *iters,
                    struct hvb_engine_result *res, char *err, size_t len)
{
    json_t *root, *h, *run, *cells, *ctx;
    struct hvb_engine_sample *grown;
    size_t i;
    int rc = 0;

    root = hvb_results_load(path, err, len);
    if ( root == NULL )
        return -EINVAL;
    h = json_object_get(root, "hvbench");
    run = json_object_get(h, "run");
    cells = json_object_get(h, "cells");
    if ( json_array_size(cells) != m->nr_cells ||
         json_integer_value(json_object_get(run, "rounds_done")) != rounds )
    {
        snprintf(err, len, "'%s' is not a complete run of these cells", path);
        rc = -EINVAL;
        goto out;
    }
    for ( i = 0; i < m->nr_cells; i++ )
    {
        json_t *c = json_array_get(cells, i);

        if ( strcmp(json_string_value(json_object_get(c, "name")) ?: "",
                    m->cells[i].name) != 0 ||
             json_array_size(json_object_get(c, "samples_ns_per_op")) < rounds )
        {
            snprintf(err, len, "'%s' is not a run of these cells (cell %zu)",
                     path, i);
            rc = -EINVAL;
            goto out;
        }
    }
    grown = realloc(res->samples, (res->nr_samples + m->nr_cells * rounds + 1) *
                                      sizeof(*res->samples));
    if ( grown == NULL )
    {
        rc = -ENOMEM;
        goto out;
    }
    res->samples = grown;
    if ( res->context_json == NULL )
    {
        ctx = json_pack("{sO}", "context", json_object_get(root, "context"));
        res->context_json = ctx ? json_dumps(ctx, JSON_COMPACT) : NULL;
        json_decref(ctx);
        if ( res->context_json == NULL )
        {
            rc = -ENOMEM;
            goto out;
        }
        for ( i = 0; i < m->nr_cells; i++ )
            iters[i] = json_integer_value(
                json_object_get(json_array_get(cells, i), "shared_iterations"));
    }
    for ( i = 0; i < m->nr_cells && rc == 0; i++ )
        rc = load_cell(json_array_get(cells, i), i, rounds, repetitions, base,
                       res);
    if ( rc )
        snprintf(err, len, "out of memory");
out:
    json_decref(root);
    return rc;
}
