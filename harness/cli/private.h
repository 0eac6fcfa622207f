/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cli room (harness/cli/): the hvbench command line.  main.c checks
 * the registries and dispatches; cli.c has the help, the option parser
 * and the one-line error helpers (hvb/cli.h); one cmd_NAME.c per
 * subcommand "hvbench NAME" (cmd_compare.c is compare and gate, both
 * views of two results files; cmd_gate_bin.c is "gate --base-bin", two
 * builds paired, with cmd_worker.c the hidden "worker" each build runs).
 * run_session.c is one measuring run from matrix to results file, the
 * sequence that run, profile, lockstat and worker share (hvb/run.h);
 * callgrind.c re-runs a command under valgrind; ledger.c labels the
 * environment ledger's rows once for every view of them.  This room is
 * the only one that sees every other: it sequences them and prints;
 * nothing below prints a usage error or picks an exit status.
 *
 * E.g. "hvbench run lookup --plugin domlookup=rcu-noref": main.c ->
 * cmd_run.c (options) -> run_session.c: hvb_matrix_build() (run),
 * hvb_meter_probe() (measure), hvb_rounds_run() (run), hvb_summary_build()
 * and hvb_results_build() (output), hvb_console_table() (output).
 *
 * This header holds what the room's files share among themselves.
 */
#ifndef HVB_CLI_PRIVATE_H
#define HVB_CLI_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include <hvb/buildinfo.h>
#include <hvb/compare.h>
#include <hvb/engine.h>
#include <hvb/matrix.h>
#include <hvb/outfile.h>
#include <hvb/run.h>

/* profile_diff.c: "profile --diff SLOT=A,B". */

/* The slot axis index and labels A, B of --diff @spec; -1 if malformed. */
int hvb_profile_diff_parse(const struct hvb_matrix *m, const char *spec,
                           size_t *slot, char *a, char *b, size_t len);

/* Do cells @x and @y differ in slot axis @slot alone? */
bool hvb_profile_same_but(const struct hvb_mcell *x, const struct hvb_mcell *y,
                          size_t slot);

/* 0, or the exit status (the message printed) for a bad --diff @diff. */
int hvb_profile_diff_check(const char *diff, const struct hvb_matrix *m);

/*
 * run_session.c: one measuring run's state, shared with run_processes.c
 * (--processes).
 */
struct hvb_run_state {
    const struct hvb_matrix *m;
    const struct hvb_run_opts *o;
    const struct hvb_buildinfo *bi;
    int64_t *iters;
    json_t *probe, *env;
    bool quiet;
    struct hvb_outfile_lock *lock; /* held on --out for the run */
    /* What an interrupt finds (under write_lock). */
    pthread_mutex_t write_lock;
    unsigned int done;    /* rounds run (with --resume: and kept) */
    unsigned int written; /* rounds in --out (or in last, in place) */
    json_t *last;         /* in place: the document of those rounds */
    pid_t child;          /* --processes: the child running, or 0 */
    unsigned int proc;    /* --processes: its number, from 1 */
    const char *child_out;
};

/* The engine's context is known: print it on stderr unless quiet. */
void hvb_run_on_context(void *ctx, const char *context_json);

/*
 * run_processes.c: run the children one after another and pool their
 * rounds into @res (child k's round r is repetition k * rounds + r).
 * Returns the exit status, having said why on failure.
 */
int hvb_run_processes(struct hvb_run_state *st, struct hvb_engine_result *res);

/*
 * compare_views.c: what compare and gate print of @c.  @b, @n: the two
 * documents (their environments); @status: gate's exit status, or -1
 * for compare (no verdict).
 */
void hvb_cmp_print_console(FILE *f, const struct hvb_cmp *c);
void hvb_cmp_print_markdown(FILE *f, const struct hvb_cmp *c, json_t *b,
                            json_t *n, int status);
void hvb_cmp_print_json(FILE *f, const struct hvb_cmp *c);
/* The JSON view's object (what print_json prints). */
json_t *hvb_cmp_json(const struct hvb_cmp *c);

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

#endif /* HVB_CLI_PRIVATE_H */
