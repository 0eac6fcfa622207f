/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Console views of a run.  The table goes to stdout (it is the data of
 * the default format); context, notes and warnings go to stderr.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hvb/console.h>
#include <hvb/meter.h>
#include <hvb/noise.h>
#include <hvb/stats.h>

void hvb_console_context(FILE *err, const json_t *ctx)
{
    const json_t *scaling = json_object_get(ctx, "cpu_scaling_enabled");
    const json_t *load = json_object_get(ctx, "load_avg");
    const char *build =
        json_string_value(json_object_get(ctx, "library_build_type"));
    const json_t *v;
    size_t i;

    fprintf(err, "hvbench: host %s, %lld CPUs at %lld MHz, CPU scaling %s",
            json_string_value(json_object_get(ctx, "host_name")) ?: "unknown",
            (long long)json_integer_value(json_object_get(ctx, "num_cpus")),
            (long long)json_integer_value(json_object_get(ctx, "mhz_per_cpu")),
            json_is_boolean(scaling)
                ? (json_is_true(scaling) ? "enabled" : "disabled")
                : "unknown");
    if ( json_array_size(load) > 0 )
    {
        fprintf(err, ", load average");
        json_array_foreach(load, i, v)
            fprintf(err, " %.2f", json_number_value(v));
    }
    fputc('\n', err);
    if ( build != NULL && strcmp(build, "debug") == 0 )
        fprintf(
            err,
            "hvbench: note: the Google Benchmark library was built as DEBUG (as Debian ships it); it only drives the timed loop, whose code is ours and optimised\n");
    if ( json_is_true(scaling) )
        fprintf(
            err,
            "hvbench: warning: CPU frequency scaling is enabled; times may drift between repetitions\n");
}

/*
 * The counters of a cell worth a glance: non-zero medians, at most
 * HVB_CONSOLE_COUNTERS of them, not callgrind's raw events (sim_cycles
 * sums them up; the JSON has them all).
 */
static void print_counters(FILE *out, const struct hvb_cell_summary *cs)
{
    const char *sep = "";
    size_t c, shown = 0, more = 0;

    for ( c = 0; c < cs->nr_ctrs; c++ )
    {
        const struct hvb_ctr_summary *k = &cs->ctrs[c];

        if ( fabs(k->st.median) < 0.0005 || hvb_meter_sim_raw(k->name) )
            continue;
        if ( shown == HVB_CONSOLE_COUNTERS )
        {
            more++;
            continue;
        }
        fprintf(out, "%s%s=%.3g%s", sep, k->name, k->st.median,
                (k->flags & HVB_CTR_RATE) ? "/s" : "");
        sep = " ";
        shown++;
    }
    if ( more )
        fprintf(out, " (+%zu more)", more);
}

/*
 * The ratio column's head: "ratio [paired 95% CI]", or with fewer than
 * HVB_CI_MIN_N rounds "ratio [range of 5 rounds]" (the bootstrap's 95%
 * interval of so few is their min and max: hvb/stats.h), or "ratio
 * [interval]" where the cells differ.
 */
static const char *ratio_head(const struct hvb_summary *s, char *buf,
                              size_t len)
{
    char iv[48], first[48] = "";
    size_t i;

    snprintf(buf, len, "ratio [paired 95%% CI]");
    for ( i = 0; i < s->nr_cells; i++ )
    {
        const struct hvb_cell_summary *cs = &s->cells[i];

        if ( !cs->has_ratio || cs->nr_pairs == 0 )
            continue;
        hvb_interval_label(cs->pair_range, cs->nr_pairs, "rounds", 0.95, iv,
                           sizeof(iv));
        if ( first[0] == '\0' )
            snprintf(first, sizeof(first), "%s", iv);
        else if ( strcmp(first, iv) != 0 )
            return snprintf(buf, len, "ratio [interval]"), buf;
    }
    if ( strcmp(first, "95% CI") != 0 && first[0] != '\0' )
        snprintf(buf, len, "ratio [%s]", first);
    return buf;
}

void hvb_console_table(FILE *out, const struct hvb_matrix *m,
                       const struct hvb_summary *s)
{
    int w = (int)strlen("name");
    char ratio[48], head[64];
    size_t i;

    for ( i = 0; i < m->nr_cells; i++ )
        if ( (int)strlen(m->cells[i].name) > w )
            w = (int)strlen(m->cells[i].name);

    fprintf(out, "%-*s  %14s  %7s  %12s  %-25s  %s\n", w, "name",
            "median ns/op", "CV", "iterations",
            ratio_head(s, head, sizeof(head)), "counters (per op)");
    for ( i = 0; i < m->nr_cells; i++ )
    {
        const struct hvb_mcell *mc = &m->cells[i];
        const struct hvb_cell_summary *cs = &s->cells[i];

        if ( i > 0 && m->nr_variants > 1 && mc->variant == 0 )
            fputc('\n', out);
        if ( cs->error != NULL || cs->nr_good == 0 )
        {
            fprintf(out, "%-*s  ERROR: %s\n", w, mc->name,
                    cs->error ? cs->error : "no result");
            continue;
        }
        if ( m->nr_variants > 1 && cs->has_ratio && cs->nr_pairs > 0 )
            snprintf(ratio, sizeof(ratio), "%.3f [%.3f,%.3f]", cs->pair_median,
                     cs->pair_lo, cs->pair_hi);
        else if ( m->nr_variants > 1 && cs->has_ratio )
            snprintf(ratio, sizeof(ratio), "%.3f", cs->ratio);
        else
            snprintf(ratio, sizeof(ratio), "-");
        fprintf(out, "%-*s  %14.2f  %6.1f%%  %12lld  %-25s  ", w, mc->name,
                cs->real.median, cs->real.cv * 100.0, (long long)cs->iterations,
                ratio);
        print_counters(out, cs);
        fputc('\n', out);
    }
    fflush(out);
}

/*
 * One line of the noise flags the results file records (cells[].
 * noise_flags), each with how many cells carry it; cpu-share<90% (the
 * one every cell of a loaded or oversubscribed VM carries) says why it
 * matters.
 */
static void noise_summary(FILE *err, const struct hvb_summary *s)
{
    size_t i, nr[HVB_NOISE_NR] = {0}, good = 0;
    const char *sep = "";
    unsigned int f, all = 0;

    for ( i = 0; i < s->nr_cells; i++ )
    {
        if ( s->cells[i].error != NULL || s->cells[i].nr_good == 0 )
            continue;
        good++;
        all |= s->cells[i].noise;
        for ( f = 0; f < HVB_NOISE_NR; f++ )
            nr[f] += (s->cells[i].noise >> f) & 1;
    }
    if ( all == 0 )
        return;
    fprintf(err, "hvbench: note: noise flags:");
    for ( f = 0; f < HVB_NOISE_NR; f++ )
        if ( nr[f] )
        {
            fprintf(err, "%s %s on %zu of %zu cells", sep, hvb_noise_name(f),
                    nr[f], good);
            sep = ",";
        }
    fprintf(err, " (cells[].noise_flags)\n");
    if ( all & HVB_NOISE_DESCHED )
        fprintf(err,
                "hvbench: warning: %s: the measured threads were "
                "descheduled (runnable, not running) over 10%% of the wall "
                "time: other load or steal; their times are suspect\n",
                hvb_noise_name((unsigned int)__builtin_ctz(HVB_NOISE_DESCHED)));
}

void hvb_console_warnings(FILE *err, const struct hvb_matrix *m,
                          const struct hvb_summary *s)
{
    size_t i;

    for ( i = 0; i < m->nr_cells; i++ )
    {
        const struct hvb_cell_summary *cs = &s->cells[i];
        const char *name = m->cells[i].name;

        if ( cs->error != NULL || cs->nr_good == 0 )
            fprintf(err, "hvbench: error: %s: %s\n", name,
                    cs->error ? cs->error : "no result");
        else if ( cs->real.n >= 2 && cs->real.cv >= HVB_NOISY_CV )
            fprintf(
                err,
                "hvbench: warning: %s: noisy, CV %.1f%% over %zu repetitions (min %.2f, max %.2f ns/op)\n",
                name, cs->real.cv * 100.0, cs->real.n, cs->real.min,
                cs->real.max);
    }
    noise_summary(err, s);
}
