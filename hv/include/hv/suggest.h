/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "Did you mean ...?": the closest of a set of names to a mistyped one,
 * by edit distance (insert, delete, substitute, swap two neighbours),
 * for the errors that list the valid names of a command, workload,
 * slot, plugin or param.
 */
#ifndef HV_SUGGEST_H
#define HV_SUGGEST_H

struct hv_suggest {
    const char *typo;
    const char *best; /* the closest name so far, or NULL */
    unsigned int dist;
};

/* Start looking for the name closest to @typo. */
void hv_suggest_init(struct hv_suggest *s, const char *typo);

/* Consider @name. */
void hv_suggest_add(struct hv_suggest *s, const char *name);

/*
 * hv_suggest_best - the closest name considered, or NULL when none is
 * close enough to be what was meant (at most one edit in three
 * characters of @typo, and at least one: "lokup" -> "lookup").
 */
const char *hv_suggest_best(const struct hv_suggest *s);

/*
 * hv_suggest_fmt - "; did you mean 'NAME'?" for the best name into @buf,
 * or "" when there is none; returns @buf.
 */
const char *hv_suggest_fmt(const struct hv_suggest *s, char *buf,
                           unsigned int len);

#endif /* HV_SUGGEST_H */
