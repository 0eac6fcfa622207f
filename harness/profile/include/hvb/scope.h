/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which tasks "hvbench profile"'s events watch (hvb/perf_rings.h), for
 * results.json and stderr (scope.c).
 */
#ifndef HVB_SCOPE_H
#define HVB_SCOPE_H

#include <jansson.h>

#include <hvb/sampler.h>
#include <hvb/switches.h>

/*
 * Whether the events of @s and @sw (either may be NULL) are CPU-wide,
 * and the other tasks' records left out: {"events", "other_tasks_records"}
 * ({} if neither is open).
 */
json_t *hvb_profile_scope_json(const struct hvb_sampler *s,
                               const struct hvb_switches *sw);
/* Its line on stderr: a warning where the events are per task. */
void hvb_profile_scope_note(const struct hvb_sampler *s,
                            const struct hvb_switches *sw);

#endif /* HVB_SCOPE_H */
