/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet room (harness/fleet/): beyond one machine.  cmd_fleet.c
 * parses the fleet command line and sequences one fleet (plan, stage,
 * script, submit, follow, merge); fleet_stage.c copies the binary and the plugins' .so
 * files into the fleet directory; fleet_jobs.c keeps the fleet's state
 * (fleet.json, jobs), follows the scheduler and gathers the shards;
 * fleet_slurm.c speaks to Slurm (hvb/fleet.h) through hvb/exec.h.  cmd_merge.c joins a run's shards (hvb/merge.h),
 * hosts.c shows one matrix on several hosts side by side (hvb/hosts.h,
 * compare --hosts).
 */
#ifndef HVB_FLEET_PRIVATE_H
#define HVB_FLEET_PRIVATE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include <hvb/exec.h>
#include <hvb/fleet.h>
#include <hvb/fsutil.h>

#define FLEET_DEFAULT_DIR     "hvbench-fleet"
#define FLEET_STATE           "fleet.json"
#define FLEET_JOBS            "jobs"
#define FLEET_POLL_MISSES     10 /* squeue failures in a row before giving up */
#define FLEET_CMD_TIMEOUT     HVB_SLURM_TIMEOUT_S
#define FLEET_LIST_MAX        (16u << 20) /* sinfo, squeue: stdout at most */
#define FLEET_ID_MAX          4096 /* sbatch --parsable: stdout at most */
#define FLEET_CMD_TIMEOUT_ENV HVB_SLURM_TIMEOUT_ENV

struct fleet {
    const char *partition, *constraint, *out;
    char dir[PATH_MAX], outbuf[PATH_MAX + 16], binary[PATH_MAX + 16];
    unsigned int shards;
    bool per_host, dry_run, resume, stage, quiet;
    double poll_s, cmd_timeout_s;
    char **run_argv; /* "run" WORKLOAD ..., staged paths */
    size_t run_argc;
    char **hosts;
    size_t nr_hosts;
    size_t groups, cells;
};

int fleet_stage_plugins(struct fleet *fl);
bool fleet_complete_file(const char *path);
void fleet_task_path(const struct fleet *fl, size_t t, char *buf, size_t len);
json_t *fleet_state_json(const struct fleet *fl, char *const *orig,
                         size_t argc);
int fleet_load_state(struct fleet *fl, json_t *now);
void fleet_record_jobs(const struct fleet *fl, char *const *ids, size_t nr);
int fleet_still_queued(const struct fleet *fl);
int fleet_follow(const struct fleet *fl, char *const *ids, size_t nr_ids,
                 size_t total);
int fleet_select_nodes(struct fleet *fl);
int fleet_gather(struct fleet *fl);

#endif /* HVB_FLEET_PRIVATE_H */
