/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reviewer's view (harness/view/): a review's verdicts decoded once
 * from its JSON (review.json, docs/schema.md) into typed cells, and the
 * renderers of what a person reads, each leading with the answer:
 *
 *   hvb_view_answer()   one sentence per changed cell, one for the rest
 *   hvb_view_markdown() the head of review.md (a GitHub/GitLab comment)
 *   hvb_view_mail()     a plain-text reply for a mailing list, 72 columns
 *   hvb_view_junit()    JUnit XML, one test case per cell and blocking
 *                       metric (GitLab, Jenkins, GitHub actions show it)
 *   hvb_view_console()  the table on a terminal
 *   hvb_view_annotations() GitHub workflow commands: the function that
 *                       moved, annotated at its source lines
 *
 * E.g. the review of a patch that adds a spin to rcu_ref_lock, answered:
 *   lookup rcu-ref, 1 thread: 43.7% slower (5.76 -> 8.28 ns/op, 99% CI
 *   +38.9 to +51.3%); +56 instructions per op, all in rcu_ref_lock
 *   (plugins/domlookup/rcu-ref.c:31-40)
 *   6 cells unchanged.
 *
 * Which metrics decide the exit status is the review's "blocking" list
 * (review --block; where no PMU: sim_instructions and sim_cycles): a
 * cell whose blocking metrics are the same passes whatever time says.
 */
#ifndef HVB_VIEW_H
#define HVB_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

enum hvb_view_verdict {
    HVB_VIEW_SAME,
    HVB_VIEW_IMPROVED,
    HVB_VIEW_REGRESSED,
    HVB_VIEW_UNKNOWN,
};

struct hvb_view_metric {
    const char *name; /* "time", "sim_instructions", ... */
    const char *unit; /* "ns/op", "instructions/op" */
    double threshold; /* a fraction */
    double level;     /* the CI's level, e.g. 0.99 */
    bool blocking;
};

/* One cell in one metric. */
struct hvb_view_fig {
    bool present;
    enum hvb_view_verdict verdict;
    double base, head, ratio, lo, hi; /* NAN where unknown */
    unsigned int pairs;
    long more_pairs; /* 0 decided, -1 no count would decide it */
    const char *why; /* unknown: the reason; NULL otherwise */
};

struct hvb_view_cell {
    const char *name;              /* "lookup/domlookup=rcu-ref/threads:1" */
    const char *line;              /* the suite line it came from */
    char title[128];               /* "lookup rcu-ref, 1 thread" */
    struct hvb_view_fig *figs;     /* one per metric, in the view's order */
    bool changed;                  /* some metric regressed or improved */
    enum hvb_view_verdict verdict; /* over the blocking metrics */
    /* The details, borrowed from the document (NULL where absent). */
    json_t *functions, *totals, *flame, *locks, *flags;
};

struct hvb_view_side {
    const char *commit, *spec, *subject;
    bool dirty;
};

struct hvb_view {
    json_t *doc; /* a reference held */
    struct hvb_view_side side[2];
    struct hvb_view_metric *metrics;
    size_t nr_metrics;
    struct hvb_view_cell *cells;
    size_t nr_cells, nr_changed;
    enum hvb_view_verdict verdict; /* over the blocking metrics */
    int status;                    /* 0, 1 regressed, 3 unknown */
    const char *out;               /* the output directory, or NULL */
};

/*
 * hvb_view_decode - the view of review document @doc (a reference is
 * taken; hvb_view_free() @v also after an error).  -EINVAL with @err (one line) when @doc is not a review's
 * (no "review" or "cells", a cell without a name, a verdict that is no
 * verdict), -ENOMEM.
 */
int hvb_view_decode(json_t *doc, struct hvb_view *v, char *err, size_t len);
void hvb_view_free(struct hvb_view *v);

const char *hvb_view_verdict_word(enum hvb_view_verdict v);

/* The metric's index in @v, or -1. */
int hvb_view_metric(const struct hvb_view *v, const char *name);

/*
 * hvb_view_answer - the answer, a sentence per changed or unknown cell
 * and one for the rest, each a line of @f (not wrapped: the renderers
 * wrap or bullet them).  @prefix starts each line ("- " in markdown).
 */
void hvb_view_answer(FILE *f, const struct hvb_view *v, const char *prefix);

/* The sentence of cell @c into @buf ("" for an unchanged cell). */
const char *hvb_view_sentence(const struct hvb_view *v,
                              const struct hvb_view_cell *c, char *buf,
                              size_t len);

/* The answer's last sentence, "6 other cells unchanged." ("": none). */
const char *hvb_view_rest(const struct hvb_view *v, char *buf, size_t len);

/* "`sim_instructions` decides the exit status; `time` is reported." */
const char *hvb_view_blocking(const struct hvb_view *v, bool md, char *buf,
                              size_t len);

/* "+43.7% [+38.9, +51.3]" of @g, or "-" when it has no figures. */
const char *hvb_view_change(const struct hvb_view_fig *g, char *buf,
                            size_t len);

/*
 * @s escaped for HTML or XML, text and attributes (& < > " '), control
 * characters but newline and tab dropped: a name or subject is text.
 */
void hvb_view_html(FILE *f, const char *s);

/* @s as a markdown code span (a table cell's '|' escaped): safe text. */
void hvb_view_md_code(FILE *f, const char *s, bool cell);

/*
 * view_figures.c: the figures of a review's explanations.  @v for a
 * table, without exponents ("0" below a thousandth); "min–max" of the
 * per-round values @a ("-": none); their mean; "mean (min–max)" of @a
 * over @div; the divisor and unit (ns/op, µs/op, ms/op) for values up
 * to @max; a cell's lock table delta @lk (review_locks.c's) and the
 * first @n rows that changed of a view's ranked stacks @rows
 * (flamegraph.py's "stacks"), as markdown or (@html) HTML.
 */
const char *hvb_view_num(double v, char *buf, size_t len);
const char *hvb_view_spread(json_t *a, char *buf, size_t len);
double hvb_view_mean(json_t *a);
void hvb_view_rounds(FILE *f, json_t *a, double div);
double hvb_view_per_op(double max, const char **unit);
void hvb_view_lock_rows(FILE *f, json_t *lk, bool html);
void hvb_view_stack_rows(FILE *f, json_t *rows, const char *view, size_t n,
                         bool html);
/*
 * The first @n rows of a view's threads by role @rows (flamegraph.py's
 * "roles": on CPU, waiting, idle per round of each build); nothing
 * where there are none.
 */
void hvb_view_role_rows(FILE *f, json_t *rows, size_t n, bool html);

void hvb_view_markdown(FILE *f, const struct hvb_view *v);
void hvb_view_mail(FILE *f, const struct hvb_view *v);
void hvb_view_junit(FILE *f, const struct hvb_view *v);
void hvb_view_console(FILE *f, const struct hvb_view *v);
void hvb_view_annotations(FILE *f, const struct hvb_view *v);

#define HVB_VIEW_MAIL_COLS 72

#endif /* HVB_VIEW_H */
