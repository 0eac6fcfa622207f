/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What hvbench bisect's two searches share: the binary one, a review at
 * a time (cmd_bisect.c), and the k-ary one, k reviews at once as a Slurm
 * job array (bisect_kary.c).
 */
#ifndef HVB_BISECT_PRIVATE_H
#define HVB_BISECT_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <hvb/hreview.h>

#define BISECT_RETRY_FACTOR 4  /* an unknown step: again with 4x the pairs */
#define BISECT_PAIRS        24 /* the gate's default budget of pairs */

struct bisect {
    struct hvb_hreview r; /* the steps' reviews; first (the fleet rows) */
    const char *repo_opt, *out;
    char out_default[4096]; /* GIT_DIR/hvbench-bisect */
    bool quiet;
    unsigned int k;      /* --fleet: commits gated at once */
    char (*commits)[41]; /* GOOD's successors up to BAD, oldest first */
    size_t n;
    json_t *steps, *rounds;
};

enum {
    V_SAME,
    V_DIFFERS,
    V_UNKNOWN,
    V_NOBUILD
};

/*
 * The pairs of a retry after an unknown: BISECT_RETRY_FACTOR times
 * @pairs (--max-pairs as given: "1k" is 1000, hv/num.h) or the default.
 */
unsigned long long bisect_more_pairs(const char *pairs);

/* The name of verdict @v (-1: an error). */
const char *bisect_vname(int v);

/* The verdict of a step's review in @dir (exit @rc, log @logp). */
int bisect_verdict(const char *dir, int rc, const char *logp, json_t **doc);

/*
 * BAD's verdict @v: 0 when it differs (search on) or is the same ("nothing
 * to find" said, the search over); else the exit status, said why.
 */
int bisect_bad(const struct bisect *b, int v);

/* Step commit @k's record (its review @doc may be NULL) into b->steps. */
void bisect_record(struct bisect *b, size_t k, int v, double seconds,
                   const char *dir, json_t *doc);

/*
 * The k-ary search (bisect_kary.c): as search() in cmd_bisect.c, *@lo
 * the last same, *@hi the first that differs, *@differs whether BAD
 * does; the exit status.
 */
int bisect_kary(struct bisect *b, const char *good, long *lo, long *hi,
                bool *differs);

#endif /* HVB_BISECT_PRIVATE_H */
