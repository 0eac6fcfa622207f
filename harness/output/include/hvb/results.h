/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Results: Google-Benchmark-compatible JSON ("context" + "benchmarks", so
 * Google Benchmark's tools/compare.py reads it) extended with an
 * "hvbench" object (schema, build, git, command line, and every cell with
 * its plugins, options, parameters and raw samples).  The layout is
 * documented in docs/schema.md.  Files are written atomically.
 */
#ifndef HVB_RESULTS_H
#define HVB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include <hvb/buildinfo.h>
#include <hvb/engine.h>
#include <hvb/matrix.h>
#include <hvb/summary.h>

#define HVB_RESULTS_SCHEMA_VERSION 1

/* How the run was asked for. */
struct hvb_run_meta {
    int argc;
    char *const *argv;
    unsigned int repetitions; /* rounds in all, processes x rounds each */
    unsigned int processes;   /* --processes: 1, or the children pooled */
    double min_time_s;
    bool interleave;
    uint64_t seed;
    const char *affinity;
    /* Paired rounds (hvb/rounds.h); all may be zero/NULL. */
    const int64_t *shared_iterations; /* per cell, per thread */
    unsigned int rounds_done;         /* < repetitions: interrupted */
    const char *instrument;           /* "none" or "callgrind" */
    int64_t iterations;               /* --iterations, 0: calibrated */
    json_t *counters;                 /* the probe (hvb/meter.h), borrowed */
    json_t *environment;              /* the ledger (hvb/env.h), borrowed */
};

/*
 * hvb_results_build - the whole results document; NULL with @err on
 * failure (out of memory, or the engine's context is not JSON).
 */
json_t *hvb_results_build(const struct hvb_matrix *m,
                          const struct hvb_summary *s,
                          const struct hvb_engine_result *r,
                          const struct hvb_run_meta *meta,
                          const struct hvb_buildinfo *bi, char *err,
                          size_t len);

/*
 * hvb_results_settings - what a document of @meta and @bi would say of
 * the settings that decide a measurement: {version, git, build, run:
 * {min_time_s, interleaved, seed, affinity, iterations, instrument,
 * processes}, counters} with the keys and values the document has (for
 * --resume to compare against a file).  NULL when out of memory.
 */
json_t *hvb_results_settings(const struct hvb_run_meta *meta,
                             const struct hvb_buildinfo *bi);

/*
 * hvb_results_write - write @root to @path as hvb/outfile.h says: a
 * regular file atomically (temporary file, fsync, rename, fsync the
 * directory), a pipe or /dev/null in place, anything else refused.
 * 0 or -errno with @err; a regular @path is untouched on failure.
 */
int hvb_results_write(const char *path, const json_t *root, char *err,
                      size_t len);

/*
 * hvb_results_load - read a results file for compare, gate or --resume.
 * NULL with @err (one line) if it cannot be read, is not JSON, is not an
 * hvbench results document, has a newer schema_version, or fails the
 * readers' check (hvb/results_read.h: harness/output/results_read.c).
 */
json_t *hvb_results_load(const char *path, char *err, size_t len);

/* The same for the @n bytes at @buf, named @name in messages. */
json_t *hvb_results_parse(const char *buf, size_t n, const char *name,
                          char *err, size_t len);

/* Write @root to @f as the file would hold it.  0 or -EIO. */
int hvb_results_dump(FILE *f, const json_t *root);

#endif /* HVB_RESULTS_H */
