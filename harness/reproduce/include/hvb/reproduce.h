/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvbench reproduce: each seed's claim beside the same figure measured
 * here.
 *
 * A seed (a public mailing-list thread, docs/seeds.md) makes claims
 * such as "balloon 256 MiB -> 4 GiB: 606 ms without NUMA, 911 ms with".
 * Each claim is a ratio of two figures of the seed (911 / 606 = 1.50x);
 * the scenario of a seed is a fixed list of ordinary `hvbench run`s
 * (struct hvb_rp_run), spawned as child processes of this same binary,
 * each writing DIR/<seed>-<name>.json; a claim (struct hvb_rp_claim)
 * names the two cells of those files, and the metric, whose ratio is the
 * same figure here.  The table then says:
 *
 *   seed ratio      1.50 (911 ms / 606 ms)
 *   measured ratio  2.05 (49.2 ms / 24.0 ms, paired rounds, 95% CI)
 *   ratio of ratios 1.37 = measured / seed
 *   direction       matches when both are > 1 (or both < 1); "unclear"
 *                   when the measured ratio's 95% CI contains 1 (the
 *                   difference is not resolved: it fails nothing)
 *   within 2x       the ratio of ratios is in [0.5, 2]
 *
 * A claim with a range (libvirt's "tens of milliseconds") has seed_lo <
 * seed_hi; inside the range its ratio of ratios is 1.  A claim the model
 * cannot measure here carries the reason in `unmeasurable` and is listed
 * as such, never dropped.
 *
 * Files: reproduce_seeds.c (the scenarios: data only), reproduce_figure.c
 * (figures out of results files, read through hvb_results_load()),
 * reproduce_table.c (markdown and JSON), cmd_reproduce.c (the command:
 * spawning, provenance checks, progress), reproduce_report.c (`hvbench
 * report DIR` of a reproduce directory).
 */
#ifndef HVB_REPRODUCE_H
#define HVB_REPRODUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

/* Names of the table files in DIR. */
#define HVB_RP_JSON "reproduce.json"
#define HVB_RP_MD   "reproduce.md"
/* The invocations that wrote into DIR, one id a line (--resume). */
#define HVB_RP_INVOCATIONS "reproduce.invocations"

/* One `hvbench run` of a scenario. */
struct hvb_rp_run {
    const char *seed;     /* "000" .. "004" */
    const char *name;     /* file DIR/<seed>-<name>.json */
    const char *workload; /* the workload to run */
    const char *args;     /* run options, split at spaces */
    const char *quick;    /* added with --quick */
    const char *full;     /* added without */
    bool micro;           /* takes --min-time (calibrated loops) */
    unsigned int est_quick_s, est_full_s; /* expected wall time here */
};

/* One side of a ratio: a cell of a run and a metric of it. */
struct hvb_rp_side {
    const char *run;    /* hvb_rp_run.name of the same seed */
    const char *cell;   /* '/'-separated name components that must all
                           appear in the cell's name: "pgalloc=numa/
                           threads:1" */
    const char *metric; /* "time" (median ns/op) or a counter's name */
};

/* What a claim's row says beside its figure. */
struct hvb_rp_extra {
    /*
     * Figures of earlier runs that explain this one (a profile, callgrind,
     * lockstat: what a reproduce run does not take), each run named with
     * its commit, date and machine: printed as "earlier, not this
     * invocation's".  NULL: none.
     */
    const char *earlier;
    /*
     * A second ratio of this invocation's runs that bounds or explains
     * the claim's (seed 002's share ratio cannot pass the ratio of one
     * poll's CPU): what it is in words, and its two sides.  NULL: none.
     */
    const char *also;
    struct hvb_rp_side also_num, also_den;
};

struct hvb_rp_claim {
    const char *seed;
    const char *quote;       /* the claim, with its figures and units */
    double seed_lo, seed_hi; /* its ratio (lo == hi: a point) */
    const char *figure;      /* what the ratio is, in words */
    struct hvb_rp_side num, den;
    const char *unit;                 /* of the two measured figures */
    double scale;                     /* metric * scale = figure in unit */
    const char *how;                  /* workload, params, modelled constants */
    const char *unmeasurable;         /* non-NULL: why the model cannot */
    const struct hvb_rp_extra *extra; /* NULL: none */
};

struct hvb_rp_seed {
    const char *id;    /* "004" */
    const char *title; /* "Xen find_domain_by_id" */
};

extern const struct hvb_rp_seed hvb_rp_seeds[];
extern const size_t hvb_rp_nr_seeds;
extern const struct hvb_rp_run hvb_rp_runs[];
extern const size_t hvb_rp_nr_runs;
extern const struct hvb_rp_claim hvb_rp_claims[];
extern const size_t hvb_rp_nr_claims;

/* What happened to one run of this invocation. */
struct hvb_rp_done {
    const struct hvb_rp_run *run;
    char *file;            /* DIR/<seed>-<name>.json */
    char *log;             /* DIR/<seed>-<name>.log: its stdout/stderr */
    char **argv;           /* the command, NULL-terminated */
    bool resume;           /* "run --resume": its file kept (--resume) */
    pid_t pid;             /* of the child */
    int status;            /* its exit status, -1: did not start/exit */
    double started, ended; /* wall clock, unix seconds */
    json_t *doc;           /* the results, checked; NULL: see error */
    char error[768];       /* why there is no doc */
};

/* A claim's outcome. */
enum hvb_rp_state {
    HVB_RP_MEASURED,
    HVB_RP_UNMEASURABLE, /* the model cannot: reason in the claim */
    HVB_RP_FAILED,       /* a run or a cell failed: reason in error */
};

struct hvb_rp_figure {
    const struct hvb_rp_claim *claim;
    enum hvb_rp_state state;
    double num, den;     /* the measured figures, in the claim's unit */
    double ratio;        /* num / den (paired median where it can be) */
    double ci_lo, ci_hi; /* 95% CI of the ratio, NAN without */
    bool paired;         /* ratio from paired rounds of one run */
    double ror;          /* ratio of ratios */
    bool direction, within_2x;
    bool resolved; /* false: the ratio's 95% CI contains 1 */
    /* The claim's "also" ratio of this invocation, NAN without. */
    double also_num, also_den;
    char error[1024];
};

/* The seed @id, or NULL. */
const struct hvb_rp_seed *hvb_rp_seed_find(const char *id);

/*
 * hvb_rp_figure - the figure of @c out of the runs @done (@n of them,
 * of this invocation): always fills @f (state FAILED with the reason
 * when a run, cell or counter is missing).
 */
void hvb_rp_figure(const struct hvb_rp_claim *c, const struct hvb_rp_done *done,
                   size_t n, struct hvb_rp_figure *f);

/* Everything the table files need. */
struct hvb_rp_table {
    const char *invocation; /* the id the runs carry */
    pid_t pid;
    double started, ended;
    bool quick;
    double min_time_s;
    const char *seed; /* --seed, or NULL: all */
    int argc;
    char **argv;
    const struct hvb_rp_done *done;
    size_t nr_done;
    const struct hvb_rp_figure *fig;
    size_t nr_fig;
    int exit_status;
};

/* The markdown table (one row per claim, then the runs) to @f. */
void hvb_rp_markdown(FILE *f, const struct hvb_rp_table *t);

/* The same as a JSON document; NULL when out of memory. */
json_t *hvb_rp_json(const struct hvb_rp_table *t);

/*
 * hvb_rp_report_inputs - for `hvbench report DIR`: the results files a
 * reproduce directory's reproduce.json lists, each checked with
 * hvb_results_load(); appended to @args (room for them is the caller's:
 * at most *@cap entries in all, grown with realloc) as
 * "--seeds DIR FILE...".  0, or -errno with @err (one line).
 */
int hvb_rp_report_inputs(const char *dir, char ***args, size_t *n, size_t *cap,
                         char *err, size_t len);

struct hvb_cmd_ctx;
struct hvb_cmd_doc;

/* "hvbench reproduce": each seed's claims beside the figures measured here. */
int hvb_cmd_reproduce(struct hvb_cmd_ctx *ctx);
extern const struct hvb_cmd_doc hvb_doc_reproduce;

#endif /* HVB_REPRODUCE_H */
