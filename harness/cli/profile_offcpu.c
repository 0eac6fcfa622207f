/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench profile --view offcpu|wall": the context-switch recorder
 * (hvb/switches.h) runs beside the cells, and at the end each cell gets
 * DIR/<cell>-offcpu.folded (the time the cell's threads spent off CPU,
 * by the stack they blocked in) or DIR/<cell>-wall.folded (that, and
 * their on-CPU samples at the sampling period each), in ns per op
 * (hvb/offcpu.h), drawn by cmd_profile.c as the other views' files are.
 * E.g. lock-hold lock=mutex hold_ns=200000 --frequency 4999 --view wall:
 * wall 502503.8 ns/op of its 2 threads (the waiter, the holder), on CPU
 * 267353.5 (the holder's busy-wait) + off CPU 245933.5 (the waiter's
 * futex), 2.1% over the wall: sampling and the switch's own moment,
 * counted on both sides.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hv/lockstat.h>
#include <hvb/cli.h>

#include "private.h"

int hvb_offcpu_view_open(struct hvb_offcpu_view *v, bool wall, char *err,
                         size_t len)
{
    int rc;

    memset(v, 0, sizeof(*v));
    v->wall = wall;
    rc = hvb_switches_open(&v->sw, err, len);
    if ( rc == 0 && (v->ks = hvb_ksyms_open()) == NULL )
        rc = -ENOMEM;
    return rc;
}

int hvb_offcpu_view_setup(struct hvb_offcpu_view *v, bool wall, bool cycles,
                          bool perf)
{
    const char *view = wall ? "wall" : "offcpu";
    char err[512] = "";

    if ( perf )
        return hvb_usage_error("profile: --view %s records in process: drop "
                               "--backend perf",
                               view);
    if ( wall && cycles )
        return hvb_usage_error("profile: --view wall samples cpu-clock (time "
                               "on CPU): drop --event cycles");
    if ( hvb_offcpu_view_open(v, wall, err, sizeof(err)) == 0 )
        return 0;
    hvb_offcpu_view_free(v);
    snprintf(v->why, sizeof(v->why), "%s", err[0] ? err : "out of memory");
    if ( wall || !hv_lockstat_available() )
        return hvb_usage_error("profile: --view %s: %s", view,
                               err[0] ? err : "out of memory");
    fprintf(stderr,
            "hvbench: warning: profile: %s: the off-CPU view shows the "
            "model's lock waits alone (the wait view, <cell>-wait.*)\n",
            err[0] ? err : "out of memory");
    return -1;
}

int hvb_offcpu_view_enable(struct hvb_offcpu_view *v)
{
    return hvb_switches_enable(v->sw);
}

int hvb_offcpu_view_stop(struct hvb_offcpu_view *v, const struct hvb_twindow *w,
                         size_t nw)
{
    int rc = hvb_switches_stop(v->sw);

    if ( rc == 0 )
        rc = hvb_offcpu_build(&v->oc, hvb_switches_log(v->sw), w, nw,
                              (uint64_t)getpid());
    if ( rc )
        return hvb_failure("profile: out of memory recording switches");
    return 0;
}

int hvb_offcpu_view_cell(struct hvb_offcpu_view *v, struct hvb_symbols *sym,
                         const char *path, size_t c, uint64_t ops,
                         const struct hvb_sample_buf *cpu, uint64_t period_ns,
                         struct hvb_offcpu_total *out)
{
    int rc = hvb_offcpu_write(&v->oc, c, ops, sym, v->ks, v->wall ? cpu : NULL,
                              period_ns, path, out);

    if ( rc )
        return hvb_failure("profile: writing %s: %s", path, strerror(-rc));
    return 0;
}

static double per_op(uint64_t ns, uint64_t ops)
{
    return ops ? (double)ns / (double)ops : 0;
}

/* "N% not accounted for", or "N% over the wall" when on + off exceed it. */
static const char *accounted(char *buf, size_t len, double share)
{
    snprintf(buf, len, "%.1f%% %s", 100.0 * (share < 0 ? -share : share),
             share < 0 ? "over the wall" : "not accounted for");
    return buf;
}

double hvb_offcpu_unaccounted(const struct hvb_offcpu_total *t, bool wall)
{
    double acc = (double)t->off_ns + (wall ? (double)t->on_ns : 0);

    return t->wall_ns ? 1.0 - acc / (double)t->wall_ns : 0;
}

json_t *hvb_offcpu_view_json(const struct hvb_offcpu_total *t, bool wall)
{
    json_t *o = json_pack(
        "{s:s, s:I, s:f, s:f, s:f, s:f, s:I, s:I}", "unit",
        wall ? "wall ns/op" : "off-CPU ns/op", "ops", (json_int_t)t->ops,
        "wall_ns_per_op", per_op(t->wall_ns, t->ops), "off_cpu_ns_per_op",
        per_op(t->off_ns, t->ops), "preempted_ns_per_op",
        per_op(t->preempted_ns, t->ops), "modelled_sleep_ns_per_op",
        per_op(t->modelled_ns, t->ops), "off_cpu_spans", (json_int_t)t->spans,
        "stacks", (json_int_t)t->stacks);

    json_object_update_new(
        o, json_pack("{s:I, s:I, s:f}", "threads", (json_int_t)t->threads,
                     "measured_threads", (json_int_t)t->measured,
                     "idle_ns_per_op", per_op(t->idle_ns, t->ops)));

    if ( wall )
        json_object_update_new(
            o,
            json_pack("{s:f, s:I, s:f, s:f, s:f}", "on_cpu_ns_per_op",
                      per_op(t->on_ns, t->ops), "on_cpu_samples",
                      (json_int_t)t->samples, "unaccounted_share",
                      hvb_offcpu_unaccounted(t, true),
                      "worst_thread_unaccounted_share", t->worst_unaccounted,
                      "worst_thread_sampling_error", t->worst_sampling_error));
    return o;
}

void hvb_offcpu_view_note(const char *cell, const struct hvb_offcpu_total *t,
                          bool wall)
{
    double off = per_op(t->off_ns, t->ops);
    char acc[64];

    if ( !wall )
    {
        fprintf(stderr,
                "hvbench: profile: %s: off CPU %.1f ns/op (preempted %.1f, "
                "modelled sleeps %.1f, idle %.1f) of %.1f ns/op of its %zu "
                "threads' wall time, %" PRIu64 " spans\n",
                cell, off, per_op(t->preempted_ns, t->ops),
                per_op(t->modelled_ns, t->ops), per_op(t->idle_ns, t->ops),
                per_op(t->wall_ns, t->ops), t->threads, t->spans);
        return;
    }
    fprintf(stderr,
            "hvbench: profile: %s: wall %.1f ns/op of its %zu threads: on "
            "CPU %.1f (%" PRIu64 " samples) + off CPU %.1f (preempted %.1f, "
            "modelled sleeps %.1f, idle %.1f); %s (the worst thread %.1f%% "
            "off)\n",
            cell, per_op(t->wall_ns, t->ops), t->threads,
            per_op(t->on_ns, t->ops), t->samples, off,
            per_op(t->preempted_ns, t->ops), per_op(t->modelled_ns, t->ops),
            per_op(t->idle_ns, t->ops),
            accounted(acc, sizeof(acc), hvb_offcpu_unaccounted(t, true)),
            100.0 * t->worst_unaccounted);
}

void hvb_offcpu_view_warn(const struct hvb_offcpu_view *v,
                          uint64_t lost_samples)
{
    uint64_t lost = hvb_switches_lost(v->sw);

    if ( lost || lost_samples )
        fprintf(stderr,
                "hvbench: warning: the kernel dropped %" PRIu64
                " context switches and %" PRIu64
                " samples (its buffers were full): some time is not "
                "accounted for\n",
                lost, lost_samples);
}

void hvb_offcpu_view_subtitle(char *buf, size_t len,
                              const struct hvb_offcpu_total *t, bool wall)
{
    char acc[64];

    if ( wall )
        snprintf(buf, len,
                 "wall time per op of the cell's %zu threads: %.1f ns/op, on "
                 "CPU %.1f + off CPU %.1f; %s",
                 t->threads, per_op(t->wall_ns, t->ops),
                 per_op(t->on_ns, t->ops), per_op(t->off_ns, t->ops),
                 accounted(acc, sizeof(acc), hvb_offcpu_unaccounted(t, true)));
    else
        snprintf(buf, len,
                 "off-CPU time per op of the cell's %zu threads "
                 "(sched:sched_switch): %.1f ns/op of %.1f, %" PRIu64
                 " spans over %" PRIu64 " ops",
                 t->threads, per_op(t->off_ns, t->ops),
                 per_op(t->wall_ns, t->ops), t->spans, t->ops);
}

void hvb_offcpu_view_free(struct hvb_offcpu_view *v)
{
    hvb_offcpu_free(&v->oc);
    hvb_switches_close(v->sw);
    hvb_ksyms_close(v->ks);
    memset(v, 0, sizeof(*v));
}
