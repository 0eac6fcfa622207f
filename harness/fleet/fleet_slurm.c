/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Slurm side of "hvbench fleet" (hvb/fleet.h): the job script,
 * sbatch, squeue and sinfo.  Nothing here parses hvbench's options.
 *
 * The script of "fleet slurm --partition bench -- run lookup --plugin
 * domlookup=rwlock-ref,rcu-noref --param domains=10,1000" in 2 shards:
 *
 *   #!/bin/sh
 *   #SBATCH --job-name=hvbench-fleet
 *   #SBATCH --nodes=1
 *   #SBATCH --ntasks=1
 *   #SBATCH --exclusive
 *   #SBATCH --output=/shared/f/logs/shard-%a.log
 *   #SBATCH --partition=bench
 *   set -eu
 *   K="${SLURM_ARRAY_TASK_ID:?not a job array task}"
 *   exec '/shared/f/bin/hvbench' 'run' 'lookup' '--plugin' ... \
 *       --shard "$K/2" --out "/shared/f/shard-$K.json"
 *
 * submitted as "sbatch --parsable --array=1-2 job.sh" (a --resume of
 * shard 2 alone: --array=2).  --exclusive keeps each task alone on its
 * node, so no two shards measure side by side.  --per-host: the same
 * script with "--out .../host-$SLURMD_NODENAME.json" and no --shard,
 * one job per node ("sbatch --parsable --nodelist=NODE job.sh").  A
 * job of commands (j->cmds: bisect's steps) has a case per task instead,
 * each writing its exit status beside its log (script_cmds()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hvb/fleet.h>

#include "private.h"

/* Shell-quote @s onto @f: 'it'\''s'. */
static void hvb_fleet_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for ( ; *s; s++ )
        if ( *s == '\'' )
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

/*
 * Each task its own command (j->cmds), a case of the task id:
 *
 *   1) '/b/hvbench' 'review' ... >'/o/steps/ab12.log' 2>&1 </dev/null
 *      rc=$?; echo "$rc $t0 $(date +%s.%N)" >'/o/steps/ab12.status.tmp'
 *      mv -f '/o/steps/ab12.status.tmp' '/o/steps/ab12.status' ;;
 */
static void script_cmds(FILE *f, const struct hvb_fleet_job *j)
{
    size_t i, a;

    fputs("t0=$(date +%s.%N)\ncase \"$K\" in\n", f);
    for ( i = 0; i < j->nr_tasks; i++ )
    {
        const struct hvb_fleet_cmd *c = &j->cmds[i];

        fprintf(f, "%u)", j->tasks[i]);
        for ( a = 0; c->argv[a] != NULL; a++ )
        {
            fputc(' ', f);
            hvb_fleet_quote(f, c->argv[a]);
        }
        fputs(" >", f);
        hvb_fleet_quote(f, c->log);
        fputs(" 2>&1 </dev/null\n    rc=$?; echo \"$rc $t0 $(date +%s.%N)\" "
              ">",
              f);
        hvb_fleet_quote(f, c->status);
        fputs(".tmp\n    mv -f ", f);
        hvb_fleet_quote(f, c->status);
        fputs(".tmp ", f);
        hvb_fleet_quote(f, c->status);
        fputs(" ;;\n", f);
    }
    fputs("*) echo \"no task $K in this job\" >&2; exit 2 ;;\nesac\n", f);
}

/* The shard's (or the host's) "run" command. */
static void script_run(FILE *f, const struct hvb_fleet_job *j)
{
    size_t i;

    if ( j->per_host )
        fputs("H=\"${SLURMD_NODENAME:?not a Slurm task}\"\n", f);
    else
        fputs("K=\"${SLURM_ARRAY_TASK_ID:?not a job array task}\"\n", f);
    fputs("exec ", f);
    hvb_fleet_quote(f, j->binary);
    for ( i = 0; i < j->run_argc; i++ )
    {
        fputc(' ', f);
        hvb_fleet_quote(f, j->run_argv[i]);
    }
    if ( j->per_host )
        fputs(" --out ", f), hvb_fleet_quote(f, j->dir),
            fputs("\"/host-$H.json\"\n", f);
    else
        fprintf(f, " --shard \"$K/%u\" --out ", j->shards),
            hvb_fleet_quote(f, j->dir), fputs("\"/shard-$K.json\"\n", f);
}

char *hvb_slurm_script(const struct hvb_fleet_job *j)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);

    if ( f == NULL )
        return NULL;
    fprintf(f,
            "#!/bin/sh\n"
            "# hvbench fleet: %s\n"
            "#SBATCH --job-name=%s\n"
            "#SBATCH --nodes=1\n"
            "#SBATCH --ntasks=1\n"
            "#SBATCH --exclusive\n"
            "#SBATCH --output=%s/logs/%s.log\n",
            j->cmds       ? "each array task its own command"
            : j->per_host ? "the whole matrix on each host"
                          : "one shard of the matrix per array task",
            j->name ? j->name : "hvbench-fleet", j->dir,
            j->cmds       ? "task-%A_%a"
            : j->per_host ? "host-%N"
                          : "shard-%a");
    if ( j->partition != NULL )
        fprintf(f, "#SBATCH --partition=%s\n", j->partition);
    if ( j->constraint != NULL )
        fprintf(f, "#SBATCH --constraint=%s\n", j->constraint);
    if ( j->cmds )
    {
        fputs("set -u\nK=\"${SLURM_ARRAY_TASK_ID:?not a job array task}\"\n",
              f);
        script_cmds(f, j);
    }
    else
    {
        fputs("set -eu\n", f);
        script_run(f, j);
    }
    if ( fclose(f) )
    {
        free(buf);
        return NULL;
    }
    return buf;
}

int hvb_fleet_dir(const char *d, char *out, size_t len)
{
    char cwd[PATH_MAX];
    int n;

    if ( d[0] == '/' )
        n = snprintf(out, len, "%s", d);
    else if ( getcwd(cwd, sizeof(cwd)) == NULL )
        return -errno;
    else
        n = snprintf(out, len, "%s/%s", cwd, d);
    if ( n < 0 || (size_t)n >= len )
        return -ENAMETOOLONG;
    return strpbrk(out, " \t\n%'\"\\$`") != NULL ? -EINVAL : 0;
}

static double cmd_timeout_s = FLEET_CMD_TIMEOUT;

void hvb_slurm_set_timeout(double seconds)
{
    cmd_timeout_s = seconds;
}

/*
 * Run the Slurm client @argv, its stdout (at most @max bytes) into @c;
 * 0, or -errno having said why in @err ("sinfo: ...").
 */
static int slurm(char *const *argv, size_t max, struct hvb_exec *c, char *err,
                 size_t len)
{
    int rc;

    *c = (struct hvb_exec){.argv = argv,
                           .path_search = true,
                           .capture_err = true,
                           .timeout_s = cmd_timeout_s,
                           .max_out = max,
                           .timeout_hint = "--slurm-timeout sets the limit"};
    rc = hvb_exec_run(c);
    if ( rc == 0 )
        return 0;
    hvb_exec_error(c, rc, err, len);
    return rc < 0 ? rc : -EIO;
}

/* Does @features ("numa,pmu") satisfy @constraint ("numa&pmu|bigmem")? */
static bool satisfies(const char *features, const char *constraint)
{
    const char *alt = constraint;

    while ( alt != NULL )
    {
        const char *end = strchr(alt, '|'), *p = alt;
        bool all = true;

        if ( end == NULL )
            end = alt + strlen(alt);
        while ( p < end && all )
        {
            size_t n = strcspn(p, "&,|");
            const char *f = features;
            bool found = false;

            if ( (size_t)(end - p) < n )
                n = (size_t)(end - p);
            while ( !found && *f )
            {
                size_t m = strcspn(f, ",");

                found = m == n && strncmp(f, p, n) == 0;
                f += m + (f[m] == ',');
            }
            all = found || n == 0;
            p += n + (p[n] == '&' || p[n] == ',');
        }
        if ( all )
            return true;
        alt = *end ? end + 1 : NULL;
    }
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int hvb_slurm_nodes(const char *partition, const char *constraint, char ***out,
                    size_t *nr, char *err, size_t len)
{
    char *argv[8] = {"sinfo", "-h", "-N", "-o", "%N|%f", NULL, NULL, NULL};
    char *line, *save = NULL, **v = NULL;
    struct hvb_exec c;
    size_t n = 0, i;
    int rc;

    if ( partition != NULL )
    {
        argv[5] = "-p";
        argv[6] = (char *)partition;
    }
    rc = slurm(argv, FLEET_LIST_MAX, &c, err, len);
    for ( line = rc ? NULL : strtok_r(c.out, "\n", &save); line != NULL;
          line = strtok_r(NULL, "\n", &save) )
    {
        char *bar = strchr(line, '|'), **w;

        if ( bar == NULL )
            continue;
        *bar = '\0';
        if ( constraint != NULL && !satisfies(bar + 1, constraint) )
            continue;
        for ( i = 0; i < n && strcmp(v[i], line) != 0; i++ )
            ;
        if ( i < n )
            continue; /* a node in two partitions */
        w = realloc(v, (n + 1) * sizeof(*v));
        if ( w == NULL || (w[n] = strdup(line)) == NULL )
        {
            free(w ? w : v);
            snprintf(err, len, "out of memory");
            rc = -ENOMEM;
            break;
        }
        v = w;
        n++;
    }
    hvb_exec_free(&c);
    if ( rc )
        return rc;
    if ( n > 1 )
        qsort(v, n, sizeof(*v), cmp_str);
    *out = v;
    *nr = n;
    return 0;
}

/* "--array=1,3,4": the tasks to run. */
static char *array_arg(const struct hvb_fleet_job *j)
{
    char *buf = NULL;
    size_t n = 0, i;
    FILE *f = open_memstream(&buf, &n);

    if ( f == NULL )
        return NULL;
    fputs("--array=", f);
    for ( i = 0; i < j->nr_tasks; i++ )
        fprintf(f, "%s%u", i ? "," : "", j->tasks[i]);
    if ( fclose(f) )
    {
        free(buf);
        return NULL;
    }
    return buf;
}

/*
 * Is @s what "sbatch --parsable" prints: "ID" or "ID;CLUSTER" (ID all
 * digits, one line)?  Cut to the ID.  "Submitted batch job 77" is not.
 */
static bool parsable_id(char *s)
{
    size_t n = strlen(s), d;

    while ( n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ') )
        s[--n] = '\0';
    d = strspn(s, "0123456789");
    if ( d == 0 || d > 20 )
        return false;
    if ( s[d] == ';' && s[d + 1] != '\0' &&
         strcspn(s + d + 1, " \t\r\n;") == strlen(s + d + 1) )
        s[d] = '\0';
    return s[d] == '\0';
}

static int submit_one(char *const *argv, char ***ids, size_t *nr, char *err,
                      size_t len)
{
    struct hvb_exec c;
    char **v;
    int rc = slurm(argv, FLEET_ID_MAX, &c, err, len);

    if ( rc == 0 && !parsable_id(c.out) )
    {
        snprintf(err, len,
                 "sbatch printed '%.80s', not a job id (--parsable: ID or "
                 "ID;CLUSTER); the job may be queued: check squeue",
                 c.out);
        rc = -EIO;
    }
    v = rc ? NULL : realloc(*ids, (*nr + 1) * sizeof(*v));
    if ( rc == 0 && (v == NULL || (v[*nr] = strdup(c.out)) == NULL) )
    {
        if ( v != NULL )
            *ids = v;
        snprintf(err, len, "out of memory");
        rc = -ENOMEM;
    }
    hvb_exec_free(&c);
    if ( rc )
        return rc;
    *ids = v;
    (*nr)++;
    return 0;
}

int hvb_slurm_submit(const struct hvb_fleet_job *j, const char *script,
                     char ***ids, size_t *nr_ids, char *err, size_t len)
{
    char *argv[6] = {"sbatch", "--parsable", NULL, NULL, NULL, NULL};
    char node[512];
    size_t i;
    int rc = 0;

    *ids = NULL;
    *nr_ids = 0;
    if ( !j->per_host )
    {
        argv[2] = array_arg(j);
        argv[3] = (char *)script;
        if ( argv[2] == NULL )
        {
            snprintf(err, len, "out of memory");
            return -ENOMEM;
        }
        rc = submit_one(argv, ids, nr_ids, err, len);
        free(argv[2]);
        return rc;
    }
    for ( i = 0; i < j->nr_tasks && rc == 0; i++ )
    {
        snprintf(node, sizeof(node), "--nodelist=%s", j->hosts[i]);
        argv[2] = node;
        argv[3] = (char *)script;
        rc = submit_one(argv, ids, nr_ids, err, len);
    }
    return rc;
}

/*
 * Count squeue's task states (one a line) into @c, of @total tasks.
 * squeue may list more than the fleet expects (a task requeued, a
 * resumed fleet's earlier job): the counts never exceed @total, running
 * first, so "done" never wraps below zero.
 */
static void count_states(char *out, size_t total, struct hvb_fleet_counts *c)
{
    char *line, *save = NULL;

    c->pending = c->running = 0;
    for ( line = strtok_r(out, "\n", &save); line != NULL;
          line = strtok_r(NULL, "\n", &save) )
        if ( strcmp(line, "PENDING") == 0 || strcmp(line, "REQUEUED") == 0 ||
             strcmp(line, "SUSPENDED") == 0 )
            c->pending++;
        else if ( strcmp(line, "RUNNING") == 0 ||
                  strcmp(line, "CONFIGURING") == 0 ||
                  strcmp(line, "COMPLETING") == 0 )
            c->running++;
    if ( c->running > total )
        c->running = total;
    if ( c->pending > total - c->running )
        c->pending = total - c->running;
    c->done = total - c->pending - c->running;
}

int hvb_slurm_poll(char *const *ids, size_t nr_ids, size_t total,
                   struct hvb_fleet_counts *c, char *err, size_t len)
{
    char *argv[12] = {"squeue", "-h", "-r", "-o", "%T", "-j", NULL, NULL};
    struct hvb_exec q;
    char *list;
    size_t i, n = 0, at = 0;
    int rc;

    for ( i = 0; i < nr_ids; i++ )
        n += strlen(ids[i]) + 1;
    list = malloc(n + 1);
    if ( list == NULL )
    {
        snprintf(err, len, "out of memory");
        return -ENOMEM;
    }
    for ( i = 0; i < nr_ids; i++ )
        at += (size_t)sprintf(list + at, "%s%s", i ? "," : "", ids[i]);
    argv[6] = list;
    rc = slurm(argv, FLEET_LIST_MAX, &q, err, len);
    free(list);
    /* Gone from the controller: finished. */
    if ( rc == -EIO && q.errout != NULL &&
         strstr(q.errout, "Invalid job id") != NULL )
    {
        rc = 0;
        q.out[0] = '\0';
    }
    if ( rc == 0 )
        count_states(q.out, total, c);
    hvb_exec_free(&q);
    return rc;
}
