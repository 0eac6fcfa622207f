/* SPDX-License-Identifier: GPL-2.0-only */
/* Loading the finished rounds of an interrupted run; see hvb/resume.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvb/resume.h>
#include <hvb/results.h>
#include <hvb/results_read.h>

static char *dup_str(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Is every sample of counter object @k zero? */
static bool all_zero(json_t *k)
{
    json_t *v;
    size_t i;

    json_array_foreach(json_object_get(k, HVB_RK_CTR_SAMPLES), i, v)
    {
        if ( json_is_number(v) && json_number_value(v) != 0 )
            return false;
    }
    return true;
}

/*
 * The counters of good sample @g of cell object @c into @s.  @row is the
 * sample's "iteration" row of benchmarks[] (or NULL): a counter is in the
 * sample exactly when it is in that row, so a zero stays a zero and an
 * absent counter (a perfc.* that did not move) stays absent.  E.g.
 * sw_context_switches_per_op 0 in one round of a process and 2e-6 in the
 * next: both rounds keep it (it went missing from the first, issue 11).
 * Without a row (an older file), a zero is left out unless the counter is
 * zero in every sample.
 */
static int load_counters(json_t *c, json_t *row, size_t g,
                         struct hvb_engine_sample *s)
{
    json_t *ctrs = json_object_get(c, HVB_RK_COUNTERS), *k;
    const char *name;

    s->counters = calloc(json_object_size(ctrs) + 1, sizeof(*s->counters));
    if ( s->counters == NULL )
        return -ENOMEM;
    json_object_foreach(ctrs, name, k)
    {
        json_t *v = json_array_get(json_object_get(k, HVB_RK_CTR_SAMPLES), g),
               *f;
        struct hvb_engine_counter *d;
        size_t i;

        if ( !json_is_number(v) )
            continue;
        if ( row != NULL ? json_object_get(row, name) == NULL
                         : json_number_value(v) == 0 && !all_zero(k) )
            continue;
        d = &s->counters[s->nr_counters];
        d->name = strdup(name);
        if ( d->name == NULL )
            return -ENOMEM;
        d->value = json_number_value(v);
        json_array_foreach(json_object_get(k, HVB_RK_CTR_FLAGS), i, f)
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

/*
 * The "iteration" rows of @doc's benchmarks[] by cell and round:
 * rows[cell * rounds + round], NULL where there is none.  NULL on -ENOMEM.
 */
static json_t **index_rows(json_t *doc, size_t nr_cells, unsigned int rounds)
{
    json_t **rows = calloc(nr_cells * rounds + 1, sizeof(*rows)), *r;
    size_t i;

    if ( rows == NULL )
        return NULL;
    json_array_foreach(json_object_get(doc, HVB_RK_BENCHMARKS), i, r)
    {
        json_int_t f = json_integer_value(json_object_get(r, HVB_RK_FAMILY));
        json_int_t k = json_integer_value(json_object_get(r, HVB_RK_REP_INDEX));

        if ( strcmp(json_string_value(json_object_get(r, HVB_RK_RUN_TYPE))
                        ?: "",
                    "iteration") == 0 &&
             f >= 0 && (size_t)f < nr_cells && k >= 0 && k < rounds )
            rows[(size_t)f * rounds + (size_t)k] = r;
    }
    return rows;
}

static int load_cell(json_t *c, json_t *const *rows, size_t cell,
                     unsigned int rounds, unsigned int repetitions,
                     unsigned int base, struct hvb_engine_result *res)
{
    json_t *real = json_object_get(c, HVB_RK_SAMPLES);
    json_t *cpu = json_object_get(c, HVB_RK_CPU_SAMPLES);
    json_t *its = json_object_get(c, HVB_RK_ITERATIONS);
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
        s->threads = json_integer_value(json_object_get(c, HVB_RK_THREADS));
        s->iterations = json_integer_value(json_array_get(its, k));
        if ( !json_is_number(v) )
        {
            s->error = true;
            s->error_message =
                dup_str(json_string_value(json_object_get(c, HVB_RK_ERROR))
                            ?: "failed");
            continue;
        }
        s->real_ns = json_number_value(v);
        s->cpu_ns = json_number_value(json_array_get(cpu, k));
        rc = load_counters(c, rows[cell * rounds + k], g++, s);
        if ( rc )
            return rc;
    }
    return 0;
}

/*
 * The settings that decide what a measurement is, as the results
 * document records them (hvb_results_settings()), with the option that
 * sets each: a file resumes only under the same ones.  A setting the file
 * does not record (one written before it was) is not compared.
 */
static const struct setting {
    const char *obj, *key, *option;
} settings[] = {
    {HVB_RK_RUN, HVB_RK_MIN_TIME, "--min-time"},
    {HVB_RK_RUN, "seed", "--seed"},
    {HVB_RK_RUN, "affinity", "--affinity"},
    {HVB_RK_RUN, "interleaved", "--no-interleave"},
    {HVB_RK_RUN, HVB_RK_ITERATIONS, "--iterations"},
    {HVB_RK_RUN, "instrument", "--instrument"},
    {HVB_RK_RUN, HVB_RK_PROCESSES, "--processes"},
    {HVB_RK_COUNTERS, "mode", "--counters"},
    {HVB_RK_COUNTERS, "events", "--events"},
    {"version", NULL, "the hvbench version"},
    {HVB_RK_GIT, "commit", "the build (git commit)"},
    {HVB_RK_BUILD, "compiler", "the build (compiler)"},
    {HVB_RK_BUILD, "cflags", "the build (compiler flags)"},
    {HVB_RK_BUILD, "build_type", "the build (build type)"},
};

static char *shown(json_t *v)
{
    return v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("none");
}

static int same_settings(const char *path, json_t *root, json_t *now, char *err,
                         size_t len)
{
    size_t i;

    for ( i = 0; i < sizeof(settings) / sizeof(settings[0]); i++ )
    {
        const struct setting *t = &settings[i];
        json_t *was = hvb_rd_get(root, t->obj, t->key);
        json_t *is = t->key
                         ? json_object_get(json_object_get(now, t->obj), t->key)
                         : json_object_get(now, t->obj);
        char *a, *b;

        if ( was == NULL || json_equal(was, is) )
            continue;
        a = shown(was);
        b = shown(is);
        snprintf(err, len,
                 "--resume: '%s' was measured with other settings: %s "
                 "(%s%s%s) is %.60s there, %.60s here; resume with the "
                 "command line it was run with, or start afresh without "
                 "--resume",
                 path, t->option, t->obj, t->key ? "." : "", t->key ?: "",
                 a ?: "?", b ?: "?");
        free(a);
        free(b);
        return -EINVAL;
    }
    return 0;
}

/*
 * The shared counts read back: one per group (the cells of a group pair
 * round by round), at least 1 once a round ran, and a round they make
 * must fit --min-time (a count of 1e15 ran without end): at most
 * 100 x min_time_s + 10 s at the cell's median ns/op.
 */
static int sound_counts(const char *path, json_t *cells, unsigned int rounds,
                        double min_time_s, char *err, size_t len)
{
    json_t *c, *o;
    size_t i, j;

    json_array_foreach(cells, i, c)
    {
        json_int_t n =
            json_integer_value(json_object_get(c, HVB_RK_SHARED_ITER));
        json_int_t g = json_integer_value(json_object_get(c, HVB_RK_GROUP));
        double ns = json_number_value(
            json_object_get(json_object_get(c, HVB_RK_SUMMARY), HVB_RK_MEDIAN));
        double th =
            (double)json_integer_value(json_object_get(c, HVB_RK_THREADS));

        if ( rounds > 0 && n < 1 )
        {
            snprintf(err, len,
                     "--resume: '%s': cell %zu: shared_iterations %lld after "
                     "%u round(s): want at least 1",
                     path, i, (long long)n, rounds);
            return -EINVAL;
        }
        if ( ns > 0 && (double)n * th * ns > (100 * min_time_s + 10) * 1e9 )
        {
            snprintf(err, len,
                     "--resume: '%s': cell %zu: shared_iterations %lld at "
                     "%.4g ns/op is a round of %.3g s, not one that --min-time "
                     "%g calibrates",
                     path, i, (long long)n, ns, (double)n * th * ns / 1e9,
                     min_time_s);
            return -EINVAL;
        }
        json_array_foreach(cells, j, o)
        {
            if ( j >= i )
                break;
            if ( json_integer_value(json_object_get(o, HVB_RK_GROUP)) == g &&
                 json_integer_value(json_object_get(o, HVB_RK_SHARED_ITER)) !=
                     n )
            {
                snprintf(err, len,
                         "--resume: '%s': cells %zu and %zu of group %lld "
                         "have shared_iterations %lld and %lld: a group "
                         "shares one count",
                         path, j, i, (long long)g,
                         (long long)json_integer_value(
                             json_object_get(o, HVB_RK_SHARED_ITER)),
                         (long long)n);
                return -EINVAL;
            }
        }
    }
    return 0;
}

/*
 * The index of the first cell of @cells that is not @m's cell of that index
 * with at least @rounds samples (with @resumable, also @rounds iteration
 * counts and a shared iteration count), or m->nr_cells when all match.  E.g.
 * a file whose cell 2 is "lookup/domlookup=rbtree" where @m has
 * "lookup/domlookup=hash": 2.
 */
static size_t cell_mismatch(json_t *cells, const struct hvb_matrix *m,
                            unsigned int rounds, bool resumable)
{
    size_t i;

    for ( i = 0; i < m->nr_cells; i++ )
    {
        json_t *c = json_array_get(cells, i);

        if ( strcmp(json_string_value(json_object_get(c, HVB_RK_NAME)) ?: "",
                    m->cells[i].name) != 0 ||
             json_array_size(json_object_get(c, HVB_RK_SAMPLES)) < rounds )
            break;
        if ( resumable &&
             (json_array_size(json_object_get(c, HVB_RK_ITERATIONS)) < rounds ||
              !json_is_integer(json_object_get(c, HVB_RK_SHARED_ITER))) )
            break;
    }
    return i;
}

int hvb_resume_load(const char *path, const struct hvb_matrix *m,
                    unsigned int repetitions, json_t *now, int64_t *iters,
                    struct hvb_engine_result *res, unsigned int *first,
                    char *err, size_t len)
{
    json_t *root, *run, *cells, *ctx, **rows = NULL;
    unsigned int rounds;
    size_t i;
    int rc = 0;

    *first = 0;
    if ( access(path, F_OK) != 0 )
        return 0;
    root = hvb_results_load(path, err, len);
    if ( root == NULL )
        return -EINVAL;
    run = hvb_rd_get(root, HVB_RK_RUN, NULL);
    cells = hvb_rd_cells(root);
    rounds = (unsigned int)json_integer_value(
        json_object_get(run, HVB_RK_ROUNDS_DONE));
    if ( json_array_size(cells) != m->nr_cells ||
         json_integer_value(json_object_get(run, HVB_RK_REPETITIONS)) !=
             repetitions )
    {
        snprintf(err, len,
                 "--resume: '%s' is not a run of these cells and repetitions",
                 path);
        rc = -EINVAL;
        goto out;
    }
    i = cell_mismatch(cells, m, rounds, true);
    if ( i < m->nr_cells )
    {
        snprintf(
            err, len,
            "--resume: '%s' is not a run of these cells (cell %zu differs)",
            path, i);
        rc = -EINVAL;
        goto out;
    }
    rc = same_settings(path, root, now, err, len);
    if ( rc == 0 )
        rc = sound_counts(
            path, cells, rounds,
            json_number_value(json_object_get(json_object_get(now, HVB_RK_RUN),
                                              HVB_RK_MIN_TIME)),
            err, len);
    if ( rc )
        goto out;
    if ( rounds > repetitions )
        rounds = repetitions;
    res->samples = calloc(m->nr_cells * rounds + 1, sizeof(*res->samples));
    rows = index_rows(root, m->nr_cells, rounds);
    ctx = json_pack("{sO}", HVB_RK_CONTEXT,
                    json_object_get(root, HVB_RK_CONTEXT));
    res->context_json = ctx ? json_dumps(ctx, JSON_COMPACT) : NULL;
    json_decref(ctx);
    if ( res->samples == NULL || res->context_json == NULL || rows == NULL )
    {
        snprintf(err, len, "out of memory");
        rc = -ENOMEM;
        goto out;
    }
    for ( i = 0; i < m->nr_cells && rc == 0; i++ )
    {
        json_t *c = json_array_get(cells, i);

        iters[i] = json_integer_value(json_object_get(c, HVB_RK_SHARED_ITER));
        rc = load_cell(c, rows, i, rounds, repetitions, 0, res);
    }
    if ( rc )
        snprintf(err, len, "out of memory");
    else
        *first = rounds;
out:
    free(rows);
    json_decref(root);
    return rc;
}

int hvb_resume_pool(const char *path, const struct hvb_matrix *m,
                    unsigned int rounds, unsigned int base,
                    unsigned int repetitions, int64_t *iters,
                    struct hvb_engine_result *res, char *err, size_t len)
{
    json_t *root, *h, *run, *cells, *ctx, **rows = NULL;
    struct hvb_engine_sample *grown;
    size_t i;
    int rc = 0;

    root = hvb_results_load(path, err, len);
    if ( root == NULL )
        return -EINVAL;
    h = json_object_get(root, HVB_RK_HVBENCH);
    run = json_object_get(h, HVB_RK_RUN);
    cells = json_object_get(h, HVB_RK_CELLS);
    if ( json_array_size(cells) != m->nr_cells ||
         json_integer_value(json_object_get(run, HVB_RK_ROUNDS_DONE)) !=
             rounds )
    {
        snprintf(err, len, "'%s' is not a complete run of these cells", path);
        rc = -EINVAL;
        goto out;
    }
    i = cell_mismatch(cells, m, rounds, false);
    if ( i < m->nr_cells )
    {
        snprintf(err, len, "'%s' is not a run of these cells (cell %zu)", path,
                 i);
        rc = -EINVAL;
        goto out;
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
        ctx = json_pack("{sO}", HVB_RK_CONTEXT,
                        json_object_get(root, HVB_RK_CONTEXT));
        res->context_json = ctx ? json_dumps(ctx, JSON_COMPACT) : NULL;
        json_decref(ctx);
        if ( res->context_json == NULL )
        {
            rc = -ENOMEM;
            goto out;
        }
        for ( i = 0; i < m->nr_cells; i++ )
            iters[i] = json_integer_value(
                json_object_get(json_array_get(cells, i), HVB_RK_SHARED_ITER));
    }
    rows = index_rows(root, m->nr_cells, rounds);
    if ( rows == NULL )
        rc = -ENOMEM;
    for ( i = 0; i < m->nr_cells && rc == 0; i++ )
        rc = load_cell(json_array_get(cells, i), rows, i, rounds, repetitions,
                       base, res);
    if ( rc )
        snprintf(err, len, "out of memory");
out:
    free(rows);
    json_decref(root);
    return rc;
}
