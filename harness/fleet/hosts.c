/* SPDX-License-Identifier: GPL-2.0-only */
/* Hosts side by side; see hvb/hosts.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <hvb/cmdline.h>
#include <hvb/cli_files.h>
#include <hvb/hosts.h>
#include <hvb/results.h>
#include <hvb/results_read.h>
#include <hvb/ledger.h>

#include "private.h"

static json_t *cell_named(json_t *doc, const char *name)
{
    json_t *c;
    size_t i;

    json_array_foreach(hvb_rd_cells(doc), i, c)
        if ( strcmp(json_string_value(json_object_get(c, HVB_RK_NAME)) ?: "",
                    name) == 0 )
            return c;
    return NULL;
}

static void cell_text(FILE *f, json_t *c)
{
    json_t *pr = json_object_get(c, HVB_RK_PAIRED),
           *ci = json_object_get(pr, HVB_RK_CI95);
    double med = json_number_value(
        json_object_get(json_object_get(c, HVB_RK_SUMMARY), HVB_RK_MEDIAN));

    if ( c == NULL )
    {
        fputs(" — |", f);
        return;
    }
    if ( !json_is_null(json_object_get(c, HVB_RK_ERROR)) )
    {
        fputs(" failed |", f);
        return;
    }
    fprintf(f, " %.4g", med);
    if ( json_is_number(json_object_get(pr, HVB_RK_MEDIAN)) )
        fprintf(f, " (%.3g [%.3g, %.3g])",
                json_number_value(json_object_get(pr, HVB_RK_MEDIAN)),
                json_number_value(json_array_get(ci, 0)),
                json_number_value(json_array_get(ci, 1)));
    fputs(" |", f);
}

/*
 * A table's head: @first, then a column per host (ledger row 0), each
 * aligned by @align: "| cell | n1 | n2 |" over "|---|---:|---:|".
 */
static void host_columns(FILE *f, json_t **docs, size_t n, const char *first,
                         const char *align)
{
    char a[256];
    size_t k;

    fprintf(f, "|%s%s |", *first ? " " : "", first);
    for ( k = 0; k < n; k++ )
        fprintf(f, " %s |",
                hvb_ledger_text(docs[k], &hvb_ledger_rows[0], a, sizeof(a)));
    fputs("\n|---|", f);
    for ( k = 0; k < n; k++ )
        fputs(align, f);
    fputc('\n', f);
}

int hvb_hosts_print_files(FILE *f, char *const *paths, size_t n)
{
    json_t **docs = calloc(n + 1, sizeof(*docs)), *c;
    char a[256], b[256], err[512];
    size_t i, r, k;
    bool any = false;
    int status = HVB_EXIT_OK;

    if ( docs == NULL )
        return hvb_failure("out of memory");
    for ( k = 0; k < n && status == HVB_EXIT_OK; k++ )
    {
        docs[k] = hvb_results_load(paths[k], err, sizeof(err));
        if ( docs[k] == NULL )
            status = hvb_usage_error("%s", err);
    }
    if ( status != HVB_EXIT_OK )
        goto out;
    fprintf(f, "## hvbench: %zu host%s side by side\n\n", n, n == 1 ? "" : "s");
    host_columns(f, docs, n, "", "---|");
    for ( r = 1; r < hvb_ledger_nr_rows; r++ )
    {
        const struct hvb_ledger_row *row = &hvb_ledger_rows[r];
        bool differ = false;

        if ( !(row->views & HVB_LEDGER_HOSTS) )
            continue;
        hvb_ledger_text(docs[0], row, a, sizeof(a));
        for ( k = 1; k < n; k++ )
            differ |=
                strcmp(a, hvb_ledger_text(docs[k], row, b, sizeof(b))) != 0;
        any |= differ;
        fprintf(f, "| %s%s |", differ ? "⚠️ " : "", row->label);
        for ( k = 0; k < n; k++ )
            fprintf(f, " %s%s%s |", differ ? "**" : "",
                    hvb_ledger_text(docs[k], row, b, sizeof(b)),
                    differ ? "**" : "");
        fputc('\n', f);
    }
    if ( any )
        fputs("\n⚠️ The hosts differ in the rows marked: a difference "
              "between the columns below may be the machines'.\n",
              f);
    fputs("\nMedian ns/op; for a variant, (paired ratio to its group's "
          "reference [95% CI]).\n\n",
          f);
    host_columns(f, docs, n, "cell", "---:|");
    json_array_foreach(hvb_rd_cells(docs[0]), i, c)
    {
        const char *name = json_string_value(json_object_get(c, HVB_RK_NAME));

        fprintf(f, "| `%s` |", name ?: "?");
        for ( k = 0; k < n; k++ )
            cell_text(f, k == 0 ? c : cell_named(docs[k], name ?: ""));
        fputc('\n', f);
    }
out:
    for ( k = 0; k < n; k++ )
        json_decref(docs[k]);
    free(docs);
    return status;
}

/*
 * One "compare --hosts" command line being read: --hosts itself is what
 * picked this form (its row in the command table).
 */
struct hosts_cmd {
    bool hosts;
};

static const struct hvb_optdef hosts_opts[] = {
    HVB_OPT_SET("hosts", 0, struct hosts_cmd, hosts,
                "one column per host's results file"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};

const struct hvb_cmd_doc hvb_doc_compare_hosts = {
    .usage = "compare --hosts RUN.json...",
    .text = "The same matrix run on several hosts (hvbench fleet slurm\n"
            "--per-host writes DIR/host-NODE.json), side by side in\n"
            "markdown: each host's environment ledger, the rows that\n"
            "differ marked, then per cell the median ns/op and a\n"
            "variant's paired ratio to its reference with its 95% CI.",
    .opts = hosts_opts,
    .notes = "exit status: 0, or 2 for a usage or input error",
};

int hvb_cmd_compare_hosts(struct hvb_cmd_ctx *ctx)
{
    int argc = ctx->argc;
    char **argv = ctx->argv;
    struct hosts_cmd h = {.hosts = false};
    char **files;
    size_t nr;
    int status;

    status = hvb_cli_files(argc, argv, "compare --hosts",
                           &hvb_doc_compare_hosts, &h, &files, &nr);
    if ( status != HVB_FILES_GO_ON )
        return status;
    if ( nr == 0 )
        status = hvb_usage_error("compare --hosts needs RUN.json files");
    else
        status = hvb_hosts_print_files(stdout, files, nr);
    free(files);
    return status;
}
