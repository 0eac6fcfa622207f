/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench report RESULT.json... --out DIR": charts and an offline HTML
 * page, drawn by harness/profile/render/report.py (matplotlib).  This side checks
 * the command line and hands over.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hvb/cli.h>
#include <hvb/render.h>
#include <hvb/reproduce.h>
#include <hvb/results.h>

#include "private.h"

static const struct hvb_optdef report_opts[] = {
    HVB_OPT("out", 'o', "DIR", 1, "the output directory (created)"),
    HVB_OPT_HELP(2),
    HVB_OPT_END,
};

const struct hvb_cmd_doc hvb_doc_report = {
    .usage = "report RESULT.json|REPRODUCE-DIR... --out DIR",
    .text = "Draw charts of one or more results files (from 'hvbench run',\n"
            "'lockstat' or 'profile') into DIR: grouped bars with confidence\n"
            "intervals, ratios to the reference on a log scale centred on\n"
            "1.0, scaling curves over thread counts, per-sample\n"
            "distributions (PNG and SVG), and DIR/index.html, a page that\n"
            "works offline with the charts, the comparison table, noise\n"
            "warnings, the environment, and links to flame graphs and lock\n"
            "tables when the inputs have them.\n"
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
        *cap = *n + argc + 4;
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

int hvb_cmd_report(struct hvb_cmd_ctx *ctx)
{
    int argc = ctx->argc;
    char **argv = ctx->argv;
    struct hvb_optparse p = {
        .argc = argc, .argv = argv, .i = 1, .cmd = "report"};
    const char *val, *out = NULL;
    size_t n = 0, cap = (size_t)argc + 6;
    char **args = calloc(cap, sizeof(*args));
    char *ledger = hvb_ledger_json(HVB_LEDGER_HOSTS);
    int id, rc, status = HVB_EXIT_USAGE;

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
    while ( (id = hvb_getopt(&p, report_opts, &val)) != HVB_OPT_DONE )
    {
        switch ( id )
        {
        case HVB_OPT_ERROR:
            goto out;
        case HVB_OPT_POSITIONAL:
            if ( report_input(val, &args, &n, &cap, (size_t)argc) )
                goto out;
            break;
        case 1:
            out = val;
            break;
        case 2:
            hvb_cmd_doc_help(stdout, &hvb_doc_report);
            status = HVB_EXIT_OK;
            goto out;
        }
    }
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
    free(args);
    free(ledger);
    return status;
}
