/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gate --base-bin's process pairs and looks (cmd_gate_bin.c says why and
 * how many): a pair starts a worker of each build (alternating which
 * first), checks that the two are configured alike, calibrates every
 * cell once (the first pair), warms, and takes R rounds of one sample of
 * each build per cell still undecided, in AB BA order; a look hands the
 * samples so far to hvb_cmp_builds() and keeps each cell's verdict once
 * it is not unknown.  E.g. pair 3 of a cell runs "run 0 N" on the new
 * build's worker, then on the base's, in round 0; the base's first in
 * round 1.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/cmdline.h>
#include <hvb/compare.h>
#include <hvb/interrupt.h>
#include <hvb/results_read.h>
#include "private.h"

static const char *json_str(json_t *v, char *buf, size_t len)
{
    char *s;

    if ( json_is_string(v) )
        return json_string_value(v);
    s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    snprintf(buf, len, "%s", s ? s : "(absent)");
    free(s);
    return buf;
}

/* Both hellos: the same build block and cells, else exit 2 naming it. */
static int check_alike(const struct hvb_gate_worker *b,
                       const struct hvb_gate_worker *n)
{
    json_t *bb = json_object_get(json_object_get(b->hello, "hvbench"), "build");
    json_t *nb = json_object_get(json_object_get(n->hello, "hvbench"), "build");
    json_t *bc = json_object_get(b->hello, "cells");
    json_t *nc = json_object_get(n->hello, "cells");
    json_t *sides[2] = {bb, nb}, *v;
    const char *key;
    char x[256], y[256];
    size_t i;

    for ( i = 0; i < 2; i++ )
        json_object_foreach(sides[i], key, v)
        {
            json_t *bv = json_object_get(bb, key),
                   *nv = json_object_get(nb, key);

            /* A base by whole runs has only what its results record. */
            if ( (bv == NULL &&
                  json_is_true(json_object_get(b->hello, "by_runs"))) )
                continue;
            if ( bv == NULL || nv == NULL || !json_equal(bv, nv) )
                return hvb_usage_error(
                    "the two builds were configured differently: build.%s is "
                    "'%s' in the base (%s) and '%s' in the new (%s); "
                    "configure both alike",
                    key, json_str(bv, x, sizeof(x)), b->bin,
                    json_str(nv, y, sizeof(y)), n->bin);
        }
    if ( !json_equal(bc, nc) )
        return hvb_usage_error(
            "the two builds make different cells of the run options "
            "(base: %zu, first '%s'; new: %zu, first '%s')",
            json_array_size(bc), json_str(json_array_get(bc, 0), x, sizeof(x)),
            json_array_size(nc), json_str(json_array_get(nc, 0), y, sizeof(y)));
    return 0;
}

static void add_sample(struct gate_bin *g, int side, size_t cell, json_t *r)
{
    json_t *ctrs = json_object_get(r, "counters"), *v;
    const char *name;

    json_array_append(g->time[side][cell], json_object_get(r, "ns"));
    json_object_foreach(ctrs, name, v)
    {
        json_t *o = json_object_get(g->counters[side][cell], name);

        if ( o == NULL )
        {
            o = json_pack("{s[]}", HVB_RK_CTR_SAMPLES);
            json_object_set_new(g->counters[side][cell], name, o);
        }
        json_array_append(json_object_get(o, HVB_RK_CTR_SAMPLES), v);
    }
}

/*
 * A worker that failed a command (a cell that cannot run, a crash) is
 * exit 2, not 1: a gate's 1 means a regression.
 */
static int worker_failed(const struct gate_bin *g)
{
    if ( hvb_interrupted() ) /* it was stopped: the caller says so */
        return HVB_EXIT_USAGE;
    return hvb_usage_error("%s (no verdict)", g->err);
}

/* Is @v a number > 0 (a sample)? */
static bool positive(json_t *v)
{
    return json_is_number(v) && json_number_value(v) > 0 &&
           json_number_value(v) < HUGE_VAL;
}

/* An answer without its @key: into g->err, @r released. */
static void bad_answer(struct gate_bin *g, int side, const char *cmd, json_t *r,
                       const char *key)
{
    char *s = json_dumps(r, JSON_COMPACT);

    snprintf(g->err, sizeof(g->err),
             "the %s build's worker (%s) answered '%s' with no sample "
             "(\"%s\" > 0 wanted): ok %.200s",
             g->w[side].label, g->w[side].bin, cmd, key, s ? s : "?");
    free(s);
    json_decref(r);
}

/* One sample of @cell from worker @side; @keep: record it. */
static int one(struct gate_bin *g, int side, size_t cell, bool keep)
{
    char cmd[64];
    json_t *r;

    snprintf(cmd, sizeof(cmd), "run %zu %lld", cell, (long long)g->iters[cell]);
    if ( hvb_gate_worker_ask(&g->w[side], cmd, &r, g->err, sizeof(g->err)) )
        return -EIO;
    if ( !positive(json_object_get(r, "ns")) )
    {
        bad_answer(g, side, cmd, r, "ns");
        return -EIO;
    }
    if ( keep )
        add_sample(g, side, cell, r);
    json_decref(r);
    return 0;
}

/* The shared per-thread count of every cell: geometric mean of both. */
static int calibrate(struct gate_bin *g)
{
    char cmd[64];
    size_t c;
    int k;

    for ( c = 0; c < g->nr_cells; c++ )
    {
        double logsum = 0;

        if ( g->sim )
        {
            g->iters[c] = SIM_ITERATIONS;
            continue;
        }
        snprintf(cmd, sizeof(cmd), "cal %zu %g", c, g->sample_s);
        for ( k = 0; k < 2; k++ )
        {
            json_t *r;
            json_int_t it;

            if ( hvb_gate_worker_ask(&g->w[k], cmd, &r, g->err,
                                     sizeof(g->err)) )
                return -EIO;
            it = json_integer_value(json_object_get(r, "iterations"));
            if ( it <= 0 )
            {
                bad_answer(g, k, cmd, r, "iterations");
                return -EIO;
            }
            json_decref(r);
            logsum += log(it > 0 ? (double)it : 1);
        }
        g->iters[c] = (int64_t)ceil(exp(logsum / 2));
    }
    return 0;
}

/* After the first hellos: the per-cell state, the names, the counts. */
static int setup_cells(struct gate_bin *g)
{
    size_t c;
    int k;

    g->names = json_incref(json_object_get(g->w[0].hello, "cells"));
    g->nr_cells = json_array_size(g->names);
    g->iters = calloc(g->nr_cells + 1, sizeof(*g->iters));
    g->npairs = calloc(g->nr_cells + 1, sizeof(*g->npairs));
    g->decided = calloc(g->nr_cells + 1, sizeof(*g->decided));
    g->final = calloc(g->nr_cells + 1, sizeof(*g->final));
    for ( k = 0; k < 2; k++ )
    {
        g->hello[k] = json_incref(g->w[k].hello);
        g->time[k] = calloc(g->nr_cells + 1, sizeof(json_t *));
        g->counters[k] = calloc(g->nr_cells + 1, sizeof(json_t *));
        for ( c = 0; g->time[k] && g->counters[k] && c < g->nr_cells; c++ )
        {
            g->time[k][c] = json_array();
            g->counters[k][c] = json_object();
        }
    }
    if ( g->iters == NULL || g->npairs == NULL || g->decided == NULL ||
         g->final == NULL || g->time[1] == NULL || g->counters[1] == NULL )
        return hvb_failure("out of memory");
    if ( calibrate(g) )
        return worker_failed(g);
    return 0;
}

int hvb_gate_bin_pair(struct gate_bin *g, unsigned int p)
{
    unsigned int r;
    size_t c;
    int k, rc;

    for ( k = 0; k < 2; k++ )
    {
        int side = (k + (int)p) % 2;

        rc = hvb_gate_worker_start(
            &g->w[side], g->run_args[side] ? g->run_args[side] : g->args);
        if ( rc )
            return rc;
    }
    rc = check_alike(&g->w[0], &g->w[1]);
    if ( rc )
        return rc;
    if ( p == 0 && (rc = setup_cells(g)) != 0 )
        return rc;
    /* Warm both: the first sample of a cell prepares it. */
    for ( c = 0; !g->sim && c < g->nr_cells; c++ )
        for ( k = 0; k < 2 && !g->decided[c]; k++ )
            if ( one(g, k, c, false) )
                return worker_failed(g);
    for ( r = 0; r < g->rounds; r++ )
        for ( c = 0; c < g->nr_cells; c++ )
        {
            int first = (int)((r + p) % 2);

            if ( g->decided[c] )
                continue;
            if ( one(g, first, c, true) || one(g, 1 - first, c, true) )
                return worker_failed(g);
        }
    g->pair_cells = 0;
    for ( c = 0; c < g->nr_cells; c++ )
        if ( !g->decided[c] )
        {
            g->npairs[c]++;
            g->pair_cells++;
        }
    for ( k = 0; k < 2; k++ )
        hvb_gate_worker_stop(&g->w[k]);
    return 0;
}

/*
 * The paired document hvb_cmp_builds() reads: per cell base, then new,
 * each with its own count of process pairs.
 */
static json_t *paired_doc(struct gate_bin *g)
{
    json_t *cells = json_array();
    size_t c;
    int k;

    for ( c = 0; c < g->nr_cells; c++ )
        for ( k = 0; k < 2; k++ )
            json_array_append_new(
                cells, json_pack("{sO si sO sO si}", HVB_RK_NAME,
                                 json_array_get(g->names, c), HVB_RK_VARIANT, k,
                                 HVB_RK_SAMPLES, g->time[k][c], HVB_RK_COUNTERS,
                                 g->counters[k][c], HVB_RK_PROCESSES,
                                 (int)g->npairs[c]));
    return json_pack("{s{so s{si}}}", HVB_RK_HVBENCH, HVB_RK_CELLS, cells,
                     HVB_RK_RUN, HVB_RK_PROCESSES, (int)g->max_pairs);
}

size_t hvb_gate_bin_undecided(const struct gate_bin *g)
{
    size_t c, n = 0;

    for ( c = 0; c < g->nr_cells; c++ )
        n += !g->decided[c];
    return n;
}

int hvb_gate_bin_look(struct gate_bin *g, struct hvb_cmp *c)
{
    json_t *doc = paired_doc(g);
    size_t i;
    int rc;

    if ( doc == NULL )
        return hvb_failure("out of memory");
    hvb_cmp_free(c);
    *c = (struct hvb_cmp){.names = {"the base build", "the new build"}};
    rc = hvb_cmp_builds(doc, g->metric, g->thr, g->alpha, c, g->err,
                        sizeof(g->err));
    /* Rows borrow the names from g->names, not from @doc. */
    json_decref(doc);
    if ( rc )
        return hvb_usage_error("%s", g->err);
    for ( i = 0; i < c->nr_rows && i < g->nr_cells; i++ )
        if ( !g->decided[i] )
        {
            g->final[i] = c->rows[i];
            g->decided[i] = c->rows[i].verdict != HVB_UNSTABLE;
        }
    g->looks++;
    return 0;
}
