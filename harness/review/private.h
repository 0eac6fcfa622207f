/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the review room's files share (see hvb/review.h for the room).
 */
#ifndef HVB_REVIEW_PRIVATE_H
#define HVB_REVIEW_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include <hvb/irdiff.h>
#include <hvb/review.h>

struct hv_strbuf;

#define REVIEW_MAX_METRICS 4
/* Under this share of their wall time on CPU, a cell's threads wait. */
#define REVIEW_ON_CPU_SHARE_MAX 0.5

/* One gate of the suite: WORKLOAD [run options]. */
struct review_line {
    char *text;   /* as written */
    char **words; /* split at blanks; words[0] the workload */
    size_t nr;
    char *buf; /* what the words point into */
};

/* The kinds of a review's steps, each timed by its own model. */
enum review_step {
    STEP_SIM,     /* a gate in sim_ metrics: callgrind, one pair */
    STEP_TIMED,   /* a gate in time (or cycles): pairs of processes */
    STEP_EXPLAIN, /* a line's moved cells explained */
    NR_STEPS
};

/* What the options set. */
struct review_opts {
    const char *suite, *metrics, *block, *out, *markdown, *cache, *repo;
    /* The gate's, checked with its bounds (0: the gate's default). */
    double threshold, sample_time;
    unsigned int pairs, max_pairs, rounds;
    /* The flame graphs: rounds per build (0: none), seconds per cell. */
    unsigned int flame_rounds;
    const char *flame_time;
    unsigned int lock_rounds; /* the lock tables' rounds (0: none) */
    int wall_views;           /* WALL_VIEWS_*: review_waits.c's cells */
    /* Built already (CI): no build of that side, its revision named only. */
    const char *bins[2];
    int explain; /* EXPLAIN_* */
    unsigned int jobs;
    double build_timeout; /* --build-timeout (0: the builds room's) */
    bool quiet;
    bool untracked; /* --include-untracked */
};
enum {
    WALL_VIEWS_AUTO, /* the cells whose threads mostly waited */
    WALL_VIEWS_ALL,
    WALL_VIEWS_NONE
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
    char out[4096];         /* the default output: GIT_DIR/hvbench-review */
    struct hvb_rev revs[2]; /* base, head */
    struct hvb_build builds[2];
    struct hvb_build_cache cache;
    struct review_line *lines;
    size_t nr_lines;
    char *metrics[REVIEW_MAX_METRICS];
    bool blocking[REVIEW_MAX_METRICS]; /* decides the exit status */
    size_t nr_metrics;
    char *suite_block; /* the suite's "block: M[,M...]" line, if any */
    json_t *gates;     /* each gate's JSON, with "line" and "log" added */
    size_t nr_verdicts;
    json_t *explain;         /* {"CELL": [function rows]} */
    json_t *explain_totals;  /* {"CELL": {"base_ir_per_op": .., "head_..}} */
    json_t *explain_skipped; /* {"LINE": why it has no function rows} */
    json_t *flames;          /* {"CELL": its flame graphs (review_flame.c)} */
    json_t *locks;           /* {"CELL": its lock table (review_locks.c)} */
    double elapsed_s;
    bool by_runs; /* a build predates the worker: gate --base-runs */
    bool cell_ok; /* both builds' run takes --cell */
    struct {
        double model[NR_STEPS], took[NR_STEPS]; /* of the steps done */
        size_t *cells; /* per line: its cells as planned (0: unknown) */
    } eta;
    /*
     * The line being explained: its moved cells for --cell ("NAME,NAME"),
     * or NULL: all of them.
     */
    char *cells;
};

/* review_gate.c: every line in every metric; 0 or the exit status. */
int hvb_review_gates(struct review *rv);

/*
 * review_eta.c: a step's seconds as its model counts them (@cells: the
 * line's cells, or its moved ones for STEP_EXPLAIN); a step done, its
 * model's and its real seconds; a model's seconds scaled by the steps
 * of its kind done so far.
 */
double hvb_review_eta_model(const struct review *rv, enum review_step k,
                            size_t cells);
void hvb_review_eta_took(struct review *rv, enum review_step k, double model,
                         double seconds);
double hvb_review_eta_scaled(const struct review *rv, enum review_step k,
                             double model);
/* Each line's cells counted before its gates (rv->eta.cells). */
void hvb_review_eta_plan(struct review *rv);

/*
 * review_explain.c: the cells that moved, explained (a differential
 * flame graph, a lock table delta, the instruction diff), into
 * rv->flames, rv->locks, rv->explain.
 */
void hvb_review_explain(struct review *rv);

/*
 * The cells of line @l that moved in any gate so far (every cell with
 * --explain all), in matrix order, into @b ("NAME,NAME"): how many.
 */
size_t hvb_review_moved(const struct review *rv, size_t l, struct hv_strbuf *b);

/* The cells of line @l, as its first gate found them (0: not gated). */
size_t hvb_review_line_cells(const struct review *rv, size_t l);

/*
 * review_report.c: review.json, review.md (also --markdown) and
 * index.html in the output directory, and the summary on stdout.
 * Returns the review's exit status (0, 1 regressed, 3 unknown; 2 when
 * a file cannot be written).
 */
int hvb_review_report(struct review *rv);

struct hvb_exec;

/* A round's output @out of side @k (0 base, 1 head), round @r. */
typedef int hvb_review_round_fn(void *ctx, unsigned int k, unsigned int r,
                                const char *out, char *err, size_t len);

/*
 * Line @l run by both builds in @rounds alternating rounds (AB BA ...):
 * "BUILD @cmd LINE --out OUT/@sub/rounds/L-R-SIDE @extra...", each handed
 * to @fn once done.  0, or -errno with @err.
 */
int hvb_review_alternate(struct review *rv, size_t l, const char *sub,
                         const char *cmd, char *const *extra,
                         unsigned int rounds, hvb_review_round_fn *fn,
                         void *ctx, char *err, size_t len);

/*
 * The cells of results file @path (its document in *@doc, to be put), or
 * NULL with @err when it cannot be read.
 */
json_t *hvb_review_cells(const char *path, json_t **doc, char *err, size_t len);

/*
 * review_flame.c: line @l profiled with both builds in interleaved rounds,
 * each cell's differential flame graph drawn into OUT/flame/ and its
 * entry put in rv->flames.  0, or -errno with @err.
 */
int hvb_review_flame(struct review *rv, size_t l, char *err, size_t len);

/*
 * review_flame.c: the entry of cell @name's graphs under OUT/@sub/ (its
 * paths, @rounds, @rounds_folded: [[base rounds], [head rounds]] of
 * {"folded", "ns_per_sample"[, "grain"]}), and every entry of @cells
 * ({"CELL": entry}) drawn on one scale by flamegraph.py review, in
 * @unit, with its whole stacks ranked where @stacks: its ranking, top
 * frames, scale (and "stacks") join each entry.  0, or -errno with @err.
 */
json_t *hvb_review_draw_entry(const char *sub, const char *name,
                              unsigned int rounds, json_t *rounds_folded);
int hvb_review_draw(struct review *rv, const char *sub, const char *unit,
                    bool stacks, json_t *cells, char *err, size_t len);

/*
 * review_flame.c: beside a cell's graph, the frames of its flame entry
 * @fl (rv->flames[CELL]) that changed most in self CPU ns/op, base and
 * head, those within the rounds' spread said so; as an HTML <aside>, or
 * as one markdown paragraph, e.g.
 *   Changed most (self CPU ns/op, base -> head): `rcu_ref_lock` 0.21 ->
 *   56.1 (+55.9); `hv_put_domain` 3.4 -> 3.5 (+0.1, within the rounds'
 *   spread). Colours: +-56 CPU ns/op on every graph of this review.
 * Nothing when @fl has no top frames.
 */
void hvb_review_flame_top_html(FILE *f, json_t *fl);
void hvb_review_flame_top_md(FILE *f, json_t *fl);

/*
 * review_waits.c: line @l's cells whose measured threads were on CPU
 * under half their wall time in the flame rounds (every cell with
 * --wall-views all) profiled again by both builds in interleaved
 * rounds with --view wall and --view wait, drawn into OUT/wall/ and
 * OUT/wait/, their stacks ranked by the change of their wall or wait
 * ns/op: rv->flames[CELL].wall and .wait ({"error"} for a view that
 * could not run).  0, or -errno with @err.  And their section of the
 * page or the comment (nothing for a cell without them).
 */
int hvb_review_waits(struct review *rv, size_t l, char *err, size_t len);
void hvb_review_waits_rows(FILE *f, json_t *fl, bool html);

/*
 * review_locks.c: line @l under lockstat by both builds in alternating
 * rounds; each cell that takes locks gets its lock table delta in
 * rv->locks.  0, or -errno with @err.
 */
int hvb_review_locks(struct review *rv, size_t l, char *err, size_t len);

#endif /* HVB_REVIEW_PRIVATE_H */
