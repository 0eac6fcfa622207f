/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench report RESULT.json... --out DIR": charts and an offline HTML
 * page, drawn by harness/profile/render/report.py (matplotlib).  This side checks
 * the command line, judges each file's A/B as gate does (--gate) and
 * hands over.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hvb/cli.h>
#include <hvb/compare.h>
#include <hvb/gate.h>
#include <hvb/render.h>
#include <hvb/reproduce.h>
#include <hvb/results.h>
#include <hvb/results_read.h>
#include <hvb/stats.h>
#include <hvb/ledger.h>

#include "private.h"

struct report_args {
    const char *out;
};

static const struct hvb_optdef report_opts[] = {
    HVB_OPT_STR("out", 'o', "DIR", struct report_args, out,
                "the output directory (created)"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};

const struct hvb_cmd_doc hvb_doc_report = {
    .usage = "report RESULT.json|REPRODUCE-DIR... --out DIR",
    .text = "Draw charts of one or more results files (from 'hvbench run',\n"
            "'lockstat' or 'profile') into DIR: grouped bars from zero with\n"
            "each median's interval, paired ratios to the reference on a\n"
            "linear axis marked with gate's verdicts, scaling curves over\n"
            "thread counts, per-sample distributions (PNG and SVG), and\n"
            "DIR/index.html, a page that works offline with a \"how to read\n"
            "this\" note, the charts, the comparison table (gate's ratio,\n"
            "interval, verdict and reason), noise warnings, the environment,\n"
            "and links to flame graphs and lock tables when the inputs have\n"
            "them.  With fewer than 6 rounds an interval is the rounds'\n"
            "range, and says so.\n"
            "A directory written by 'hvbench reproduce' adds a seeds section:\n"
            "each claim beside its measurement, a chart of both ratios, and\n"
            "links to the runs' results files and logs.",
    .opts = report_opts,
    .notes = "Needs /usr/bin/python3 with python3-matplotlib (Debian).\n"
             "exit status: 0 success, 1 drawing failed, 2 usage or input error",
};

/*
 * Input @val for report.py into @args (@n of @cap; room kept for the
 * @argc arguments still to come): a results file, checked, or a
 * reproduce directory, its runs and table.  0, or -1 having said why.
 */
static int report_input(const char *val, char ***args, size_t *n, size_t *cap,
                        size_t argc)
{
    struct stat st;
    char err[768], **vals;
    json_t *doc;

    if ( stat(val, &st) == 0 && S_ISDIR(st.st_mode) )
    {
        /* A reproduce directory: its runs and its table. */
        if ( hvb_rp_report_inputs(val, args, n, cap, err, sizeof(err)) )
        {
            hvb_usage_error("report: %s", err);
            return -1;
        }
        /* Room again for every argument still to come. */
        *cap = *n + argc + 6;
        vals = realloc(*args, *cap * sizeof(**args));
        if ( vals == NULL )
        {
            hvb_failure("out of memory");
            return -1;
        }
        *args = vals;
        memset(*args + *n, 0, (*cap - *n) * sizeof(**args));
        return 0;
    }
    if ( stat(val, &st) || !S_ISREG(st.st_mode) )
    {
        hvb_usage_error("report: cannot read results file '%s'", val);
        return -1;
    }
    /*
     * Through the readers' one check (hvb/results_read.h), as gate reads
     * it: a newer schema or a sample that is not a number is one line
     * here, not a traceback in the script.
     */
    doc = hvb_results_load(val, err, sizeof(err));
    if ( doc == NULL )
    {
        hvb_usage_error("report: %s", err);
        return -1;
    }
    json_decref(doc);
    (*args)[(*n)++] = (char *)val;
    return 0;
}

/*
 * The interval of each cell's median of @doc, as every ratio's
 * (hvb_median_interval(): a bootstrap 95% CI by process, or with fewer
 * than HVB_CI_MIN_N samples their range): {NAME: {"ci": [lo, hi],
 * "interval": "ci" or "range", "n": N}}, for report's table and bars.
 */
static json_t *cell_intervals(json_t *doc)
{
    json_t *hv = json_object_get(doc, HVB_RK_HVBENCH), *out = json_object();
    json_int_t k = json_integer_value(
        json_object_get(json_object_get(hv, HVB_RK_RUN), HVB_RK_PROCESSES));
    json_t *c, *x;
    size_t i, j, n;

    json_array_foreach(json_object_get(hv, HVB_RK_CELLS), i, c)
    {
        json_t *s = json_object_get(c, HVB_RK_SAMPLES);
        double *v = calloc(json_array_size(s) + 1, sizeof(*v)), lo, hi;
        const char *name = json_string_value(json_object_get(c, HVB_RK_NAME));
        int kind = -EINVAL;

        n = 0;
        json_array_foreach(s, j, x)
        {
            if ( v != NULL && json_is_number(x) )
                v[n++] = json_number_value(x);
        }
        if ( v != NULL && name != NULL )
            kind = hvb_median_interval(v, n, k > 1 ? (unsigned int)k : 1, &lo,
                                       &hi);
        if ( kind >= 0 )
            json_object_set_new(out, name,
                                json_pack("{s[ff] ss sI}", "ci", lo, hi,
                                          "interval", kind ? "range" : "ci",
                                          "n", (json_int_t)n));
        free(v);
    }
    return out;
}

/*
 * What gate judges of each results file of @args (from index 4; "--seeds
 * DIR" pairs skipped): hvb_cmp_paired() on time at its default
 * threshold, {PATH: gate's JSON view, with "cells": cell_intervals()},
 * written to a temporary file @path for report.py.  Its table's ratio,
 * interval and verdict (with its reason), and its chart's markers, are
 * then gate's, not numbers Python computes again.  A file without a group
 * of two plugins has no "benchmarks".
 */
static int gate_rows(char **args, size_t n, char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    json_t *all = json_object(), *doc, *view;
    struct hvb_cmp cmp;
    char err[768];
    size_t k;
    int fd, rc;

    for ( k = 4; k < n && all != NULL; k++ )
    {
        if ( strcmp(args[k], "--seeds") == 0 )
        {
            k++;
            continue;
        }
        doc = hvb_results_load(args[k], err, sizeof(err));
        memset(&cmp, 0, sizeof(cmp));
        view = NULL;
        if ( doc != NULL &&
             hvb_cmp_paired(doc, "time", -1, &cmp, err, sizeof(err)) == 0 )
        {
            view = hvb_cmp_json(&cmp);
            hvb_cmp_free(&cmp);
        }
        if ( doc != NULL )
        {
            view = view ?: json_object();
            json_object_set_new(view, "cells", cell_intervals(doc));
            json_object_set_new(all, args[k], view);
        }
        json_decref(doc);
    }
    snprintf(path, len, "%s/hvbench-report.XXXXXX",
             dir != NULL && *dir ? dir : "/tmp");
    fd = all != NULL ? mkstemp(path) : -1;
    rc = fd < 0 ? -(all != NULL ? errno : ENOMEM) : 0;
    if ( rc == 0 && json_dumpfd(all, fd, JSON_COMPACT) )
        rc = -EIO;
    if ( fd >= 0 && close(fd) && rc == 0 )
        rc = -errno;
    if ( rc && fd >= 0 )
        unlink(path);
    json_decref(all);
    return rc;
}

int hvb_cmd_report(struct hvb_cmd_ctx *ctx)
{
    int argc = ctx->argc;
    char **argv = ctx->argv;
    struct hvb_optparse p = {.argc = argc,
                             .argv = argv,
                             .i = 1,
                             .cmd = "report",
                             .doc = &hvb_doc_report};
    struct report_args ra = {.out = NULL};
    const char *val, *out;
    size_t n = 0, cap = (size_t)argc + 8;
    char **args = calloc(cap, sizeof(*args));
    char *ledger = hvb_ledger_json(HVB_LEDGER_HOSTS);
    int id, rc, status = HVB_EXIT_USAGE;
    char gate[4096] = "";

    if ( args == NULL || ledger == NULL )
    {
        free(args);
        free(ledger);
        return hvb_failure("out of memory");
    }
    args[n++] = "--out";
    args[n++] = NULL; /* filled below */
    /* The rows of report's Hosts table: the ledger's, from ledger.c. */
    args[n++] = "--ledger";
    args[n++] = ledger;
    while ( (id = hvb_opt_parse(&p, report_opts, &ra, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            goto out;
        if ( id == HVB_OPT_HELP_SHOWN )
        {
            status = HVB_EXIT_OK;
            goto out;
        }
        if ( report_input(val, &args, &n, &cap, (size_t)argc) )
            goto out;
    }
    out = ra.out;
    if ( n == 4 )
    {
        hvb_usage_error("report needs at least one RESULT.json");
        goto out;
    }
    if ( out == NULL )
    {
        hvb_usage_error("report needs --out DIR");
        goto out;
    }
    args[1] = (char *)out;
    rc = gate_rows(args, n, gate, sizeof(gate));
    if ( rc )
    {
        status = hvb_failure("report: cannot write the gate's rows to %s: %s",
                             gate, strerror(-rc));
        gate[0] = '\0';
        goto out;
    }
    args[n++] = "--gate";
    args[n++] = gate;
    rc = hvb_render_run("report.py", args);
    if ( rc < 0 )
        status =
            hvb_failure("report: no render script in %s", hvb_render_dir());
    else if ( rc == 2 )
        status = HVB_EXIT_USAGE; /* the script printed the one line */
    else if ( rc != 0 )
        status = hvb_failure("report: drawing failed (exit %d)", rc);
    else
        status = HVB_EXIT_OK;
out:
    if ( gate[0] != '\0' )
        unlink(gate);
    free(args);
    free(ledger);
    return status;
}
