/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cli room (harness/cli/): the hvbench command line.  main.c checks
 * the registries and dispatches through the table of commands
 * (commands.c, hvb/cli.h); the commands too small for a room of their
 * own live here: list, report, profile (with profile_diff.c), lockstat,
 * help (cmd_docs.c, also the man pages) and completion.  Each feature
 * has a room below this one (docs/hacking.md, "A tour of the tree"):
 * cmdline (the option rows and their parser), session (run), fleet
 * (fleet, merge, compare --hosts), gate (compare, gate, worker) and
 * reproduce.  This room is the only one that sees every other.
 *
 * This header holds what the room's files share among themselves.
 */
#ifndef HVB_CLI_PRIVATE_H
#define HVB_CLI_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <hv/lockstat.h>
#include <hvb/ksyms.h>
#include <hvb/matrix.h>
#include <hvb/offcpu.h>
#include <hvb/switches.h>
#include <hvb/symbols.h>
#include <hvb/wait_folded.h>

/* profile_diff.c: "profile --diff SLOT=A,B". */

/* The slot axis index and labels A, B of --diff @spec; -1 if malformed. */
int hvb_profile_diff_parse(const struct hvb_matrix *m, const char *spec,
                           size_t *slot, char *a, char *b, size_t len);

/* Do cells @x and @y differ in slot axis @slot alone? */
bool hvb_profile_same_but(const struct hvb_mcell *x, const struct hvb_mcell *y,
                          size_t slot);

/* 0, or the exit status (the message printed) for a bad --diff @diff. */
int hvb_profile_diff_check(const char *diff, const struct hvb_matrix *m);

/* profile_wait.c: "profile --view wait". */

struct hvb_wait_view {
    struct hv_lockstat_stack *stacks;
    size_t nr_stacks;
    struct hv_lockstat_row *rows; /* lockstat's, of the same run */
    size_t nr_rows;
    uint64_t dropped, stacks_dropped; /* acquisitions, waits not recorded */
};

struct hvb_wait_cell {
    struct hvb_wait_total t;
    double lockstat_ns_per_op; /* lockstat's rows of the cell, summed */
    uint64_t ops;
};

/* Reset the lock profiler and start it with its wait stacks. */
void hvb_wait_view_start(void);

/* Stop it and collect into @wv: 0, or the exit status (printed). */
int hvb_wait_view_stop(struct hvb_wait_view *wv);

/*
 * Write cell @c's (tag c + 1) wait stacks to @path, per op over its
 * @ops, into @out: 0, or the exit status (printed).
 */
int hvb_wait_view_cell(struct hvb_wait_view *wv, struct hvb_symbols *sym,
                       const char *path, size_t c, uint64_t ops,
                       struct hvb_wait_cell *out);

/* A cell's figures for results.json (cells[].profile). */
json_t *hvb_wait_view_json(const struct hvb_wait_cell *w);

void hvb_wait_view_free(struct hvb_wait_view *wv);

/* profile_offcpu.c: "profile --view offcpu|wall". */

struct hvb_offcpu_view {
    struct hvb_switches *sw;
    struct hvb_ksyms *ks;
    struct hvb_offcpu oc;
    bool wall;
    char why[256]; /* why the off-CPU view fell back to the wait view */
};

/*
 * Check the options and open the recorder before the run (its reader
 * thread is then not followed): 0, -1 when the tracepoint cannot be had
 * and the off-CPU view falls back to the wait view (said on stderr), or
 * the exit status (printed; the wall view has no fallback).
 */
int hvb_offcpu_view_setup(struct hvb_offcpu_view *v, bool wall, bool cycles,
                          bool perf);

/* Open the recorder (disabled): 0, or -errno with @err. */
int hvb_offcpu_view_open(struct hvb_offcpu_view *v, bool wall, char *err,
                         size_t len);
int hvb_offcpu_view_enable(struct hvb_offcpu_view *v);

/*
 * Stop it and pair its switches inside the measured threads' windows
 * @w: 0, or the exit status (printed).
 */
int hvb_offcpu_view_stop(struct hvb_offcpu_view *v, const struct hvb_twindow *w,
                         size_t nw);

/*
 * Write cell @c's stacks to @path per op over its @ops (the wall view:
 * with @cpu's samples, @period_ns each) into @out: 0, or the exit
 * status (printed).
 */
int hvb_offcpu_view_cell(struct hvb_offcpu_view *v, struct hvb_symbols *sym,
                         const char *path, size_t c, uint64_t ops,
                         const struct hvb_sample_buf *cpu, uint64_t period_ns,
                         struct hvb_offcpu_total *out);

/* The share of the threads' wall time that neither view accounts for. */
double hvb_offcpu_unaccounted(const struct hvb_offcpu_total *t, bool wall);

/* A cell's figures for results.json (cells[].profile). */
json_t *hvb_offcpu_view_json(const struct hvb_offcpu_total *t, bool wall);

/* A cell's line on stderr. */
void hvb_offcpu_view_note(const char *cell, const struct hvb_offcpu_total *t,
                          bool wall);

/* Lost switches and samples (stderr). */
void hvb_offcpu_view_warn(const struct hvb_offcpu_view *v,
                          uint64_t lost_samples);

/* The flame graph's subtitle. */
void hvb_offcpu_view_subtitle(char *buf, size_t len,
                              const struct hvb_offcpu_total *t, bool wall);

void hvb_offcpu_view_free(struct hvb_offcpu_view *v);

#endif /* HVB_CLI_PRIVATE_H */
