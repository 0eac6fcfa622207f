/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --resume: take the finished rounds of an interrupted run back from its
 * results file, so only the missing rounds run.
 */
#ifndef HVB_RESUME_H
#define HVB_RESUME_H

#include <stdint.h>

#include <jansson.h>

#include <hvb/engine.h>
#include <hvb/matrix.h>

/*
 * hvb_resume_load - if @path exists, check it is a run of the same cells
 * and repetitions with the same settings as @now (hvb_results_settings():
 * --min-time, --seed, --affinity, --no-interleave, --iterations,
 * --instrument, --counters, --events, the build), that every field read
 * back is sound (hvb/results_read.h, and shared counts that are one per
 * group and fit --min-time), and load its rounds into @res (bench = cell,
 * repetition_index = round), its shared counts into @iters, the number
 * of rounds into @first.  A missing file is a fresh start (0, *first 0).
 * -EINVAL with @err (naming the first setting or field that differs) if
 * the file is not a run of this command; -ENOMEM.
 */
int hvb_resume_load(const char *path, const struct hvb_matrix *m,
                    unsigned int repetitions, json_t *now, int64_t *iters,
                    struct hvb_engine_result *res, unsigned int *first,
                    char *err, size_t len);

/*
 * hvb_resume_pool - append the @rounds rounds of the complete run in
 * @path to @res, as repetition_index @base .. @base + @rounds - 1 of
 * @repetitions (--processes: the parent pools its children's files).  The
 * first file pooled (res->context_json NULL) also gives the context and
 * the shared counts @iters.  -EINVAL with @err if @path is not a complete
 * run of these cells; -ENOMEM.
 */
int hvb_resume_pool(const char *path, const struct hvb_matrix *m,
                    unsigned int rounds, unsigned int base,
                    unsigned int repetitions, int64_t *iters,
                    struct hvb_engine_result *res, char *err, size_t len);

#endif /* HVB_RESUME_H */
