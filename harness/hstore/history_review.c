/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reviews history runs: bisect's steps and backfill's commits are
 * each "hvbench review BASE HEAD" of this hvbench (the builds from the
 * cache, the two-build gate, review.json), run as a process with its
 * output in a log.  E.g. bisect's step at 5a1b... is
 *   hvbench review GOOD 5a1b... --repo R --out OUT/steps/5a1b... \
 *     --metric sim_instructions --explain none -q -- lookup ...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <hvb/exec.h>

#include "private.h"

#define REVIEW_TIMEOUT_S 7200.0

char **hvb_hreview_argv(const struct hvb_hreview *r, const char *base,
                        const char *head, const char *out, const char *pairs,
                        bool explain)
{
    char **av = calloc((size_t)r->nr_line + 32, sizeof(*av));
    static char jobs[16], build_timeout[32];
    size_t n = 0;
    int i;

    if ( av == NULL )
        return NULL;
    av[n++] = (char *)r->self;
    av[n++] = "review";
    av[n++] = (char *)base;
    av[n++] = (char *)head;
    av[n++] = "--repo";
    av[n++] = (char *)r->repo;
    av[n++] = "--out";
    av[n++] = (char *)out;
    av[n++] = "--metric";
    av[n++] = (char *)(r->metric ? r->metric : "sim_instructions");
    av[n++] = "--explain";
    av[n++] = explain ? "changed" : "none";
    av[n++] = "-q";
    if ( r->threshold )
        av[n++] = "--max-regression", av[n++] = (char *)r->threshold;
    if ( pairs )
        av[n++] = "--max-pairs", av[n++] = (char *)pairs;
    if ( r->cache )
        av[n++] = "--cache", av[n++] = (char *)r->cache;
    if ( r->jobs )
    {
        snprintf(jobs, sizeof(jobs), "%u", r->jobs);
        av[n++] = "--jobs", av[n++] = jobs;
    }
    if ( r->build_timeout_s > 0 )
    {
        snprintf(build_timeout, sizeof(build_timeout), "%.17g",
                 r->build_timeout_s);
        av[n++] = "--build-timeout", av[n++] = build_timeout;
    }
    av[n++] = "--";
    for ( i = 0; i < r->nr_line; i++ )
        av[n++] = r->line[i];
    av[n] = NULL;
    return av;
}

int hvb_hreview_run(char **av, const char *logp)
{
    char err[1024];
    struct hvb_exec c = {.argv = av, .timeout_s = REVIEW_TIMEOUT_S};
    FILE *f = fopen(logp, "w");
    int rc;

    c.log_fd = f ? fileno(f) : 0;
    if ( f == NULL )
        c.capture_err = true;
    rc = hvb_exec_run(&c);
    if ( rc < 0 && rc != -EINTR ) /* interrupted: the caller says so */
    {
        hvb_exec_error(&c, rc, err, sizeof(err));
        fprintf(stderr, "hvbench: %s\n", err);
    }
    hvb_exec_free(&c);
    if ( f )
        fclose(f);
    return rc < 0 ? -1 : rc;
}

long long hvb_hreview_record(struct hvb_hdb *h, const char *dir,
                             const char *branch, const char *machine)
{
    char path[4300], err[1024], sha[65];
    struct hvb_hrun run = {
        .branch = branch, .machine = machine, .content = sha};
    json_t *doc;
    long long id = -1;

    snprintf(path, sizeof(path), "%s/review.json", dir);
    doc = hvb_hrun_load(path, sha, err, sizeof(err));
    if ( doc != NULL && hvb_hrun_from(&run, doc, path, err, sizeof(err)) == 0 )
        id = hvb_hdb_record(h, &run, err, sizeof(err));
    json_decref(run.points);
    json_decref(doc);
    return id;
}
