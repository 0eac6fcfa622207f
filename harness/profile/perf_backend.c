/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The perf backend (hvb/perf_backend.h).  'perf record -D -1' starts
 * with its events disabled; --control fifo:CTL,ACK lets us say "ping"
 * (is it up?), "enable" and "disable" and wait for its "ack", so sampling
 * covers the run and nothing of perf's start.  'perf script -F
 * tid,time,ip,dso' prints user addresses as offsets in their file; the
 * mapping of that file in /proc/self/maps (the process is still the one
 * perf followed, plugins loaded) turns them back into addresses.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hvb/perf_backend.h>
#include <hvb/watch.h>

#define MAX_CHAIN 127

struct hvb_perf {
    pid_t pid;
    int ctl, ack;
    char data[4096], log[4096], ctl_path[4096], ack_path[4096];
    const char *event;
};

struct mapping {
    uint64_t start, end, pgoff;
    char *path;
};

/* The last non-empty line of perf's log, for a one-line error. */
static void last_line(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    char line[512];

    snprintf(out, len, "no message");
    if ( f == NULL )
        return;
    while ( fgets(line, sizeof(line), f) )
    {
        line[strcspn(line, "\n")] = '\0';
        if ( strstr(line, "perf_event_paranoid") )
        {
            snprintf(out, len, "not permitted (see perf_event_paranoid)");
            break;
        }
        if ( line[0] )
            snprintf(out, len, "%s", line);
    }
    fclose(f);
}

static void reason(struct hvb_perf *pf, int status, char *err, size_t len)
{
    char line[512];

    if ( WIFEXITED(status) && WEXITSTATUS(status) == 127 )
    {
        snprintf(err, len,
                 "cannot run perf (install Debian linux-perf; see "
                 "scripts/install-deps.sh)");
        return;
    }
    last_line(pf->log, line, sizeof(line));
    snprintf(err, len, "perf record failed: %s (log in %s)", line, pf->log);
}

/* Send @cmd and wait for "ack" (or perf's end); 0 or -1 with @err. */
static int command(struct hvb_perf *pf, const char *cmd, char *err, size_t len)
{
    char buf[16];
    int waited = 0, status;

    if ( write(pf->ctl, cmd, strlen(cmd)) != (ssize_t)strlen(cmd) )
    {
        snprintf(err, len, "perf control: %s", strerror(errno));
        return -1;
    }
    while ( waited < 60000 )
    {
        struct pollfd p = {.fd = pf->ack, .events = POLLIN};
        int n = poll(&p, 1, 100);

        if ( n > 0 && read(pf->ack, buf, sizeof(buf)) > 0 )
            return 0;
        waited += 100;
        if ( waitpid(pf->pid, &status, WNOHANG) == pf->pid )
        {
            pf->pid = 0;
            reason(pf, status, err, len);
            return -1;
        }
    }
    snprintf(err, len, "perf record does not answer (log in %s)", pf->log);
    return -1;
}

int hvb_perf_start(struct hvb_perf **out, const char *dir,
                   enum hvb_sample_event ev, unsigned int freq, char *err,
                   size_t len)
{
    struct hvb_perf *pf = calloc(1, sizeof(*pf));
    char hz[32], pid[32], ctl[8300], event[32];
    bool cycles =
        ev == HVB_EV_CYCLES || (ev == HVB_EV_AUTO && hvb_sampler_pmu_present());
    int fd;

    if ( pf == NULL )
    {
        snprintf(err, len, "out of memory");
        return -1;
    }
    pf->ctl = pf->ack = -1;
    pf->event = cycles ? "cycles" : "cpu-clock";
    snprintf(event, sizeof(event), "%s:u", pf->event);
    snprintf(pf->data, sizeof(pf->data), "%s/perf.data", dir);
    snprintf(pf->log, sizeof(pf->log), "%s/perf.log", dir);
    snprintf(pf->ctl_path, sizeof(pf->ctl_path), "%s/.perf-ctl", dir);
    snprintf(pf->ack_path, sizeof(pf->ack_path), "%s/.perf-ack", dir);
    unlink(pf->ctl_path);
    unlink(pf->ack_path);
    if ( mkfifo(pf->ctl_path, 0600) || mkfifo(pf->ack_path, 0600) ||
         (pf->ctl = open(pf->ctl_path, O_RDWR | O_CLOEXEC)) < 0 ||
         (pf->ack = open(pf->ack_path, O_RDWR | O_CLOEXEC)) < 0 )
    {
        snprintf(err, len, "control FIFOs in %s: %s", dir, strerror(errno));
        hvb_perf_close(pf);
        return -1;
    }
    snprintf(hz, sizeof(hz), "%u", freq);
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    snprintf(ctl, sizeof(ctl), "fifo:%s,%s", pf->ctl_path, pf->ack_path);
    fflush(NULL);
    pf->pid = fork();
    if ( pf->pid < 0 )
    {
        pf->pid = 0;
        snprintf(err, len, "fork: %s", strerror(errno));
        hvb_perf_close(pf);
        return -1;
    }
    if ( pf->pid == 0 )
    {
        char *argv[] = {"perf",      "record",    "-q", "-g",     "--clockid",
                        "monotonic", "-F",        hz,   "-e",     event,
                        "-p",        pid,         "-o", pf->data, "-D",
                        "-1",        "--control", ctl,  NULL};

        hvb_watch_child(); /* it is stopped with SIGINT */
        fd = open(pf->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if ( fd >= 0 )
        {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        fd = open("/dev/null", O_RDONLY);
        if ( fd >= 0 )
            dup2(fd, 0);
        execvp("perf", argv);
        _exit(127);
    }
    if ( command(pf, "ping\n", err, len) )
    {
        hvb_perf_close(pf);
        return -1;
    }
    *out = pf;
    return 0;
}

int hvb_perf_enable(struct hvb_perf *pf, char *err, size_t len)
{
    return command(pf, "enable\n", err, len);
}

static struct mapping *read_maps(size_t *nr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    struct mapping *m = NULL;
    size_t cap = 0;
    char line[4608];

    *nr = 0;
    if ( f == NULL )
        return NULL;
    while ( fgets(line, sizeof(line), f) )
    {
        unsigned long long s, e, off;
        char perms[8], path[4096] = "";

        if ( sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perms,
                    &off, path) < 4 ||
             perms[2] != 'x' || path[0] != '/' )
            continue;
        if ( *nr == cap )
        {
            struct mapping *n;

            cap = cap ? 2 * cap : 64;
            n = realloc(m, cap * sizeof(*n));
            if ( n == NULL )
                break;
            m = n;
        }
        m[*nr] = (struct mapping){s, e, off, strdup(path)};
        if ( m[*nr].path != NULL )
            (*nr)++;
    }
    fclose(f);
    return m;
}

/* The address of offset @off in file @path, or @off itself. */
static uint64_t absolute(const struct mapping *m, size_t nr, uint64_t off,
                         const char *path)
{
    size_t i;

    for ( i = 0; i < nr; i++ )
        if ( off >= m[i].pgoff && off - m[i].pgoff < m[i].end - m[i].start &&
             strcmp(m[i].path, path) == 0 )
            return m[i].start + (off - m[i].pgoff);
    return off;
}

/*
 * Parse 'perf script -F tid,time,ip,dso --ns --show-lost-events': a
 * header "TID SEC.NSEC:", then one "ADDR (DSO)" line per frame, then a
 * blank line.
 */
static int parse_script(FILE *f, struct hvb_sample_buf *b, uint64_t *lost)
{
    struct mapping *m;
    size_t nr_maps, i;
    uint64_t rec[HVB_SAMPLE_HDR + MAX_CHAIN];
    size_t k = 0;
    bool in = false;
    char line[8192];
    int rc = 0;

    m = read_maps(&nr_maps);
    while ( rc == 0 && fgets(line, sizeof(line), f) )
    {
        unsigned long long tid, sec, nsec, addr, n;
        char dso[4096];

        if ( line[0] == '\t' || line[0] == ' ' )
        {
            if ( sscanf(line, " %llx (%4095[^)])", &addr, dso) == 2 && in &&
                 strcmp(dso, "[kernel.kallsyms]") != 0 && k < MAX_CHAIN )
                rec[HVB_SAMPLE_HDR + k++] = absolute(m, nr_maps, addr, dso);
            else if ( sscanf(line, " %llu %llu.%llu:", &tid, &sec, &nsec) == 3 )
                goto header;
            continue;
        }
        if ( line[0] == '\n' )
        {
            if ( in && k > 0 )
            {
                rec[2] = k;
                if ( !hvb_sample_buf_push(b, rec, HVB_SAMPLE_HDR + k) )
                    rc = -ENOMEM;
            }
            in = false;
            continue;
        }
        if ( strstr(line, "LOST") &&
             sscanf(strstr(line, "LOST"), "LOST %llu", &n) == 1 )
        {
            *lost += n;
            continue;
        }
        if ( sscanf(line, "%llu %llu.%llu:", &tid, &sec, &nsec) != 3 )
            continue;
    header:
        if ( in && k > 0 )
        {
            rec[2] = k;
            if ( !hvb_sample_buf_push(b, rec, HVB_SAMPLE_HDR + k) )
                rc = -ENOMEM;
        }
        memset(rec, 0, sizeof(rec[0]) * HVB_SAMPLE_HDR);
        rec[0] = sec * 1000000000ull + nsec;
        rec[1] = tid;
        k = 0;
        in = true;
    }
    if ( in && k > 0 && rc == 0 )
    {
        rec[2] = k;
        if ( !hvb_sample_buf_push(b, rec, HVB_SAMPLE_HDR + k) )
            rc = -ENOMEM;
    }
    for ( i = 0; i < nr_maps; i++ )
        free(m[i].path);
    free(m);
    return rc;
}

int hvb_perf_stop(struct hvb_perf *pf, struct hvb_sample_buf *buf,
                  uint64_t *lost, char *err, size_t len)
{
    int fds[2], status = 0, rc;
    pid_t pid;
    FILE *f;

    if ( command(pf, "disable\n", err, len) )
        return -1;
    kill(pf->pid, SIGINT);
    waitpid(pf->pid, &status, 0);
    pf->pid = 0;
    if ( access(pf->data, R_OK) )
    {
        reason(pf, status, err, len);
        return -1;
    }
    if ( pipe(fds) )
    {
        snprintf(err, len, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if ( pid == 0 )
    {
        char *argv[] = {"perf", "script",          "-i",   pf->data,
                        "-F",   "tid,time,ip,dso", "--ns", "--show-lost-events",
                        NULL};
        int fd = open(pf->log, O_WRONLY | O_APPEND);

        hvb_watch_child();
        dup2(fds[1], 1);
        if ( fd >= 0 )
            dup2(fd, 2);
        close(fds[0]);
        close(fds[1]);
        execvp("perf", argv);
        _exit(127);
    }
    close(fds[1]);
    if ( pid < 0 || (f = fdopen(fds[0], "r")) == NULL )
    {
        snprintf(err, len, "cannot run perf script: %s", strerror(errno));
        close(fds[0]);
        if ( pid > 0 )
            waitpid(pid, NULL, 0);
        return -1;
    }
    *lost = 0;
    rc = parse_script(f, buf, lost);
    fclose(f);
    waitpid(pid, &status, 0);
    if ( rc )
    {
        snprintf(err, len, "perf script: %s", strerror(-rc));
        return -1;
    }
    if ( !WIFEXITED(status) || WEXITSTATUS(status) != 0 )
    {
        char line[512];

        last_line(pf->log, line, sizeof(line));
        snprintf(err, len, "perf script failed: %s", line);
        return -1;
    }
    return 0;
}

const char *hvb_perf_event_name(const struct hvb_perf *pf)
{
    return pf->event;
}

void hvb_perf_close(struct hvb_perf *pf)
{
    if ( pf == NULL )
        return;
    if ( pf->pid > 0 )
    {
        kill(pf->pid, SIGINT);
        waitpid(pf->pid, NULL, 0);
    }
    if ( pf->ctl >= 0 )
        close(pf->ctl);
    if ( pf->ack >= 0 )
        close(pf->ack);
    unlink(pf->ctl_path);
    unlink(pf->ack_path);
    free(pf);
}
