/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the instructions moved between two builds (harness/irdiff/), from
 * two callgrind runs of the same suite line: per function
 * (irdiff_functions.c) and per source line of each changed function
 * (irdiff_lines.c), in instructions per operation, and the markdown and
 * HTML blocks of those lines.  review explains its moved cells with it.
 */
#ifndef HVB_IRDIFF_H
#define HVB_IRDIFF_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#define HVB_IRDIFF_TOP_LINES 5 /* a function's changed lines listed */

struct hvb_exec;

/*
 * Run @c (argv[0] the build, argv[1] its command) with
 * both outputs in @logp; 0, or -EIO with @err naming the log.  Frees
 * what @c kept.
 */
int hvb_irdiff_exec_log(struct hvb_exec *c, const char *logp, char *err,
                        size_t len);

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
int hvb_irdiff_callgrind(const char *bin, char *const *line, size_t nr,
                         const char *dir, char *err, size_t len);

/*
 * Ir/op: smaller changes are not listed (a sample that lookup's watcher
 * thread lands in gains ~153 Ir: 0.008 per op of 20032).
 */
#define HVB_IRDIFF_MIN_DELTA_IR 0.05

/*
 * Cell @cell's functions in the two runs @dirs (base, head) of
 * hvb_irdiff_callgrind(), whose sources are @srcs: those whose
 * instructions per op changed, largest change first, into *@rows
 * (malloc'd), and each run's instructions per op in all into @totals.
 * Returns how many, or -errno with @err.
 */
int hvb_irdiff_functions(char *const dirs[2], char *const srcs[2], size_t cell,
                         struct hvb_fn_delta **rows, double totals[2],
                         char *err, size_t len);

/*
 * Cell @cell's line blocks (review_lines.c) added to its function rows
 * @fns, from the dumps hvb_irdiff_functions() read.  0, or -errno with @err.
 */
int hvb_irdiff_fn_lines(char *const dirs[2], char *const srcs[2], size_t cell,
                        json_t *fns, char *err, size_t len);

#define HVB_IRDIFF_TOP_LINES 5 /* a function's changed lines listed */

/*
 * review_lines.c: each row of @fns ({"function", "file"}) gains the lines
 * of that function whose Ir/op moved between callgrind dumps @dumps
 * (base, head: @ops operations, sources in trees @srcs), in the file
 * where it moved most (its new "file", relative to the trees), matched
 * by their text: "head_lines", "base_lines" ("19-35": first-last line
 * with a cost), "lines" ([{"base_line": 22 or null (new), "head_line": 28
 * or null (gone), "src": "spin++;", "base": 0.0, "head": 192.0}], Ir/op,
 * the HVB_IRDIFF_TOP_LINES largest changes in source order),
 * "lines_more" (changed lines not listed); or "lines_error" (no line
 * numbers, no source).  0, or -errno with @err (a dump unreadable or
 * malformed: each row's "lines_error").
 */
int hvb_irdiff_lines(char *const dumps[2], char *const srcs[2],
                     const double ops[2], json_t *fns, char *err, size_t len);

/* The line blocks of @fns' first @top rows: fenced (markdown), a table. */
void hvb_irdiff_md_lines(FILE *f, json_t *fns, size_t top);
void hvb_irdiff_html_lines(FILE *f, json_t *fns, size_t top);

#endif /* HVB_IRDIFF_H */
