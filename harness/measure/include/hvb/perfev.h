/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_event_open counter groups, read with PERF_FORMAT_GROUP |
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING and scaled for multiplexing.
 * Hardware events are named as libpfm4 names them ("cycles",
 * "instructions", "cache-misses", "branch-misses") and encoded by
 * libpfm4; software events are opened directly.  One group per measured
 * thread and run, opened on the calling thread, enabled from open to
 * close: the window is the difference of two reads.
 */
#ifndef HVB_PERFEV_H
#define HVB_PERFEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* libpfm4 ships its own copy of the kernel ABI header; use only it. */
#include <perfmon/pfmlib_perf_event.h>

#define HVB_PERFEV_MAX 8

struct hvb_perfev_def {
    const char *name; /* the counter name (without "_per_op") */
    struct perf_event_attr attr;
};

/*
 * --events: extra events asked by name, at most HVB_PERFEV_EXTRA_MAX so
 * that they fit one group with cycles and instructions.
 */
#define HVB_PERFEV_EXTRA_MAX 6
#define HVB_PERFEV_KEY_MAX   48 /* a key, with the NUL ("_per_op" follows) */

struct hvb_perfev_extra {
    char name[128];               /* as asked, shortcuts expanded */
    char key[HVB_PERFEV_KEY_MAX]; /* the counter: key + "_per_op" */
    struct perf_event_attr attr;  /* libpfm4's encoding, if encoded */
    bool encoded;  /* false: an event of a PMU this machine lacks */
    char why[192]; /* when !encoded: why */
};

struct hvb_perfev_list {
    unsigned int nr;
    struct hvb_perfev_extra ev[HVB_PERFEV_EXTRA_MAX];
};

struct hvb_perfev_group {
    unsigned int nr;
    bool solo; /* every event its own leader, read one by one */
    int fd[HVB_PERFEV_MAX];
};

/* One read of a group: the layout PERF_FORMAT_GROUP gives. */
struct hvb_perfev_read {
    uint64_t nr, time_enabled, time_running;
    uint64_t value[HVB_PERFEV_MAX];
};

/*
 * hvb_perfev_scale - @raw counted while running @running of @enabled ns:
 * the estimate of the whole window (raw * enabled / running, in 128-bit
 * arithmetic), and the coverage running / enabled in @coverage.  NaN
 * (and coverage 0) if the event never ran.
 */
double hvb_perfev_scale(uint64_t raw, uint64_t enabled, uint64_t running,
                        double *coverage);

/*
 * hvb_perfev_delta - the scaled count of event @i between reads @a and
 * @b (the window's own enabled/running times), coverage in @coverage.
 */
double hvb_perfev_delta(const struct hvb_perfev_read *a,
                        const struct hvb_perfev_read *b, unsigned int i,
                        double *coverage);

/*
 * hvb_perfev_add_list - append the comma-separated events of @list to
 * @l: each name as libpfm4 knows it ("cache-misses", "LLC-load-misses",
 * "skl::L2_RQSTS:MISS", "perf::PERF_COUNT_SW_PAGE_FAULTS"), or the
 * shortcuts "cache" (cache-references,cache-misses) and "branch"
 * (branches,branch-misses).  Its key is the name in [a-z0-9_] ("perf::"
 * dropped); a repeated key, "cycles" and "instructions" (always measured)
 * are skipped.  A name of a PMU libpfm4 knows but this machine lacks is
 * kept unencoded with its reason.  -EINVAL with @err (one line) for an
 * empty or unknown name, or too many events.
 */
int hvb_perfev_add_list(struct hvb_perfev_list *l, const char *list, char *err,
                        size_t len);

/* Encode libpfm4 event @name into @attr.  0 or -errno with @why set. */
int hvb_perfev_encode(const char *name, struct perf_event_attr *attr, char *why,
                      size_t len);

/*
 * A software event by perf's name ("task-clock", ...); -ENOENT if
 * unknown.  @kernel: count what happens in the kernel on the thread's
 * behalf too: a context switch or a migration always does, so with user
 * space only they read 0 (it needs perf_event_paranoid <= 1 or
 * CAP_PERFMON).
 */
int hvb_perfev_software(const char *name, bool kernel,
                        struct perf_event_attr *attr);

/*
 * Open @defs[0..nr) as one group on the calling thread (hardware events:
 * user space only; software events as their attr says).  0, or -errno
 * with the group closed and @why naming the event and cause.
 *
 * hvb_perfev_open_solo: the same events, each its own leader, which
 * hvb_perfev_readg() reads one after another into the same layout.  For
 * software events, which are never multiplexed, so a group buys nothing:
 * Linux 6.18 loses some or all of a page-fault sibling's counts in a
 * group led by task-clock (12,900-14,900 of 16,386 faults of 64 MiB of
 * first touches, measured), where a lone event counts every one.
 */
int hvb_perfev_open(struct hvb_perfev_group *g,
                    const struct hvb_perfev_def *defs, unsigned int nr,
                    char *why, size_t len);
int hvb_perfev_open_solo(struct hvb_perfev_group *g,
                         const struct hvb_perfev_def *defs, unsigned int nr,
                         char *why, size_t len);
int hvb_perfev_readg(const struct hvb_perfev_group *g,
                     struct hvb_perfev_read *r);
void hvb_perfev_close(struct hvb_perfev_group *g);

#endif /* HVB_PERFEV_H */
