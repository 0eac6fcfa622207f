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
 * What gate judges of each results file of @args (from index 4; "--seeds
 * DIR" pairs skipped): hvb_cmp_paired() on time at its default
 * threshold, {PATH: gate's JSON view}, written to a temporary file @path
 * for report.py's table.  Its ratio column is then the paired ratio and
 * CI gate judged, and its verdict gate's, not numbers Python computes
 * again.  A file without a group of two plugins has no entry.
 */
static int gate_rows(char **args, size_t n, char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    json_t *all = json_object(), *doc;
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
        if ( doc != NULL &&
             hvb_cmp_paired(doc, "time", -1, &cmp, err, sizeof(err)) == 0 )
        {
            json_object_set_new(all, args[k], hvb_cmp_json(&cmp));
            hvb_cmp_free(&cmp);
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
