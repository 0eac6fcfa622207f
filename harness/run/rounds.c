/* SPDX-License-Identifier: GPL-2.0-only */
/* Paired rounds with one shared iteration count per group; see hvb/rounds.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/meter.h>
#include "private.h"
#include <hvb/rounds.h>
#include <hvb/runner.h>
#include <hvb/watch.h>

struct rctx {
    const struct hvb_rounds_opts *o;
    struct hvb_progress *prog;
    const struct hvb_matrix *m;
    bool context_seen;
};

static void on_context(void *ctx, const char *json)
{
    struct rctx *c = ctx;

    if ( c->context_seen )
        return;
    c->context_seen = true;
    if ( c->o->on_context != NULL )
        c->o->on_context(c->o->ctx, json);
}

void hvb_rounds_order(const struct hvb_matrix *m, unsigned int r, size_t *out)
{
    size_t i = 0, n = 0;

    while ( i < m->nr_cells )
    {
        size_t first = i, k, j;
        bool rev;

        while ( i < m->nr_cells && m->cells[i].group == m->cells[first].group )
            i++;
        k = i - first;
        /* Rotate by r; reverse every other full cycle: AB BA BA AB. */
        rev = (r / k) % 2 == 1;
        for ( j = 0; j < k; j++ )
        {
            size_t pos = rev ? k - 1 - j : j;

            out[n++] = first + (pos + r) % k;
        }
    }
}

/* Move @add's samples to the end of @res, remapped by @cell_of. */
static int append(struct hvb_engine_result *res, struct hvb_engine_result *add,
                  const size_t *cell_of, int64_t round, int64_t rounds)
{
    struct hvb_engine_sample *s;
    size_t i;

    if ( add->nr_samples == 0 )
        return 0;
    s = realloc(res->samples, (res->nr_samples + add->nr_samples) * sizeof(*s));
    if ( s == NULL )
        return -ENOMEM;
    res->samples = s;
    for ( i = 0; i < add->nr_samples; i++ )
    {
        struct hvb_engine_sample *d = &s[res->nr_samples++];

        *d = add->samples[i];
        d->bench = cell_of[d->bench];
        if ( round >= 0 )
        {
            d->repetition_index = round;
            d->repetitions = rounds;
        }
    }
    /* The counters and messages now belong to @res. */
    free(add->samples);
    add->samples = NULL;
    add->nr_samples = 0;
    if ( res->context_json == NULL )
    {
        res->context_json = add->context_json;
        add->context_json = NULL;
    }
    return 0;
}

static void fill_bench(struct hvb_engine_bench *b, const struct hvb_mcell *mc,
                       int64_t iterations,
                       const struct hvb_engine_bench *bodies)
{
    b->name = mc->name;
    b->threads = mc->cell.threads;
    b->one_shot = mc->m->w->flags & HVB_WF_ONE_SHOT;
    b->iterations = iterations;
    b->body = bodies ? bodies[mc->index].body : hvb_runner_body;
    b->arg = bodies ? bodies[mc->index].arg : (void *)mc;
}

static void on_done(void *ctx, size_t bench)
{
    struct rctx *c = ctx;

    hvb_progress_step(c->prog, NULL);
}

static int calibrate(const struct hvb_matrix *m, struct rctx *c,
                     struct hvb_engine_opts *eo, int64_t *iters, char *err,
                     size_t len)
{
    struct hvb_engine_bench *b = calloc(m->nr_cells, sizeof(*b));
    size_t *cell_of = calloc(m->nr_cells, sizeof(*cell_of));
    struct hvb_engine_result r = {0};
    double *logsum = calloc(m->nr_cells, sizeof(*logsum));
    size_t *cnt = calloc(m->nr_cells, sizeof(*cnt));
    size_t i, n = 0;
    int rc = -ENOMEM;

    if ( b == NULL || cell_of == NULL || logsum == NULL || cnt == NULL )
        goto out;
    for ( i = 0; i < m->nr_cells; i++ )
        if ( iters[i] == 0 )
        {
            fill_bench(&b[n], &m->cells[i], 0, c->o->bodies);
            cell_of[n++] = i;
        }
    rc = 0;
    if ( n == 0 )
        goto out;
    eo->repetitions = 1;
    rc = hvb_engine_run(b, n, eo, &r, err, len);
    if ( rc )
        goto out;
    for ( i = 0; i < r.nr_samples; i++ )
    {
        const struct hvb_engine_sample *s = &r.samples[i];
        size_t cell = cell_of[s->bench];
        size_t g = m->cells[cell].group;

        if ( s->error || s->iterations <= 0 )
            continue;
        logsum[g] += log((double)s->iterations / (double)s->threads);
        cnt[g]++;
    }
    for ( i = 0; i < m->nr_cells; i++ )
    {
        size_t g = m->cells[i].group;

        if ( iters[i] != 0 )
            continue;
        if ( m->w->flags & HVB_WF_ONE_SHOT )
            iters[i] = 1;
        else if ( c->o->iterations > 0 )
            iters[i] = c->o->iterations;
        else
            /* A group whose every calibration failed runs 1 op: it fails. */
            iters[i] =
                cnt[g] ? (int64_t)ceil(exp(logsum[g] / (double)cnt[g])) : 1;
    }
out:
    hvb_engine_result_free(&r);
    free(b);
    free(cell_of);
    free(logsum);
    free(cnt);
    if ( rc == -ENOMEM && err[0] == '\0' )
        snprintf(err, len, "out of memory");
    return rc;
}

/* The counting pass's counters (hvb/meter.h), per cell. */
#define NR_COUNTS 2
static const char *const count_names[NR_COUNTS] = {"allocs_per_op",
                                                   "frees_per_op"};

struct cell_counts {
    bool ok;
    double v[NR_COUNTS];
};

/*
 * The untimed counting pass: every cell once more, for a tenth of its
 * round's operations (one iteration if one-shot), with jemalloc's hooks
 * installed around this engine run only, never around a timed one.
 * Fills @cnt[cell] from the measured threads' meters.  A pass that
 * cannot install the hooks leaves the counters absent, not zero.
 */
static int count_pass(const struct hvb_matrix *m, struct hvb_engine_opts *eo,
                      const int64_t *iters, struct cell_counts *cnt, char *err,
                      size_t len)
{
    struct hvb_engine_bench *b = calloc(m->nr_cells, sizeof(*b));
    struct hvb_engine_result r = {0};
    size_t i, j, k;
    int rc = 0;

    if ( b == NULL )
        return -ENOMEM;
    /* The plain runner: no command's wrapper times or tags this pass. */
    for ( i = 0; i < m->nr_cells; i++ )
        fill_bench(&b[i], &m->cells[i], (iters[i] + 9) / 10, NULL);
    rc = hvb_meter_count_begin();
    if ( rc == 0 )
    {
        rc = hvb_engine_run(b, m->nr_cells, eo, &r, err, len);
        hvb_meter_count_end();
    }
    else
    {
        fprintf(stderr,
                "hvbench: warning: no allocs_per_op: jemalloc hooks: %s\n",
                strerror(-rc));
        rc = 0;
    }
    for ( i = 0; i < r.nr_samples; i++ )
    {
        const struct hvb_engine_sample *s = &r.samples[i];
        struct cell_counts *c = &cnt[s->bench];
        unsigned int found = 0;

        for ( j = 0; j < s->nr_counters && !s->error; j++ )
            for ( k = 0; k < NR_COUNTS; k++ )
                if ( strcmp(s->counters[j].name, count_names[k]) == 0 )
                {
                    c->v[k] = s->counters[j].value;
                    found++;
                }
        c->ok = found == NR_COUNTS;
    }
    hvb_engine_result_free(&r);
    free(b);
    return rc;
}

/* Add the counting pass's counters to the samples of @res from @from on. */
static int add_counts(struct hvb_engine_result *res, size_t from,
                      const struct cell_counts *cnt)
{
    size_t i, k;

    for ( i = from; i < res->nr_samples; i++ )
    {
        struct hvb_engine_sample *s = &res->samples[i];
        const struct cell_counts *c = &cnt[s->bench];
        struct hvb_engine_counter *grown;

        if ( s->error || !c->ok )
            continue;
        grown =
            realloc(s->counters, (s->nr_counters + NR_COUNTS) * sizeof(*grown));
        if ( grown == NULL )
            return -ENOMEM;
        s->counters = grown;
        for ( k = 0; k < NR_COUNTS; k++ )
        {
            char *name = strdup(count_names[k]);

            if ( name == NULL )
                return -ENOMEM;
            s->counters[s->nr_counters++] = (struct hvb_engine_counter){
                name, c->v[k], HVB_ENGINE_CTR_PER_OP};
        }
    }
    return 0;
}

int hvb_rounds_run(const struct hvb_matrix *m, const struct hvb_rounds_opts *o,
                   int64_t *iters, struct hvb_engine_result *res, char *err,
                   size_t len)
{
    struct hvb_progress prog;
    struct rctx c = {.o = o, .prog = &prog, .m = m};
    struct hvb_engine_opts eo = {
        .repetitions = 1,
        .min_time_s = o->min_time_s,
        .interleave = false,
        .argv0 = o->argv0,
        .on_context = on_context,
        .on_done = on_done,
        .hook_ctx = &c,
    };
    struct hvb_engine_bench *b = calloc(m->nr_cells + 1, sizeof(*b));
    size_t *order = calloc(m->nr_cells + 1, sizeof(*order));
    struct cell_counts *cnt = calloc(m->nr_cells + 1, sizeof(*cnt));
    bool need_cal = false, count;
    double last_s = 0;
    uint64_t t0;
    unsigned int r;
    size_t i;
    int rc = -ENOMEM;

    err[0] = '\0';
    if ( b == NULL || order == NULL || cnt == NULL )
        goto out;
    for ( i = 0; i < m->nr_cells; i++ )
    {
        if ( iters[i] == 0 && (m->w->flags & HVB_WF_ONE_SHOT) )
            iters[i] = 1;
        else if ( iters[i] == 0 && o->iterations > 0 )
            iters[i] = o->iterations;
        need_cal |= iters[i] == 0;
    }
    count = hvb_meter_count_available() && o->first < o->rounds;
    hvb_progress_start(&prog,
                       (need_cal ? m->nr_cells : 0) +
                           (count ? m->nr_cells : 0) +
                           (o->rounds - o->first) * m->nr_cells,
                       o->quiet);
    if ( need_cal )
    {
        /* Google Benchmark tries growing counts up to min_time per cell. */
        hvb_watch_phase("calibration", 0, 0,
                        3 * o->min_time_s * (double)m->nr_cells);
        rc = calibrate(m, &c, &eo, iters, err, len);
        if ( rc )
            goto out;
    }
    if ( count )
    {
        hvb_watch_phase("counting pass", 0, 0,
                        o->min_time_s * (double)m->nr_cells);
        rc = count_pass(m, &eo, iters, cnt, err, len);
        if ( rc )
            goto out;
    }
    for ( r = o->first; r < o->rounds; r++ )
    {
        struct hvb_engine_result one = {0};
        size_t from = res->nr_samples;

        /* A round: min_time per cell, or what the last round took. */
        hvb_watch_phase("round", r, o->rounds,
                        last_s > o->min_time_s * (double)m->nr_cells
                            ? last_s
                            : o->min_time_s * (double)m->nr_cells);
        t0 = hv_now_ns();
        hvb_rounds_order(m, o->fixed_order ? 0 : r, order);
        for ( i = 0; i < m->nr_cells; i++ )
            fill_bench(&b[i], &m->cells[order[i]], iters[order[i]], o->bodies);
        rc = hvb_engine_run(b, m->nr_cells, &eo, &one, err, len);
        if ( rc == 0 )
            rc = append(res, &one, order, r, o->rounds);
        if ( rc == 0 )
            rc = add_counts(res, from, cnt);
        hvb_engine_result_free(&one);
        last_s = (double)(hv_now_ns() - t0) / 1e9;
        if ( rc )
            goto out;
        if ( o->on_round != NULL )
        {
            rc = o->on_round(o->ctx, r, res);
            if ( rc )
                goto out;
        }
    }
    rc = 0;
out:
    hvb_watch_idle();
    hvb_progress_end(&prog);
    free(b);
    free(order);
    free(cnt);
    if ( rc == -ENOMEM && err[0] == '\0' )
        snprintf(err, len, "out of memory");
    return rc;
}
