/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The context-switch recorder (hvb/switches.h).  E.g. a thread that
 * waits for a futex from t=100 us to t=300 us on CPU 0, then runs on
 * CPU 1, gives two records, from two rings:
 *
 *   sched_switch sample, CPU 0, t=100 us, tid T, prev_state S (1), the
 *     chain [kernel: __schedule, schedule, futex_wait, ...; user:
 *     __lll_lock_wait, main] and the 64 words at the user stack pointer
 *   PERF_RECORD_SWITCH (in), CPU 1, t=300 us, tid T
 *
 * logged as {100000, T, OUT_BLOCKED, chain c} and {300000, T, IN}, the
 * chain c = [3, 3, __schedule, schedule, futex_wait, __lll_lock_wait,
 * pthread_mutex_lock, main]: pthread_mutex_lock, which has no frame
 * pointer, put back by the reader from the stack words and the CFI.
 * hvb/offcpu.h makes them 200 us off CPU in that stack.  The sample
 * is taken as the thread leaves (it is still "current"), so its call
 * chain is where it blocked; the tracepoint's own fields (the raw data,
 * laid out as tracefs's format file says) give prev_state: 0 is a
 * preemption, anything else a sleep.  The records of a switch in come
 * from attr.context_switch, fork and exit from attr.task, with the
 * thread and time of sample_id_all.  The reader unwinds and interns as
 * it goes: a boot storm switches millions of times, over a few hundred
 * stacks.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include <hvb/perf_rings.h>
#include <hvb/switches.h>
#include <hvb/symbols.h>

/*
 * Per CPU, a power of two of pages: 256 MiB over the CPUs, between 8
 * and 32 MiB each (a record with its chains and stack words is ~1.5
 * KiB).  A 575-VM boot-storm lost 12,278 switches in 8 MiB rings on 2
 * CPUs (now 32 MiB each); a 16-CPU host gets 16 MiB each.
 */
#define RING_BUDGET (256ul << 20)
#define MIN_PAGES   2048
#define MAX_PAGES   8192
#define MAX_STACK   127
#define DUMP_WORDS  64 /* of the user stack, for unwinding through glibc */

#if defined(__x86_64__)
#include <asm/perf_regs.h>
#define SAMPLE_REGS (1ull << PERF_REG_X86_SP)
#else
#define SAMPLE_REGS 0ull
#endif

struct hvb_switches {
    struct hvb_perf_rings *rings;
    struct hvb_symbols *sym;            /* the reader's, for unwinding */
    struct hvb_switch_log log;          /* under the rings' reader */
    unsigned int state_off, state_size; /* prev_state in the raw data */
    bool oom;
};

static size_t ring_pages(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_CONF), page = sysconf(_SC_PAGESIZE);
    size_t n = MIN_PAGES;

    if ( cpus < 1 || page < 1 )
        return n;
    while ( n < MAX_PAGES &&
            2 * n * (size_t)page * (size_t)cpus <= RING_BUDGET )
        n *= 2;
    return n;
}

static const char *const tracefs[] = {"/sys/kernel/tracing",
                                      "/sys/kernel/debug/tracing"};

static FILE *open_event_file(const char *file)
{
    char path[256];
    unsigned int i;
    FILE *f;

    for ( i = 0; i < 2; i++ )
    {
        snprintf(path, sizeof(path), "%s/events/sched/sched_switch/%s",
                 tracefs[i], file);
        if ( (f = fopen(path, "r")) != NULL )
            return f;
    }
    return NULL;
}

/* The tracepoint's id and where prev_state lies: 0 or -errno. */
static int read_format(struct hvb_switches *s, uint64_t *id, char *err,
                       size_t len)
{
    FILE *f = open_event_file("id");
    char line[512];
    int rc = -ENOENT;

    if ( f == NULL && geteuid() == 0 )
    {
        /* As perf does: tracefs is mounted on demand. */
        if ( mount("nodev", tracefs[0], "tracefs", 0, NULL) == 0 )
            f = open_event_file("id");
    }
    if ( f == NULL && errno == EACCES )
    {
        snprintf(err, len,
                 "sched:sched_switch: tracefs is not readable (as root)");
        return -EACCES;
    }
    if ( f == NULL || fscanf(f, "%" SCNu64, id) != 1 )
    {
        snprintf(err, len,
                 "sched:sched_switch: no tracefs (mount -t tracefs nodev "
                 "/sys/kernel/tracing, as root)");
        if ( f != NULL )
            fclose(f);
        return -ENOENT;
    }
    fclose(f);
    if ( (f = open_event_file("format")) == NULL )
    {
        snprintf(err, len, "sched:sched_switch: its format is not readable");
        return -EACCES;
    }
    while ( fgets(line, sizeof(line), f) )
    {
        const char *p = strstr(line, " prev_state;");

        if ( p != NULL && (p = strstr(p, "offset:")) != NULL &&
             sscanf(p, "offset:%u;\tsize:%u;", &s->state_off, &s->state_size) ==
                 2 &&
             (s->state_size == 4 || s->state_size == 8) )
            rc = 0;
    }
    fclose(f);
    if ( rc )
        snprintf(err, len, "sched:sched_switch: no prev_state in its format");
    return rc;
}

/*
 * After RAW: REGS_USER (abi, sp if abi), STACK_USER (size, the words,
 * dyn_size if size): the words at sp into @dump, their number.
 */
static size_t user_stack(const uint64_t *p, size_t w, size_t words,
                         uint64_t *dump)
{
    uint64_t size, dyn;

    if ( !SAMPLE_REGS || w + 3 > words || p[w] == PERF_SAMPLE_REGS_ABI_NONE )
        return 0;
    size = p[w + 2] / 8;
    dyn = w + 3 + size < words ? p[w + 3 + size] / 8 : 0;
    if ( dyn < size )
        size = dyn;
    if ( size > DUMP_WORDS )
        size = DUMP_WORDS;
    if ( w + 3 + size > words )
        return 0;
    memcpy(dump, &p[w + 3], size * sizeof(*dump));
    return size;
}

/*
 * The user chain @uc[0..nu) with the callers the frame walk skipped put
 * back, from the @ns words @dump at the stack pointer, into @out (at
 * most @max): where it was, the callers found by CFI, the rest of the
 * walk.  Returns their number.
 */
static size_t unwind(struct hvb_switches *s, const uint64_t *uc, size_t nu,
                     const uint64_t *dump, size_t ns, uint64_t *out, size_t max)
{
    size_t n = 0, k;

    if ( nu == 0 || max < 2 )
        return 0;
    out[n++] = uc[0];
    if ( s->sym != NULL )
        n += hvb_symbols_unwind_sp(s->sym, uc[0], dump, ns, &out[1], max / 2);
    for ( k = 1; k < nu && n < max; k++ )
        if ( k > 1 || n == 1 || uc[1] != out[n - 1] )
            out[n++] = uc[k];
    return n;
}

/* The prev_state byte of the raw data at @raw (@size bytes); 1 if absent. */
static uint64_t prev_state(const struct hvb_switches *s,
                           const unsigned char *raw, uint32_t size)
{
    uint64_t v = 0;

    if ( s->state_off + s->state_size > size )
        return 1;
    /* Little-endian: the low byte first either way. */
    memcpy(&v, raw + 4 + s->state_off, s->state_size);
    return v & 0xff; /* TASK_REPORT: 0 is running */
}

/* TID, TIME, CALLCHAIN (nr, ips), RAW (u32 size, data, padding), regs. */
static void take_out(struct hvb_switches *s, const uint64_t *p, size_t words)
{
    uint64_t w[2 + 2 * MAX_STACK], user[MAX_STACK], dump[DUMP_WORDS];
    uint64_t ctx = 0, nk = 0, nu = 0, state = 1, nr, i, ns = 0;
    const unsigned char *raw;
    uint32_t size = 0;
    long chain;

    if ( words < 3 || (nr = p[2]) > words - 3 )
        return;
    for ( i = 0; i < nr; i++ )
    {
        if ( p[3 + i] >= (uint64_t)PERF_CONTEXT_MAX )
            ctx = p[3 + i]; /* PERF_CONTEXT_KERNEL, _USER */
        else if ( ctx == (uint64_t)PERF_CONTEXT_KERNEL && nk < MAX_STACK )
            w[2 + nk++] = p[3 + i];
        else if ( ctx == (uint64_t)PERF_CONTEXT_USER && nu < MAX_STACK )
            user[nu++] = p[3 + i];
    }
    raw = (const unsigned char *)&p[3 + nr];
    if ( 3 + nr < words )
    {
        memcpy(&size, raw, sizeof(size));
        if ( (size_t)(raw + 4 + size - (const unsigned char *)p) <= words * 8 )
        {
            state = prev_state(s, raw, size);
            ns = user_stack(p, 3 + nr + (4 + size + 7) / 8, words, dump);
        }
    }
    w[0] = nk;
    w[1] = unwind(s, user, nu, dump, ns, &w[2 + nk], MAX_STACK);
    chain = hvb_switch_log_intern(&s->log, w, 2 + nk + w[1]);
    if ( chain < 0 ||
         hvb_switch_log_event(&s->log, p[1], (uint32_t)(p[0] >> 32),
                              state ? HVB_SWITCH_OUT_BLOCKED
                                    : HVB_SWITCH_OUT_RUNNABLE,
                              (uint32_t)chain) )
        s->oom = true;
}

/*
 * pid, tid (u32 each), the name (NUL-padded to 8 bytes), sample_id_all:
 * the thread's new name, and whether an exec gave it.
 */
static int take_comm(struct hvb_switches *s, const struct perf_event_header *h,
                     const uint64_t *p, size_t words)
{
    char name[HVB_COMM_LEN];
    size_t len = (words - 3) * 8;
    long k;

    if ( len > sizeof(name) - 1 )
        len = sizeof(name) - 1;
    memcpy(name, &p[1], len);
    name[len] = '\0';
    if ( (k = hvb_switch_log_name(&s->log, name)) < 0 )
        return -ENOMEM;
    return hvb_switch_log_event(&s->log, p[words - 1], (uint32_t)(p[0] >> 32),
                                h->misc & PERF_RECORD_MISC_COMM_EXEC
                                    ? HVB_SWITCH_EXEC
                                    : HVB_SWITCH_COMM,
                                (uint32_t)k);
}

static void take_record(void *ctx, const struct perf_event_header *h,
                        const uint64_t *p, size_t words)
{
    struct hvb_switches *s = ctx;
    int rc = 0;

    if ( h->type == PERF_RECORD_SAMPLE )
        take_out(s, p, words);
    else if ( h->type == PERF_RECORD_SWITCH &&
              !(h->misc & PERF_RECORD_MISC_SWITCH_OUT) && words >= 2 )
        /* sample_id_all: the thread and time of the switch in. */
        rc = hvb_switch_log_event(&s->log, p[1], (uint32_t)(p[0] >> 32),
                                  HVB_SWITCH_IN, 0);
    else if ( (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) &&
              words >= 3 )
        /* pid, ppid, tid, ptid (u32 each), time; a fork keeps the parent. */
        rc = hvb_switch_log_event(
            &s->log, p[2], (uint32_t)p[1],
            h->type == PERF_RECORD_FORK ? HVB_SWITCH_FORK : HVB_SWITCH_EXIT,
            h->type == PERF_RECORD_FORK ? (uint32_t)(p[1] >> 32) : 0);
    else if ( h->type == PERF_RECORD_COMM && words >= 4 )
        rc = take_comm(s, h, p, words);
    if ( rc )
        s->oom = true;
}

int hvb_switches_open(struct hvb_switches **out, char *err, size_t len)
{
    struct hvb_switches *s = calloc(1, sizeof(*s));
    struct perf_event_attr a;
    uint64_t id;
    int rc;

    if ( s == NULL )
        return -ENOMEM;
    if ( (rc = read_format(s, &id, err, len)) != 0 )
    {
        free(s);
        return rc;
    }
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_TRACEPOINT;
    a.config = id;
    a.sample_period = 1; /* every switch */
    a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
                    PERF_SAMPLE_RAW;
    if ( SAMPLE_REGS )
    {
        /* The stack pointer and the words above it: see offcpu.c. */
        a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        a.sample_regs_user = SAMPLE_REGS;
        a.sample_stack_user = 8 * DUMP_WORDS;
    }
    a.context_switch = 1;
    a.task = 1; /* fork and exit */
    a.comm = 1; /* the threads' names: their roles (hv/thread.h) */
    a.comm_exec = 1;
    a.sample_id_all = 1;
    a.disabled = 1;
    a.inherit = 1;
    a.sample_max_stack = MAX_STACK;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    rc = hvb_perf_rings_open(&s->rings, &a, ring_pages(), take_record, s,
                             "sched:sched_switch", err, len);
    /*
     * CPU-wide, the idle task's switches out would be sampled too, its
     * kernel stack walked each time: the kernel drops them (where it
     * cannot, the reader does).  lock-hold (mutex, 20 us held, the
     * waiter's CPU idle at each op) gained 3 us/op from it.
     */
    if ( rc == 0 && hvb_perf_rings_cpu_wide(s->rings) )
        (void)hvb_perf_rings_filter(s->rings, "prev_pid != 0");
    if ( rc )
    {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* The names of this process's threads now: those named before. */
static int name_threads(struct hvb_switches *s)
{
    struct dirent *d;
    struct timespec ts;
    DIR *dir = opendir("/proc/self/task");
    int rc = 0;

    if ( dir == NULL )
        return 0; /* their roles read "[unnamed]" */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    while ( rc == 0 && (d = readdir(dir)) != NULL )
    {
        char path[64], name[HVB_COMM_LEN] = "";
        unsigned long tid = strtoul(d->d_name, NULL, 10);
        FILE *f;
        long k;

        if ( tid == 0 )
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%lu/comm", tid);
        if ( (f = fopen(path, "r")) == NULL )
            continue; /* it exited */
        if ( fgets(name, sizeof(name), f) != NULL )
            name[strcspn(name, "\n")] = '\0';
        fclose(f);
        if ( (k = hvb_switch_log_name(&s->log, name)) < 0 ||
             hvb_switch_log_event(&s->log,
                                  (uint64_t)ts.tv_sec * 1000000000ull +
                                      (uint64_t)ts.tv_nsec,
                                  (uint32_t)tid, HVB_SWITCH_COMM, (uint32_t)k) )
            rc = -ENOMEM;
    }
    closedir(dir);
    return rc;
}

int hvb_switches_enable(struct hvb_switches *s)
{
    int rc;

    /* Without symbols, chains keep the frame walk's frames alone. */
    if ( s->sym == NULL && hvb_symbols_open(&s->sym) != 0 )
        s->sym = NULL;
    /* Before the reader writes the log: the events start with them. */
    if ( (rc = name_threads(s)) != 0 )
        return rc;
    return hvb_perf_rings_enable(s->rings);
}

int hvb_switches_stop(struct hvb_switches *s)
{
    hvb_perf_rings_stop(s->rings);
    return s->oom ? -ENOMEM : 0;
}

const struct hvb_switch_log *hvb_switches_log(const struct hvb_switches *s)
{
    return &s->log;
}

uint64_t hvb_switches_lost(const struct hvb_switches *s)
{
    return hvb_perf_rings_lost(s->rings);
}

bool hvb_switches_cpu_wide(const struct hvb_switches *s, uint64_t *foreign)
{
    *foreign = hvb_perf_rings_foreign(s->rings);
    return hvb_perf_rings_cpu_wide(s->rings);
}

void hvb_switches_close(struct hvb_switches *s)
{
    if ( s == NULL )
        return;
    hvb_perf_rings_close(s->rings);
    hvb_symbols_close(s->sym);
    hvb_switch_log_free(&s->log);
    free(s);
}
