/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reviews history runs (history_review.c, history_fleet.c): each an
 * "hvbench review BASE HEAD" of this hvbench into its own directory,
 * here one at a time or on Slurm as one job array.  Backfill's commits
 * (the history room) and bisect's steps (the bisect room) are such
 * reviews.
 */
#ifndef HVB_HREVIEW_H
#define HVB_HREVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <hvb/cmdline.h>

/*
 * A review history runs (bisect's steps, backfill's commits): "self
 * review BASE HEAD --repo R --metric M ... -- LINE", history_review.c.
 */
struct hvb_hreview {
    const char *metric, *threshold, *max_pairs, *cache;
    unsigned int jobs;
    double build_timeout_s; /* --build-timeout of each review; 0: its own */
    char repo[4096], self[4096];
    char **line; /* WORKLOAD [run options] */
    int nr_line;
    /* --fleet slurm: the reviews as job arrays (history_fleet.c) */
    const char *fleet, *partition;
    double slurm_timeout_s;
    char fleet_dir[4096]; /* absolute --out: scripts, logs/ */
    char cache_abs[4096]; /* --cache, absolute */
};

/*
 * The option rows of --fleet, --partition and --slurm-timeout, for a
 * command whose state begins with its struct hvb_hreview (HVB_OPT_ALSO).
 */
extern const struct hvb_optdef hvb_hreview_fleet_opts[];

/*
 * --fleet of @r checked, its --out @out (and the cache) made absolute
 * for the nodes: -1 to go on, or the exit status having said why.
 */
int hvb_hfleet_check(struct hvb_hreview *r, const char *cmd, const char **out);

/*
 * Its argv (malloc'd) into @out: metric default sim_instructions, with
 * @pairs as --max-pairs if set, explained (--explain changed) or not.
 */
char **hvb_hreview_argv(const struct hvb_hreview *r, const char *base,
                        const char *head, const char *out, const char *pairs,
                        bool explain);

/* Run it, both outputs into @logp: its exit status, or -1. */
int hvb_hreview_run(char **av, const char *logp);

/* One review of a job array: DIR its --out, DIR.log and DIR.status. */
struct hvb_hfleet_task {
    char **argv; /* hvb_hreview_argv()'s */
    char dir[4200], log[4300], status[4300];
    int rc;         /* its exit status; -1: it did not end by itself */
    double seconds; /* it ran */
};

/*
 * The reviews @t (@n) as one Slurm job array, script @script, followed
 * to their end; each t->rc and t->seconds set, the job ids appended to
 * @jobs.  0, or the exit status having said why (sbatch, squeue).
 */
int hvb_hfleet_run(const struct hvb_hreview *r, const char *script,
                   struct hvb_hfleet_task *t, size_t n, bool quiet,
                   json_t *jobs);

#endif /* HVB_HREVIEW_H */
