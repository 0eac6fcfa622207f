/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One external command, run to its end with a deadline (exec.c): what
 * fleet asks Slurm (sinfo, sbatch, squeue) and review asks git, cmake
 * and the builds' hvbench.  stdout and stderr are read together, so a
 * command that writes much on one never blocks on a full pipe; what is
 * kept is bounded; or both go to a log file.
 */
#ifndef HVB_EXEC_H
#define HVB_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#define HVB_EXEC_ERR_MAX 1024 /* stderr kept for the message */

/*
 * @argv run with stdout kept (at most @max_out bytes) and, with
 * @capture_err, the first HVB_EXEC_ERR_MAX bytes of stderr (else stderr
 * passes); or, with @log_fd > 0, both written to @log_fd and nothing
 * kept.  In directory @cwd (or this one), with @env ("K=V" entries,
 * NULL-ended, or NULL) added to the environment; killed with its process
 * group after @timeout_s.
 */
struct hvb_exec {
    char *const *argv;
    bool path_search, capture_err;
    double timeout_s;
    size_t max_out;
    const char *cwd;
    char *const *env;
    int log_fd;               /* > 0: both outputs go there (0: kept) */
    const char *timeout_hint; /* "--slurm-timeout sets the limit" */
    char *out, *errout;       /* malloc'd, NUL-terminated; hvb_exec_free() */
    size_t out_len, err_len;
    bool out_cut, err_cut, timed_out;
};

/* The exit status, or -errno: -ETIMEDOUT, -E2BIG (more than max_out). */
int hvb_exec_run(struct hvb_exec *c);
void hvb_exec_free(struct hvb_exec *c);
/* "sinfo: MESSAGE" for hvb_exec_run()'s @rc (not 0). */
void hvb_exec_error(const struct hvb_exec *c, int rc, char *err, size_t len);

#endif /* HVB_EXEC_H */
