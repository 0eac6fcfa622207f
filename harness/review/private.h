/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the review room's files share (see hvb/review.h for the room).
 */
#ifndef HVB_REVIEW_PRIVATE_H
#define HVB_REVIEW_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <hvb/review.h>

#define REVIEW_MAX_METRICS 4

/* One gate of the suite: WORKLOAD [run options]. */
struct review_line {
    char *text;   /* as written */
    char **words; /* split at blanks; words[0] the workload */
    size_t nr;
    char *buf; /* what the words point into */
};

/* What the options set. */
struct review_opts {
    const char *suite, *metrics, *out, *markdown, *cache, *repo;
    /* Passed to the gate as given. */
    const char *threshold, *pairs, *max_pairs, *rounds, *sample_time;
    /* Built already (CI): no build of that side, its revision named only. */
    const char *bins[2];
    int explain; /* EXPLAIN_* */
    unsigned int jobs;
    bool quiet;
};
enum {
    EXPLAIN_CHANGED,
    EXPLAIN_ALL,
    EXPLAIN_NONE
};

/* One review, from the command line to its files. */
struct review {
    struct review_opts o;
    const char *revspec[2]; /* BASE, HEAD as given (NULL: default) */
    char repo[4096];
    char self[4096];        /* this hvbench */
    struct hvb_rev revs[2]; /* base, head */
    struct hvb_build builds[2];
    struct hvb_build_cache cache;
    struct review_line *lines;
    size_t nr_lines;
    char *metrics[REVIEW_MAX_METRICS];
    size_t nr_metrics;
    json_t *gates; /* each gate's JSON, with "line" and "log" added */
    size_t nr_verdicts;
    json_t *explain;         /* {"CELL": [function rows]} */
    json_t *explain_skipped; /* {"LINE": why it has no function rows} */
    double elapsed_s;
};

/* review_gate.c: every line in every metric; 0 or the exit status. */
int hvb_review_gates(struct review *rv);

/*
 * review_report.c: review.json, review.md (also --markdown) and
 * index.html in the output directory, and the summary on stdout.
 * Returns the review's exit status (0, 1 regressed, 3 unknown; 2 when
 * a file cannot be written).
 */
int hvb_review_report(struct review *rv);

/*
 * git -C @repo @args... (NULL-ended) with @env added: its stdout, less
 * trailing blanks, into @out (may be NULL); 0, or -errno / -EINVAL with
 * "git ARG: why" in @err.
 */
int hvb_review_git(const char *repo, char *out, size_t len, char *err,
                   size_t elen, char *const *env, const char *const *args);

/* One function's self cost per operation in both builds. */
struct hvb_fn_delta {
    char name[256];
    char file[256];    /* relative to its source tree, where it was costliest */
    double base, head; /* instructions per op (callgrind Ir, self) */
};

/*
 * review_explain.c: run suite line @line (@nr words: WORKLOAD [run
 * options]) with build @bin under callgrind, one dump per cell, into
 * @dir.  0, or -errno with @err.
 */
int hvb_review_callgrind(const char *bin, char *const *line, size_t nr,
                         const char *dir, char *err, size_t len);

/*
 * Cell @cell's functions in the two runs @dirs (base, head) of
 * hvb_review_callgrind(), whose sources are @srcs: those whose
 * instructions per op changed, largest change first, into *@rows
 * (malloc'd).  Returns how many, or -errno with @err.
 */
int hvb_review_fn_diff(char *const dirs[2], char *const srcs[2], size_t cell,
                       struct hvb_fn_delta **rows, char *err, size_t len);

#endif /* HVB_REVIEW_PRIVATE_H */
