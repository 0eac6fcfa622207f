/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the hstore room's files share beyond hvb/hstore.h: the schema
 * version (history_db.c), a review recorded (history_review.c) and the
 * reference's pins (history_reference.c), which backfill also sets.
 */
#ifndef HVB_HSTORE_PRIVATE_H
#define HVB_HSTORE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <hvb/hreview.h>
#include <hvb/hstore.h>

#define HVB_HISTORY_SCHEMA 3 /* the schema version of a current database */

/* Record the review in @dir (its review.json) into @h: its run id, or -1. */
long long hvb_hreview_record(struct hvb_hdb *h, const char *dir,
                             const char *branch, const char *machine);

/* The pinned reference's full hash into @out: 0, or -ENOENT if none. */
int hvb_href_current(struct hvb_hdb *h, char *out, size_t len);
/* Pin @commit (moved with @overlap's review, run @run; or NULL, -1). */
int hvb_href_pin(struct hvb_hdb *h, const char *commit, const char *overlap,
                 long long run, char *err, size_t len);

#endif /* HVB_HSTORE_PRIVATE_H */
