/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench profile WORKLOAD [run options] --out DIR [--diff SLOT=A,B]":
 * a run (the run options of 'hvbench run') under the in-process sampler
 * (hvb/sampler.h).  Every measured thread's body is wrapped to record the
 * CLOCK_MONOTONIC window it ran in; cells run one at a time, so a
 * sample's time names its cell.  Writes per cell DIR/<cell>.folded, its
 * stacks starting at the thread's root frames and the cell named by the
 * file alone, so that two cells' files diff with the standard tools
 * (FlameGraph's "difffolded.pl before.folded after.folded" joins stacks
 * by their text: a cell-named root frame made every stack differ), then
 * harness/profile/render/flamegraph.py draws the SVG flame graph and speedscope
 * JSON, and for --diff the differential flame graphs and the ranked
 * table.  DIR/results.json is the run's results (hvbench.profile lists
 * the files).  With --view wait (profile_wait.c) the lock profiler's
 * wait stacks replace the samples: DIR/<cell>-wait.folded and its SVG
 * and speedscope, weighted in wait ns per op.  With --view offcpu or
 * wall (profile_offcpu.c) the context-switch recorder runs too, and the
 * window of each measured thread (its tid) tells whose switches count:
 * DIR/<cell>-offcpu.folded, -wall.folded, in ns per op.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <hv/lockstat.h>
#include <hvb/cli.h>
#include <hvb/folded.h>
#include <hvb/outfile.h>
#include <hvb/perf_backend.h>
#include <hvb/render.h>
#include <hvb/results.h>
#include <hvb/results_read.h>
#include <hvb/run.h>
#include <hvb/sampler.h>
#include <hvb/scope.h>
#include <hvb/symbols.h>

#include "private.h"

#define DEFAULT_FREQ 997 /* about 1 kHz, not in step with 1 ms ticks */

struct wrap {
    void (*body)(void *arg, struct hvb_engine_thread *et);
    void *arg;
    size_t cell;
    struct prof *p;
    _Atomic uint64_t ops; /* of every thread and run, calibration too */
};

struct cell_prof {
    char *slug;
    uint64_t samples;
    double mean_depth;
    double cpu_ns_per_op;
    struct hvb_wait_cell wait;   /* --view wait */
    struct hvb_offcpu_total off; /* --view offcpu, wall */
};

/* The values of --view (by enum value). */
enum {
    PR_VIEW_CPU,
    PR_VIEW_WAIT,
    PR_VIEW_OFFCPU,
    PR_VIEW_WALL
};
static const char *const views[] = {[PR_VIEW_CPU] = "cpu",
                                    [PR_VIEW_WAIT] = "wait",
                                    [PR_VIEW_OFFCPU] = "offcpu",
                                    [PR_VIEW_WALL] = "wall",
                                    NULL};
/* Per view: the files' suffix, the unit of their weights, the title's. */
static const struct {
    const char *sfx, *unit, *title;
} view_info[] = {
    [PR_VIEW_CPU] = {"", "samples", ""},
    [PR_VIEW_WAIT] = {"-wait", "wait ns/op", ": lock waits"},
    [PR_VIEW_OFFCPU] = {"-offcpu", "off-CPU ns/op", ": off CPU"},
    [PR_VIEW_WALL] = {"-wall", "wall ns/op", ": wall clock"},
};

struct prof {
    const char *dir;
    const char *diff; /* SLOT=A,B or NULL */
    enum hvb_sample_event ev;
    unsigned int freq;
    int backend; /* PR_BACKEND_* */
    int view;    /* PR_VIEW_* */
    struct hvb_wait_view wv;
    struct hvb_offcpu_view ov; /* --view offcpu, wall */
    bool ov_open;
    struct hvb_sampler *s;
    struct hvb_perf *pf; /* --backend perf */
    struct hvb_sample_buf pbuf;
    uint64_t lost;
    struct wrap *w;
    pthread_mutex_t lock;
    struct hvb_twindow *win;
    size_t nr_win, cap_win;
    struct cell_prof *cells;
    size_t nr_cells;
    uint64_t unattributed;
    const char *event;
    int status;
};

static const struct hvb_sample_buf *samples(const struct prof *p)
{
    return p->pf != NULL ? &p->pbuf : hvb_sampler_samples(p->s);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void wrapped_body(void *arg, struct hvb_engine_thread *et)
{
    struct wrap *w = arg;
    struct prof *p = w->p;
    uint64_t t0 = mono_ns(), t1;

    if ( p->view == PR_VIEW_WAIT )
        hv_lockstat_set_tag((unsigned int)w->cell + 1);
    w->body(w->arg, et);
    t1 = mono_ns();
    atomic_fetch_add(&w->ops, et->ops);
    pthread_mutex_lock(&p->lock);
    if ( p->nr_win == p->cap_win )
    {
        size_t cap = p->cap_win ? 2 * p->cap_win : 256;
        struct hvb_twindow *n = realloc(p->win, cap * sizeof(*n));

        if ( n != NULL )
        {
            p->win = n;
            p->cap_win = cap;
        }
    }
    if ( p->nr_win < p->cap_win )
        p->win[p->nr_win++] = (struct hvb_twindow){
            t0, t1, (uint64_t)syscall(SYS_gettid), w->cell};
    pthread_mutex_unlock(&p->lock);
}

static int pr_before(void *ctx, struct hvb_matrix *m,
                     struct hvb_engine_bench *b, size_t n)
{
    struct prof *p = ctx;
    char err[256] = "";
    size_t i;
    int rc;

    p->status = hvb_profile_diff_check(p->diff, m);
    if ( p->status )
        return -1;

    p->w = calloc(n, sizeof(*p->w));
    if ( p->w == NULL )
    {
        hvb_failure("out of memory");
        return -1;
    }
    for ( i = 0; i < n; i++ )
    {
        p->w[i] = (struct wrap){b[i].body, b[i].arg, i, p, 0};
        b[i].body = wrapped_body;
        b[i].arg = &p->w[i];
    }
    if ( p->view == PR_VIEW_WAIT )
    {
        hvb_wait_view_start();
        p->event = "contended lock acquisitions";
        return 0;
    }
    if ( p->ov_open && hvb_offcpu_view_enable(&p->ov) )
    {
        hvb_failure("profile: sched:sched_switch: %s", strerror(errno));
        return -1;
    }
    if ( p->view == PR_VIEW_OFFCPU )
    {
        p->event = "sched:sched_switch";
        return 0;
    }
    if ( p->pf != NULL )
    {
        if ( hvb_perf_enable(p->pf, err, sizeof(err)) )
        {
            hvb_failure("profile: %s", err);
            return -1;
        }
        p->event = hvb_perf_event_name(p->pf);
        return 0;
    }
    rc = hvb_sampler_open(&p->s, p->ev, p->freq, p->view == PR_VIEW_WALL, err,
                          sizeof(err));
    if ( rc == 0 )
        rc = hvb_sampler_enable(p->s);
    if ( rc )
    {
        hvb_failure("profile: %s", err[0] ? err : strerror(-rc));
        return -1;
    }
    p->event = hvb_sampler_event_name(p->s);
    return 0;
}

/* Every cell's slug and the symbols: 0, or the exit status (printed). */
static int cells_open(struct prof *p, struct hvb_matrix *m,
                      struct hvb_symbols **sym)
{
    char slug[1024];
    size_t c;
    int rc;

    p->nr_cells = m->nr_cells;
    p->cells = calloc(m->nr_cells, sizeof(*p->cells));
    if ( p->cells == NULL || (rc = hvb_symbols_open(sym)) != 0 )
        return hvb_failure("profile: cannot symbolise: %s",
                           strerror(p->cells ? -rc : ENOMEM));
    for ( c = 0; c < m->nr_cells; c++ )
    {
        hvb_folded_slug(m->cells[c].name, slug, sizeof(slug));
        if ( (p->cells[c].slug = strdup(slug)) == NULL )
            return hvb_failure("out of memory");
    }
    return 0;
}

/* --view wait: each cell's wait stacks into DIR/<cell>-wait.folded. */
static void pr_after_wait(struct prof *p, struct hvb_matrix *m)
{
    struct hvb_symbols *sym = NULL;
    char path[4096];
    size_t c;

    p->status = hvb_wait_view_stop(&p->wv);
    if ( p->status == 0 )
        p->status = cells_open(p, m, &sym);
    for ( c = 0; p->status == 0 && c < m->nr_cells; c++ )
    {
        snprintf(path, sizeof(path), "%s/%s-wait.folded", p->dir,
                 p->cells[c].slug);
        p->status = hvb_wait_view_cell(
            &p->wv, sym, path, c, atomic_load(&p->w[c].ops), &p->cells[c].wait);
    }
    if ( sym != NULL )
        hvb_symbols_close(sym);
}

/*
 * --view offcpu, wall: each cell's spans (and for wall its threads'
 * samples, p->cells[].samples) into DIR/<cell>-offcpu|wall.folded.
 */
static void pr_after_offcpu(struct prof *p, struct hvb_matrix *m)
{
    struct hvb_symbols *sym = NULL;
    char path[4096];
    size_t c;

    p->status = hvb_offcpu_view_stop(&p->ov, p->win, p->nr_win);
    if ( p->status == 0 )
        p->status = cells_open(p, m, &sym);
    for ( c = 0; p->status == 0 && c < m->nr_cells; c++ )
    {
        snprintf(path, sizeof(path), "%s/%s%s.folded", p->dir, p->cells[c].slug,
                 view_info[p->view].sfx);
        p->status = hvb_offcpu_view_cell(
            &p->ov, sym, path, c, atomic_load(&p->w[c].ops), samples(p),
            1000000000ull / p->freq, &p->cells[c].off);
    }
    if ( sym != NULL )
        hvb_symbols_close(sym);
}

static void pr_after(void *ctx, struct hvb_matrix *m)
{
    struct prof *p = ctx;
    const struct hvb_sample_buf *b;
    struct hvb_symbols *sym = NULL;
    size_t *owner = NULL, off, idx, c;
    char path[4096], err[512];
    int rc = 0;

    if ( p->view == PR_VIEW_WAIT )
    {
        pr_after_wait(p, m);
        return;
    }
    if ( p->view == PR_VIEW_OFFCPU )
    {
        pr_after_offcpu(p, m);
        return;
    }
    if ( p->pf != NULL )
    {
        if ( hvb_perf_stop(p->pf, &p->pbuf, &p->lost, err, sizeof(err)) )
        {
            p->status = hvb_failure("profile: %s", err);
            return;
        }
    }
    else
    {
        rc = hvb_sampler_stop(p->s);
        if ( rc )
            hvb_failure("profile: samples dropped: out of memory");
        p->lost = hvb_sampler_lost(p->s);
    }
    if ( p->view == PR_VIEW_WALL )
    {
        pr_after_offcpu(p, m);
        return;
    }
    b = samples(p);
    hvb_twindow_sort(p->win, p->nr_win);
    owner = calloc(b->nr_samples + 1, sizeof(*owner));
    if ( owner == NULL )
        p->status = hvb_failure("out of memory");
    else
        p->status = cells_open(p, m, &sym);
    if ( p->status )
    {
        if ( sym != NULL )
            hvb_symbols_close(sym);
        free(owner);
        return;
    }
    for ( off = 0, idx = 0; off < b->len;
          off += HVB_SAMPLE_HDR + b->v[off + 2], idx++ )
    {
        owner[idx] = hvb_twindow_cell_at(p->win, p->nr_win, b->v[off]);
        if ( owner[idx] == SIZE_MAX )
            p->unattributed++;
    }
    for ( c = 0; c < m->nr_cells; c++ )
    {
        snprintf(path, sizeof(path), "%s/%s.folded", p->dir, p->cells[c].slug);
        rc = hvb_folded_write(path, b, sym, owner, c, &p->cells[c].samples,
                              &p->cells[c].mean_depth);
        if ( rc != 0 )
        {
            p->status =
                hvb_failure("profile: writing %s: %s", path, strerror(-rc));
            break;
        }
    }
    hvb_symbols_close(sym);
    free(owner);
}

/*
 * A cpu view's sample of cell @c, in CPU ns per op: cpu-clock's period
 * over the cell's ops (every thread's samples, user mode), else the
 * measured threads' CPU time over the samples (cycles, perf: no period).
 */
static double sample_ns(const struct prof *p, size_t c, bool *by_period)
{
    uint64_t per = p->pf ? 0 : hvb_sampler_period_ns(p->s),
             ops = atomic_load(&p->w[c].ops);

    *by_period = per && ops;
    if ( *by_period )
        return (double)per / (double)ops;
    return p->cells[c].samples
               ? p->cells[c].cpu_ns_per_op / (double)p->cells[c].samples
               : 0;
}

static json_t *pr_cell(void *ctx, size_t i)
{
    struct prof *p = ctx;
    const char *x = view_info[p->view].sfx;
    char f[1100], svg[1100], ss[1100];
    bool per;
    double w;
    json_t *o;

    if ( p->cells == NULL || i >= p->nr_cells || p->cells[i].slug == NULL )
        return NULL;
    snprintf(f, sizeof(f), "%s%s.folded", p->cells[i].slug, x);
    snprintf(svg, sizeof(svg), "%s%s.svg", p->cells[i].slug, x);
    snprintf(ss, sizeof(ss), "%s%s.speedscope.json", p->cells[i].slug, x);
    o = json_pack("{s:s, s:s, s:s, s:s}", "view", views[p->view], "folded", f,
                  "flamegraph", svg, "speedscope", ss);
    if ( p->view == PR_VIEW_WAIT )
        json_object_update_new(o, hvb_wait_view_json(&p->cells[i].wait));
    else if ( p->ov_open )
        json_object_update_new(
            o, hvb_offcpu_view_json(&p->cells[i].off, p->view == PR_VIEW_WALL));
    else
        json_object_update_new(o, json_pack("{s:I, s:f}", "samples",
                                            (json_int_t)p->cells[i].samples,
                                            "mean_stack_depth",
                                            p->cells[i].mean_depth));
    if ( p->view == PR_VIEW_CPU && (w = sample_ns(p, i, &per), per) )
        json_object_update_new(
            o, json_pack("{s:I, s:f, s:f}", "ops",
                         (json_int_t)atomic_load(&p->w[i].ops), "ns_per_sample",
                         w, "cpu_ns_per_op", w * (double)p->cells[i].samples));
    return o;
}

static void pr_annotate(void *ctx, const struct hvb_matrix *m,
                        const struct hvb_summary *s, json_t *root)
{
    struct prof *p = ctx;

    json_t *run;

    if ( p->view == PR_VIEW_WAIT )
        run = json_pack("{s:s, s:s, s:s, s:s?, s:s, s:I, s:I}", "dir", ".",
                        "view", "wait", "backend", "lockstat", "event",
                        p->event, "unit", "wait ns/op", "dropped_acquisitions",
                        (json_int_t)p->wv.dropped, "dropped_waits",
                        (json_int_t)p->wv.stacks_dropped);
    else if ( p->ov_open )
    {
        run =
            json_pack("{s:s, s:s, s:s, s:s?, s:s, s:I, s:I}", "dir", ".",
                      "view", views[p->view], "backend", "inprocess", "event",
                      p->view == PR_VIEW_WALL ? "cpu-clock + sched:sched_switch"
                                              : "sched:sched_switch",
                      "unit", view_info[p->view].unit, "lost_switches",
                      (json_int_t)hvb_switches_lost(p->ov.sw),
                      "unpaired_switches", (json_int_t)p->ov.oc.unpaired);
        if ( p->view == PR_VIEW_WALL )
            json_object_update_new(run, json_pack("{s:i, s:I}", "frequency_hz",
                                                  (int)p->freq, "lost_samples",
                                                  (json_int_t)p->lost));
    }
    else
        run = json_pack(
            "{s:s, s:s, s:s, s:s?, s:i, s:I, s:I}", "dir", ".", "view", "cpu",
            "backend", p->pf != NULL ? "perf" : "inprocess", "event", p->event,
            "frequency_hz", p->freq, "lost_samples", (json_int_t)p->lost,
            "unattributed_samples", (json_int_t)p->unattributed);
    json_object_update_new(run, hvb_profile_scope_json(p->s, p->ov.sw));
    if ( p->ov.why[0] ) /* --view offcpu without the tracepoint */
        json_object_update_new(run, json_pack("{s:s, s:s}", "requested_view",
                                              "offcpu", "fallback", p->ov.why));
    hvb_run_annotate(root, m, "profile", run, pr_cell, p);
}

static void render_cell(struct prof *p, const struct hvb_matrix *m, size_t c)
{
    const char *x = view_info[p->view].sfx;
    const struct hvb_wait_cell *w = &p->cells[c].wait;
    char folded[1200], svg[1200], ss[1200], title[600], sub[300];
    char *args[] = {"render",
                    "--title",
                    title,
                    "--subtitle",
                    sub,
                    "--unit",
                    (char *)view_info[p->view].unit,
                    folded,
                    svg,
                    ss,
                    NULL};

    snprintf(folded, sizeof(folded), "%s/%s%s.folded", p->dir, p->cells[c].slug,
             x);
    snprintf(svg, sizeof(svg), "%s/%s%s.svg", p->dir, p->cells[c].slug, x);
    snprintf(ss, sizeof(ss), "%s/%s%s.speedscope.json", p->dir,
             p->cells[c].slug, x);
    snprintf(title, sizeof(title), "%s%s", m->cells[c].name,
             view_info[p->view].title);
    if ( p->ov_open )
        hvb_offcpu_view_subtitle(sub, sizeof(sub), &p->cells[c].off,
                                 p->view == PR_VIEW_WALL);
    else if ( p->view == PR_VIEW_WAIT )
        snprintf(sub, sizeof(sub),
                 "wait per op (ns) on the model's locks: %.1f ns/op, "
                 "%" PRIu64 " contended acquisitions over %" PRIu64 " ops",
                 w->t.wait_ns_per_op, w->t.contended, w->ops);
    else
        snprintf(sub, sizeof(sub), "%s samples at %u Hz, %" PRIu64 " samples",
                 p->event, p->freq, p->cells[c].samples);
    if ( hvb_render_run("flamegraph.py", args) != 0 )
        p->status = hvb_failure("profile: drawing %s failed", svg);
}

static void render_diff(struct prof *p, const struct hvb_matrix *m, size_t a,
                        size_t b)
{
    const char *x = view_info[p->view].sfx;
    bool cpu = p->view == PR_VIEW_CPU;
    char fa[1200], fb[1200], prefix[2400], sa[64], sb[64], title[600];
    char pair[1100];
    bool per;
    char *args[] = {"diff",
                    "--title",
                    title,
                    "--scale-a",
                    sa,
                    "--scale-b",
                    sb,
                    "--unit",
                    cpu ? "CPU ns/op" : (char *)view_info[p->view].unit,
                    fa,
                    fb,
                    prefix,
                    cpu ? NULL : "--stacks", /* ranked: leaves are shared */
                    NULL};

    snprintf(fa, sizeof(fa), "%s/%s%s.folded", p->dir, p->cells[a].slug, x);
    snprintf(fb, sizeof(fb), "%s/%s%s.folded", p->dir, p->cells[b].slug, x);
    hvb_folded_pair_name(p->cells[a].slug, p->cells[b].slug, pair,
                         sizeof(pair));
    snprintf(prefix, sizeof(prefix), "%s/diff%s-%s", p->dir, x, pair);
    snprintf(sa, sizeof(sa), "%.9g", sample_ns(p, a, &per));
    snprintf(sb, sizeof(sb), "%.9g", sample_ns(p, b, &per));
    if ( !cpu ) /* the weights are per op already */
    {
        snprintf(sa, sizeof(sa), "1");
        snprintf(sb, sizeof(sb), "1");
    }
    snprintf(title, sizeof(title), "%s -> %s%s", m->cells[a].name,
             m->cells[b].name, view_info[p->view].title);
    if ( hvb_render_run("flamegraph.py", args) != 0 )
        p->status = hvb_failure("profile: drawing %s failed", prefix);
}

/* The cpu view's summary line and warnings (stderr). */
static void cpu_notes(struct prof *p, const struct hvb_matrix *m,
                      const struct hvb_summary *s)
{
    size_t c;

    fprintf(stderr,
            "hvbench: profile: %s at %u Hz, %zu samples, %" PRIu64
            " lost, %" PRIu64 " outside the cells\n",
            p->event, p->freq, samples(p)->nr_samples, p->lost,
            p->unattributed);
    for ( c = 0; c < p->nr_cells; c++ )
    {
        p->cells[c].cpu_ns_per_op =
            s->cells[c].nr_good ? s->cells[c].cpu.median : 0;
        if ( p->cells[c].samples > 0 && p->cells[c].mean_depth < 4 )
            fprintf(stderr,
                    "hvbench: warning: %s: mean stack depth %.1f: frame "
                    "pointers missing? (build with -fno-omit-frame-pointer)\n",
                    m->cells[c].name, p->cells[c].mean_depth);
        if ( p->cells[c].samples < 100 )
            fprintf(stderr,
                    "hvbench: warning: %s: only %" PRIu64
                    " samples; raise --min-time or --frequency\n",
                    m->cells[c].name, p->cells[c].samples);
    }
}

/* The wait view's line per cell (stderr). */
static void wait_notes(struct prof *p, const struct hvb_matrix *m)
{
    size_t c;

    for ( c = 0; c < p->nr_cells; c++ )
    {
        const struct hvb_wait_cell *w = &p->cells[c].wait;

        fprintf(stderr,
                "hvbench: profile: %s: wait %.1f ns/op on the model's locks "
                "(lockstat %.1f), %" PRIu64 " contended acquisitions, %zu "
                "stacks\n",
                m->cells[c].name, w->t.wait_ns_per_op, w->lockstat_ns_per_op,
                w->t.contended, w->t.stacks);
    }
    if ( p->wv.stacks_dropped )
        fprintf(stderr,
                "hvbench: warning: %" PRIu64
                " waits not in the stacks (a thread's table was full)\n",
                p->wv.stacks_dropped);
}

/* The off-CPU and wall views' line per cell and warnings (stderr). */
static void offcpu_notes(struct prof *p, const struct hvb_matrix *m)
{
    size_t c;

    for ( c = 0; c < p->nr_cells; c++ )
        hvb_offcpu_view_note(m->cells[c].name, &p->cells[c].off,
                             p->view == PR_VIEW_WALL);
    hvb_offcpu_view_warn(&p->ov, p->lost);
}

static void pr_print(void *ctx, const struct hvb_matrix *m,
                     const struct hvb_summary *s)
{
    struct prof *p = ctx;
    char la[256], lb[256];
    size_t c, d, slot;

    if ( p->cells == NULL || p->status )
        return;
    if ( p->view == PR_VIEW_WAIT )
        wait_notes(p, m);
    else if ( p->ov_open )
        offcpu_notes(p, m);
    else
        cpu_notes(p, m, s);
    hvb_profile_scope_note(p->s, p->ov.sw);
    for ( c = 0; c < p->nr_cells; c++ )
        render_cell(p, m, c);
    if ( p->diff == NULL )
        return;
    if ( hvb_profile_diff_parse(m, p->diff, &slot, la, lb, sizeof(la)) )
        return; /* checked before the run */
    for ( c = 0; c < m->nr_cells; c++ )
    {
        if ( strcmp(m->slots[slot].labels[m->cells[c].slot_sel[slot]], la) )
            continue;
        for ( d = 0; d < m->nr_cells; d++ )
            if ( strcmp(m->slots[slot].labels[m->cells[d].slot_sel[slot]],
                        lb) == 0 &&
                 hvb_profile_same_but(&m->cells[c], &m->cells[d], slot) )
                render_diff(p, m, c, d);
    }
}

/* The values of --event (by enum value) and --backend. */
static const char *const events[] = {[HVB_EV_AUTO] = "auto",
                                     [HVB_EV_CPU_CLOCK] = "cpu-clock",
                                     [HVB_EV_CYCLES] = "cycles",
                                     NULL};
enum {
    PR_BACKEND_INPROCESS,
    PR_BACKEND_PERF
};
static const char *const backends[] = {
    [PR_BACKEND_INPROCESS] = "inprocess", [PR_BACKEND_PERF] = "perf", NULL};

/* profile's own options; the rest go to run's parser. */
#define P struct prof
static const struct hvb_optdef profile_opts[] = {
    HVB_OPT_STR("out", 'o', "DIR", P, dir, "output directory (created)"),
    HVB_OPT_STR("diff", 0, "SLOT=A,B", P, diff,
                "for every pair of cells differing only in SLOT's plugin A "
                "-> B: differential flame graphs (widths before and after; "
                "red grew, blue shrank) normalised to CPU ns per op, and a "
                "ranked table of functions that grew, shrank, appeared and "
                "vanished (stdout and DIR/diff-*.md)"),
    HVB_OPT_UINT(
        "frequency", 'F', "HZ", P, freq, 1, 100000,
        "samples per second per thread (default " HVB_STR(DEFAULT_FREQ) ")"),
    HVB_OPT_CHOICE("event", 0, "auto|cpu-clock|cycles", P, ev, events,
                   "the sampling event: auto (cycles where a PMU exists, "
                   "else cpu-clock; default), cpu-clock, cycles (run's "
                   "--events adds counted ones)"),
    HVB_OPT_CHOICE("backend", 0, "inprocess|perf", P, backend, backends,
                   "inprocess (perf_event_open; default) or perf (perf "
                   "record -g + perf script)"),
    HVB_OPT_CHOICE("view", 0, "cpu|wait|offcpu|wall", P, view, views,
                   "cpu: sampled stacks (default); wait: the stacks that "
                   "waited for the model's locks, weighted by wait ns per "
                   "op, the lock class as the leaf ([wait] CLASS), into "
                   "<cell>-wait.folded, .svg, .speedscope.json; offcpu: "
                   "the cell's threads' time off CPU by the stack they "
                   "blocked in (sched:sched_switch, kernel frames _[k]), "
                   "into <cell>-offcpu.*; wall: on-CPU samples and off-CPU "
                   "time in one graph (<cell>-wall.*), the share not "
                   "accounted for printed"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef P

const struct hvb_cmd_doc hvb_doc_profile = {
    .usage = "profile WORKLOAD [run options] --out DIR\n"
             "                       [--diff SLOT=A,B] [--frequency HZ]\n"
             "                       [--event auto|cpu-clock|cycles]\n"
             "                       [--backend inprocess|perf]\n"
             "                       [--view cpu|wait|offcpu|wall]",
    .text =
        "Run WORKLOAD as 'hvbench run' does (same options) under a\n"
        "sampling profiler and write, per cell, into DIR:\n"
        "  <cell>.folded           folded stacks (flamegraph.pl, inferno,\n"
        "                          speedscope, difffolded.pl), from the\n"
        "                          thread's root frames: the cell is\n"
        "                          named by the file\n"
        "  <cell>.svg              interactive flame graph (hover, click to\n"
        "                          zoom, search; works offline)\n"
        "  <cell>.speedscope.json  for https://www.speedscope.app (local)\n"
        "and results.json (the run; hvbench.profile lists the files).\n"
        "--view wait writes <cell>-wait.folded, -wait.svg and\n"
        "-wait.speedscope.json instead: the call stacks of the contended\n"
        "acquisitions of the model's locks, weighted by their wait in ns\n"
        "per op, the lock class as the leaf frame ('[wait] CLASS'); the\n"
        "sum of a file's weights is lockstat's wait_ns_per_op of the cell.\n"
        "--view offcpu writes <cell>-offcpu.*: the time the cell's threads\n"
        "(its measured ones, and the others while it runs: daemons, pools)\n"
        "spent off CPU (sched:sched_switch, as root), by the stack\n"
        "they blocked in, user then kernel frames ('_[k]'), the leaf saying\n"
        "why ('[off-cpu]' slept, '[off-cpu: preempted]', '[off-cpu:\n"
        "modelled sleep]'), in ns per op.  --view wall writes <cell>-wall.*:\n"
        "those and the threads' on-CPU samples (cpu-clock, the period each)\n"
        "in one graph, so its total is their wall time per op; the share\n"
        "neither accounts for is printed.  Without the tracepoint, --view\n"
        "offcpu shows the model's lock waits alone (the wait view) and says\n"
        "so; --view wall refuses.  As root the events are CPU-wide (other\n"
        "processes' records left out); else, or with HVBENCH_PERF_PER_TASK=1,\n"
        "per task, which makes each of the threads' context switches dearer.",
    .opts = profile_opts,
    .inherits = "run",
    .notes = "exit status: 0 success, 1 a cell or the profiler failed, 2 "
             "usage",
};

/*
 * profile's options out of @argv, the rest (run's) into @nargv: -1 to
 * go on, or the exit status.
 */
static int pr_parse(struct prof *p, int argc, char **argv, char **nargv,
                    int *nargc)
{
    int i, rc;

    for ( i = 0; i < argc; i++ )
    {
        const char *a = argv[i];

        rc = i > 0 ? hvb_opt_take(profile_opts, &hvb_doc_profile, p, argc, argv,
                                  &i)
                   : 0;
        if ( rc == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( rc == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        if ( rc > 0 )
            continue;
        if ( i > 0 && (!strncmp(a, "--format", 8) || !strcmp(a, "-f")) )
            return hvb_usage_error("profile does not take --format");
        nargv[(*nargc)++] = argv[i];
    }
    return -1;
}

/* Check what was asked and start the profiler: 0, or the exit status. */
static int pr_setup(struct prof *p)
{
    char err[512];

    if ( p->dir == NULL )
        return hvb_usage_error("profile needs --out DIR");
    if ( p->diff != NULL && (strchr(p->diff, '=') == NULL ||
                             strchr(strchr(p->diff, '='), ',') == NULL) )
        return hvb_usage_error("bad value '%s' for --diff (SLOT=A,B)", p->diff);
    if ( mkdir(p->dir, 0777) && errno != EEXIST )
        return hvb_usage_error("profile: cannot create '%s': %s", p->dir,
                               strerror(errno));
    if ( p->view == PR_VIEW_WAIT && p->backend == PR_BACKEND_PERF )
        return hvb_usage_error("profile: --view wait reads the lock "
                               "profiler, not perf: drop --backend perf");
    if ( p->view == PR_VIEW_WAIT && !hv_lockstat_available() )
        return hvb_usage_error("profile: --view wait needs the lock profiler "
                               "(built with -DHVB_LOCKSTAT=OFF)");
    if ( p->backend == PR_BACKEND_PERF &&
         hvb_perf_start(&p->pf, p->dir, p->ev, p->freq, err, sizeof(err)) )
        return hvb_usage_error("profile: %s", err);
    if ( p->view == PR_VIEW_OFFCPU || p->view == PR_VIEW_WALL )
    {
        bool wall = p->view == PR_VIEW_WALL;
        int rc = hvb_offcpu_view_setup(&p->ov, wall, p->ev == HVB_EV_CYCLES,
                                       p->backend == PR_BACKEND_PERF);

        p->ev = HVB_EV_CPU_CLOCK;
        p->ov_open = rc == 0;
        if ( rc == -1 )
            p->view = PR_VIEW_WAIT; /* the fallback, said */
        return rc > 0 ? rc : 0;
    }
    return 0;
}

static void pr_free(struct prof *p)
{
    size_t i;

    if ( p->s != NULL )
        hvb_sampler_close(p->s);
    hvb_perf_close(p->pf);
    free(p->pbuf.v);
    for ( i = 0; p->cells && i < p->nr_cells; i++ )
        free(p->cells[i].slug);
    free(p->cells);
    hvb_wait_view_free(&p->wv);
    if ( p->ov_open )
        hvb_offcpu_view_free(&p->ov);
    free(p->win);
    free(p->w);
}

int hvb_cmd_profile(struct hvb_cmd_ctx *ctx)
{
    struct prof p = {.ev = HVB_EV_AUTO, .freq = DEFAULT_FREQ};
    struct hvb_run_hooks h = {
        .ctx = &p,
        .before = pr_before,
        .after = pr_after,
        .annotate = pr_annotate,
        .print = pr_print,
    };
    char **nargv = calloc((size_t)ctx->argc + 3, sizeof(*nargv));
    char results[4096];
    int nargc = 0, status;

    if ( nargv == NULL )
        return hvb_failure("out of memory");
    pthread_mutex_init(&p.lock, NULL);
    status = pr_parse(&p, ctx->argc, ctx->argv, nargv, &nargc);
    if ( status < 0 && (status = pr_setup(&p)) == 0 )
    {
        snprintf(results, sizeof(results), "%s/results.json", p.dir);
        nargv[nargc++] = "--out";
        nargv[nargc++] = results;
        status = hvb_cmd_run_as(ctx, nargc, nargv, &h);
        if ( (status == HVB_EXIT_OK || p.status == HVB_EXIT_USAGE) && p.status )
            status = p.status; /* a bad --diff is exit 2 */
    }
    pr_free(&p);
    free(nargv);
    return status;
}
