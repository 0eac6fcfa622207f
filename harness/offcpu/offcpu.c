/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Off-CPU spans and their folded stacks (hvb/offcpu.h).  E.g. lock-hold
 * with lock=mutex, hold_ns=200000: the waiter's switches, sorted by
 * thread and time, read
 *
 *   t=1000 us OUT (slept; chain c: futex_wait, __lll_lock_wait, ...,
 *             lh_thread)
 *   t=1198 us IN
 *   t=1201 us OUT (slept; chain c)  ...
 *
 * so each op has one span of ~198 us in chain c.  Over 10,000 ops the
 * folded line
 *
 *   ...;lh_thread;__pthread_mutex_lock;__lll_lock_wait;
 *     entry_SYSCALL_64_[k];...;__schedule_[k];[off-cpu]
 *
 * weighs 1,980,000,000 ns / 10,000 ops = 198000 ns/op.  The holder, a
 * background thread, is one of the cell's threads too: its time between
 * the cell's first and last window (merged per run) counts, from its
 * fork to its exit.  A thread's first switch in without a switch out
 * before it (it was new and waiting for a CPU, or asleep since before
 * the recording began) is off CPU from its fork (or the cell's start)
 * in a stack never seen: "[stack not seen];[off-cpu]" (":
 * preempted]" after a fork).  A switch out whose switch in never came
 * (the thread was still off CPU at the end) lasts to the end of the
 * cell or of the thread.  A switch out followed by another (a lost
 * record) is counted as unpaired and left out.
 *
 * Seen: seed 003's 225 threads (parallel-create, 20 clients) had 34%
 * of their wall time not accounted for (one thread 100%) while both
 * ends were dropped; with them, 0.2% (the worst thread 0.4%).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/folded.h>
#include <hvb/offcpu.h>
#include <hvb/own_threads.h>

struct ev_ref {
    uint64_t tid, t;
    size_t i;
};

static int ref_cmp(const void *a, const void *b)
{
    const struct ev_ref *x = a, *y = b;

    if ( x->tid != y->tid )
        return x->tid < y->tid ? -1 : 1;
    if ( x->t != y->t )
        return x->t < y->t ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int win_cmp(const void *a, const void *b)
{
    const struct hvb_twindow *x = a, *y = b;

    if ( x->tid != y->tid )
        return x->tid < y->tid ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/*
 * In @n elements of @size bytes at @v, sorted by the tid at @off of
 * each: the index of the first of @tid, or of the next thread's.
 */
static size_t first_of(const void *v, size_t n, size_t size, size_t off,
                       uint64_t tid)
{
    size_t lo = 0, hi = n;

    while ( lo < hi )
    {
        size_t mid = (lo + hi) / 2;
        uint64_t x;

        memcpy(&x, (const char *)v + mid * size + off, sizeof(x));
        if ( x < tid )
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The index of the first window of @tid, or of the next thread's. */
static size_t first_window(const struct hvb_offcpu *o, uint64_t tid)
{
    return first_of(o->win, o->nr_win, sizeof(*o->win),
                    offsetof(struct hvb_twindow, tid), tid);
}

static bool is_measured(const struct hvb_offcpu *o, uint64_t tid)
{
    size_t k = first_window(o, tid);

    return k < o->nr_win && o->win[k].tid == tid;
}

/* The window of @tid holding @t, or NULL. */
static const struct hvb_twindow *window_of(const struct hvb_offcpu *o,
                                           uint64_t tid, uint64_t t)
{
    size_t k = first_window(o, tid), last = SIZE_MAX;

    /* A thread runs a few windows (a round each): scan them. */
    for ( ; k < o->nr_win && o->win[k].tid == tid && o->win[k].t0 <= t; k++ )
        last = k;
    return last != SIZE_MAX && o->win[last].t1 >= t ? &o->win[last] : NULL;
}

/* The merged interval holding @t, or SIZE_MAX. */
static size_t interval_of(const struct hvb_offcpu *o, uint64_t t)
{
    size_t lo = 0, hi = o->nr_iv;

    while ( lo < hi )
    {
        size_t mid = (lo + hi) / 2;

        if ( o->iv[mid].t0 <= t )
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && o->iv[lo - 1].t1 >= t ? lo - 1 : SIZE_MAX;
}

/* The cells' windows merged into intervals, by time. */
static int merge_windows(struct hvb_offcpu *o)
{
    size_t i;

    o->iv = malloc((o->nr_win + 1) * sizeof(*o->iv));
    if ( o->iv == NULL )
        return -ENOMEM;
    memcpy(o->iv, o->win, o->nr_win * sizeof(*o->iv));
    hvb_twindow_sort(o->iv, o->nr_win);
    for ( i = 0; i < o->nr_win; i++ )
    {
        struct hvb_twindow *last = o->nr_iv ? &o->iv[o->nr_iv - 1] : NULL;

        if ( last != NULL && last->cell == o->iv[i].cell &&
             o->iv[i].t0 <= last->t1 )
        {
            if ( o->iv[i].t1 > last->t1 )
                last->t1 = o->iv[i].t1;
        }
        else
            o->iv[o->nr_iv++] = o->iv[i];
    }
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    const struct hvb_offcpu_name *x = a, *y = b;

    if ( x->tid != y->tid )
        return x->tid < y->tid ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* The threads' names, forks and execs of @log, by tid and time. */
static int collect_names(struct hvb_offcpu *o, const struct hvb_switch_log *log)
{
    size_t i;

    o->names = malloc((log->nr + 1) * sizeof(*o->names));
    if ( o->names == NULL )
        return -ENOMEM;
    for ( i = 0; i < log->nr; i++ )
    {
        const struct hvb_switch_ev *e = &log->ev[i];

        if ( e->kind == HVB_SWITCH_COMM || e->kind == HVB_SWITCH_EXEC ||
             e->kind == HVB_SWITCH_FORK )
            o->names[o->nr_names++] = (struct hvb_offcpu_name){
                e->tid, e->t, e->kind == HVB_SWITCH_FORK ? 0 : e->chain,
                e->kind == HVB_SWITCH_FORK ? e->chain : 0, e->kind};
    }
    qsort(o->names, o->nr_names, sizeof(*o->names), name_cmp);
    return 0;
}

/* The index of @tid's first name event, or of the next thread's. */
static size_t first_name(const struct hvb_offcpu *o, uint64_t tid)
{
    return first_of(o->names, o->nr_names, sizeof(*o->names),
                    offsetof(struct hvb_offcpu_name, tid), tid);
}

static uint32_t role_at(const struct hvb_offcpu *o, uint64_t tid, uint64_t t,
                        unsigned int depth)
{
    size_t k = first_name(o, tid);
    uint32_t role = HVB_ROLE_UNNAMED, first = HVB_ROLE_UNNAMED, parent = 0;
    uint64_t born = 0;

    for ( ; k < o->nr_names && o->names[k].tid == tid; k++ )
    {
        const struct hvb_offcpu_name *n = &o->names[k];

        if ( n->kind == HVB_SWITCH_FORK )
        {
            parent = n->parent;
            born = n->t;
            continue;
        }
        if ( first == HVB_ROLE_UNNAMED )
            first = n->role;
        if ( n->t <= t )
            role = n->role;
    }
    if ( role == HVB_ROLE_UNNAMED && parent && parent != tid && depth < 16 )
        role = role_at(o, parent, born, depth + 1);
    return role != HVB_ROLE_UNNAMED ? role : first;
}

uint32_t hvb_offcpu_role(const struct hvb_offcpu *o, uint64_t tid, uint64_t t)
{
    return role_at(o, tid, t, 0);
}

/* When @tid exec'd: UINT64_MAX if it did not. */
static uint64_t exec_of(const struct hvb_offcpu *o, uint64_t tid)
{
    size_t k;

    for ( k = first_name(o, tid); k < o->nr_names && o->names[k].tid == tid;
          k++ )
        if ( o->names[k].kind == HVB_SWITCH_EXEC )
            return o->names[k].t;
    return UINT64_MAX;
}

/* The thread entry of (@tid, @cell), added (no wall yet) if new. */
static struct hvb_offcpu_thread *thread(struct hvb_offcpu *o, uint64_t tid,
                                        size_t cell, bool measured)
{
    size_t i;

    for ( i = o->nr_threads; i-- > 0 && o->threads[i].tid == tid; )
        if ( o->threads[i].cell == cell )
            return &o->threads[i];
    if ( o->nr_threads == o->cap_threads )
    {
        size_t c = o->cap_threads ? 2 * o->cap_threads : 256;
        struct hvb_offcpu_thread *n = realloc(o->threads, c * sizeof(*n));

        if ( n == NULL )
            return NULL;
        o->threads = n;
        o->cap_threads = c;
    }
    o->threads[o->nr_threads] = (struct hvb_offcpu_thread){
        tid, 0, 0, 0, exec_of(o, tid), cell, measured};
    return &o->threads[o->nr_threads++];
}

static int push_span(struct hvb_offcpu *o, struct hvb_offcpu_thread *th,
                     uint64_t a, uint64_t b, const struct hvb_switch_ev *out)
{
    if ( th == NULL )
        return -ENOMEM;
    if ( o->nr_spans == o->cap_spans )
    {
        size_t c = o->cap_spans ? 2 * o->cap_spans : 4096;
        struct hvb_offcpu_span *n = realloc(o->spans, c * sizeof(*n));

        if ( n == NULL )
            return -ENOMEM;
        o->spans = n;
        o->cap_spans = c;
    }
    o->spans[o->nr_spans++] =
        (struct hvb_offcpu_span){a,          b,
                                 out->chain, hvb_offcpu_role(o, th->tid, a),
                                 out->kind,  out->t >= th->exec_t,
                                 th->cell};
    th->off_ns += b - a;
    return 0;
}

/* A background thread's span [@a, @b) cut by the cells' intervals. */
static int span_in_cells(struct hvb_offcpu *o, uint64_t tid, uint64_t a,
                         uint64_t b, const struct hvb_switch_ev *out)
{
    size_t lo = 0, hi = o->nr_iv;
    int rc = 0;

    while ( lo < hi ) /* the first interval ending after a */
    {
        size_t mid = (lo + hi) / 2;

        if ( o->iv[mid].t1 <= a )
            lo = mid + 1;
        else
            hi = mid;
    }
    for ( ; rc == 0 && lo < o->nr_iv && o->iv[lo].t0 < b; lo++ )
    {
        uint64_t x = a > o->iv[lo].t0 ? a : o->iv[lo].t0;
        uint64_t y = b < o->iv[lo].t1 ? b : o->iv[lo].t1;

        if ( x < y )
            rc = push_span(o, thread(o, tid, o->iv[lo].cell, false), x, y, out);
    }
    return rc;
}

/*
 * The span from switch out @out to @t_in (UINT64_MAX: never back), cut
 * to the thread's @life and the cells' time.
 */
static int add_span(struct hvb_offcpu *o, uint64_t tid, bool measured,
                    const struct hvb_switch_ev *out, uint64_t t_in,
                    const uint64_t life[2])
{
    const struct hvb_twindow *w;
    uint64_t a = out->t > life[0] ? out->t : life[0];
    uint64_t b = t_in < life[1] ? t_in : life[1];

    if ( !measured )
        return span_in_cells(o, tid, a, b, out);
    /* A span from before the first switch seen: the window it ends in. */
    w = window_of(o, tid, out->chain == HVB_CHAIN_UNSEEN ? b : a);
    if ( w == NULL )
        return 0; /* not in a measured body */
    return push_span(o, thread(o, tid, w->cell, true), a > w->t0 ? a : w->t0,
                     b < w->t1 ? b : w->t1, out);
}

/* The wall time of thread entries [@first, end): windows or life. */
static int walls(struct hvb_offcpu *o, uint64_t tid, bool measured,
                 size_t first, const uint64_t life[2])
{
    size_t i, k;

    if ( measured )
    {
        for ( k = first_window(o, tid); k < o->nr_win && o->win[k].tid == tid;
              k++ )
        {
            struct hvb_offcpu_thread *th = thread(o, tid, o->win[k].cell, true);

            if ( th == NULL )
                return -ENOMEM;
            th->wall_ns += o->win[k].t1 - o->win[k].t0;
        }
        return 0;
    }
    for ( i = first; i < o->nr_threads; i++ )
        for ( k = 0; k < o->nr_iv; k++ )
        {
            uint64_t x = life[0] > o->iv[k].t0 ? life[0] : o->iv[k].t0;
            uint64_t y = life[1] < o->iv[k].t1 ? life[1] : o->iv[k].t1;

            if ( o->iv[k].cell == o->threads[i].cell && x < y )
                o->threads[i].wall_ns += y - x;
        }
    return 0;
}

/* One thread's events @r[0..n), by time: its spans and entries. */
static int one_thread(struct hvb_offcpu *o, const struct ev_ref *r, size_t n)
{
    const struct hvb_switch_ev *ev = o->log->ev, *pending = NULL;
    uint64_t tid = r[0].tid, life[2] = {0, UINT64_MAX};
    bool measured = is_measured(o, tid);
    size_t first = o->nr_threads, i, k;
    bool seen_out = false;
    int rc = 0;

    if ( !measured && (tid == o->main_tid || hvb_own_thread(tid)) )
        return 0; /* the harness's */
    for ( i = 0; i < n; i++ )
    {
        const struct hvb_switch_ev *e = &ev[r[i].i];

        if ( e->kind == HVB_SWITCH_FORK )
            life[0] = e->t;
        else if ( e->kind == HVB_SWITCH_EXIT )
            life[1] = e->t;
        /* Any event in a cell's time makes a background thread its. */
        if ( !measured && (k = interval_of(o, e->t)) != SIZE_MAX &&
             thread(o, tid, o->iv[k].cell, false) == NULL )
            return -ENOMEM;
    }
    for ( i = 0; i < n && rc == 0; i++ )
    {
        const struct hvb_switch_ev *e = &ev[r[i].i];

        if ( e->kind == HVB_SWITCH_OUT_BLOCKED ||
             e->kind == HVB_SWITCH_OUT_RUNNABLE )
        {
            o->unpaired += pending != NULL;
            pending = e;
            seen_out = true;
        }
        else if ( e->kind == HVB_SWITCH_IN && pending != NULL )
        {
            rc = add_span(o, tid, measured, pending, e->t, life);
            pending = NULL;
        }
        else if ( e->kind == HVB_SWITCH_IN && !seen_out )
        {
            /* Off CPU since its fork or before recording: stack unseen. */
            struct hvb_switch_ev un = {.t = life[0],
                                       .tid = e->tid,
                                       .chain = HVB_CHAIN_UNSEEN,
                                       .kind = life[0]
                                                   ? HVB_SWITCH_OUT_RUNNABLE
                                                   : HVB_SWITCH_OUT_BLOCKED};

            rc = add_span(o, tid, measured, &un, e->t, life);
            seen_out = true;
        }
    }
    if ( rc == 0 && pending != NULL ) /* still off CPU at the end */
        rc = add_span(o, tid, measured, pending, UINT64_MAX, life);
    return rc ? rc : walls(o, tid, measured, first, life);
}

int hvb_offcpu_build(struct hvb_offcpu *o, const struct hvb_switch_log *log,
                     const struct hvb_twindow *w, size_t nw, uint64_t main_tid)
{
    struct ev_ref *r = calloc(log->nr + 1, sizeof(*r));
    size_t i, j;
    int rc = 0;

    memset(o, 0, sizeof(*o));
    o->log = log;
    o->main_tid = main_tid;
    o->win = malloc((nw + 1) * sizeof(*o->win));
    if ( r == NULL || o->win == NULL )
    {
        free(r);
        return -ENOMEM;
    }
    memcpy(o->win, w, nw * sizeof(*w));
    o->nr_win = nw;
    if ( (rc = collect_names(o, log)) != 0 )
    {
        free(r);
        return rc;
    }
    qsort(o->win, nw, sizeof(*w), win_cmp);
    rc = merge_windows(o);
    for ( i = 0; i < log->nr; i++ )
        r[i] = (struct ev_ref){log->ev[i].tid, log->ev[i].t, i};
    qsort(r, log->nr, sizeof(*r), ref_cmp);
    for ( i = 0; rc == 0 && i < log->nr; i = j )
    {
        for ( j = i + 1; j < log->nr && r[j].tid == r[i].tid; j++ )
            ;
        rc = one_thread(o, &r[i], j - i);
    }
    free(r);
    return rc;
}

/* The entry of (@tid, @cell), or NULL (entries are by tid). */
static struct hvb_offcpu_thread *find_thread(struct hvb_offcpu *o, uint64_t tid,
                                             size_t cell)
{
    size_t lo = first_of(o->threads, o->nr_threads, sizeof(*o->threads),
                         offsetof(struct hvb_offcpu_thread, tid), tid);

    for ( ; lo < o->nr_threads && o->threads[lo].tid == tid; lo++ )
        if ( o->threads[lo].cell == cell )
            return &o->threads[lo];
    return NULL;
}

/* Role @role's name, the root frame of its threads' stacks. */
static const char *role_name(const struct hvb_offcpu *o, uint32_t role)
{
    return role < o->log->nr_names ? o->log->names[role] : "?";
}

/*
 * "[thread: ROLE];" before @stack (taken): a malloc'd line, or NULL.  The
 * brackets mark it as the profiler's frame, as "[off-cpu]" is.
 */
static char *rooted(const struct hvb_offcpu *o, uint32_t role, char *stack)
{
    const char *name = role_name(o, role);
    char *line = NULL;

    if ( stack != NULL && asprintf(&line, "[thread: %s]%s%s", name,
                                   *stack ? ";" : "", stack) < 0 )
        line = NULL;
    free(stack);
    return line;
}

/*
 * After an exec the thread's user frames are another program's, which
 * this process's maps would misname: they read as one frame.
 */
#define AFTER_EXEC "[after exec]"

/* The wall view's on-CPU part: @cell's threads' samples. */
static int on_cpu(struct hvb_offcpu *o, size_t cell, double per,
                  struct hvb_symbols *sym, const struct hvb_sample_buf *b,
                  uint64_t period_ns, struct hvb_folded_line **lines, size_t *n,
                  size_t *cap, struct hvb_offcpu_total *t)
{
    uint64_t chain[256];
    size_t off, nf = 0, k;
    char *stack;
    int rc;

    for ( off = 0; off < b->len; off += HVB_SAMPLE_HDR + b->v[off + 2] )
    {
        const uint64_t *r = &b->v[off];
        const struct hvb_twindow *w = window_of(o, r[1], r[0]);
        struct hvb_offcpu_thread *th = NULL;

        if ( w != NULL )
            th = w->cell == cell ? find_thread(o, r[1], cell) : NULL;
        else if ( !is_measured(o, r[1]) &&
                  (k = interval_of(o, r[0])) != SIZE_MAX &&
                  o->iv[k].cell == cell )
            th = find_thread(o, r[1], cell);
        if ( th == NULL ||
             (r[0] < th->exec_t &&
              (nf = hvb_folded_sample_chain(sym, r, chain, 256)) == 0) )
            continue; /* not the cell's, or a thread it never saw */
        stack = r[0] < th->exec_t ? hvb_folded_stack(sym, chain, nf, true, NULL)
                                  : strdup(AFTER_EXEC);
        rc = hvb_folded_push(lines, n, cap,
                             rooted(o, hvb_offcpu_role(o, r[1], r[0]), stack),
                             (double)period_ns * per);
        if ( rc )
            return rc;
        t->samples++;
        t->on_ns += period_ns;
        th->on_ns += period_ns;
    }
    return 0;
}

enum leaf {
    SLEPT,
    PREEMPTED,
    MODELLED,
    IDLE,
    NR_LEAVES
};

static const char *const leaves[] = {
    "[off-cpu]", "[off-cpu: preempted]", "[off-cpu: modelled sleep]",
    "[off-cpu: idle]",
    /* The same, for time before a thread's first switch seen. */
    "[stack not seen];[off-cpu]", "[stack not seen];[off-cpu: preempted]",
    "[stack not seen];[off-cpu: modelled sleep]",
    "[stack not seen];[off-cpu: idle]"};

/*
 * What a sleep in user frames @u[0..nu) was: a sleep that models a cost
 * (hv_virt_sleep_us), a wait for work (hv/thread.h's hv_idle_*), or
 * neither (SLEPT).
 */
static enum leaf sleep_of(struct hvb_symbols *sym, const uint64_t *u, size_t nu)
{
    size_t k;

    for ( k = 0; k < nu; k++ )
    {
        const char *name = hvb_symbols_name(sym, u[k], k > 0);

        if ( strcmp(name, "hv_virt_sleep_us") == 0 )
            return MODELLED;
        if ( strncmp(name, "hv_idle_", 8) == 0 )
            return IDLE;
    }
    return SLEPT;
}

/*
 * Chain @c's stack (@exec: its user frames one AFTER_EXEC frame), with
 * leaf @leaf (an index of leaves[]), or NULL.
 */
static char *chain_stack(const struct hvb_switch_log *l, size_t c,
                         unsigned int leaf, bool exec, struct hvb_symbols *sym,
                         const struct hvb_ksyms *ks)
{
    const uint64_t *w, *kc, *uc;
    char tail[8192];
    struct hv_strbuf sb;
    size_t k;

    if ( c == l->nr_chains ) /* HVB_CHAIN_UNSEEN */
        return hvb_folded_stack(sym, NULL, 0, true, leaves[leaf + NR_LEAVES]);
    w = &l->words[l->chain_off[c]];
    kc = &w[2];
    uc = kc + w[0];
    hv_strbuf_init(&sb, tail, sizeof(tail));
    if ( exec )
        hv_strbuf_join(&sb, ";", "%s", AFTER_EXEC);
    for ( k = w[0]; k-- > 0; ) /* outermost kernel frame first */
        hv_strbuf_join(&sb, ";", "%s_[k]",
                       hvb_ksyms_name(ks, k > 0 ? kc[k] - 1 : kc[k]));
    hv_strbuf_join(&sb, ";", "%s", leaves[leaf]);
    return exec ? strdup(tail) : hvb_folded_stack(sym, uc, w[1], true, tail);
}

/* A span's weight under its (role, chain, leaf, exec): one line each. */
struct key {
    uint32_t role, chain;
    uint16_t leaf;
    bool exec;
    uint64_t ns;
};

static int key_cmp(const void *a, const void *b)
{
    const struct key *x = a, *y = b;

    if ( x->role != y->role )
        return x->role < y->role ? -1 : 1;
    if ( x->chain != y->chain )
        return x->chain < y->chain ? -1 : 1;
    if ( x->leaf != y->leaf )
        return x->leaf < y->leaf ? -1 : 1;
    return (int)x->exec - (int)y->exec;
}

/* The spans' weights summed per key, then one line each. */
static int off_cpu(struct hvb_offcpu *o, size_t cell, double per,
                   struct hvb_symbols *sym, const struct hvb_ksyms *ks,
                   struct hvb_folded_line **lines, size_t *n, size_t *cap,
                   struct hvb_offcpu_total *t)
{
    const struct hvb_switch_log *l = o->log;
    struct key *keys = malloc((o->nr_spans + 1) * sizeof(*keys));
    /* Per chain, its sleep's kind + 1 (0: not known yet). */
    unsigned char *sleep = calloc(l->nr_chains + 1, 1);
    size_t i, nk = 0;
    int rc = 0;

    if ( keys == NULL || sleep == NULL )
        rc = -ENOMEM;
    for ( i = 0; rc == 0 && i < o->nr_spans; i++ )
    {
        const struct hvb_offcpu_span *s = &o->spans[i];
        size_t c = s->chain == HVB_CHAIN_UNSEEN ? l->nr_chains : s->chain;
        enum leaf leaf = s->kind == HVB_SWITCH_OUT_RUNNABLE ? PREEMPTED : SLEPT;
        uint64_t ns = s->t_in - s->t_out;

        if ( s->cell != cell )
            continue;
        if ( c < l->nr_chains && !s->exec && sleep[c] == 0 )
        {
            const uint64_t *w = &l->words[l->chain_off[c]];

            sleep[c] = (unsigned char)(1 + sleep_of(sym, &w[2 + w[0]], w[1]));
        }
        /* A modelled sleep's time is the model's, preempted or not. */
        if ( c < l->nr_chains && !s->exec &&
             (sleep[c] == 1 + MODELLED || (sleep[c] == 1 + IDLE && !leaf)) )
            leaf = (enum leaf)(sleep[c] - 1);
        keys[nk++] =
            (struct key){s->role, (uint32_t)c, (uint16_t)leaf, s->exec, ns};
        t->spans++;
        t->off_ns += ns;
        t->preempted_ns += leaf == PREEMPTED ? ns : 0;
        t->modelled_ns += leaf == MODELLED ? ns : 0;
        t->idle_ns += leaf == IDLE ? ns : 0;
    }
    if ( rc == 0 )
        qsort(keys, nk, sizeof(*keys), key_cmp);
    for ( i = 0; rc == 0 && i < nk; i++ )
    {
        if ( i + 1 < nk && key_cmp(&keys[i], &keys[i + 1]) == 0 )
        {
            keys[i + 1].ns += keys[i].ns;
            continue;
        }
        rc = hvb_folded_push(lines, n, cap,
                             rooted(o, keys[i].role,
                                    chain_stack(l, keys[i].chain, keys[i].leaf,
                                                keys[i].exec, sym, ks)),
                             (double)keys[i].ns * per);
    }
    free(keys);
    free(sleep);
    return rc;
}

int hvb_offcpu_write(struct hvb_offcpu *o, size_t cell, uint64_t ops,
                     struct hvb_symbols *sym, const struct hvb_ksyms *ks,
                     const struct hvb_sample_buf *cpu, uint64_t period_ns,
                     const char *path, struct hvb_offcpu_total *t)
{
    struct hvb_folded_line *lines = NULL;
    double per = ops ? 1.0 / (double)ops : 0;
    size_t n = 0, cap = 0, i;
    int rc;

    memset(t, 0, sizeof(*t));
    t->ops = ops;
    rc = off_cpu(o, cell, per, sym, ks, &lines, &n, &cap, t);
    if ( rc == 0 && cpu != NULL )
        rc = on_cpu(o, cell, per, sym, cpu, period_ns, &lines, &n, &cap, t);
    for ( i = 0; i < o->nr_threads; i++ )
        if ( o->threads[i].cell == cell )
        {
            t->threads++;
            t->measured += o->threads[i].measured;
            t->wall_ns += o->threads[i].wall_ns;
        }
    for ( i = 0; cpu != NULL && i < o->nr_threads; i++ )
    {
        const struct hvb_offcpu_thread *th = &o->threads[i];
        double d = 1 - (double)(th->off_ns + th->on_ns) / (double)th->wall_ns;

        double on = (double)th->on_ns / (double)th->wall_ns,
               samples =
                   (double)th->on_ns / (double)(period_ns ? period_ns : 1);

        /* A thread of under 1% of the cell's time is not judged alone. */
        if ( th->cell == cell && th->wall_ns > 0 &&
             th->wall_ns * 100 >= t->wall_ns && fabs(d) > t->worst_unaccounted )
        {
            t->worst_unaccounted = fabs(d);
            /* Its on-CPU share counted in samples: +-share / sqrt(samples). */
            t->worst_sampling_error = samples > 0 ? on / sqrt(samples) : 0;
        }
    }
    if ( rc == 0 )
        rc = hvb_folded_emit(path, lines, n, false);
    t->stacks = n;
    hvb_folded_free(lines, n);
    return rc;
}

void hvb_offcpu_free(struct hvb_offcpu *o)
{
    free(o->names);
    free(o->win);
    free(o->iv);
    free(o->spans);
    free(o->threads);
    memset(o, 0, sizeof(*o));
}
