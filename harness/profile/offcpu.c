/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Off-CPU spans and their folded stacks (hvb/offcpu.h).  E.g. lock-hold
 * with lock=mutex, hold_ns=200000: the waiter's switches, sorted by
 * thread and time, read
 *
 *   t=1000 us OUT (slept; futex_wait, __lll_lock_wait, ..., lh_op)
 *   t=1198 us IN
 *   t=1201 us OUT (slept; same stack)  ...
 *
 * so each op has one span of ~198 us in that stack.  Over 10,000 ops
 * the folded line
 *
 *   ...;lh_op;hv_lockstat_mutex_lock;pthread_mutex_lock;
 *     __lll_lock_wait;entry_SYSCALL_64_[k];...;__schedule_[k];[off-cpu]
 *
 * weighs 1,980,000,000 ns / 10,000 ops = 198000 ns/op.  A switch in
 * without a switch out before it (the thread was off CPU when recording
 * began) starts nothing; a switch out whose switch in is missing (a lost
 * record, the end of the run) is counted as unpaired and left out.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/folded.h>
#include <hvb/offcpu.h>
#include <hvb/switches.h>

#define MAX_CHAIN 256

/* Functions whose sleep models a cost (the leaf says so). */
static const char *const modelled[] = {"hv_virt_sleep_us", NULL};

struct sw_ref {
    uint64_t tid, t;
    size_t off;
};

static int ref_cmp(const void *a, const void *b)
{
    const struct sw_ref *x = a, *y = b;

    if ( x->tid != y->tid )
        return x->tid < y->tid ? -1 : 1;
    if ( x->t != y->t )
        return x->t < y->t ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int win_cmp(const void *a, const void *b)
{
    const struct hvb_twindow *x = a, *y = b;

    if ( x->tid != y->tid )
        return x->tid < y->tid ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* The window of @tid holding @t, or NULL. */
static const struct hvb_twindow *window_of(const struct hvb_offcpu *o,
                                           uint64_t tid, uint64_t t)
{
    size_t lo = 0, hi = o->nr_win;

    while ( lo < hi ) /* the first window after (tid, t) */
    {
        size_t mid = (lo + hi) / 2;
        const struct hvb_twindow *w = &o->win[mid];

        if ( w->tid < tid || (w->tid == tid && w->t0 <= t) )
            lo = mid + 1;
        else
            hi = mid;
    }
    if ( lo == 0 )
        return NULL;
    lo--;
    return o->win[lo].tid == tid && o->win[lo].t1 >= t ? &o->win[lo] : NULL;
}

size_t hvb_offcpu_cell_of(const struct hvb_offcpu *o, uint64_t tid, uint64_t t)
{
    const struct hvb_twindow *w = window_of(o, tid, t);

    return w != NULL ? w->cell : SIZE_MAX;
}

static int add_span(struct hvb_offcpu *o, size_t *cap, const struct sw_ref *out,
                    uint64_t t_in)
{
    const struct hvb_twindow *w = window_of(o, out->tid, out->t);

    if ( w == NULL )
        return 0; /* not in a measured body */
    if ( o->nr_spans == *cap )
    {
        size_t c = *cap ? 2 * *cap : 4096;
        struct hvb_offcpu_span *n = realloc(o->spans, c * sizeof(*n));

        if ( n == NULL )
            return -ENOMEM;
        o->spans = n;
        *cap = c;
    }
    o->spans[o->nr_spans++] = (struct hvb_offcpu_span){
        out->t, t_in < w->t1 ? t_in : w->t1, out->off, w->cell};
    return 0;
}

int hvb_offcpu_build(struct hvb_offcpu *o, const struct hvb_sample_buf *sw,
                     const struct hvb_twindow *w, size_t nw)
{
    struct sw_ref *r = calloc(sw->nr_samples + 1, sizeof(*r));
    size_t off, n = 0, i, cap = 0;
    const struct sw_ref *pending = NULL;
    int rc = 0;

    memset(o, 0, sizeof(*o));
    o->sw = sw;
    o->win = malloc((nw + 1) * sizeof(*o->win));
    if ( r == NULL || o->win == NULL )
    {
        free(r);
        return -ENOMEM;
    }
    memcpy(o->win, w, nw * sizeof(*w));
    o->nr_win = nw;
    qsort(o->win, nw, sizeof(*w), win_cmp);
    for ( off = 0; off < sw->len && n < sw->nr_samples;
          off +=
          HVB_SWITCH_HDR + sw->v[off + 3] + sw->v[off + 4] + sw->v[off + 5] )
        r[n++] = (struct sw_ref){sw->v[off + 1], sw->v[off], off};
    qsort(r, n, sizeof(*r), ref_cmp);
    for ( i = 0; i < n && rc == 0; i++ )
    {
        bool in = sw->v[r[i].off + 2] == HVB_SWITCH_IN;

        if ( pending != NULL && pending->tid != r[i].tid )
        {
            o->unpaired++;
            pending = NULL;
        }
        if ( !in )
        {
            o->unpaired += pending != NULL;
            pending = &r[i];
        }
        else if ( pending != NULL )
        {
            rc = add_span(o, &cap, pending, r[i].t);
            pending = NULL;
        }
    }
    o->unpaired += pending != NULL;
    free(r);
    return rc;
}

/* The leaf of an off-CPU stack: why it was off CPU. */
static const char *why(struct hvb_symbols *sym, const uint64_t *u, size_t nu,
                       uint64_t kind)
{
    size_t k, m;

    for ( k = 0; k < nu; k++ )
        for ( m = 0; modelled[m] != NULL; m++ )
            if ( strcmp(hvb_symbols_name(sym, u[k], k > 0), modelled[m]) == 0 )
                return "[off-cpu: modelled sleep]";
    return kind == HVB_SWITCH_OUT_RUNNABLE ? "[off-cpu: preempted]"
                                           : "[off-cpu]";
}

/* Span @s's stack line, or NULL (out of memory); @modelled_sleep set. */
static char *span_stack(const struct hvb_offcpu *o, const size_t rec,
                        struct hvb_symbols *sym, const struct hvb_ksyms *ks,
                        bool *modelled_sleep)
{
    const uint64_t *r = &o->sw->v[rec];
    const uint64_t *kc = &r[HVB_SWITCH_HDR], *uc = kc + r[3];
    uint64_t chain[MAX_CHAIN];
    char tail[8192];
    struct hv_strbuf sb;
    const char *leaf;
    size_t k, nf = 0;

    /* Where it was, the callers the frame walk skipped, the walk. */
    if ( r[4] > 0 )
    {
        chain[nf++] = uc[0];
        nf += hvb_symbols_unwind_sp(sym, uc[0], uc + r[4], r[5], &chain[1],
                                    MAX_CHAIN / 2);
        for ( k = 1; k < r[4] && nf < MAX_CHAIN; k++ )
            if ( k > 1 || nf == 1 || uc[1] != chain[nf - 1] )
                chain[nf++] = uc[k];
    }
    leaf = why(sym, chain, nf, r[2]);
    *modelled_sleep = strcmp(leaf, "[off-cpu: modelled sleep]") == 0;
    hv_strbuf_init(&sb, tail, sizeof(tail));
    for ( k = r[3]; k-- > 0; ) /* outermost kernel frame first */
        hv_strbuf_join(&sb, ";", "%s_[k]",
                       hvb_ksyms_name(ks, k > 0 ? kc[k] - 1 : kc[k]));
    hv_strbuf_join(&sb, ";", "%s", leaf);
    return hvb_folded_stack(sym, chain, nf, true, tail);
}

/* The wall view's on-CPU part: @cell's measured threads' samples. */
static int on_cpu(const struct hvb_offcpu *o, size_t cell, double per,
                  struct hvb_symbols *sym, const struct hvb_sample_buf *b,
                  uint64_t period_ns, struct hvb_folded_line **lines, size_t *n,
                  size_t *cap, struct hvb_offcpu_total *t)
{
    uint64_t chain[MAX_CHAIN];
    size_t off, nf;
    int rc;

    for ( off = 0; off < b->len; off += HVB_SAMPLE_HDR + b->v[off + 2] )
    {
        const uint64_t *r = &b->v[off];

        if ( hvb_offcpu_cell_of(o, r[1], r[0]) != cell )
            continue;
        nf = hvb_folded_sample_chain(sym, r, chain, MAX_CHAIN);
        if ( nf == 0 )
            continue;
        rc = hvb_folded_push(lines, n, cap,
                             hvb_folded_stack(sym, chain, nf, true, NULL),
                             (double)period_ns * per);
        if ( rc )
            return rc;
        t->samples++;
        t->on_ns += period_ns;
    }
    return 0;
}

int hvb_offcpu_write(const struct hvb_offcpu *o, size_t cell, uint64_t ops,
                     struct hvb_symbols *sym, const struct hvb_ksyms *ks,
                     const struct hvb_sample_buf *cpu, uint64_t period_ns,
                     const char *path, struct hvb_offcpu_total *t)
{
    struct hvb_folded_line *lines = NULL;
    double per = ops ? 1.0 / (double)ops : 0;
    size_t n = 0, cap = 0, i;
    int rc = 0;

    memset(t, 0, sizeof(*t));
    t->ops = ops;
    for ( i = 0; i < o->nr_win; i++ )
        if ( o->win[i].cell == cell )
            t->wall_ns += o->win[i].t1 - o->win[i].t0;
    for ( i = 0; i < o->nr_spans && rc == 0; i++ )
    {
        const struct hvb_offcpu_span *s = &o->spans[i];
        uint64_t ns = s->t_in - s->t_out;
        bool model;

        if ( s->cell != cell )
            continue;
        rc = hvb_folded_push(&lines, &n, &cap,
                             span_stack(o, s->rec, sym, ks, &model),
                             (double)ns * per);
        t->spans++;
        t->off_ns += ns;
        if ( model )
            t->modelled_ns += ns;
        else if ( o->sw->v[s->rec + 2] == HVB_SWITCH_OUT_RUNNABLE )
            t->preempted_ns += ns;
    }
    if ( rc == 0 && cpu != NULL )
        rc = on_cpu(o, cell, per, sym, cpu, period_ns, &lines, &n, &cap, t);
    if ( rc == 0 )
        rc = hvb_folded_emit(path, lines, n, false);
    t->stacks = n;
    hvb_folded_free(lines, n);
    return rc;
}

void hvb_offcpu_free(struct hvb_offcpu *o)
{
    free(o->win);
    free(o->spans);
    memset(o, 0, sizeof(*o));
}
