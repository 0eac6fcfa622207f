/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet room (harness/fleet/): beyond one machine.  cmd_fleet.c
 * parses the fleet command line and sequences one fleet (plan, stage,
 * script, submit, follow, merge); fleet_stage.c copies the binary and the plugins' .so
 * files into the fleet directory; fleet_jobs.c keeps the fleet's state
 * (fleet.json, jobs), follows the scheduler and gathers the shards;
 * fleet_slurm.c speaks to Slurm (hvb/fleet.h); fleet_exec.c runs one
 * external command.  cmd_merge.c joins a run's shards (hvb/merge.h),
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

#define FLEET_DEFAULT_DIR     "hvbench-fleet"
#define FLEET_STATE           "fleet.json"
#define FLEET_JOBS            "jobs"
#define FLEET_POLL_MISSES     10 /* squeue failures in a row before giving up */
#define FLEET_CMD_TIMEOUT     120         /* s, default --slurm-timeout */
#define FLEET_CMD_ERR_MAX     1024        /* stderr kept for the message */
#define FLEET_LIST_MAX        (16u << 20) /* sinfo, squeue: stdout at most */
#define FLEET_ID_MAX          4096 /* sbatch --parsable: stdout at most */
#define FLEET_CMD_TIMEOUT_ENV "HVB_SLURM_TIMEOUT"

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

/*
 * One external command (fleet_exec.c): @argv run with stdout kept (at
 * most @max_out bytes) and, with @capture_err, the first
 * FLEET_CMD_ERR_MAX bytes of stderr (else stderr passes), both read
 * together; killed with its process group after @timeout_s.
 */
struct fleet_cmd {
    char *const *argv;
    bool path_search, capture_err;
    double timeout_s;
    size_t max_out;
    char *out, *errout; /* malloc'd, NUL-terminated; fleet_cmd_free() */
    size_t out_len, err_len;
    bool out_cut, err_cut, timed_out;
};

/* The exit status, or -errno: -ETIMEDOUT, -E2BIG (more than max_out). */
int fleet_cmd_run(struct fleet_cmd *c);
void fleet_cmd_free(struct fleet_cmd *c);
/* "sinfo: MESSAGE" for fleet_cmd_run()'s @rc (not 0). */
void fleet_cmd_error(const struct fleet_cmd *c, int rc, char *err, size_t len);

int fleet_mkdirs(const char *path);
int fleet_copy_file(const char *from, const char *to, mode_t mode);
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
