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
 *
 * CPU-wide events (pid -1) see every task, so the reader keeps this
 * process's records and its children's.  E.g. a pass that starts at
 * t0 = 5.000 s finds, in CPU 1's ring, FORK pid 900 (ppid: this
 * process, time 4.9995 s) and, in CPU 0's ring, a sample of pid 900 at
 * 4.9997 s.  It first reads every ring's FORK records up to the heads
 * it loaded (pid 900 is followed from now on), then hands over the
 * records: the sample of 900 is kept, one of pid 412 (a shell) at 4.990
 * s is dropped.  A record of a pid it does not follow from the last
 * millisecond before t0 (its FORK may still be on its way into a ring)
 * waits for the next pass, and is decided then.
 */
#include <dirent.h>
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

#define MAX_CPUS   256
#define MAX_FOLLOW 4096    /* processes: this one and its descendants */
#define SETTLE_NS  1000000 /* a record this recent may precede its FORK */

struct ring {
    int fd;
    void *base;
    size_t data_size;
    uint64_t head; /* loaded at the start of a pass */
};

/* Records kept for the next pass, header and body, 8-byte aligned. */
struct held {
    uint64_t *v;
    size_t len, cap;
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
    pthread_mutex_t lock; /* the callback's calls, lost, the filter */
    uint64_t lost;
    bool cpu_wide;        /* pid -1, filtered below */
    uint64_t sample_type; /* where a sample's pid and time lie */
    uint32_t follow[MAX_FOLLOW];
    size_t nr_follow;
    uint32_t gone[2][MAX_FOLLOW]; /* exited in the last pass, this one */
    size_t nr_gone[2];
    uint64_t foreign;        /* records of other tasks left out */
    struct held held;        /* from the last pass */
    uint64_t tmp[65536 / 8]; /* a record that wraps (at most 64 KiB) */
};

typedef void visit_fn(struct hvb_perf_rings *s,
                      const struct perf_event_header *h, const uint64_t *body,
                      size_t words, uint64_t t0);

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool follows(const struct hvb_perf_rings *s, uint32_t pid)
{
    size_t i;

    for ( i = 0; i < s->nr_follow; i++ )
        if ( s->follow[i] == pid )
            return true;
    return false;
}

static void follow(struct hvb_perf_rings *s, uint32_t pid)
{
    if ( !follows(s, pid) && s->nr_follow < MAX_FOLLOW )
        s->follow[s->nr_follow++] = pid;
}

/*
 * The processes that exited in the pass before last are followed no
 * more (a helper spawned per op would fill the list, and its pid may
 * come back as another's): their records all came before their EXIT,
 * so into that pass or the last.  This process stays.
 */
static void forget_gone(struct hvb_perf_rings *s)
{
    size_t i, k;

    for ( i = 0; i < s->nr_gone[0]; i++ )
        for ( k = 1; k < s->nr_follow; k++ ) /* [0]: this process */
            if ( s->follow[k] == s->gone[0][i] )
            {
                s->follow[k] = s->follow[--s->nr_follow];
                break;
            }
    memcpy(s->gone[0], s->gone[1], s->nr_gone[1] * sizeof(s->gone[1][0]));
    s->nr_gone[0] = s->nr_gone[1];
    s->nr_gone[1] = 0;
}

/*
 * The pid, tid and time of a record (TID and TIME lead a sample after
 * IP, and end the others' sample_id: the attributes ask for no ID, CPU
 * or IDENTIFIER); false for a record that names no task.
 */
static bool task_of(const struct hvb_perf_rings *s,
                    const struct perf_event_header *h, const uint64_t *p,
                    size_t words, uint32_t *pid, uint32_t *tid, uint64_t *t)
{
    size_t i;

    switch ( h->type )
    {
    case PERF_RECORD_SAMPLE:
        i = s->sample_type & PERF_SAMPLE_IP ? 1 : 0;
        break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: /* pid, ppid, tid, ptid (u32 each), time */
        if ( words < 3 )
            return false;
        *pid = (uint32_t)p[0];
        *tid = (uint32_t)p[1];
        *t = p[2];
        return true;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
    case PERF_RECORD_COMM:
        if ( words < 2 )
            return false;
        i = words - 2; /* sample_id_all */
        break;
    default:
        return false;
    }
    if ( i + 2 > words )
        return false;
    *pid = (uint32_t)p[i];
    *tid = (uint32_t)(p[i] >> 32);
    *t = p[i + 1];
    return true;
}

/* A new process (pid == tid) is followed if its parent is. */
static void scan_fork(struct hvb_perf_rings *s,
                      const struct perf_event_header *h, const uint64_t *p,
                      size_t words, uint64_t t0)
{
    (void)t0;
    if ( h->type == PERF_RECORD_FORK && words >= 3 &&
         (uint32_t)p[0] == (uint32_t)p[1] &&
         follows(s, (uint32_t)(p[0] >> 32)) )
        follow(s, (uint32_t)p[0]);
}

static void hold(struct hvb_perf_rings *s, const struct perf_event_header *h,
                 const uint64_t *p, size_t words)
{
    struct held *k = &s->held;
    size_t n = 1 + words;

    if ( k->len + n > k->cap )
    {
        size_t cap = k->cap ? 2 * k->cap : 4096;
        uint64_t *v;

        while ( cap < k->len + n )
            cap *= 2;
        if ( (v = realloc(k->v, cap * sizeof(*v))) == NULL )
        {
            s->foreign++;
            return;
        }
        k->v = v;
        k->cap = cap;
    }
    memcpy(&k->v[k->len], h, sizeof(*h));
    memcpy(&k->v[k->len + 1], p, words * sizeof(*p));
    k->len += n;
}

/*
 * Hand a record to the callback if it is this process tree's (and not
 * one of the harness's own threads), drop it if it is another task's,
 * or hold it for the next pass if it is recent (@t0 - SETTLE_NS or
 * later; 0: decide now).  A CPU-wide switch record is handed over as a
 * PERF_RECORD_SWITCH: the pid and tid of the other task dropped.
 */
static void dispatch(struct hvb_perf_rings *s,
                     const struct perf_event_header *h, const uint64_t *p,
                     size_t words, uint64_t t0)
{
    struct perf_event_header sw;
    uint32_t pid = 0, tid = 0;
    uint64_t t;
    bool ours;

    if ( h->type == PERF_RECORD_LOST )
    {
        s->lost += words >= 2 ? p[1] : 0;
        return;
    }
    if ( s->cpu_wide && task_of(s, h, p, words, &pid, &tid, &t) )
    {
        ours = follows(s, pid);
        /*
         * The idle task; a thread's last switch out after its exit
         * (its tid is gone: -1); the harness's own threads.
         */
        if ( pid == 0 || tid == UINT32_MAX || (ours && hvb_own_thread(tid)) )
            return;
        if ( !ours )
        {
            if ( t0 && t + SETTLE_NS >= t0 )
                hold(s, h, p, words);
            else
                s->foreign++;
            return;
        }
    }
    if ( s->cpu_wide && h->type == PERF_RECORD_EXIT && pid == tid &&
         s->nr_gone[1] < MAX_FOLLOW )
        s->gone[1][s->nr_gone[1]++] = pid; /* the process is gone */
    if ( h->type == PERF_RECORD_SWITCH_CPU_WIDE )
    {
        sw = *h;
        sw.type = PERF_RECORD_SWITCH;
        s->fn(s->ctx, &sw, p + 1, words - 1);
        return;
    }
    s->fn(s->ctx, h, p, words);
}

/* The records the last pass held, decided with what is known now. */
static void settle(struct hvb_perf_rings *s)
{
    struct held *k = &s->held;
    size_t off;

    for ( off = 0; off < k->len; )
    {
        const struct perf_event_header *h = (const void *)&k->v[off];
        size_t words = (h->size - sizeof(*h)) / 8;

        dispatch(s, h, &k->v[off + 1], words, 0); /* holds nothing */
        off += 1 + words;
    }
    k->len = 0;
}

/* Every record of @r from its tail to the head loaded, to @fn. */
static void walk(struct hvb_perf_rings *s, struct ring *r, visit_fn *fn,
                 uint64_t t0)
{
    struct perf_event_mmap_page *mp = r->base;
    const char *data = (const char *)r->base + s->page;
    uint64_t tail = mp->data_tail;

    while ( tail < r->head )
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
        fn(s, &h, (const uint64_t *)(rec + sizeof(h)), (h.size - sizeof(h)) / 8,
           t0);
        tail += h.size;
    }
}

/*
 * One pass over the rings: the heads loaded, the FORK records read
 * first (CPU-wide), the last pass's held records settled, then every
 * record handed over and the space given back; the processes that
 * exited the pass before forgotten.  @last: the events are
 * off, nothing is held.
 */
static void pass(struct hvb_perf_rings *s, bool last)
{
    uint64_t t0 = last ? 0 : now_ns();
    unsigned int i;

    pthread_mutex_lock(&s->lock);
    for ( i = 0; i < s->nr; i++ )
    {
        struct perf_event_mmap_page *mp = s->rings[i].base;

        s->rings[i].head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
    }
    for ( i = 0; s->cpu_wide && i < s->nr; i++ )
        walk(s, &s->rings[i], scan_fork, t0);
    settle(s);
    for ( i = 0; i < s->nr; i++ )
    {
        struct perf_event_mmap_page *mp = s->rings[i].base;

        walk(s, &s->rings[i], dispatch, t0);
        __atomic_store_n(&mp->data_tail, s->rings[i].head, __ATOMIC_RELEASE);
    }
    forget_gone(s);
    pthread_mutex_unlock(&s->lock);
}

static void *reader_main(void *arg)
{
    struct hvb_perf_rings *s = arg;
    const struct timespec nap = {0, 10000000};

    hvb_own_thread_mark();
    while ( !atomic_load(&s->go) )
    {
        if ( atomic_load(&s->stop) )
            return NULL;
        nanosleep(&nap, NULL);
    }
    while ( !atomic_load(&s->stop) )
    {
        pass(s, false);
        nanosleep(&nap, NULL);
    }
    return NULL;
}

static int open_cpu(struct hvb_perf_rings *s, struct perf_event_attr *a,
                    unsigned int cpu, size_t data_pages, const char *what,
                    char *err, size_t len)
{
    long fd = syscall(SYS_perf_event_open, a, s->cpu_wide ? -1 : 0, (int)cpu,
                      -1, PERF_FLAG_FD_CLOEXEC);
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

/* Follow @pid's children (/proc/PID/task/TID/children), and theirs. */
static void follow_children(struct hvb_perf_rings *s, uint32_t pid, int depth)
{
    char path[64];
    unsigned int child;
    struct dirent *d;
    DIR *dir;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%u/task", pid);
    if ( depth > 8 || (dir = opendir(path)) == NULL )
        return;
    while ( (d = readdir(dir)) != NULL )
    {
        if ( d->d_name[0] == '.' )
            continue;
        snprintf(path, sizeof(path), "/proc/%u/task/%.16s/children", pid,
                 d->d_name);
        if ( (f = fopen(path, "r")) == NULL )
            continue;
        while ( fscanf(f, "%u", &child) == 1 )
            if ( !follows(s, child) )
            {
                follow(s, child);
                follow_children(s, child, depth + 1);
            }
        fclose(f);
    }
    closedir(dir);
}

static int open_all(struct hvb_perf_rings *s, struct perf_event_attr *a,
                    size_t data_pages, const char *what, char *err, size_t len)
{
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    unsigned int cpu;
    int rc;

    if ( ncpu < 1 )
        ncpu = 1;
    if ( ncpu > MAX_CPUS )
        ncpu = MAX_CPUS;
    for ( cpu = 0; cpu < (unsigned int)ncpu; cpu++ )
        if ( (rc = open_cpu(s, a, cpu, data_pages, what, err, len)) != 0 )
            return rc;
    return 0;
}

/* Close the events, keep the reader. */
static void close_all(struct hvb_perf_rings *s)
{
    unsigned int i;

    for ( i = 0; i < s->nr; i++ )
    {
        if ( s->rings[i].base != NULL )
            munmap(s->rings[i].base, s->rings[i].data_size + s->page);
        close(s->rings[i].fd);
    }
    s->nr = 0;
}

int hvb_perf_rings_open(struct hvb_perf_rings **out, struct perf_event_attr *a,
                        size_t data_pages, hvb_perf_record_fn *fn, void *ctx,
                        const char *what, char *err, size_t len)
{
    struct hvb_perf_rings *s = calloc(1, sizeof(*s));
    struct perf_event_attr wide;
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    pthread_mutex_init(&s->lock, NULL);
    s->page = (size_t)sysconf(_SC_PAGESIZE);
    s->fn = fn;
    s->ctx = ctx;
    s->sample_type = a->sample_type;
    /* Per task, the reader is not followed: it is started first. */
    rc = pthread_create(&s->reader, NULL, reader_main, s);
    if ( rc )
    {
        snprintf(err, len, "cannot start the %s reader: %s", what,
                 strerror(rc));
        free(s);
        return -rc;
    }
    s->reader_started = true;
    rc = -EACCES;
    if ( !hvb_perf_rings_per_task_asked() )
    {
        wide = *a;
        wide.inherit = 0;
        wide.task = 1; /* the FORK records say which processes are ours */
        s->cpu_wide = true;
        rc = open_all(s, &wide, data_pages, what, err, len);
    }
    if ( rc == -EACCES || rc == -EPERM )
    {
        /* Not permitted (perf_event_paranoid): this process's tasks. */
        close_all(s);
        s->cpu_wide = false;
        rc = open_all(s, a, data_pages, what, err, len);
    }
    if ( rc )
    {
        hvb_perf_rings_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

int hvb_perf_rings_filter(struct hvb_perf_rings *s, const char *filter)
{
    unsigned int i;

    for ( i = 0; i < s->nr; i++ )
        if ( ioctl(s->rings[i].fd, PERF_EVENT_IOC_SET_FILTER, filter) )
            return -errno;
    return 0;
}

bool hvb_perf_rings_per_task_asked(void)
{
    const char *v = getenv("HVBENCH_PERF_PER_TASK");

    return v != NULL && strcmp(v, "1") == 0; /* the only value */
}

bool hvb_perf_rings_cpu_wide(const struct hvb_perf_rings *s)
{
    return s->cpu_wide;
}

int hvb_perf_rings_enable(struct hvb_perf_rings *s)
{
    unsigned int i;

    pthread_mutex_lock(&s->lock);
    s->nr_follow = s->nr_gone[0] = s->nr_gone[1] = 0;
    follow(s, (uint32_t)getpid());
    follow_children(s, (uint32_t)getpid(), 0);
    pthread_mutex_unlock(&s->lock);
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
    pass(s, true);
}

uint64_t hvb_perf_rings_foreign(const struct hvb_perf_rings *s)
{
    return s->foreign;
}

uint64_t hvb_perf_rings_lost(const struct hvb_perf_rings *s)
{
    return s->lost;
}

void hvb_perf_rings_close(struct hvb_perf_rings *s)
{
    if ( s == NULL )
        return;
    if ( s->reader_started )
    {
        atomic_store(&s->stop, true);
        pthread_join(s->reader, NULL);
    }
    close_all(s);
    pthread_mutex_destroy(&s->lock);
    free(s->held.v);
    free(s);
}
