/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workload parameters: a thin user of the option engine (hv/opt.h), which
 * parses, bounds and spells every value; this names the workload in its
 * messages ("param domains of workload lookup").
 */
#ifndef HVB_PARAMS_H
#define HVB_PARAMS_H

#include <stddef.h>

#include <hv/opt.h>
#include <hvb/workload.h>

/*
 * hvb_param_parse - parse @text for param @p of @w into @out.
 * Return 0, or -EINVAL with @err naming the value and what is allowed.
 */
int hvb_param_parse(const struct hvb_workload *w, const struct hv_opt *p,
                    const char *text, struct hv_opt_val *out, char *err,
                    size_t len);

/*
 * hvb_params_check - check @w's param table against its struct
 * (params_size) and that every default parses.  0 or -EINVAL with @err.
 */
int hvb_params_check(const struct hvb_workload *w, char *err, size_t len);

#endif /* HVB_PARAMS_H */
