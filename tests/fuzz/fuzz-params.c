/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-params: libFuzzer over option values as --param K=V[,V...] and
 * --plugin SLOT=NAME:K=V give them to the option engine (hv/opt.c),
 * built by clang with ASan and UBSan (tests/CMakeLists.txt, label fuzz).
 * The input is "K=V,V,...": K is looked up in a table with every kind of
 * row plugins and workloads have (bounded integers of both widths with
 * k/M/G suffixes, one to the largest uint64_t, an unsigned int whose row
 * allows more than it holds, a boolean, a choice, a word); each V is
 * parsed and stored.  A value accepted must lie within its row's bounds,
 * be what the struct holds, and have a canonical text that parses back
 * to the same value (else abort: a crash for libFuzzer); a value refused
 * must get a message.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/opt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
    uint64_t domains, any, huge;
    unsigned int ncpus, wide, dist;
    bool flag;
    char topo[HV_OPT_TEXT_MAX];
};

/* clang-format off */
static const struct hv_opt table[] = {
    HV_OPT_U64_ROW(struct fz, domains, "domains", "10", 1, 32751, "domains"),
    HV_OPT_U64_ROW(struct fz, any, "any", "0", 0, UINT64_MAX, "no bounds"),
    HV_OPT_U64_ROW(struct fz, huge, "huge", "1", 1, UINT64_MAX, "to the top"),
    HV_OPT_UINT_ROW(struct fz, ncpus, "ncpus", "0", 0, 256, "a plugin's"),
    HV_OPT_UINT_ROW(struct fz, wide, "wide", "0", 0, UINT64_MAX, "capped"),
    HV_OPT_ENUM_ROW(struct fz, dist, "dist", "uniform", "uniform|zipf|hot",
                    "a choice"),
    HV_OPT_BOOL_ROW(struct fz, flag, "flag", "false", "a switch"),
    HV_OPT_STR_ROW(struct fz, topo, "topo", "host", "NxSIZE", "a word"),
    HV_OPT_TABLE_END,
};
/* clang-format on */

static void one(const struct hv_opt *o, const char *text)
{
    struct hv_opt_val v, back, held;
    struct fz s;
    char err[512];

    memset(&s, 0, sizeof(s));
    err[0] = '\0';
    if ( hv_opt_set(o, text, &s, "param", "workload fuzz", err, sizeof(err)) )
    {
        if ( strstr(err, "bad value") == NULL )
            abort(); /* a refusal says why */
        return;
    }
    if ( hv_opt_parse(o, text, &v) )
        abort(); /* set and parse disagree */
    if ( (o->type == HV_OPT_UINT || o->type == HV_OPT_U64) &&
         (v.u < o->min || v.u > o->max ||
          (o->type == HV_OPT_UINT && v.u > UINT_MAX)) )
        abort();
    hv_opt_load(o, &s, &held);
    if ( held.u != v.u || strcmp(held.text, v.text) != 0 )
        abort(); /* the struct does not hold what was parsed */
    if ( hv_opt_parse(o, v.text, &back) || back.u != v.u ||
         strcmp(back.text, v.text) != 0 )
        abort(); /* the canonical text does not read back */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1), *eq, *v, *save = NULL;
    const struct hv_opt *o;

    if ( s == NULL )
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    eq = strchr(s, '=');
    if ( eq != NULL )
    {
        *eq = '\0';
        o = hv_opt_find(table, s);
        for ( v = strtok_r(eq + 1, ",", &save); o != NULL && v != NULL;
              v = strtok_r(NULL, ",", &save) )
            one(o, v);
    }
    free(s);
    return 0;
}
