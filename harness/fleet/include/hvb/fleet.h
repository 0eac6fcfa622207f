/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench fleet": a run matrix on a batch scheduler's nodes, one task
 * per shard (hvb/shard.h) or, with --per-host, the whole matrix once on
 * every selected node.  harness/fleet/cmd_fleet.c is the engine-independent
 * part (options, the fleet directory, staging, following, merging);
 * harness/fleet/fleet_slurm.c speaks Slurm (sbatch, squeue, sinfo).
 *
 * The fleet directory (--dir, on a path every node sees):
 *
 *   fleet.json          what was asked: the run's arguments, shards or
 *                       hosts (--resume checks it is the same command)
 *   bin/hvbench         the staged binary; plugins/NAME.so the staged
 *                       --plugin .so files (unless --no-stage)
 *   job.sh              the batch script (--dry-run prints it)
 *   jobs                the job ids submitted (--resume refuses to run
 *                       while one is still queued or running)
 *   shard-K.json        task K's results (hvbench run --shard K/N)
 *   host-NODE.json      --per-host: NODE's results of the whole matrix
 *   logs/               each task's stdout and stderr
 *   merged.json         the shards merged (default --out)
 */
#ifndef HVB_FLEET_H
#define HVB_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Every sinfo, sbatch, squeue's deadline: --slurm-timeout, else $ENV. */
#define HVB_SLURM_TIMEOUT_S   120 /* s */
#define HVB_SLURM_TIMEOUT_ENV "HVB_SLURM_TIMEOUT"

/*
 * One array task's own command (bisect's steps, backfill's reviews):
 * task K runs @argv with its stdout and stderr into @log, then writes
 * "STATUS START END" (its exit status, seconds since the epoch) into
 * @status, atomically.  No @status file after the job: it did not end
 * by itself (cancelled, killed, the node lost).
 */
struct hvb_fleet_cmd {
    char *const *argv; /* NULL-ended; argv[0] a path every node sees */
    const char *log, *status;
};

struct hvb_fleet_job {
    const char *dir;        /* the fleet directory, absolute */
    const char *name;       /* --job-name (NULL: hvbench-fleet) */
    const char *partition;  /* or NULL */
    const char *constraint; /* or NULL */
    bool per_host;
    unsigned int shards;       /* N (sharded) */
    const unsigned int *tasks; /* the K to run (sharded) */
    size_t nr_tasks;           /* or hosts (per host) */
    char *const *hosts;        /* per host: the nodes */
    char *const *run_argv;     /* "run" WORKLOAD [options], staged */
    size_t run_argc;
    const char *binary; /* what the nodes execute */
    /*
     * Or each task its own command: task tasks[i] runs cmds[i] (then
     * run_argv, binary and shards are not used; output DIR/logs/
     * task-JOB_K.log).
     */
    const struct hvb_fleet_cmd *cmds;
};

/* A task's state as the scheduler sees it. */
struct hvb_fleet_counts {
    size_t pending, running, done;
};

/*
 * hvb_slurm_script - the sbatch script of @j into a malloc'd string (NULL
 * when out of memory).
 */
char *hvb_slurm_script(const struct hvb_fleet_job *j);

/*
 * hvb_slurm_nodes - the nodes of @partition (NULL: all) that have every
 * feature of @constraint ("numa&pmu"; NULL: any), sorted, into @out
 * (malloc'd array of malloc'd names).  0 or -errno with @err.
 */
int hvb_slurm_nodes(const char *partition, const char *constraint, char ***out,
                    size_t *nr, char *err, size_t len);

/*
 * hvb_slurm_submit - submit @script (a file) for @j: one array job of
 * j->tasks (sharded) or one job per host; job ids into @ids (malloc'd).
 * 0 or -errno with @err (sbatch's own message).
 */
int hvb_slurm_submit(const struct hvb_fleet_job *j, const char *script,
                     char ***ids, size_t *nr_ids, char *err, size_t len);

/*
 * hvb_slurm_poll - count @j's tasks pending and running now (squeue);
 * the rest of @total are done (finished, failed or cancelled).  0 or
 * -errno with @err.
 */
int hvb_slurm_poll(char *const *ids, size_t nr_ids, size_t total,
                   struct hvb_fleet_counts *c, char *err, size_t len);

/*
 * hvb_slurm_set_timeout - every Slurm command after this is killed when
 * it has not ended within @seconds (default FLEET_CMD_TIMEOUT, 120);
 * the call then fails with -ETIMEDOUT, naming the command.
 */
void hvb_slurm_set_timeout(double seconds);

/*
 * hvb_fleet_follow - follow jobs @ids (@total tasks) to their end, a
 * look every @poll_s seconds ("N pending, N running, N done" on stderr
 * unless @quiet; a bar on a TTY).  0, or -EIO with @err when squeue
 * failed FLEET_POLL_MISSES times in a row (the jobs go on).
 */
int hvb_fleet_follow(char *const *ids, size_t nr_ids, size_t total,
                     double poll_s, bool quiet, char *err, size_t len);

/*
 * hvb_fleet_dir - @d as an absolute path into @out (it need not exist):
 * 0, or -EINVAL when it has a blank, a quote, '%', '$', '\\' or '`' (it
 * goes into #SBATCH lines), -ENAMETOOLONG.
 */
int hvb_fleet_dir(const char *d, char *out, size_t len);

struct hvb_cmd_ctx;
struct hvb_cmd_doc;

/* "hvbench fleet slurm ... -- WORKLOAD [run options]" (cmd_fleet.c). */
int hvb_cmd_fleet(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_fleet;

#endif /* HVB_FLEET_H */
