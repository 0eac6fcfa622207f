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
 * one job per node ("sbatch --parsable --nodelist=NODE job.sh").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hvb/fleet.h>

void hvb_fleet_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for ( ; *s; s++ )
        if ( *s == '\'' )
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

char *hvb_slurm_script(const struct hvb_fleet_job *j)
{
    char *buf = NULL;
    size_t n = 0, i;
    FILE *f = open_memstream(&buf, &n);

    if ( f == NULL )
        return NULL;
    fprintf(f,
            "#!/bin/sh\n"
            "# hvbench fleet: %s\n"
            "#SBATCH --job-name=hvbench-fleet\n"
            "#SBATCH --nodes=1\n"
            "#SBATCH --ntasks=1\n"
            "#SBATCH --exclusive\n"
            "#SBATCH --output=%s/logs/%s.log\n",
            j->per_host ? "the whole matrix on each host"
                        : "one shard of the matrix per array task",
            j->dir, j->per_host ? "host-%N" : "shard-%a");
    if ( j->partition != NULL )
        fprintf(f, "#SBATCH --partition=%s\n", j->partition);
    if ( j->constraint != NULL )
        fprintf(f, "#SBATCH --constraint=%s\n", j->constraint);
    fputs("set -eu\n", f);
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
    if ( fclose(f) )
    {
        free(buf);
        return NULL;
    }
    return buf;
}

/*
 * Run @argv (a Slurm client), its stdout into @out (NUL-terminated, cut
 * to @len), stderr into @errout.  The exit status, or -errno.
 */
static int capture(char *const *argv, char *out, size_t len, char *errout,
                   size_t errlen)
{
    int po[2], pe[2], status;
    size_t n = 0, m = 0;
    ssize_t r;
    pid_t pid;

    if ( pipe(po) )
        return -errno;
    if ( pipe(pe) )
    {
        close(po[0]);
        close(po[1]);
        return -errno;
    }
    fflush(NULL);
    pid = fork();
    if ( pid == 0 )
    {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(pe[0]);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s", argv[0], strerror(errno));
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    if ( pid < 0 )
    {
        close(po[0]);
        close(pe[0]);
        return -errno;
    }
    /* Small outputs: stdout to the end, then stderr. */
    while ( (r = read(po[0], out + n, n + 1 < len ? len - n - 1 : 0)) > 0 )
        n += (size_t)r;
    while ( (r = read(pe[0], errout + m, m + 1 < errlen ? errlen - m - 1 : 0)) >
            0 )
        m += (size_t)r;
    out[n] = '\0';
    errout[m] = '\0';
    close(po[0]);
    close(pe[0]);
    while ( waitpid(pid, &status, 0) < 0 )
        if ( errno != EINTR )
            return -errno;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The first line of @s, for a message. */
static const char *line1(char *s)
{
    s[strcspn(s, "\n")] = '\0';
    return s;
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
    char buf[65536], ebuf[512], *line, *save = NULL, **v = NULL;
    size_t n = 0, i;
    int rc;

    if ( partition != NULL )
        argv[5] = "-p", argv[6] = (char *)partition;
    rc = capture(argv, buf, sizeof(buf), ebuf, sizeof(ebuf));
    if ( rc != 0 )
    {
        snprintf(err, len, "sinfo: %s", rc < 0 ? strerror(-rc) : line1(ebuf));
        return rc < 0 ? rc : -EIO;
    }
    for ( line = strtok_r(buf, "\n", &save); line != NULL;
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
            return -ENOMEM;
        }
        v = w;
        n++;
    }
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

static int submit_one(char *const *argv, char ***ids, size_t *nr, char *err,
                      size_t len)
{
    char out[256], ebuf[1024], **v;
    int rc = capture(argv, out, sizeof(out), ebuf, sizeof(ebuf));

    if ( rc != 0 )
    {
        snprintf(err, len, "sbatch: %s", rc < 0 ? strerror(-rc) : line1(ebuf));
        return rc < 0 ? rc : -EIO;
    }
    out[strcspn(out, ";\n")] = '\0'; /* "12" or "12;cluster" */
    if ( out[0] == '\0' )
    {
        snprintf(err, len, "sbatch printed no job id");
        return -EIO;
    }
    v = realloc(*ids, (*nr + 1) * sizeof(*v));
    if ( v == NULL || (v[*nr] = strdup(out)) == NULL )
    {
        if ( v != NULL )
            *ids = v;
        snprintf(err, len, "out of memory");
        return -ENOMEM;
    }
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

int hvb_slurm_poll(char *const *ids, size_t nr_ids, size_t total,
                   struct hvb_fleet_counts *c, char *err, size_t len)
{
    char *argv[12] = {"squeue", "-h", "-r", "-o", "%T", "-j", NULL, NULL};
    char out[65536], ebuf[512], *line, *save = NULL, *list;
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
    rc = capture(argv, out, sizeof(out), ebuf, sizeof(ebuf));
    free(list);
    c->pending = c->running = 0;
    if ( rc != 0 && strstr(ebuf, "Invalid job id") != NULL )
        rc = 0, out[0] = '\0'; /* gone from the controller: finished */
    if ( rc != 0 )
    {
        snprintf(err, len, "squeue: %s", rc < 0 ? strerror(-rc) : line1(ebuf));
        return rc < 0 ? rc : -EIO;
    }
    for ( line = strtok_r(out, "\n", &save); line != NULL;
          line = strtok_r(NULL, "\n", &save) )
        if ( strcmp(line, "PENDING") == 0 || strcmp(line, "REQUEUED") == 0 ||
             strcmp(line, "SUSPENDED") == 0 )
            c->pending++;
        else if ( strcmp(line, "RUNNING") == 0 ||
                  strcmp(line, "CONFIGURING") == 0 ||
                  strcmp(line, "COMPLETING") == 0 )
            c->running++;
    if ( c->pending + c->running > total )
        c->pending = total - c->running;
    c->done = total - c->pending - c->running;
    return 0;
}
