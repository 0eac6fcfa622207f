/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-results: libFuzzer over the readers of results documents, built
 * by clang with ASan and UBSan (tests/CMakeLists.txt, label fuzz).  The
 * input is a results file as compare, gate, --resume and report read it:
 * parsed and checked (harness/output/results_read.c); a document the check
 * accepts is then compared with itself on time, on a counter and paired
 * (harness/gate/compare.c, harness/stats/stats.c) and printed as csv and markdown
 * (harness/output/tabular.c).  Whatever the bytes, nothing may crash, and a
 * comparison of an accepted file must give verdicts on numbers: a NaN
 * ratio judged other than "unstable" aborts.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <hvb/compare.h>
#include <hvb/results.h>
#include <hvb/results_read.h>
#include <hvb/tabular.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void compared(int rc, struct hvb_cmp *c)
{
    size_t i;

    if ( rc )
        return;
    for ( i = 0; i < c->nr_rows; i++ )
        if ( (isnan(c->rows[i].lo) || isnan(c->rows[i].hi)) &&
             c->rows[i].verdict != HVB_UNSTABLE )
            abort(); /* a verdict on statistics that are not numbers */
    hvb_cmp_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const metrics[] = {"time", "tsc_cycles", "allocs"};
    static FILE *sink;
    char err[768];
    json_t *doc;
    size_t i;

    if ( sink == NULL && (sink = fopen("/dev/null", "w")) == NULL )
        abort();
    doc = hvb_results_parse((const char *)data, size, "fuzz", err, sizeof(err));
    if ( doc == NULL )
        return 0;
    for ( i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++ )
    {
        struct hvb_cmp c = {.names = {"fuzz", "fuzz"}};

        compared(hvb_cmp_run(doc, doc, metrics[i], -1, &c, err, sizeof(err)),
                 &c);
        c = (struct hvb_cmp){.names = {"fuzz", "fuzz"}};
        compared(hvb_cmp_paired(doc, metrics[i], 0.05, &c, err, sizeof(err)),
                 &c);
    }
    hvb_tabular_csv(sink, doc);
    hvb_tabular_markdown(sink, doc);
    hvb_results_complete(doc, err, sizeof(err));
    json_decref(doc);
    return 0;
}
