/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The profile room (harness/profile/): where the time goes, for
 * "hvbench profile" alone (cli/cmd_profile.c is its only user).  The
 * in-process sampler (sampler.c) or perf record (perf_backend.c) takes
 * the samples, the context-switch recorder (switches.c) the sched_switch
 * records, both on the ring buffers of the perfev room (hvb/perf_rings.h:
 * CPU-wide where permitted, scope.c says so); offcpu.c pairs the
 * switches into off-CPU time; symbols.c and symname.c (with
 * demangle.cc) name user frames, ksyms.c kernel ones; folded.c and
 * wait_folded.c write the folded stacks, render.c runs the drawing
 * scripts (render/flamegraph.py, render/report.py, also used by "hvbench
 * report").  It sees run (watch.h) and output (outfile.h) below it.
 * E.g. "hvbench profile lookup --out DIR": the sampler records stacks at
 * 997 Hz, DIR/<cell>.folded and DIR/<cell>.svg come out.
 *
 * The in-process sampling profiler (hvb/sampler.h) on perf_event_open,
 * its ring buffers those of hvb/perf_rings.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvb/perf_rings.h>
#include <hvb/sampler.h>

#if defined(__x86_64__)
#include <asm/perf_regs.h>
#define SAMPLE_REGS (1ull << PERF_REG_X86_SP)
#else
#define SAMPLE_REGS 0ull /* no leaf-caller repair elsewhere */
#endif

#define DATA_PAGES 128 /* a power of two */
#define MAX_STACK  127

struct hvb_sampler {
    struct hvb_perf_rings *rings;
    const char *event;
    uint64_t period_ns;        /* cpu-clock's; 0: cycles (frequency mode) */
    struct hvb_sample_buf buf; /* under the rings' reader */
    bool oom;
};

static void fill_attr(struct perf_event_attr *a, bool cycles, unsigned int freq,
                      bool kernel)
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
    a->exclude_kernel = !kernel;
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
static void take_sample(void *ctx, const struct perf_event_header *h,
                        const uint64_t *p, size_t words)
{
    struct hvb_sampler *s = ctx;
    uint64_t rec[HVB_SAMPLE_HDR + MAX_STACK];
    uint64_t nr, i, k = 0, w, size, dyn;

    if ( h->type != PERF_RECORD_SAMPLE || words < 4 )
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
                     unsigned int freq, bool kernel, char *err, size_t len)
{
    struct hvb_sampler *s = calloc(1, sizeof(*s));
    struct perf_event_attr a;
    bool cycles =
        ev == HVB_EV_CYCLES || (ev == HVB_EV_AUTO && hvb_sampler_pmu_present());
    int rc;

    if ( s == NULL )
        return -ENOMEM;
retry:
    fill_attr(&a, cycles, freq, kernel);
    s->event = cycles ? "cycles" : "cpu-clock";
    s->period_ns = cycles ? 0 : a.sample_period;
    rc = hvb_perf_rings_open(&s->rings, &a, DATA_PAGES, take_sample, s,
                             s->event, err, len);
    if ( rc && cycles && ev == HVB_EV_AUTO )
    {
        cycles = false; /* a PMU that cannot sample: fall back */
        goto retry;
    }
    if ( rc == -ENOENT && cycles )
        snprintf(err + strlen(err), len - strlen(err),
                 " (no hardware PMU here)");
    if ( rc )
    {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int hvb_sampler_enable(struct hvb_sampler *s)
{
    return hvb_perf_rings_enable(s->rings);
}

int hvb_sampler_stop(struct hvb_sampler *s)
{
    hvb_perf_rings_stop(s->rings);
    return s->oom ? -ENOMEM : 0;
}

const struct hvb_sample_buf *hvb_sampler_samples(const struct hvb_sampler *s)
{
    return &s->buf;
}

uint64_t hvb_sampler_lost(const struct hvb_sampler *s)
{
    return hvb_perf_rings_lost(s->rings);
}

bool hvb_sampler_cpu_wide(const struct hvb_sampler *s, uint64_t *foreign)
{
    *foreign = hvb_perf_rings_foreign(s->rings);
    return hvb_perf_rings_cpu_wide(s->rings);
}

const char *hvb_sampler_event_name(const struct hvb_sampler *s)
{
    return s->event;
}

uint64_t hvb_sampler_period_ns(const struct hvb_sampler *s)
{
    return s->period_ns;
}

void hvb_sampler_close(struct hvb_sampler *s)
{
    if ( s == NULL )
        return;
    hvb_perf_rings_close(s->rings);
    free(s->buf.v);
    free(s);
}
