/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workload parameter values through the option engine (hv/opt.h): the
 * same parser, rules and messages as plugin options, with the workload
 * as the owner named in a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <hvb/params.h>

int hvb_param_parse(const struct hvb_workload *w, const struct hv_opt *p,
                    const char *text, struct hv_opt_val *out, char *err,
                    size_t len)
{
    char owner[64];

    if ( hv_opt_parse(p, text, out) == 0 )
        return 0;
    snprintf(owner, sizeof(owner), "workload %s", w->name);
    hv_opt_bad_value(p, text, "param", owner, err, len);
    return -EINVAL;
}

int hvb_params_check(const struct hvb_workload *w, char *err, size_t len)
{
    char owner[64];
    void *scratch;
    int rc;

    if ( w->params != NULL && w->params[0].name != NULL && w->params_size == 0 )
    {
        snprintf(err, len, "workload %s: params without a params_size",
                 w->name);
        return -EINVAL;
    }
    scratch = calloc(1, w->params_size ? w->params_size : 1);
    if ( scratch == NULL )
        return -ENOMEM;
    snprintf(owner, sizeof(owner), "workload %s", w->name);
    rc = hv_opt_defaults(w->params, scratch, w->params_size, "param", owner,
                         err, len);
    free(scratch);
    return rc;
}
