/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_event_open groups with scaling; see hvb/perfev.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

#include <hvb/perfev.h>

double hvb_perfev_scale(uint64_t raw, uint64_t enabled, uint64_t running,
                        double *coverage)
{
    unsigned __int128 x;

    if ( running == 0 )
    {
        *coverage = 0;
        return NAN;
    }
    *coverage = running >= enabled ? 1.0 : (double)running / (double)enabled;
    if ( running >= enabled )
        return (double)raw;
    x = (unsigned __int128)raw * enabled;
    return (double)(x / running) + (double)(x % running) / (double)running;
}

double hvb_perfev_delta(const struct hvb_perfev_read *a,
                        const struct hvb_perfev_read *b, unsigned int i,
                        double *coverage)
{
    return hvb_perfev_scale(b->value[i] - a->value[i],
                            b->time_enabled - a->time_enabled,
                            b->time_running - a->time_running, coverage);
}

static bool pfm_ready(char *why, size_t len)
{
    static int state; /* 0 untried, 1 ok, -1 failed */
    int rc;

    if ( state == 0 )
    {
        rc = pfm_initialize();
        state = rc == PFM_SUCCESS ? 1 : -1;
        if ( state < 0 )
            snprintf(why, len, "libpfm4: %s", pfm_strerror(rc));
    }
    else if ( state < 0 )
        snprintf(why, len, "libpfm4 failed to initialise");
    return state > 0;
}

int hvb_perfev_encode(const char *name, struct perf_event_attr *attr, char *why,
                      size_t len)
{
    pfm_perf_encode_arg_t arg;
    int rc;

    if ( !pfm_ready(why, len) )
        return -ENODEV;
    memset(attr, 0, sizeof(*attr));
    memset(&arg, 0, sizeof(arg));
    arg.attr = attr;
    arg.size = sizeof(arg);
    rc = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
    if ( rc != PFM_SUCCESS )
    {
        snprintf(why, len, "libpfm4 cannot encode '%s': %s", name,
                 pfm_strerror(rc));
        return -ENOENT;
    }
    attr->size = sizeof(*attr);
    return 0;
}

int hvb_perfev_software(const char *name, struct perf_event_attr *attr)
{
    static const struct {
        const char *name;
        uint64_t config;
    } sw[] = {
        {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
        {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
        {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
        {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
    };
    size_t i;

    for ( i = 0; i < sizeof(sw) / sizeof(sw[0]); i++ )
        if ( strcmp(sw[i].name, name) == 0 )
        {
            memset(attr, 0, sizeof(*attr));
            attr->size = sizeof(*attr);
            attr->type = PERF_TYPE_SOFTWARE;
            attr->config = sw[i].config;
            return 0;
        }
    return -ENOENT;
}

static const char *cause(int err)
{
    switch ( err )
    {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        return "no such PMU event here (a VM without a virtual PMU?)";
    case EACCES:
    case EPERM:
        return "not permitted (see /proc/sys/kernel/perf_event_paranoid)";
    case EMFILE:
        return "out of file descriptors";
    case ENOSYS:
        return "perf_event_open is not available";
    default:
        return strerror(err);
    }
}

int hvb_perfev_open(struct hvb_perfev_group *g,
                    const struct hvb_perfev_def *defs, unsigned int nr,
                    char *why, size_t len)
{
    unsigned int i;

    g->nr = 0;
    if ( nr == 0 || nr > HVB_PERFEV_MAX )
    {
        snprintf(why, len, "bad group of %u events", nr);
        return -EINVAL;
    }
    for ( i = 0; i < nr; i++ )
    {
        struct perf_event_attr a = defs[i].attr;
        int fd, e;

        a.size = sizeof(a);
        a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                        PERF_FORMAT_TOTAL_TIME_RUNNING;
        a.disabled = 0;
        a.exclude_kernel = 1;
        a.exclude_hv = 1;
        a.inherit = 0;
        a.pinned = i == 0;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1,
                          i == 0 ? -1 : g->fd[0], 0);
        if ( fd < 0 )
        {
            e = errno;
            snprintf(why, len, "perf_event_open(%s)=%s: %s", defs[i].name,
                     e == ENOENT   ? "ENOENT"
                     : e == EACCES ? "EACCES"
                     : e == EPERM  ? "EPERM"
                     : e == EINVAL ? "EINVAL"
                                   : "error",
                     cause(e));
            hvb_perfev_close(g);
            return -e;
        }
        g->fd[g->nr++] = fd;
    }
    return 0;
}

int hvb_perfev_readg(const struct hvb_perfev_group *g,
                     struct hvb_perfev_read *r)
{
    ssize_t want = (ssize_t)((3 + g->nr) * sizeof(uint64_t));

    if ( g->nr == 0 )
        return -EBADF;
    if ( read(g->fd[0], r, (size_t)want) != want || r->nr != g->nr )
        return -EIO;
    return 0;
}

void hvb_perfev_close(struct hvb_perfev_group *g)
{
    unsigned int i;

    for ( i = 0; i < g->nr; i++ )
        close(g->fd[i]);
    g->nr = 0;
}
