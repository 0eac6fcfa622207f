/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The environment ledger's rows (ledger.c): which figures of a results
 * document's environment and build every view shows, and how, so that
 * compare, gate, compare --hosts and report label them alike.
 */
#ifndef HVB_LEDGER_H
#define HVB_LEDGER_H

#include <stddef.h>

#include <jansson.h>

/*
 * ledger.c: the environment ledger's rows, one table for every view.
 * @obj: the object under hvbench (NULL: the context); @key: NULL with
 * obj "counters", the probe (are cycles counted?).  @views: where the row
 * is shown.  Row 0, the host, heads the columns of compare --hosts.
 */
#define HVB_LEDGER_COMPARE    1u /* compare/gate markdown: base | new */
#define HVB_LEDGER_MUST_MATCH 2u /* there: values that differ warn */
#define HVB_LEDGER_HOSTS      4u /* compare --hosts, report's Hosts */
struct hvb_ledger_row {
    const char *label, *obj, *key;
    unsigned int views;
};
extern const struct hvb_ledger_row hvb_ledger_rows[];
extern const size_t hvb_ledger_nr_rows;

/* Row @r of results document @doc as a table cell into @buf ("?": none). */
const char *hvb_ledger_text(json_t *doc, const struct hvb_ledger_row *r,
                            char *buf, size_t len);

/*
 * The rows shown in @view as JSON (malloc'd, or NULL): [{"label": "vCPUs",
 * "object": "environment", "key": "vcpus_online"}, ...], for report.py.
 */
char *hvb_ledger_json(unsigned int view);

#endif /* HVB_LEDGER_H */
