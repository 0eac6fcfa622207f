/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading results documents back; see hvb/results_read.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/results.h>
#include <hvb/results_read.h>

json_t *hvb_rd_get(json_t *doc, const char *a, const char *b)
{
    json_t *o = json_object_get(json_object_get(doc, HVB_RK_HVBENCH), a);

    return b ? json_object_get(o, b) : o;
}

json_t *hvb_rd_cells(json_t *doc)
{
    return hvb_rd_get(doc, HVB_RK_CELLS, NULL);
}

/* The check's state: where it is, for the one-line message. */
struct rd {
    const char *path;
    char *err;
    size_t len;
};

static int bad(struct rd *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad(struct rd *r, const char *fmt, ...)
{
    int n = snprintf(r->err, r->len, "'%s': ", r->path);
    va_list ap;

    va_start(ap, fmt);
    if ( n >= 0 && (size_t)n < r->len )
        vsnprintf(r->err + n, r->len - (size_t)n, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* A JSON value as a short phrase for a message. */
static const char *shown(json_t *v, char *buf, size_t len)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

    if ( json_is_real(v) )
        snprintf(buf, len, "%g", json_real_value(v));
    else
        snprintf(buf, len, "%.40s%s", s ? s : "?",
                 s && strlen(s) > 40 ? "..." : "");
    free(s);
    return buf;
}

/*
 * Integer @key of @o in [lo, hi] (absent: ok unless @need).  @where
 * names the object in a message ("run", "cell 3 'x'").
 */
static int int_in(struct rd *r, json_t *o, const char *where, const char *key,
                  bool need, json_int_t lo, json_int_t hi, json_int_t *out)
{
    json_t *v = json_object_get(o, key);
    char buf[64];

    if ( v == NULL && !need )
        return 0;
    if ( !json_is_integer(v) || json_integer_value(v) < lo ||
         json_integer_value(v) > hi )
        return bad(r, "%s: %s is %s: want an integer in %lld..%lld", where, key,
                   v ? shown(v, buf, sizeof(buf)) : "missing", (long long)lo,
                   (long long)hi);
    if ( out != NULL )
        *out = json_integer_value(v);
    return 0;
}

/*
 * Array @a (field @key, absent: ok unless @need) of numbers in [0, max],
 * (0, max] when @open_lo, or null.  @what: the unit for a message.
 */
static int samples_in(struct rd *r, json_t *a, const char *where,
                      const char *key, bool need, bool open_lo,
                      const char *what)
{
    json_t *v;
    char buf[64];
    size_t i;

    if ( a == NULL && !need )
        return 0;
    if ( !json_is_array(a) )
        return bad(r, "%s: %s is %s: want an array of samples", where, key,
                   a ? shown(a, buf, sizeof(buf)) : "missing");
    json_array_foreach(a, i, v)
    {
        double d = json_number_value(v);

        if ( json_is_null(v) )
            continue;
        if ( !json_is_number(v) || !isfinite(d) || d < 0 ||
             (open_lo && d == 0) || d > HVB_RD_VALUE_MAX )
            return bad(r,
                       "%s: %s[%zu] is %s: a sample is a number of %s %s 0 "
                       "and at most %g (or null for a failed repetition)",
                       where, key, i, shown(v, buf, sizeof(buf)), what,
                       open_lo ? ">" : ">=", HVB_RD_VALUE_MAX);
    }
    return 0;
}

static int check_run(struct rd *r, json_t *run)
{
    json_int_t reps = 0, done = 0, procs = 1;
    json_t *c = json_object_get(run, HVB_RK_COMPLETE);
    json_t *mt = json_object_get(run, HVB_RK_MIN_TIME);
    char buf[64];

    if ( run == NULL )
        return 0; /* a reader asks for what it needs */
    if ( !json_is_object(run) )
        return bad(r, "hvbench.run is not an object");
    if ( int_in(r, run, HVB_RK_RUN, HVB_RK_REPETITIONS, true, 1,
                HVB_RD_REPETITIONS_MAX, &reps) )
        return -EINVAL;
    done = reps;
    if ( int_in(r, run, HVB_RK_RUN, HVB_RK_ROUNDS_DONE, false, 0, reps,
                &done) ||
         int_in(r, run, HVB_RK_RUN, HVB_RK_PROCESSES, false, 1, reps, &procs) )
        return -EINVAL;
    if ( reps % procs != 0 )
        return bad(r, "run: %lld processes do not divide %lld repetitions",
                   (long long)procs, (long long)reps);
    if ( c != NULL &&
         (!json_is_boolean(c) || json_is_true(c) != (done >= reps)) )
        return bad(r, "run: complete is %s with %lld of %lld rounds done",
                   shown(c, buf, sizeof(buf)), (long long)done,
                   (long long)reps);
    if ( mt != NULL && !json_is_null(mt) &&
         !(json_is_number(mt) && isfinite(json_number_value(mt)) &&
           json_number_value(mt) >= 0) )
        return bad(r, "run: min_time_s is %s: want seconds >= 0",
                   shown(mt, buf, sizeof(buf)));
    return 0;
}

static int check_counters(struct rd *r, json_t *ctrs, const char *where)
{
    const char *name;
    char key[160];
    json_t *k;

    if ( ctrs == NULL )
        return 0;
    if ( !json_is_object(ctrs) )
        return bad(r, "%s: counters is not an object", where);
    json_object_foreach(ctrs, name, k)
    {
        snprintf(key, sizeof(key), "counters.%.100s.samples", name);
        if ( !json_is_object(k) )
            return bad(r, "%s: counters.%.100s is not an object", where, name);
        if ( samples_in(r, json_object_get(k, HVB_RK_CTR_SAMPLES), where, key,
                        true, false, "counts per op") )
            return -EINVAL;
    }
    return 0;
}

static int check_cell(struct rd *r, json_t *cells, size_t i, json_t *c)
{
    json_t *name = json_object_get(c, HVB_RK_NAME), *its, *v, *o;
    char where[160];
    size_t j;

    if ( !json_is_object(c) )
        return bad(r, "cell %zu is not an object", i);
    if ( !json_is_string(name) || json_string_length(name) == 0 )
        return bad(r, "cell %zu has no name", i);
    snprintf(where, sizeof(where), "cell %zu '%.100s'", i,
             json_string_value(name));
    json_array_foreach(cells, j, o)
    {
        if ( j >= i )
            break;
        if ( json_equal(json_object_get(o, HVB_RK_NAME), name) )
            return bad(r, "%s: the name of cell %zu as well", where, j);
    }
    if ( int_in(r, c, where, HVB_RK_THREADS, true, 1, 1 << 20, NULL) ||
         int_in(r, c, where, HVB_RK_VARIANT, false, 0, (json_int_t)i, NULL) ||
         int_in(r, c, where, HVB_RK_GROUP, false, 0, (json_int_t)i, NULL) ||
         int_in(r, c, where, HVB_RK_SHARED_ITER, false, 0,
                HVB_RD_ITERATIONS_MAX, NULL) ||
         samples_in(r, json_object_get(c, HVB_RK_SAMPLES), where,
                    HVB_RK_SAMPLES, true, true, "ns/op") ||
         samples_in(r, json_object_get(c, HVB_RK_CPU_SAMPLES), where,
                    HVB_RK_CPU_SAMPLES, false, false, "ns/op") ||
         check_counters(r, json_object_get(c, HVB_RK_COUNTERS), where) )
        return -EINVAL;
    its = json_object_get(c, HVB_RK_ITERATIONS);
    if ( its != NULL && !json_is_array(its) )
        return bad(r, "%s: iterations is not an array", where);
    json_array_foreach(its, j, v)
    {
        char buf[64];

        if ( !json_is_integer(v) || json_integer_value(v) < 0 )
            return bad(r, "%s: iterations[%zu] is %s: want an integer >= 0",
                       where, j, shown(v, buf, sizeof(buf)));
    }
    return 0;
}

/*
 * hvb_results_check - the check of hvb/results_read.h of @doc, read from
 * @path (for the message).  0, or -EINVAL with @err: one line naming the
 * file, the cell and the field.
 */
static int hvb_results_check(json_t *doc, const char *path, char *err,
                             size_t len)
{
    struct rd r = {.path = path, .err = err, .len = len};
    json_t *cells = hvb_rd_cells(doc), *c, *rows;
    size_t i;

    rows = json_object_get(doc, HVB_RK_BENCHMARKS);
    json_array_foreach(rows, i, c)
    {
        if ( !json_is_object(c) )
            return bad(&r, "benchmarks[%zu] is not an object", i);
    }
    if ( check_run(&r, hvb_rd_get(doc, HVB_RK_RUN, NULL)) )
        return -EINVAL;
    json_array_foreach(cells, i, c)
    {
        if ( check_cell(&r, cells, i, c) )
            return -EINVAL;
    }
    return 0;
}

bool hvb_results_complete(json_t *doc, char *why, size_t len)
{
    json_t *run = hvb_rd_get(doc, HVB_RK_RUN, NULL);
    json_t *done = json_object_get(run, HVB_RK_ROUNDS_DONE);
    json_int_t reps =
        json_integer_value(json_object_get(run, HVB_RK_REPETITIONS));

    if ( done == NULL || json_integer_value(done) >= reps )
        return true;
    snprintf(why, len, "%lld of %lld rounds done",
             (long long)json_integer_value(done), (long long)reps);
    return false;
}

/* @root, just parsed from @path: a document this hvbench reads? */
static json_t *accept(json_t *root, const char *path, char *err, size_t len)
{
    json_t *h = json_object_get(root, HVB_RK_HVBENCH);
    json_t *v = json_object_get(h, HVB_RK_SCHEMA);

    if ( !json_is_object(h) || !json_is_integer(v) ||
         !json_is_array(json_object_get(h, HVB_RK_CELLS)) ||
         !json_is_array(json_object_get(root, HVB_RK_BENCHMARKS)) )
        snprintf(
            err, len,
            "'%s' is not an hvbench results file (no hvbench.schema_version, cells or benchmarks)",
            path);
    else if ( json_integer_value(v) > HVB_RESULTS_SCHEMA_VERSION )
        snprintf(
            err, len,
            "'%s' has results schema version %lld; this hvbench reads up to %d",
            path, (long long)json_integer_value(v), HVB_RESULTS_SCHEMA_VERSION);
    else if ( json_integer_value(v) < 1 )
        snprintf(err, len, "'%s' has a bad results schema version %lld", path,
                 (long long)json_integer_value(v));
    else if ( hvb_results_check(root, path, err, len) == 0 )
        return root;
    json_decref(root);
    return NULL;
}

json_t *hvb_results_load(const char *path, char *err, size_t len)
{
    json_error_t e;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &e);

    if ( root == NULL )
    {
        if ( e.line < 0 || e.position == 0 )
            snprintf(err, len, "cannot read '%s': %s", path, e.text);
        else
            snprintf(err, len, "'%s' is not valid JSON: line %d: %s", path,
                     e.line, e.text);
        return NULL;
    }
    return accept(root, path, err, len);
}

json_t *hvb_results_parse(const char *buf, size_t n, const char *name,
                          char *err, size_t len)
{
    json_error_t e;
    json_t *root = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &e);

    if ( root == NULL )
    {
        snprintf(err, len, "'%s' is not valid JSON: line %d: %s", name, e.line,
                 e.text);
        return NULL;
    }
    return accept(root, name, err, len);
}
