/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-params: libFuzzer over workload parameter values as --param
 * K=V[,V...] gives them (harness/run/params.c), built by clang with ASan and
 * UBSan (tests/CMakeLists.txt, label fuzz).  The input is "K=V,V,...":
 * K is looked up in a table with every kind of row the workloads have (a
 * bounded integer with k/M/G suffixes, one without bounds, one whose
 * maximum is the largest uint64_t, a choice); each V is parsed.  A value
 * accepted must lie within its row's bounds and have a canonical text
 * that parses back to the same value (else abort: a crash for libFuzzer).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/params.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct hvb_param table[] = {
    HVB_PARAM_UINT_ROW("domains", "10", 1, 32751, "domains"),
    HVB_PARAM_UINT_ROW("any", "0", 0, 0, "no bounds"),
    HVB_PARAM_UINT_ROW("huge", "1", 1, UINT64_MAX, "to the top"),
    HVB_PARAM_ENUM_ROW("dist", "uniform", "uniform|zipf|hot", "a choice"),
    {0},
};

static void one(const struct hvb_param *p, const char *text)
{
    struct hvb_pval v = {0}, back = {0};
    uint64_t lo, hi;
    char err[512];

    if ( hvb_param_parse("fuzz", p, text, &v, err, sizeof(err)) )
        return;
    hvb_param_bounds(p, &lo, &hi);
    if ( p->type == HVB_PARAM_UINT && (v.u < lo || v.u > hi) )
        abort();
    if ( v.text == NULL ||
         hvb_param_parse("fuzz", p, v.text, &back, err, sizeof(err)) ||
         back.u != v.u || back.idx != v.idx )
        abort(); /* the canonical text does not read back */
    hvb_pval_free(&back);
    hvb_pval_free(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1), *eq, *v, *save = NULL;
    const struct hvb_param *p;

    if ( s == NULL )
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    eq = strchr(s, '=');
    if ( eq != NULL )
    {
        *eq = '\0';
        p = hvb_param_find(table, s);
        for ( v = strtok_r(eq + 1, ",", &save); p != NULL && v != NULL;
              v = strtok_r(NULL, ",", &save) )
            one(p, v);
    }
    free(s);
    return 0;
}
