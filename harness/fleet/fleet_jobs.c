/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvbench fleet: the fleet's state (fleet.json, its jobs), following the
 * scheduler's tasks with a progress bar, and gathering the shards
 * (private.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <hvb/cmdline.h>
#include <hvb/fleet.h>
#include <hvb/hosts.h>
#include <hvb/merge.h>
#include <hvb/progress.h>
#include <hvb/results.h>
#include <hvb/results_read.h>

#include "private.h"

bool fleet_complete_file(const char *path)
{
    char err[512], why[128];
    json_t *doc;
    bool ok;

    if ( access(path, F_OK) != 0 )
        return false;
    doc = hvb_results_load(path, err, sizeof(err));
    ok = doc != NULL && hvb_results_complete(doc, why, sizeof(why));
    json_decref(doc);
    return ok;
}

void fleet_task_path(const struct fleet *fl, size_t t, char *buf, size_t len)
{
    if ( fl->per_host )
        snprintf(buf, len, "%s/host-%s.json", fl->dir, fl->hosts[t]);
    else
        snprintf(buf, len, "%s/shard-%zu.json", fl->dir, t + 1);
}

json_t *fleet_state_json(const struct fleet *fl, char *const *orig, size_t argc)
{
    json_t *run = json_array(), *hosts = json_array();
    size_t i;

    for ( i = 0; i < argc; i++ )
        json_array_append_new(run, json_string(orig[i]));
    for ( i = 0; i < fl->nr_hosts; i++ )
        json_array_append_new(hosts, json_string(fl->hosts[i]));
    return json_pack("{s:s, s:o, s:b, s:i, s:o}", "engine", "slurm", "run", run,
                     "per_host", fl->per_host, "shards", (int)fl->shards,
                     "hosts", hosts);
}

/*
 * --resume: the fleet in DIR must be this command's; take its shards and
 * hosts.  Exit status.
 */
int fleet_load_state(struct fleet *fl, json_t *now)
{
    char path[PATH_MAX + 16];
    json_t *st, *h;
    size_t i;

    snprintf(path, sizeof(path), "%s/" FLEET_STATE, fl->dir);
    st = json_load_file(path, 0, NULL);
    if ( st == NULL )
        return hvb_usage_error("fleet: --resume: %s has no fleet (%s missing "
                               "or not JSON)",
                               fl->dir, path);
    if ( !json_equal(json_object_get(st, "run"), json_object_get(now, "run")) ||
         !json_equal(json_object_get(st, "per_host"),
                     json_object_get(now, "per_host")) )
    {
        char *a = json_dumps(json_object_get(st, "run"), JSON_COMPACT);

        hvb_usage_error(
            "fleet: --resume: the fleet in %s ran another "
            "command (%.300s%s); resume with that one",
            fl->dir, a ? a : "?",
            json_is_true(json_object_get(st, "per_host")) ? " --per-host" : "");
        free(a);
        json_decref(st);
        return HVB_EXIT_USAGE;
    }
    fl->shards =
        (unsigned int)json_integer_value(json_object_get(st, "shards"));
    h = json_object_get(st, "hosts");
    if ( fl->per_host )
    {
        fl->nr_hosts = json_array_size(h);
        fl->hosts = calloc(fl->nr_hosts + 1, sizeof(*fl->hosts));
        for ( i = 0; fl->hosts != NULL && i < fl->nr_hosts; i++ )
            fl->hosts[i] =
                strdup(json_string_value(json_array_get(h, i)) ?: "?");
    }
    json_decref(st);
    return HVB_EXIT_OK;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Append the job ids to DIR/jobs, for --resume to find them. */
void fleet_record_jobs(const struct fleet *fl, char *const *ids, size_t nr)
{
    char path[PATH_MAX + 16];
    FILE *f;
    size_t i;

    snprintf(path, sizeof(path), "%s/" FLEET_JOBS, fl->dir);
    f = fopen(path, "a");
    if ( f == NULL )
        return;
    for ( i = 0; i < nr; i++ )
        fprintf(f, "%s\n", ids[i]);
    fclose(f);
}

/*
 * --resume while the fleet's jobs are still queued or running would run
 * their shards twice: refuse (exit 2), naming them.
 */
int fleet_still_queued(const struct fleet *fl)
{
    char path[PATH_MAX + 16], line[128], err[512] = "", *ids[64];
    struct hvb_fleet_counts c;
    size_t nr = 0, i;
    int status = HVB_EXIT_OK;
    FILE *f;

    snprintf(path, sizeof(path), "%s/" FLEET_JOBS, fl->dir);
    f = fopen(path, "r");
    if ( f == NULL )
        return HVB_EXIT_OK;
    while ( fgets(line, sizeof(line), f) != NULL )
    {
        line[strcspn(line, "\n")] = '\0';
        if ( line[0] == '\0' )
            continue;
        if ( nr == sizeof(ids) / sizeof(ids[0]) )
        {
            free(ids[0]);
            memmove(ids, ids + 1, (nr - 1) * sizeof(*ids));
            nr--;
        }
        ids[nr] = strdup(line);
        if ( ids[nr] != NULL )
            nr++;
    }
    fclose(f);
    if ( nr > 0 &&
         hvb_slurm_poll(ids, nr, SIZE_MAX / 2, &c, err, sizeof(err)) == 0 &&
         c.pending + c.running > 0 )
        status = hvb_usage_error(
            "fleet: --resume: %zu task(s) of %s (job%s %s%s) still pending or "
            "running: wait for them, or scancel them, then --resume",
            c.pending + c.running, fl->dir, nr > 1 ? "s" : "", ids[nr - 1],
            nr > 1 ? " and earlier" : "");
    else if ( err[0] )
        status = hvb_usage_error("fleet: --resume: %s", err);
    for ( i = 0; i < nr; i++ )
        free(ids[i]);
    return status;
}

int hvb_fleet_follow(char *const *ids, size_t nr_ids, size_t total,
                     double poll_s, bool quiet, char *err, size_t len)
{
    struct hvb_fleet_counts c, last = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    struct hvb_progress prog;
    struct timespec ts = {.tv_sec = (time_t)poll_s,
                          .tv_nsec =
                              (long)((poll_s - (double)(time_t)poll_s) * 1e9)};
    char label[96];
    size_t seen = 0;
    double t0 = now_s();
    int misses = 0;

    hvb_progress_start(&prog, total, quiet);
    for ( ;; )
    {
        /* A controller restarting: a few misses are not the end. */
        if ( hvb_slurm_poll(ids, nr_ids, total, &c, err, len) )
        {
            if ( ++misses < FLEET_POLL_MISSES )
            {
                nanosleep(&ts, NULL);
                continue;
            }
            hvb_progress_end(&prog);
            snprintf(err + strlen(err), len - strlen(err),
                     " (%d times in a row", misses);
            return -EIO;
        }
        misses = 0;
        snprintf(label, sizeof(label), "%zu pending, %zu running, %zu done",
                 c.pending, c.running, c.done);
        if ( seen == c.done &&
             (c.pending != last.pending || c.running != last.running) )
            hvb_progress_show(&prog, label);
        while ( seen < c.done )
        {
            seen++;
            hvb_progress_step(&prog, label);
        }
        if ( !prog.tty && !quiet &&
             (c.pending != last.pending || c.running != last.running) )
            fprintf(stderr, "hvbench: fleet: %s (%.0f s)\n", label,
                    now_s() - t0);
        last = c;
        if ( c.pending + c.running == 0 )
            break;
        nanosleep(&ts, NULL);
    }
    hvb_progress_end(&prog);
    return 0;
}

/* Follow the jobs to their end.  Exit status (2: Slurm not reachable). */
int fleet_follow(const struct fleet *fl, char *const *ids, size_t nr_ids,
                 size_t total)
{
    char err[600] = "";

    if ( hvb_fleet_follow(ids, nr_ids, total, fl->poll_s, fl->quiet, err,
                          sizeof(err) - 60) == 0 )
        return HVB_EXIT_OK;
    return hvb_usage_error("fleet: %s; the jobs go on: --resume once they "
                           "have ended)",
                           err);
}

/* The nodes, and the default number of shards.  Exit status. */
int fleet_select_nodes(struct fleet *fl)
{
    char err[512] = "";

    if ( hvb_slurm_nodes(fl->partition, fl->constraint, &fl->hosts,
                         &fl->nr_hosts, err, sizeof(err)) )
        return hvb_usage_error("fleet: %s (is Slurm set up here? see "
                               "docs/fleet.md)",
                               err);
    if ( fl->nr_hosts == 0 )
        return hvb_usage_error(
            "fleet: no node%s%s%s%s", fl->partition ? " in partition " : "",
            fl->partition ?: "", fl->constraint ? " with features " : "",
            fl->constraint ?: "");
    return HVB_EXIT_OK;
}

/* Merge or tabulate what came back.  Exit status. */
int fleet_gather(struct fleet *fl)
{
    char **paths = calloc(fl->shards + fl->nr_hosts + 1, sizeof(*paths));
    size_t nr = 0, t, total = fl->per_host ? fl->nr_hosts : fl->shards;
    char path[PATH_MAX + 32];
    int status = HVB_EXIT_OK;

    if ( paths == NULL )
        return hvb_failure("out of memory");
    for ( t = 0; t < total; t++ )
    {
        fleet_task_path(fl, t, path, sizeof(path));
        if ( fleet_complete_file(path) )
        {
            paths[nr++] = strdup(path);
            continue;
        }
        if ( fl->per_host )
            fprintf(stderr,
                    "hvbench: fleet: host %s failed or was cancelled (log: "
                    "%s/logs/host-%s.log)\n",
                    fl->hosts[t], fl->dir, fl->hosts[t]);
        else
            fprintf(stderr,
                    "hvbench: fleet: shard %zu/%u failed or was cancelled "
                    "(log: %s/logs/shard-%zu.log)\n",
                    t + 1, fl->shards, fl->dir, t + 1);
        status = HVB_EXIT_FAIL;
    }
    if ( !fl->per_host && nr > 0 )
    {
        struct hvb_merge_result res;
        int ms = hvb_merge_files(fl->out, paths, nr, false, &res);

        hvb_merge_result_free(&res);
        if ( ms == HVB_EXIT_USAGE )
            status = ms;
        else if ( ms != HVB_EXIT_OK )
            status = HVB_EXIT_FAIL;
    }
    else if ( fl->per_host && nr > 0 )
    {
        int hs = hvb_hosts_print_files(stdout, paths, nr);

        if ( hs != HVB_EXIT_OK )
            status = hs;
    }
    if ( status == HVB_EXIT_FAIL )
        fprintf(stderr, "hvbench: fleet: to run only what is missing: the same "
                        "command with --resume\n");
    for ( t = 0; t < nr; t++ )
        free(paths[t]);
    free(paths);
    return status;
}
