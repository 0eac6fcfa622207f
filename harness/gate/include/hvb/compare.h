/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Comparing two results files (hvbench compare / gate).  Benchmarks are
 * matched by cell name.  For each, the metric's samples of both files
 * give the ratio NEW / BASE of the medians, its percentile bootstrap 95%
 * CI (both sides resampled independently: two runs are not paired), the
 * Mann-Whitney U p-value, and a verdict against a threshold t:
 *
 *   unstable    a side is noisy (CV >= 10%, min/max >= 50% from the
 *               mean, fewer than 3 samples): never judged
 *   regressed   CI lower bound > 1 + t
 *   improved    CI upper bound < 1 - t
 *   unstable    the CI reaches beyond 1 + t (a regression can be
 *               neither shown nor ruled out)
 *   unchanged   otherwise
 */
#ifndef HVB_COMPARE_H
#define HVB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include <stdio.h>

#include <jansson.h>

#define HVB_CMP_KEY_MAX 64 /* a counter's name, with the NUL */

enum hvb_verdict {
    HVB_UNCHANGED,
    HVB_IMPROVED,
    HVB_REGRESSED,
    HVB_UNSTABLE,
};

struct hvb_cmp_row {
    const char *name;  /* borrowed from the base document */
    double base, new_; /* medians */
    double ratio, lo, hi, p;
    /*
     * What [lo, hi] is of: @n values (rounds, or the smaller side's
     * samples); @range: their min and max (paired, fewer than
     * HVB_CI_MIN_N rounds: hvb_median_interval()), else a CI.
     */
    size_t n;
    bool range;
    unsigned int base_noise, new_noise; /* HVB_NOISE_* */
    enum hvb_verdict verdict;
    /* hvb_cmp_builds() only (0 and false otherwise): */
    double p_beyond;          /* bootstrap p of a change beyond +-t */
    unsigned int pairs;       /* process pairs its CI resampled */
    unsigned int ratio_noise; /* the per-round ratios' HVB_NOISE_* */
    bool held; /* CI beyond +-t but no Benjamini-Hochberg discovery */
};

struct hvb_cmp {
    const char *metric; /* as asked: "time", "cycles", ... */
    const char *key;    /* what was read: "time" or a counter name */
    const char *source; /* a sentence: where the numbers come from */
    const char *unit;   /* "ns/op", "TSC cycles/op", ... */
    double threshold;   /* t, a fraction */
    struct hvb_cmp_row *rows;
    size_t nr_rows;
    size_t nr[4]; /* rows per verdict */
    size_t only_base, only_new;
    bool paired; /* one file: variants against their group's reference */
    /* Worker processes pooled in each file (run.processes; 1 if absent). */
    unsigned int processes[2];
    /* The metric depends on the code path only (see compare_metric.c). */
    bool same_code;
    /* A sample of the metric is > 0 (a time, a cycle count). */
    bool positive;
    /* The files' names for messages: the caller may set them first. */
    const char *names[2];
    /* Two builds paired (hvb_cmp_builds()); its CI's level is 1 - alpha. */
    bool builds;
    double alpha;
    /* A counter metric's key, unit, source (pointed to: do not copy). */
    char key_buf[HVB_CMP_KEY_MAX], unit_buf[72], source_buf[224];
};

/*
 * The default threshold of @metric (fraction); -1 for an unknown one.
 * Any name in [a-z0-9_] may be a counter metric (5%).
 */
double hvb_cmp_default_threshold(const char *metric);

/* "time, tsc_cycles, ..., allocs": every metric of the table, for messages. */
const char *hvb_cmp_metric_names(void);

/*
 * hvb_cmp_run - compare @base with @new_ on @metric with threshold @t
 * (< 0: the metric's default).  @metric is one of the table's (time,
 * tsc_cycles, cycles, instructions, sim_instructions, sim_cycles,
 * alloc_bytes, allocs) or any
 * M whose counter M_per_op both files have (an --events counter such as
 * cache_misses; its source from the probe).  -EINVAL with @err (one
 * line) for an unknown metric, a metric a file lacks (with the probe's
 * reason), a zero sample of a metric that cannot be zero (time, cycles,
 * instructions), or no benchmark in common; -ENOMEM.  @out->names may
 * be set first (the files, for messages).
 */
int hvb_cmp_run(json_t *base, json_t *new_, const char *metric, double t,
                struct hvb_cmp *out, char *err, size_t len);
void hvb_cmp_free(struct hvb_cmp *c);

/*
 * hvb_cmp_paired - one file of paired rounds: every variant of a group
 * against its reference (variant 0).  Base and new are the two cells'
 * medians; the ratio is the median of the per-round ratios, its
 * interval hvb_median_interval()'s: a bootstrap 95% CI by process
 * (run.processes consecutive clusters), then by round, or with fewer
 * than HVB_CI_MIN_N rounds their range; its noise flags theirs (drift
 * cancels in a round) and the cells' recorded ones.  Verdicts as above
 * on that interval, except that no noise flag but fewer than 3 rounds
 * makes a row unstable: the interval of the ratios already carries their
 * spread, and the cells' cpu-share<90% (other work on the machine)
 * widens it, as the two cells of a round share the machine's state in
 * one process of one binary (shown, not fatal).  Errors as hvb_cmp_run().
 */
int hvb_cmp_paired(json_t *doc, const char *metric, double t,
                   struct hvb_cmp *out, char *err, size_t len);

/*
 * hvb_cmp_builds - gate --base-bin's look at two builds paired in one run
 * (@doc as for hvb_cmp_paired(), each base cell followed by its new
 * cell; a cell's "processes", when there, is its own count of process
 * pairs).  Each pair has one vote, the median of its per-round ratios
 * new/base; the ratio is the Hodges-Lehmann estimate of those medians,
 * its CI at level 1 - @alpha from the bootstrap of the pairs (with under
 * 4 pairs: the median of all rounds, two-stage bootstrap: pairs, then
 * rounds), p and p_beyond bootstrap p-values of that distribution (of a
 * ratio other than 1, and beyond [1 - t, 1 + t]).  Verdicts:
 *
 *   regressed  CI wholly above 1 + t, improved wholly below 1 - t, and
 *              a Benjamini-Hochberg discovery at q = @alpha among all
 *              the rows' p_beyond (else unstable, row->held)
 *   unchanged  ("same") CI inside [1 - t, 1 + t]
 *   unstable   ("unknown") otherwise, or fewer than 3 rounds, or a
 *              cell's cpu-share<90%
 *
 * Errors as hvb_cmp_run().
 */
int hvb_cmp_builds(json_t *doc, const char *metric, double t, double alpha,
                   struct hvb_cmp *out, char *err, size_t len);

/*
 * hvb_cmp_more_pairs - of an unstable row of hvb_cmp_builds() with
 * threshold @t: the process pairs more that would decide it at the same
 * level, were its CI to narrow as 1/sqrt(pairs) around the same median;
 * 0 for a decided row; -1 where no count would (the median on 1 +- t, a
 * cell that cannot be judged: fewer than 3 rounds, cpu-share<90%).
 */
long hvb_cmp_more_pairs(const struct hvb_cmp_row *r, double t);

/*
 * hvb_cmp_why - why row @r of @c is unstable ("unknown"), one phrase for
 * "unstable: ...", into @buf; NULL for a decided row.  E.g. "the range
 * of 5 rounds [-3.1%, +12.0%] reaches past +5%: a regression can be
 * neither shown nor ruled out", "too noisy: base cv>=10%, new
 * one-process", "fewer than 3 rounds"; of two builds "workers
 * descheduled (cpu-share<90%): the machine was busy", "the CI [-0.6%,
 * +0.7%] reaches across the +-0.5% threshold after 24 pair(s); about 25
 * more would likely decide it".  compare_why.c.
 */
const char *hvb_cmp_why(const struct hvb_cmp *c, const struct hvb_cmp_row *r,
                        char *buf, size_t len);

/*
 * The name of row @r's interval into @buf: "range of 5 rounds", "95%
 * CI", two builds' "99% CI".  compare_why.c.
 */
const char *hvb_cmp_interval(const struct hvb_cmp *c,
                             const struct hvb_cmp_row *r, char *buf,
                             size_t len);

const char *hvb_verdict_name(enum hvb_verdict v);

/* Its name in @c's words: "same" and "unknown" for two builds. */
const char *hvb_cmp_verdict_word(const struct hvb_cmp *c, enum hvb_verdict v);

/*
 * hvb_gate_report - the gate's verdict of @c: sort its rows, print the
 * table and the "gate:" line on stdout, write the markdown summary to
 * @md_path (if not NULL) with @base and @new_'s environments; returns the
 * exit status (0 pass, 1 regression, 3 unstable (two builds: unknown),
 * or the write's).
 */
int hvb_gate_report(struct hvb_cmp *c, json_t *base, json_t *new_,
                    const char *md_path, bool allow_unstable);
/*
 * The gate's exit @status as CI reads it: 1 ("regressed") only when
 * hvb_gate_report() said a regression in this process; a 1 from a
 * failure of the gate itself (out of memory, a dead worker) is 2.
 */
int hvb_gate_exit(int status);

/*
 * compare_views.c: what compare and gate print of @c.  @b, @n: the two
 * documents (their environments); @status: gate's exit status, or -1
 * for compare (no verdict).
 */
void hvb_cmp_print_console(FILE *f, const struct hvb_cmp *c);
void hvb_cmp_print_markdown(FILE *f, const struct hvb_cmp *c, json_t *b,
                            json_t *n, int status);
void hvb_cmp_print_json(FILE *f, const struct hvb_cmp *c);

#endif /* HVB_COMPARE_H */
