/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reviews history runs, on Slurm (bisect --fleet slurm, backfill
 * --fleet slurm): N reviews as one job array, a task each, through the
 * fleet room's sbatch and squeue (hvb/fleet.h), followed to the end.
 * Each task writes its review into its --out directory DIR and, beside
 * it, DIR.log (its output) and DIR.status ("RC START END"), all on the
 * file system every node sees.  E.g. bisect's round 2 of 3 commits:
 *
 *   OUT/fleet/bisect-2.sh   the script (a case per task, see fleet_slurm.c)
 *   sbatch --parsable --array=1,2,3 OUT/fleet/bisect-2.sh   -> job 14
 *   OUT/steps/5a1b2c3d4e5f/review.json, OUT/steps/5a1b2c3d4e5f.status
 *   ("0 1764659001.12 1764659037.80": exit 0, 36.7 s), ...
 *
 * The tasks run this hvbench where it is, not a staged copy: a review
 * finds its build options (so its build cache entries) in the
 * CMakeCache.txt beside its binary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <hvb/cmdline.h>
#include <hvb/fleet.h>
#include <hvb/fsutil.h>
#include <hvb/interrupt.h>

#include "private.h"

#define HFLEET_POLL_S 0.5

#define H             struct hvb_hreview
const struct hvb_optdef hvb_hreview_fleet_opts[] = {
    HVB_OPT_STR("fleet", 0, "ENGINE", H, fleet,
                "run the reviews as job arrays on a batch scheduler (slurm); "
                "the repository, the build cache and --out on a path every "
                "node sees"),
    HVB_OPT_STR("partition", 'p', "P", H, partition,
                "--fleet: submit to Slurm partition P"),
    HVB_OPT_SECONDS("slurm-timeout", 0, "S", H, slurm_timeout_s, 0.01, 86400,
                    "--fleet: kill an sbatch or squeue that has not ended "
                    "within S seconds, and say so (default "
                    "$" HVB_SLURM_TIMEOUT_ENV
                    " or " HVB_STR(HVB_SLURM_TIMEOUT_S) ")"),
    HVB_OPT_END,
};
#undef H

int hvb_hfleet_check(struct hvb_hreview *r, const char *cmd, const char **out)
{
    const char *env = getenv(HVB_SLURM_TIMEOUT_ENV);
    char cwd[2048];
    double s;

    if ( r->fleet == NULL )
        return r->partition || r->slurm_timeout_s > 0
                   ? hvb_usage_error("%s: --partition and --slurm-timeout "
                                     "are --fleet slurm's",
                                     cmd)
                   : -1;
    if ( strcmp(r->fleet, "slurm") != 0 )
        return hvb_usage_error("%s: --fleet '%s': the engine is slurm", cmd,
                               r->fleet);
    if ( hvb_fleet_dir(*out, r->fleet_dir, sizeof(r->fleet_dir)) )
        return hvb_usage_error("%s: --out '%s': want a path without blanks, "
                               "quotes, '%%', '$' or '\\' (it goes into "
                               "#SBATCH lines)",
                               cmd, *out);
    *out = r->fleet_dir;
    if ( r->cache != NULL && r->cache[0] != '/' &&
         getcwd(cwd, sizeof(cwd)) != NULL )
    {
        snprintf(r->cache_abs, sizeof(r->cache_abs), "%s/%s", cwd, r->cache);
        r->cache = r->cache_abs;
    }
    if ( r->slurm_timeout_s > 0 )
        hvb_slurm_set_timeout(r->slurm_timeout_s);
    else if ( env != NULL && *env )
    {
        if ( !hvb_parse_seconds(HVB_SLURM_TIMEOUT_ENV, env, 0.01, 86400, &s) )
            return HVB_EXIT_USAGE;
        hvb_slurm_set_timeout(s);
    }
    return -1;
}

/* Task @t's status file: its exit status and seconds, or -1 (none). */
static void task_status(struct hvb_hfleet_task *t)
{
    char *s = hvb_slurp(t->status, NULL);
    double t0, t1;
    int rc;

    t->rc = -1;
    t->seconds = 0;
    if ( s != NULL && sscanf(s, "%d %lf %lf", &rc, &t0, &t1) == 3 )
    {
        t->rc = rc;
        t->seconds = t1 - t0;
    }
    free(s);
}

/* Task @t's paths: DIR.log, DIR.status (none yet). */
static void task_paths(struct hvb_hfleet_task *t)
{
    snprintf(t->log, sizeof(t->log), "%s.log", t->dir);
    snprintf(t->status, sizeof(t->status), "%s.status", t->dir);
    unlink(t->status);
}

int hvb_hfleet_run(const struct hvb_hreview *r, const char *script,
                   struct hvb_hfleet_task *t, size_t n, bool quiet,
                   json_t *jobs)
{
    struct hvb_fleet_cmd *cmds = calloc(n + 1, sizeof(*cmds));
    unsigned int *tasks = calloc(n + 1, sizeof(*tasks));
    struct hvb_fleet_job j = {.dir = r->fleet_dir,
                              .name = "hvbench-history",
                              .partition = r->partition};
    char err[1024] = "", logs[4200], **ids = NULL, *text = NULL;
    size_t i, nr_ids = 0;
    FILE *f = NULL;
    int status = 0;

    snprintf(logs, sizeof(logs), "%s/logs", r->fleet_dir);
    if ( cmds == NULL || tasks == NULL )
        status = hvb_failure("out of memory");
    else if ( hvb_mkdirs(logs) )
        status = hvb_usage_error("cannot create %s: %s", logs, strerror(errno));
    for ( i = 0; status == 0 && i < n; i++ )
    {
        task_paths(&t[i]);
        cmds[i] = (struct hvb_fleet_cmd){
            .argv = t[i].argv, .log = t[i].log, .status = t[i].status};
        tasks[i] = (unsigned int)i + 1;
    }
    j.cmds = cmds;
    j.tasks = tasks;
    j.nr_tasks = n;
    if ( status == 0 && (text = hvb_slurm_script(&j)) == NULL )
        status = hvb_failure("out of memory");
    if ( status == 0 && ((f = fopen(script, "w")) == NULL ||
                         fputs(text, f) == EOF || fclose(f)) )
        status =
            hvb_usage_error("cannot write %s: %s", script, strerror(errno));
    if ( status == 0 &&
         hvb_slurm_submit(&j, script, &ids, &nr_ids, err, sizeof(err)) )
        status = hvb_usage_error("fleet: %s", err);
    for ( i = 0; i < nr_ids; i++ )
        json_array_append_new(jobs, json_string(ids[i]));
    if ( status == 0 && !quiet )
        fprintf(stderr, "hvbench: %zu review(s) as Slurm job %s (%s)\n", n,
                ids[0], script);
    if ( status == 0 && hvb_fleet_follow(ids, nr_ids, n, HFLEET_POLL_S, quiet,
                                         err, sizeof(err) - 80) )
        status = hvb_interrupted()
                     ? hvb_failure("fleet: Slurm job %s goes on (scancel %s "
                                   "stops it)",
                                   ids[0], ids[0])
                     : hvb_usage_error("fleet: %s; the job goes on)", err);
    for ( i = 0; status == 0 && i < n; i++ )
        task_status(&t[i]);
    for ( i = 0; i < nr_ids; i++ )
        free(ids[i]);
    free(ids);
    free(text);
    free(tasks);
    free(cmds);
    return status;
}
