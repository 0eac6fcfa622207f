/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Compiled, not run (tests/CMakeLists.txt, unit-param-spelling): a
 * workload's param table and its reads name the fields of its param
 * struct, so a misspelt name is a compile error.  With -DSPELL_OK the
 * names are right and the file must compile; without it, the table row
 * and the read both say "domainz" and the compiler must refuse it.
 */
#include <hvb/workload.h>

struct spell_params {
    uint64_t domains;
};

#ifdef SPELL_OK
#define NAME domains
#else
#define NAME domainz
#endif

const struct hv_opt spell_param_table[] = {
    HVB_PARAM_UINT_ROW(struct spell_params, NAME, "1", 1, 10, "domains"),
    HVB_PARAM_TABLE_END,
};

uint64_t spell_read(const struct hvb_cell *c);
uint64_t spell_read(const struct hvb_cell *c)
{
    const struct spell_params *p = c->params;

    return p->NAME;
}
