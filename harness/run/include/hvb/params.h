/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workload parameters: parsing and validating values against a
 * workload's table (struct hvb_param, hvb/workload.h).
 *
 * HVB_PARAM_UINT takes a decimal integer with an optional k, M or G
 * suffix (1000-based: 2k = 2000) in [min, max]; a table entry with
 * min == max == 0 has no bounds.  HVB_PARAM_ENUM takes one of its
 * "a|b|c" choices exactly.  Every value has a canonical text: the plain
 * decimal number, or the choice.
 */
#ifndef HVB_PARAMS_H
#define HVB_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include <hvb/workload.h>

/* One parsed value. */
struct hvb_pval {
    uint64_t u;       /* HVB_PARAM_UINT */
    unsigned int idx; /* HVB_PARAM_ENUM: index in choices */
    char *text;       /* canonical text, malloc'd */
};

/*
 * hvb_param_parse - parse @text for @p into @out.
 * Return 0, -EINVAL with @err naming the value and what is allowed, or
 * -ENOMEM.
 */
int hvb_param_parse(const char *workload, const struct hvb_param *p,
                    const char *text, struct hvb_pval *out, char *err,
                    size_t len);
void hvb_pval_free(struct hvb_pval *v);

/* The entry of @table named @name, or NULL. */
const struct hvb_param *hvb_param_find(const struct hvb_param *table,
                                       const char *name);

/* Number of entries of @table (NULL is empty). */
size_t hvb_param_count(const struct hvb_param *table);

/* "a, b, c": the names of @table, or "none". */
void hvb_param_names(const struct hvb_param *table, char *buf, size_t len);

/* What @p allows, for messages: "an integer in [1, 100] (k/M/G ...)". */
void hvb_param_allowed(const struct hvb_param *p, char *buf, size_t len);

/* "uint" or "enum". */
const char *hvb_param_type_name(enum hvb_param_type t);

/* Bounds of a UINT parameter, with the no-bounds rule applied. */
void hvb_param_bounds(const struct hvb_param *p, uint64_t *min, uint64_t *max);

/* Choice @idx of "a|b|c" into @buf ("?" if out of range). */
void hvb_choice_name(const char *choices, unsigned int idx, char *buf,
                     size_t len);

#endif /* HVB_PARAMS_H */
