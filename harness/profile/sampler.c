/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The profile room (harness/profile/): where the time goes, for
 * "hvbench profile" alone (cli/cmd_profile.c is its only user).  The
 * in-process sampler (sampler.c) or perf record (perf_backend.c) takes
 * the samples, symbols.c and symname.c (with demangle.cc) name their
 * frames, folded.c writes the folded stacks, render.c runs the drawing
 * scripts (render/flamegraph.py, render/report.py, also used by "hvbench
 * report").  It sees run (watch.h) and output (outfile.h) below it.
 * E.g. "hvbench profile lookup --out DIR": the sampler records stacks at
 * 997 Hz, DIR/<cell>.folded and DIR/<cell>.svg come out.
 *
 * The in-process sampling profiler (hvb/sampler.h) on perf_event_open.
 *
 * One event per online CPU, pid 0 with inherit: the kernel refuses to
 * mmap an inherited per-task event (cpu -1), so as perf record does we
 * open per CPU.  Each ring buffer is 1 + 2^n pages; the reader loads
 * data_head with acquire semantics, walks the records (copying one that
 * wraps around the end), and publishes data_tail with release semantics
 * so the kernel can reuse the space.  It wakes every 10 ms: at 1 kHz and
 * 127 frames a sample is at most about 1 KiB, far below the buffer.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <hvb/sampler.h>

#if defined(__x86_64__)
#include <asm/perf_regs.h>
#define SAMPLE_REGS (1ull << PERF_REG_X86_SP)
#else
#define SAMPLE_REGS 0ull /* no leaf-caller repair elsewhere */
#endif

#define DATA_PAGES 128 /* a power of two */
#define MAX_CPUS   256
#define MAX_STACK  127

struct ring {
    int fd;
    void *base;
    size_t data_size;
};

struct hvb_sampler {
    struct ring rings[MAX_CPUS];
    unsigned int nr;
    size_t page;
    const char *event;
    pthread_t reader;
    bool reader_started;
    _Atomic bool go, stop;
    pthread_mutex_t lock; /* buf, lost */
    struct hvb_sample_buf buf;
    uint64_t lost;
    bool oom;
};

static long perf_open(struct perf_event_attr *a, int cpu)
{
    return syscall(SYS_perf_event_open, a, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void fill_attr(struct perf_event_attr *a, bool cycles, unsigned int freq)
{
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    if ( cycles )
    {
        a->type = PERF_TYPE_HARDWARE;
        a->config = PERF_COUNT_HW_CPU_CYCLES;
        a->freq = 1;
        a->sample_freq = freq;
    }
    else
    {
        a->type = PERF_TYPE_SOFTWARE;
        a->config = PERF_COUNT_SW_CPU_CLOCK;
        a->sample_period = 1000000000ull / freq; /* ns */
    }
    a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                     PERF_SAMPLE_CALLCHAIN;
    a->disabled = 1;
    a->inherit = 1;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    a->exclude_callchain_kernel = 1;
    a->sample_max_stack = MAX_STACK;
    if ( SAMPLE_REGS )
    {
        /* The stack pointer and the words above it: see take_sample(). */
        a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        a->sample_regs_user = SAMPLE_REGS;
        a->sample_stack_user = 8 * HVB_SAMPLE_STACK;
    }
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
}

bool hvb_sample_buf_push(struct hvb_sample_buf *b, const uint64_t *v, size_t n)
{
    if ( b->len + n > b->cap )
    {
        size_t cap = b->cap ? b->cap * 2 : 1 << 16;
        uint64_t *nv;

        while ( cap < b->len + n )
            cap *= 2;
        nv = realloc(b->v, cap * sizeof(*nv));
        if ( nv == NULL )
            return false;
        b->v = nv;
        b->cap = cap;
    }
    memcpy(b->v + b->len, v, n * sizeof(*v));
    b->len += n;
    b->nr_samples++;
    return true;
}

/*
 * One PERF_RECORD_SAMPLE: ip, pid/tid, time, nr, ips[nr], then with
 * SAMPLE_REGS: abi, sp (if abi), size, stack[size / 8], dyn_size (if
 * size).  The stack pointer and the words at it are kept: for a sample in
 * a function that has not pushed its frame yet (or has popped it), the
 * frame-pointer walk skips the caller, whose return address is there.
 */
static void take_sample(struct hvb_sampler *s, const uint64_t *p, size_t words)
{
    uint64_t rec[HVB_SAMPLE_HDR + MAX_STACK];
    uint64_t nr, i, k = 0, w, size, dyn;

    if ( words < 4 )
        return;
    nr = p[3];
    if ( nr > words - 4 )
        nr = words - 4;
    memset(rec, 0, HVB_SAMPLE_HDR * sizeof(rec[0]));
    for ( i = 0; i < nr && k < MAX_STACK; i++ )
        if ( p[4 + i] < (uint64_t)PERF_CONTEXT_MAX ) /* skip context marks */
            rec[HVB_SAMPLE_HDR + k++] = p[4 + i];
    if ( k == 0 )
        rec[HVB_SAMPLE_HDR + k++] = p[0];
    w = 4 + nr;
    if ( SAMPLE_REGS && w + 3 <= words && p[w] != PERF_SAMPLE_REGS_ABI_NONE )
    {
        rec[3] = p[w + 1]; /* sp */
        size = p[w + 2] / 8;
        dyn = w + 3 + size < words ? p[w + 3 + size] / 8 : 0;
        if ( dyn < size )
            size = dyn;
        if ( size > HVB_SAMPLE_STACK )
            size = HVB_SAMPLE_STACK;
        if ( w + 3 + size <= words )
            memcpy(&rec[4], &p[w + 3], size * sizeof(rec[0]));
        else
            rec[3] = 0;
    }
    rec[0] = p[2];
    rec[1] = p[1] >> 32;
    rec[2] = k;
    if ( !hvb_sample_buf_push(&s->buf, rec, HVB_SAMPLE_HDR + k) )
        s->oom = true;
}

static void drain(struct hvb_sampler *s, struct ring *r)
{
    struct perf_event_mmap_page *mp = r->base;
    char *data = (char *)r->base + s->page;
    uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = mp->data_tail;
    uint64_t tmp[(sizeof(struct perf_event_header) +
                  8 * (MAX_STACK + 8 + HVB_SAMPLE_STACK)) /
                     8 +
                 64];

    pthread_mutex_lock(&s->lock);
    while ( tail < head )
    {
        size_t off = tail & (r->data_size - 1);
        struct perf_event_header h;
        const char *rec;

        if ( off + sizeof(h) <= r->data_size )
            memcpy(&h, data + off, sizeof(h));
        else
        {
            size_t first = r->data_size - off;

            memcpy(&h, data + off, first);
            memcpy((char *)&h + first, data, sizeof(h) - first);
        }
        if ( h.size < sizeof(h) || h.size > sizeof(tmp) )
            break; /* cannot be: give up on this buffer's contents */
        if ( off + h.size <= r->data_size )
            rec = data + off;
        else
        {
            size_t first = r->data_size - off;

            memcpy(tmp, data + off, first);
            memcpy((char *)tmp + first, data, h.size - first);
            rec = (const char *)tmp;
        }
        if ( h.type == PERF_RECORD_SAMPLE )
            take_sample(s, (const uint64_t *)(rec + sizeof(h)),
                        (h.size - sizeof(h)) / 8);
        else if ( h.type == PERF_RECORD_LOST )
            s->lost += ((const uint64_t *)(rec + sizeof(h)))[1];
        tail += h.size;
    }
    __atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&s->lock);
}

static void *reader_main(void *arg)
{
    struct hvb_sampler *s = arg;
    const struct timespec nap = {0, 10000000};
    unsigned int i;

    while ( !atomic_load(&s->go) )
    {
        if ( atomic_load(&s->stop) )
            return NULL;
        nanosleep(&nap, NULL);
    }
    while ( !atomic_load(&s->stop) )
    {
        for ( i = 0; i < s->nr; i++ )
            drain(s, &s->rings[i]);
        nanosleep(&nap, NULL);
    }
    return NULL;
}

bool hvb_sampler_pmu_present(void)
{
    static const char *const names[] = {"cpu", "cpu_core", "cpu_atom",
                                        "armv8_pmuv3"};
    char path[128];
    unsigned int i;

    for ( i = 0; i < sizeof(names) / sizeof(names[0]); i++ )
    {
        snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s",
                 names[i]);
        if ( access(path, F_OK) == 0 )
            return true;
    }
    return false;
}

int hvb_sampler_open(struct hvb_sampler **out, enum hvb_sample_event ev,
                     unsigned int freq, char *err, size_t len)
{
    struct hvb_sampler *s = calloc(1, sizeof(*s));
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    struct perf_event_attr a;
    bool cycles =
        ev == HVB_EV_CYCLES || (ev == HVB_EV_AUTO && hvb_sampler_pmu_present());
    unsigned int cpu;
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    pthread_mutex_init(&s->lock, NULL);
    s->page = (size_t)sysconf(_SC_PAGESIZE);
    if ( ncpu < 1 )
        ncpu = 1;
    if ( ncpu > MAX_CPUS )
        ncpu = MAX_CPUS;
    /* The reader first: created before the events, it is not followed. */
    rc = pthread_create(&s->reader, NULL, reader_main, s);
    if ( rc )
    {
        snprintf(err, len, "cannot start the sample reader: %s", strerror(rc));
        free(s);
        return -rc;
    }
    s->reader_started = true;
retry:
    fill_attr(&a, cycles, freq);
    s->event = cycles ? "cycles" : "cpu-clock";
    for ( cpu = 0; cpu < (unsigned int)ncpu; cpu++ )
    {
        long fd = perf_open(&a, (int)cpu);
        struct ring *r;

        if ( fd < 0 && (errno == ENODEV || errno == EINVAL) && s->nr > 0 )
            continue; /* an offline CPU */
        if ( fd < 0 && cycles && ev == HVB_EV_AUTO )
        {
            cycles = false; /* a PMU that cannot sample: fall back */
            goto retry;
        }
        if ( fd < 0 )
        {
            rc = -errno;
            snprintf(err, len, "perf_event_open(%s, cpu %u): %s%s", s->event,
                     cpu, strerror(errno),
                     errno == EACCES || errno == EPERM
                         ? " (see /proc/sys/kernel/perf_event_paranoid)"
                     : errno == ENOENT && cycles ? " (no hardware PMU here)"
                                                 : "");
            goto fail;
        }
        r = &s->rings[s->nr++];
        r->fd = (int)fd;
        r->data_size = DATA_PAGES * s->page;
        r->base = mmap(NULL, r->data_size + s->page, PROT_READ | PROT_WRITE,
                       MAP_SHARED, r->fd, 0);
        if ( r->base == MAP_FAILED )
        {
            rc = -errno;
            r->base = NULL;
            snprintf(err, len, "mmap of the sample buffer: %s",
                     strerror(errno));
            goto fail;
        }
    }
    *out = s;
    return 0;
fail:
    hvb_sampler_close(s);
    return rc;
}

int hvb_sampler_enable(struct hvb_sampler *s)
{
    unsigned int i;

    for ( i = 0; i < s->nr; i++ )
        if ( ioctl(s->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0) )
            return -errno;
    atomic_store(&s->go, true);
    return 0;
}

int hvb_sampler_stop(struct hvb_sampler *s)
{
    unsigned int i;

    for ( i = 0; i < s->nr; i++ )
        ioctl(s->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
    if ( s->reader_started )
    {
        atomic_store(&s->stop, true);
        pthread_join(s->reader, NULL);
        s->reader_started = false;
    }
    for ( i = 0; i < s->nr; i++ )
        drain(s, &s->rings[i]);
    return s->oom ? -ENOMEM : 0;
}

const struct hvb_sample_buf *hvb_sampler_samples(const struct hvb_sampler *s)
{
    return &s->buf;
}

uint64_t hvb_sampler_lost(const struct hvb_sampler *s)
{
    return s->lost;
}

const char *hvb_sampler_event_name(const struct hvb_sampler *s)
{
    return s->event;
}

void hvb_sampler_close(struct hvb_sampler *s)
{
    unsigned int i;

    if ( s == NULL )
        return;
    if ( s->reader_started )
    {
        atomic_store(&s->stop, true);
        pthread_join(s->reader, NULL);
    }
    for ( i = 0; i < s->nr; i++ )
    {
        if ( s->rings[i].base != NULL )
            munmap(s->rings[i].base, s->rings[i].data_size + s->page);
        close(s->rings[i].fd);
    }
    free(s->buf.v);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
