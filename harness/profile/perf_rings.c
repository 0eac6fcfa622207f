/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_event_open ring buffers, one per CPU, and their reader; see
 * hvb/perf_rings.h.
 *
 * Each ring buffer is 1 + 2^n pages; the reader loads data_head with
 * acquire semantics, walks the records (copying one that wraps around
 * the end), and publishes data_tail with release semantics so the kernel
 * can reuse the space.  It wakes every 10 ms: at 1 kHz and 127 frames a
 * sample is at most about 1 KiB, and a context switch about as much, so
 * a 512 KiB ring holds hundreds of them per wake-up.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <hvb/own_threads.h>
#include <hvb/perf_rings.h>

#define MAX_CPUS 256

struct ring {
    int fd;
    void *base;
    size_t data_size;
};

struct hvb_perf_rings {
    struct ring rings[MAX_CPUS];
    unsigned int nr;
    size_t page;
    hvb_perf_record_fn *fn;
    void *ctx;
    pthread_t reader;
    bool reader_started;
    _Atomic bool go, stop;
    pthread_mutex_t lock; /* the callback's calls, lost */
    uint64_t lost;
    uint64_t tmp[65536 / 8]; /* a record that wraps (at most 64 KiB) */
};

static void drain(struct hvb_perf_rings *s, struct ring *r)
{
    struct perf_event_mmap_page *mp = r->base;
    char *data = (char *)r->base + s->page;
    uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = mp->data_tail;

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
        if ( h.size < sizeof(h) )
            break; /* cannot be: give up on this buffer's contents */
        if ( off + h.size <= r->data_size )
            rec = data + off;
        else
        {
            size_t first = r->data_size - off;

            memcpy(s->tmp, data + off, first);
            memcpy((char *)s->tmp + first, data, h.size - first);
            rec = (const char *)s->tmp;
        }
        if ( h.type == PERF_RECORD_LOST )
            s->lost += ((const uint64_t *)(rec + sizeof(h)))[1];
        else
            s->fn(s->ctx, &h, (const uint64_t *)(rec + sizeof(h)),
                  (h.size - sizeof(h)) / 8);
        tail += h.size;
    }
    __atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&s->lock);
}

static void *reader_main(void *arg)
{
    struct hvb_perf_rings *s = arg;
    const struct timespec nap = {0, 10000000};
    unsigned int i;

    hvb_own_thread_mark();
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

static int open_cpu(struct hvb_perf_rings *s, struct perf_event_attr *a,
                    unsigned int cpu, size_t data_pages, const char *what,
                    char *err, size_t len)
{
    long fd =
        syscall(SYS_perf_event_open, a, 0, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
    struct ring *r;

    if ( fd < 0 && (errno == ENODEV || errno == EINVAL) && s->nr > 0 )
        return 0; /* an offline CPU */
    if ( fd < 0 )
    {
        int e = errno;

        snprintf(err, len, "perf_event_open(%s, cpu %u): %s%s", what, cpu,
                 strerror(e),
                 e == EACCES || e == EPERM
                     ? " (see /proc/sys/kernel/perf_event_paranoid)"
                     : "");
        return -e;
    }
    r = &s->rings[s->nr++];
    r->fd = (int)fd;
    r->data_size = data_pages * s->page;
    r->base = mmap(NULL, r->data_size + s->page, PROT_READ | PROT_WRITE,
                   MAP_SHARED, r->fd, 0);
    if ( r->base == MAP_FAILED )
    {
        int e = errno;

        r->base = NULL;
        snprintf(err, len, "mmap of the %s buffer: %s", what, strerror(e));
        return -e;
    }
    return 0;
}

int hvb_perf_rings_open(struct hvb_perf_rings **out, struct perf_event_attr *a,
                        size_t data_pages, hvb_perf_record_fn *fn, void *ctx,
                        const char *what, char *err, size_t len)
{
    struct hvb_perf_rings *s = calloc(1, sizeof(*s));
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    unsigned int cpu;
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    pthread_mutex_init(&s->lock, NULL);
    s->page = (size_t)sysconf(_SC_PAGESIZE);
    s->fn = fn;
    s->ctx = ctx;
    if ( ncpu < 1 )
        ncpu = 1;
    if ( ncpu > MAX_CPUS )
        ncpu = MAX_CPUS;
    /* The reader first: created before the events, it is not followed. */
    rc = pthread_create(&s->reader, NULL, reader_main, s);
    if ( rc )
    {
        snprintf(err, len, "cannot start the %s reader: %s", what,
                 strerror(rc));
        free(s);
        return -rc;
    }
    s->reader_started = true;
    for ( cpu = 0; cpu < (unsigned int)ncpu; cpu++ )
    {
        rc = open_cpu(s, a, cpu, data_pages, what, err, len);
        if ( rc )
        {
            hvb_perf_rings_close(s);
            return rc;
        }
    }
    *out = s;
    return 0;
}

int hvb_perf_rings_enable(struct hvb_perf_rings *s)
{
    unsigned int i;

    for ( i = 0; i < s->nr; i++ )
        if ( ioctl(s->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0) )
            return -errno;
    atomic_store(&s->go, true);
    return 0;
}

void hvb_perf_rings_stop(struct hvb_perf_rings *s)
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
}

uint64_t hvb_perf_rings_lost(const struct hvb_perf_rings *s)
{
    return s->lost;
}

void hvb_perf_rings_close(struct hvb_perf_rings *s)
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
    pthread_mutex_destroy(&s->lock);
    free(s);
}
