/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-cell summaries: sort the engine's samples back to their cells (by
 * repetition index, whatever order interleaving ran them in), compute
 * statistics of time and counters over the good repetitions, and the
 * ratio of each median to its group's reference.  A counter absent from
 * a repetition counts as zero there: counters are only left out when
 * they did not move (perf counters) or were never added.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/meter.h>
#include <hvb/noise.h>
#include <hvb/summary.h>

static int cmp_sample(const void *a, const void *b)
{
    const struct hvb_engine_sample *x = *(const struct hvb_engine_sample **)a;
    const struct hvb_engine_sample *y = *(const struct hvb_engine_sample **)b;

    return (x->repetition_index > y->repetition_index) -
           (x->repetition_index < y->repetition_index);
}

static int cmp_ctr(const void *a, const void *b)
{
    return strcmp(((const struct hvb_ctr_summary *)a)->name,
                  ((const struct hvb_ctr_summary *)b)->name);
}

/* Collect the names of every counter of the good samples. */
static int ctr_names(struct hvb_cell_summary *cs)
{
    size_t i, j, k, cap = 0;

    for ( i = 0; i < cs->nr_samples; i++ )
        cap += cs->samples[i]->nr_counters;
    if ( cap == 0 )
        return 0;
    cs->ctrs = calloc(cap, sizeof(*cs->ctrs));
    if ( cs->ctrs == NULL )
        return -ENOMEM;
    for ( i = 0; i < cs->nr_samples; i++ )
    {
        const struct hvb_engine_sample *s = cs->samples[i];

        if ( s->error )
            continue;
        for ( j = 0; j < s->nr_counters; j++ )
        {
            for ( k = 0; k < cs->nr_ctrs; k++ )
                if ( strcmp(cs->ctrs[k].name, s->counters[j].name) == 0 )
                    break;
            if ( k < cs->nr_ctrs )
                continue;
            cs->ctrs[k].name = s->counters[j].name;
            cs->ctrs[k].flags = s->counters[j].flags;
            cs->nr_ctrs++;
        }
    }
    qsort(cs->ctrs, cs->nr_ctrs, sizeof(*cs->ctrs), cmp_ctr);
    return 0;
}

static int ctr_stats(struct hvb_cell_summary *cs)
{
    size_t c, i, j, g;
    int rc;

    for ( c = 0; c < cs->nr_ctrs; c++ )
    {
        struct hvb_ctr_summary *k = &cs->ctrs[c];

        k->vals = calloc(cs->nr_good ? cs->nr_good : 1, sizeof(*k->vals));
        if ( k->vals == NULL )
            return -ENOMEM;
        for ( i = 0, g = 0; i < cs->nr_samples; i++ )
        {
            const struct hvb_engine_sample *s = cs->samples[i];

            if ( s->error )
                continue;
            for ( j = 0; j < s->nr_counters; j++ )
                if ( strcmp(s->counters[j].name, k->name) == 0 )
                    k->vals[g] = s->counters[j].value;
            g++;
        }
        rc = hvb_stats_compute(k->vals, cs->nr_good, &k->st);
        if ( rc )
            return rc;
    }
    return 0;
}

/*
 * Were the measured threads descheduled (other load) for over a tenth
 * of their wall time (real time x threads), median over samples?  Then
 * time is suspect: HVB_NOISE_DESCHED ("cpu-share<90%").  From their run
 * delay (runnable, not running) where schedstat gave it: a thread that
 * blocks on a lock or a reply by design is not descheduled.  Else from
 * task-clock: on CPU under 90% of the wall.
 */
static unsigned int cpu_share(const struct hvb_cell_summary *cs)
{
    const struct hvb_ctr_summary *task = NULL, *delay = NULL;
    double threads, wall;
    size_t c;

    if ( cs->nr_good == 0 || cs->real.median <= 0 )
        return 0;
    for ( c = 0; c < cs->nr_ctrs; c++ )
        if ( strcmp(cs->ctrs[c].name, "sw_task_clock_ns_per_op") == 0 )
            task = &cs->ctrs[c];
        else if ( strcmp(cs->ctrs[c].name, "sched_run_delay_ns_per_op") == 0 )
            delay = &cs->ctrs[c];
    threads = (double)cs->samples[0]->threads;
    wall = cs->real.median * (threads > 0 ? threads : 1);
    if ( delay != NULL )
        return delay->st.median > (1 - HVB_CPU_SHARE_MIN) * wall
                   ? HVB_NOISE_DESCHED
                   : 0;
    if ( task != NULL )
        return task->st.median < HVB_CPU_SHARE_MIN * wall ? HVB_NOISE_DESCHED
                                                          : 0;
    return 0;
}

static int summarise_cell(struct hvb_cell_summary *cs)
{
    size_t i;
    int rc;

    qsort(cs->samples, cs->nr_samples, sizeof(*cs->samples), cmp_sample);
    cs->real_ns = calloc(cs->nr_samples + 1, sizeof(*cs->real_ns));
    cs->cpu_ns = calloc(cs->nr_samples + 1, sizeof(*cs->cpu_ns));
    if ( cs->real_ns == NULL || cs->cpu_ns == NULL )
        return -ENOMEM;
    for ( i = 0; i < cs->nr_samples; i++ )
    {
        const struct hvb_engine_sample *s = cs->samples[i];

        if ( s->error )
        {
            if ( cs->error == NULL )
                cs->error = s->error_message ? s->error_message : "failed";
            continue;
        }
        if ( cs->nr_good == 0 )
            cs->iterations = s->iterations;
        cs->real_ns[cs->nr_good] = s->real_ns;
        cs->cpu_ns[cs->nr_good] = s->cpu_ns;
        cs->nr_good++;
    }
    if ( cs->nr_samples == 0 )
        cs->error = "no result: the cell did not run";
    cs->shortest_s = -1;
    for ( i = 0; i < cs->nr_samples; i++ )
    {
        const struct hvb_engine_sample *s = cs->samples[i];
        double w = s->real_ns * (double)s->iterations * 1e-9;

        if ( !s->error && (cs->shortest_s < 0 || w < cs->shortest_s) )
            cs->shortest_s = w;
    }
    rc = hvb_stats_compute(cs->real_ns, cs->nr_good, &cs->real);
    cs->noise = hvb_noise_flags(&cs->real, cs->shortest_s, false);
    if ( cs->shortest_s > 0 &&
         hvb_meter_bracket_ns() > 0.005 * cs->shortest_s * 1e9 )
        cs->noise |= HVB_NOISE_TIMER;
    if ( rc == 0 )
        rc = hvb_stats_compute(cs->cpu_ns, cs->nr_good, &cs->cpu);
    if ( rc == 0 )
        rc = ctr_names(cs);
    if ( rc == 0 )
        rc = ctr_stats(cs);
    if ( rc == 0 )
        cs->noise |= cpu_share(cs);
    return rc;
}

/* Per-round ratios of @cs to its reference @ref, matched by round. */
static int pair(struct hvb_cell_summary *cs, const struct hvb_cell_summary *ref)
{
    size_t i, j;
    int rc;

    cs->pair_ratios = calloc(cs->nr_samples + 1, sizeof(*cs->pair_ratios));
    if ( cs->pair_ratios == NULL )
        return -ENOMEM;
    for ( i = 0; i < cs->nr_samples; i++ )
    {
        const struct hvb_engine_sample *a = cs->samples[i];

        for ( j = 0; j < ref->nr_samples; j++ )
        {
            const struct hvb_engine_sample *b = ref->samples[j];

            if ( b->repetition_index != a->repetition_index )
                continue;
            if ( !a->error && !b->error && b->real_ns > 0 )
                cs->pair_ratios[cs->nr_pairs++] = a->real_ns / b->real_ns;
            break;
        }
    }
    cs->pair_median = hvb_median(cs->pair_ratios, cs->nr_pairs);
    cs->pair_lo = cs->pair_hi = NAN;
    rc = cs->nr_pairs ? hvb_median_interval(cs->pair_ratios, cs->nr_pairs, 1,
                                            &cs->pair_lo, &cs->pair_hi)
                      : 0;
    if ( rc == -ENOMEM )
        return -ENOMEM;
    cs->pair_range = rc == 1;
    cs->pair_p = hvb_mannwhitneyu(ref->real_ns, ref->nr_good, cs->real_ns,
                                  cs->nr_good, NULL);
    return 0;
}

int hvb_summary_build(const struct hvb_matrix *m,
                      const struct hvb_engine_result *r,
                      struct hvb_summary *out)
{
    size_t i;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    out->cells = calloc(m->nr_cells ? m->nr_cells : 1, sizeof(*out->cells));
    if ( out->cells == NULL )
        return -ENOMEM;
    out->nr_cells = m->nr_cells;

    for ( i = 0; i < r->nr_samples; i++ )
        if ( r->samples[i].bench < m->nr_cells )
            out->cells[r->samples[i].bench].nr_samples++;
    for ( i = 0; i < m->nr_cells; i++ )
    {
        struct hvb_cell_summary *cs = &out->cells[i];

        cs->samples = calloc(cs->nr_samples + 1, sizeof(*cs->samples));
        if ( cs->samples == NULL )
            rc = -ENOMEM;
        cs->nr_samples = 0;
    }
    for ( i = 0; i < r->nr_samples && rc == 0; i++ )
    {
        const struct hvb_engine_sample *s = &r->samples[i];

        if ( s->bench < m->nr_cells )
        {
            struct hvb_cell_summary *cs = &out->cells[s->bench];

            cs->samples[cs->nr_samples++] = s;
        }
    }
    for ( i = 0; i < m->nr_cells && rc == 0; i++ )
        rc = summarise_cell(&out->cells[i]);
    if ( rc )
    {
        hvb_summary_free(out);
        return rc;
    }

    for ( i = 0; i < m->nr_cells; i++ )
    {
        struct hvb_cell_summary *cs = &out->cells[i];
        const struct hvb_cell_summary *ref =
            &out->cells[i - m->cells[i].variant];

        if ( cs->error != NULL || cs->nr_good == 0 )
        {
            out->nr_failed++;
            continue;
        }
        if ( ref->error == NULL && ref->nr_good > 0 && ref->real.median > 0 )
        {
            cs->has_ratio = true;
            cs->ratio = cs->real.median / ref->real.median;
            if ( cs != ref && pair(cs, ref) )
            {
                hvb_summary_free(out);
                return -ENOMEM;
            }
        }
    }
    return 0;
}

void hvb_summary_free(struct hvb_summary *s)
{
    size_t i, c;

    for ( i = 0; i < s->nr_cells; i++ )
    {
        struct hvb_cell_summary *cs = &s->cells[i];

        for ( c = 0; c < cs->nr_ctrs; c++ )
            free(cs->ctrs[c].vals);
        free(cs->ctrs);
        free(cs->samples);
        free(cs->real_ns);
        free(cs->cpu_ns);
        free(cs->pair_ratios);
    }
    free(s->cells);
    memset(s, 0, sizeof(*s));
}
