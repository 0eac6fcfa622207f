/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_event_open groups with scaling; see hvb/perfev.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
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

/*
 * libpfm4's encoding of @name for user space into @attr: a PFM_ code.  A
 * software event (perf::PERF_COUNT_SW_*) counts the kernel side too, as
 * hvb_perfev_software() does: a context switch or a migration only ever
 * happens there, so user space only would read 0.
 */
static int pfm_encode(const char *name, struct perf_event_attr *attr)
{
    pfm_perf_encode_arg_t arg;
    int rc;

    memset(attr, 0, sizeof(*attr));
    memset(&arg, 0, sizeof(arg));
    arg.attr = attr;
    arg.size = sizeof(arg);
    rc = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
    if ( rc == PFM_SUCCESS && attr->type == PERF_TYPE_SOFTWARE )
        attr->exclude_kernel = 0;
    return rc;
}

int hvb_perfev_encode(const char *name, struct perf_event_attr *attr, char *why,
                      size_t len)
{
    int rc;

    if ( !pfm_ready(why, len) )
        return -ENODEV;
    rc = pfm_encode(name, attr);
    if ( rc != PFM_SUCCESS )
    {
        snprintf(why, len, "libpfm4 cannot encode '%s': %s", name,
                 pfm_strerror(rc));
        return -ENOENT;
    }
    attr->size = sizeof(*attr);
    return 0;
}

/*
 * libpfm4 found no @name: is it an event of a PMU libpfm4 supports but did
 * not detect here ("skl::L2_RQSTS:MISS" on an Icelake)?  Then say so.
 */
static bool absent_pmu_event(const char *name, char *why, size_t len)
{
    const char *sep = strstr(name, "::"), *ev;
    size_t plen, elen;
    pfm_pmu_t p;
    int i;

    if ( sep == NULL )
        return false;
    plen = (size_t)(sep - name);
    ev = sep + 2;
    elen = strcspn(ev, ":");
    pfm_for_all_pmus(p)
    {
        pfm_pmu_info_t pi = {.size = sizeof(pi)};

        if ( pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || pi.is_present ||
             strlen(pi.name) != plen || strncasecmp(pi.name, name, plen) )
            continue;
        for ( i = pi.first_event; i != -1; i = pfm_get_event_next(i) )
        {
            pfm_event_info_t ei = {.size = sizeof(ei)};

            if ( pfm_get_event_info(i, PFM_OS_NONE, &ei) == PFM_SUCCESS &&
                 strlen(ei.name) == elen && !strncasecmp(ei.name, ev, elen) )
            {
                snprintf(why, len,
                         "libpfm4: '%s' is an event of PMU %s (%s), which "
                         "this machine does not have",
                         name, pi.name, pi.desc);
                return true;
            }
        }
    }
    return false;
}

/* @name in [a-z0-9_], runs of others as one '_', "perf::" dropped. */
static void event_key(const char *name, char *key, size_t len)
{
    size_t n = 0;
    char c;

    if ( strncasecmp(name, "perf::", 6) == 0 )
        name += 6;
    for ( ; *name && n + 1 < len; name++ )
    {
        c = *name;
        if ( isalnum((unsigned char)c) )
            key[n++] = (char)tolower((unsigned char)c);
        else if ( n > 0 && key[n - 1] != '_' )
            key[n++] = '_';
    }
    while ( n > 0 && key[n - 1] == '_' )
        n--;
    key[n] = '\0';
}

/* Append event @name (@n bytes) to @l; 0 or -EINVAL with @err. */
static int add_event(struct hvb_perfev_list *l, const char *name, size_t n,
                     char *err, size_t len)
{
    struct hvb_perfev_extra *e;
    char why[128];
    unsigned int i;
    int rc;

    if ( l->nr == HVB_PERFEV_EXTRA_MAX )
    {
        snprintf(err, len,
                 "--events: at most %d events (one group with cycles and "
                 "instructions)",
                 HVB_PERFEV_EXTRA_MAX);
        return -EINVAL;
    }
    e = &l->ev[l->nr];
    memset(e, 0, sizeof(*e));
    if ( n == 0 || n >= sizeof(e->name) )
    {
        snprintf(err, len, "bad event name '%.*s' for --events", (int)n, name);
        return -EINVAL;
    }
    memcpy(e->name, name, n);
    event_key(e->name, e->key, sizeof(e->key));
    if ( strlen(e->key) + 1 == sizeof(e->key) || e->key[0] == '\0' )
    {
        snprintf(err, len,
                 "bad event name '%s' for --events (no name or "
                 "too long a name)",
                 e->name);
        return -EINVAL;
    }
    if ( !pfm_ready(why, sizeof(why)) )
    {
        snprintf(err, len, "--events %s: %s", e->name, why);
        return -EINVAL;
    }
    rc = pfm_encode(e->name, &e->attr);
    if ( rc == PFM_SUCCESS )
    {
        e->attr.size = sizeof(e->attr);
        e->encoded = true;
    }
    else if ( rc != PFM_ERR_NOTFOUND ||
              !absent_pmu_event(e->name, e->why, sizeof(e->why)) )
    {
        snprintf(err, len,
                 "%s event '%s' for --events (libpfm4: %s; names as 'perf "
                 "list' or libpfm4's showevtinfo give them)",
                 rc == PFM_ERR_NOTFOUND ? "unknown" : "bad", e->name,
                 pfm_strerror(rc));
        return -EINVAL;
    }
    if ( !strcmp(e->key, "cycles") || !strcmp(e->key, "instructions") )
        return 0; /* always measured where there is a PMU */
    for ( i = 0; i < l->nr; i++ )
        if ( strcmp(l->ev[i].key, e->key) == 0 )
            return 0;
    l->nr++;
    return 0;
}

int hvb_perfev_add_list(struct hvb_perfev_list *l, const char *list, char *err,
                        size_t len)
{
    static const struct {
        const char *name, *events;
    } shortcuts[] = {
        {"cache", "cache-references,cache-misses"},
        {"branch", "branches,branch-misses"},
    };
    const char *p = list;
    size_t n, i;
    int rc;

    for ( ;; )
    {
        n = strcspn(p, ",");
        for ( i = 0; i < sizeof(shortcuts) / sizeof(shortcuts[0]); i++ )
            if ( strlen(shortcuts[i].name) == n &&
                 !strncmp(shortcuts[i].name, p, n) )
                break;
        if ( i < sizeof(shortcuts) / sizeof(shortcuts[0]) )
            rc = hvb_perfev_add_list(l, shortcuts[i].events, err, len);
        else
            rc = add_event(l, p, n, err, len);
        if ( rc )
            return rc;
        if ( p[n] == '\0' )
            return 0;
        p += n + 1;
    }
}

int hvb_perfev_software(const char *name, bool kernel,
                        struct perf_event_attr *attr)
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
            attr->exclude_kernel = !kernel;
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

static int open_events(struct hvb_perfev_group *g,
                       const struct hvb_perfev_def *defs, unsigned int nr,
                       bool solo, char *why, size_t len)
{
    unsigned int i;

    g->nr = 0;
    g->solo = solo;
    if ( nr == 0 || nr > HVB_PERFEV_MAX )
    {
        snprintf(why, len, "bad group of %u events", nr);
        return -EINVAL;
    }
    for ( i = 0; i < nr; i++ )
    {
        struct perf_event_attr a = defs[i].attr;
        bool leader = solo || i == 0;
        int fd, e;

        a.size = sizeof(a);
        a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                        PERF_FORMAT_TOTAL_TIME_RUNNING;
        a.disabled = 0;
        if ( a.type != PERF_TYPE_SOFTWARE )
            a.exclude_kernel = 1;
        a.exclude_hv = 1;
        a.inherit = 0;
        a.pinned = leader;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1,
                          leader ? -1 : g->fd[0], PERF_FLAG_FD_CLOEXEC);
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

int hvb_perfev_open(struct hvb_perfev_group *g,
                    const struct hvb_perfev_def *defs, unsigned int nr,
                    char *why, size_t len)
{
    return open_events(g, defs, nr, false, why, len);
}

int hvb_perfev_open_solo(struct hvb_perfev_group *g,
                         const struct hvb_perfev_def *defs, unsigned int nr,
                         char *why, size_t len)
{
    return open_events(g, defs, nr, true, why, len);
}

int hvb_perfev_readg(const struct hvb_perfev_group *g,
                     struct hvb_perfev_read *r)
{
    ssize_t want = (ssize_t)((3 + g->nr) * sizeof(uint64_t));
    uint64_t one[4];
    unsigned int i;

    if ( g->nr == 0 )
        return -EBADF;
    if ( !g->solo )
        return read(g->fd[0], r, (size_t)want) == want && r->nr == g->nr ? 0
                                                                         : -EIO;
    /* Times from the first: a lone software event always runs. */
    for ( i = 0; i < g->nr; i++ )
    {
        if ( read(g->fd[i], one, sizeof(one)) != sizeof(one) || one[0] != 1 )
            return -EIO;
        if ( i == 0 )
        {
            r->time_enabled = one[1];
            r->time_running = one[2];
        }
        r->value[i] = one[3];
    }
    r->nr = g->nr;
    return 0;
}

void hvb_perfev_close(struct hvb_perfev_group *g)
{
    unsigned int i;

    for ( i = 0; i < g->nr; i++ )
        close(g->fd[i]);
    g->nr = 0;
}
