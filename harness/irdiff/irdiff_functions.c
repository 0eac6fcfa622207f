/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the instructions moved between two builds, per function
 * (hvb/irdiff.h): deterministic, from callgrind.
 *
 * Each build runs the suite line once under valgrind's callgrind, with
 * hvbench's own client requests around the measured loop (one dump per
 * sample, "--instrument callgrind"), one repetition, cells in matrix
 * order (--no-interleave): the N+1-th sample's dump is cell N (a
 * build with the cache simulation dumps once more first, its probe,
 * which is skipped by its trigger).  That is checked, not assumed: a
 * dump's total over the cell's iteration count must be the cell's
 * sim_instructions_per_op in the run's results.
 * callgrind_annotate lists each function's self cost (Ir) in a dump; a
 * function is named by its name alone (addresses and the source trees'
 * paths differ between the builds, as in perf diff), summed over the
 * files its code came from (inlined code counts where it was inlined
 * from: lock.h:rwlock_ref_lock is rwlock_ref_lock's).
 *
 * Worked example: a patch adds a second refcount check to
 * rcu_ref_lock.  Base: rcu_ref_lock 14.0 Ir/op, lookup_thread 18.2;
 * head: rcu_ref_lock 17.0, lookup_thread 18.2.  The table ranks
 * rcu_ref_lock first, +3.0 Ir/op (+21%), and lookup_thread is not in it
 * (no change).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvb/exec.h>
#include <hvb/fsutil.h>
#include <hvb/meter.h>
#include <hvb/results.h>
#include <hvb/results_read.h>

#include <hvb/irdiff.h>

#define CG_TIMEOUT_S    3600.0
#define ANNOTATE_MAX    (64u << 20)
#define MAPPING_EPSILON 1e-6 /* relative: dump total vs results */

/* One function's cost in one dump. */
struct fn_cost {
    char name[256], file[256];
    double ir, best; /* summed; the largest single entry's (for file) */
};

struct fn_table {
    struct fn_cost *v;
    size_t nr, cap;
};

/* Run @bin's line @line under callgrind, dumps and results into @dir. */
int hvb_irdiff_exec_log(struct hvb_exec *c, const char *logp, char *err,
                        size_t len)
{
    int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc;

    c->log_fd = fd;
    rc = fd < 0 ? -errno : hvb_exec_run(c);
    if ( fd >= 0 )
        close(fd);
    if ( rc )
        snprintf(err, len, "%s %s: %s (log: %s)", c->argv[0],
                 c->argv[1] ? c->argv[1] : "",
                 rc < 0 ? strerror(-rc) : "failed", logp);
    hvb_exec_free(c);
    return rc ? -EIO : 0;
}

static int run_cg(const char *bin, char *const *line, size_t nr,
                  const char *dir, char *err, size_t len)
{
    char env[4200], out[4200], res[4200], logp[4200];
    char **av = calloc(nr + 32, sizeof(*av));
    const char *const *opt;
    char *envv[] = {env, NULL};
    struct hvb_exec c = {
        .path_search = true, .timeout_s = CG_TIMEOUT_S, .env = envv};
    size_t n = 0, i;
    int rc;

    if ( av == NULL )
        return -ENOMEM;
    snprintf(env, sizeof(env), "HVB_CALLGRIND_DIR=%s", dir);
    snprintf(out, sizeof(out), "--callgrind-out-file=%s/cg.out", dir);
    snprintf(res, sizeof(res), "%s/results.json", dir);
    snprintf(logp, sizeof(logp), "%s/run.log", dir);
    av[n++] = "valgrind";
    av[n++] = "--tool=callgrind";
    av[n++] = "--instr-atstart=no";
    av[n++] = "--quiet";
    /* The caches this hvbench simulates, pinned (hvb/meter.h). */
    for ( opt = hvb_meter_cg_options(); opt != NULL && *opt != NULL; opt++ )
        av[n++] = (char *)*opt;
    av[n++] = out;
    av[n++] = (char *)bin;
    av[n++] = "run";
    for ( i = 0; i < nr; i++ )
        av[n++] = line[i];
    av[n++] = "--instrument";
    av[n++] = "callgrind";
    av[n++] = "--repetitions";
    av[n++] = "1";
    av[n++] = "--no-interleave";
    av[n++] = "-q";
    av[n++] = "--out";
    av[n++] = res;
    av[n] = NULL;
    c.argv = av;
    rc = hvb_irdiff_exec_log(&c, logp, err, len);
    free(av);
    return rc;
}

/* Cell @cell's iterations and sim_instructions_per_op in @dir's run. */
static int cell_figures(const char *dir, size_t cell, double *iters,
                        double *per_op, char *err, size_t len)
{
    char path[4200], e[512];
    json_t *doc, *c, *s;

    snprintf(path, sizeof(path), "%s/results.json", dir);
    doc = hvb_results_load(path, e, sizeof(e));
    if ( doc == NULL )
    {
        snprintf(err, len, "%s", e);
        return -EINVAL;
    }
    c = json_array_get(
        json_object_get(json_object_get(doc, "hvbench"), "cells"), cell);
    s = json_object_get(json_object_get(json_object_get(c, "counters"),
                                        "sim_instructions_per_op"),
                        "samples");
    *iters =
        json_number_value(json_array_get(json_object_get(c, "iterations"), 0));
    *per_op = json_number_value(json_array_get(s, 0));
    json_decref(doc);
    if ( !(*iters > 0) || !(*per_op > 0) )
    {
        snprintf(err, len, "%s: cell %zu has no callgrind figures", path, cell);
        return -EINVAL;
    }
    return 0;
}

static struct fn_cost *fn_find(struct fn_table *t, const char *name)
{
    struct fn_cost *p;
    size_t i;

    for ( i = 0; i < t->nr; i++ )
        if ( strcmp(t->v[i].name, name) == 0 )
            return &t->v[i];
    if ( t->nr == t->cap )
    {
        size_t cap = t->cap ? t->cap * 2 : 64;

        p = realloc(t->v, cap * sizeof(*p));
        if ( p == NULL )
            return NULL;
        t->v = p;
        t->cap = cap;
    }
    p = &t->v[t->nr++];
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%s", name);
    return p;
}

/* "fn (20,032x)" (callgrind_annotate's call count) -> "fn". */
static void strip_calls(char *fn)
{
    char *p = strrchr(fn, '(');
    size_t n;

    if ( p == NULL || p == fn || p[-1] != ' ' )
        return;
    n = strspn(p + 1, "0123456789,");
    if ( n > 0 && strcmp(p + 1 + n, "x)") == 0 )
        p[-1] = '\0';
}

/*
 * One line of callgrind_annotate's function list: "1,234 (5.6%)
 * /src/x.c:fn [/bin]" -> 1234, "x.c" (@src stripped), "fn".  False for
 * any other line.
 */
static bool parse_line(char *s, const char *src, double *ir, char **file,
                       char **fn)
{
    char num[64], *p = s, *colon, *obj;
    size_t n = 0;

    while ( *p == ' ' )
        p++;
    if ( *p < '0' || *p > '9' )
        return false;
    for ( ; (*p >= '0' && *p <= '9') || *p == ','; p++ )
        if ( *p != ',' && n + 1 < sizeof(num) )
            num[n++] = *p;
    num[n] = '\0';
    while ( *p == ' ' )
        p++;
    if ( *p == '(' )
    {
        p = strchr(p, ')');
        if ( p == NULL )
            return false;
        p++;
    }
    while ( *p == ' ' )
        p++;
    p[strcspn(p, "\n")] = '\0';
    obj = strstr(p, " [");
    if ( obj != NULL )
        *obj = '\0';
    colon = strchr(p, ':');
    if ( colon == NULL || colon[1] == '\0' || strcmp(p, "PROGRAM TOTALS") == 0 )
        return false;
    *colon = '\0';
    *ir = strtod(num, NULL);
    *file = p;
    if ( strncmp(p, src, strlen(src)) == 0 && p[strlen(src)] == '/' )
        *file = p + strlen(src) + 1;
    *fn = colon + 1;
    strip_calls(*fn);
    return true;
}

/* Dump @dump's functions (self Ir / @iters) into @t. */
static int annotate(const char *dump, const char *src, double iters,
                    struct fn_table *t, char *err, size_t len)
{
    char *argv[] = {"callgrind_annotate",
                    "--threshold=100",
                    "--inclusive=no",
                    "--auto=no",
                    "--show=Ir",
                    (char *)dump,
                    NULL};
    struct hvb_exec c = {.argv = argv,
                         .path_search = true,
                         .capture_err = true,
                         .timeout_s = 600,
                         .max_out = ANNOTATE_MAX};
    char *line, *next, *file, *fn;
    struct fn_cost *f;
    bool in_list = false;
    double ir;
    int rc = hvb_exec_run(&c);

    if ( rc )
    {
        hvb_exec_error(&c, rc, err, len);
        hvb_exec_free(&c);
        return -EIO;
    }
    /* The function list: from its "file:function" header to a blank line. */
    for ( line = c.out; line != NULL; line = next )
    {
        next = strchr(line, '\n');
        if ( next != NULL )
            *next++ = '\0';
        if ( strstr(line, "file:function") != NULL )
        {
            in_list = true;
            continue;
        }
        if ( !in_list || line[0] == '-' )
            continue;
        if ( strspn(line, " ") == strlen(line) )
            break;
        if ( !parse_line(line, src, &ir, &file, &fn) )
            continue;
        f = fn_find(t, fn);
        if ( f == NULL )
        {
            hvb_exec_free(&c);
            return -ENOMEM;
        }
        f->ir += ir / iters;
        if ( ir / iters > f->best )
        {
            f->best = ir / iters;
            snprintf(f->file, sizeof(f->file), "%s", file);
        }
    }
    hvb_exec_free(&c);
    return 0;
}

/*
 * Dump @n of @dir: its Ir total, and whether it is a sample's (its
 * trigger "hvbench", not the probe's "hvbench-probe" of builds with the
 * cache simulation).  -1: no such dump.
 */
static double dump_total(const char *dir, unsigned int n, bool *sample,
                         char *path, size_t plen)
{
    char line[512];
    double total = -1;
    FILE *f;

    snprintf(path, plen, "%s/cg.out.%u", dir, n);
    f = fopen(path, "r");
    if ( f == NULL )
        return -1;
    *sample = false;
    while ( fgets(line, sizeof(line), f) )
        if ( strncmp(line, "totals:", 7) == 0 )
            total = strtod(line + 7, NULL);
        else if ( strcmp(line, "desc: Trigger: Client Request: hvbench\n") ==
                  0 )
            *sample = true;
    fclose(f);
    return total > 0 ? total : 0;
}

/* The dump of @cell in @dir, checked against the run's results. */
static int cell_dump(const char *dir, size_t cell, char *path, size_t plen,
                     double *iters, double *per_op_out, char *err, size_t len)
{
    double per_op, total = -1;
    unsigned int n;
    size_t k = 0;
    bool sample;
    int rc = cell_figures(dir, cell, iters, &per_op, err, len);

    if ( rc )
        return rc;
    /* The samples' dumps in order: one repetition, so sample k is cell k. */
    for ( n = 1; (total = dump_total(dir, n, &sample, path, plen)) >= 0; n++ )
        if ( sample && k++ == cell )
            break;
    if ( !(total > 0) ||
         fabs(total / *iters - per_op) > MAPPING_EPSILON * per_op )
    {
        snprintf(err, len,
                 "%s: not cell %zu's dump (%g Ir / %g iterations, the run "
                 "says %g per op)",
                 path, cell, total, *iters, per_op);
        return -EINVAL;
    }
    *per_op_out = per_op;
    return 0;
}

static int by_delta(const void *a, const void *b)
{
    const struct hvb_fn_delta *x = a, *y = b;
    double dx = fabs(x->head - x->base), dy = fabs(y->head - y->base);

    return dx < dy ? 1 : dx > dy ? -1 : strcmp(x->name, y->name);
}

int hvb_irdiff_callgrind(const char *bin, char *const *line, size_t nr,
                         const char *dir, char *err, size_t len)
{
    int rc = hvb_mkdirs(dir);

    if ( rc )
    {
        snprintf(err, len, "%s: %s", dir, strerror(-rc));
        return rc;
    }
    return run_cg(bin, line, nr, dir, err, len);
}

int hvb_irdiff_functions(char *const dirs[2], char *const srcs[2], size_t cell,
                         struct hvb_fn_delta **rows, double totals[2],
                         char *err, size_t len)
{
    struct fn_table t[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    struct hvb_fn_delta *out = NULL;
    char dump[4300];
    double iters;
    size_t i, j, n = 0;
    int k, rc = 0;

    for ( k = 0; k < 2 && rc == 0; k++ )
    {
        rc = cell_dump(dirs[k], cell, dump, sizeof(dump), &iters, &totals[k],
                       err, len);
        if ( rc == 0 )
            rc = annotate(dump, srcs[k], iters, &t[k], err, len);
    }
    if ( rc == 0 )
        out = calloc(t[0].nr + t[1].nr + 1, sizeof(*out));
    if ( rc == 0 && out == NULL )
        rc = -ENOMEM;
    for ( k = 0; k < 2 && rc == 0; k++ )
        for ( i = 0; i < t[k].nr; i++ )
        {
            for ( j = 0; j < n && strcmp(out[j].name, t[k].v[i].name); j++ )
                ;
            if ( j == n )
            {
                snprintf(out[n].name, sizeof(out[n].name), "%s",
                         t[k].v[i].name);
                snprintf(out[n].file, sizeof(out[n].file), "%s",
                         t[k].v[i].file);
                n++;
            }
            if ( k == 0 )
                out[j].base = t[k].v[i].ir;
            else
            {
                /* Where head spends most of it: where the change is. */
                out[j].head = t[k].v[i].ir;
                snprintf(out[j].file, sizeof(out[j].file), "%s",
                         t[k].v[i].file);
            }
        }
    free(t[0].v);
    free(t[1].v);
    if ( rc )
    {
        free(out);
        return rc;
    }
    /* Only what changed, largest change first. */
    for ( i = j = 0; i < n; i++ )
        if ( fabs(out[i].head - out[i].base) >= HVB_IRDIFF_MIN_DELTA_IR )
            out[j++] = out[i];
    qsort(out, j, sizeof(*out), by_delta);
    *rows = out;
    return (int)j;
}

int hvb_irdiff_fn_lines(char *const dirs[2], char *const srcs[2], size_t cell,
                        json_t *fns, char *err, size_t len)
{
    char dumps[2][4300], *d[2] = {dumps[0], dumps[1]};
    double ops[2], per_op;
    int k, rc = 0;

    for ( k = 0; k < 2 && rc == 0; k++ )
        rc = cell_dump(dirs[k], cell, dumps[k], sizeof(dumps[k]), &ops[k],
                       &per_op, err, len);
    return rc ? rc : hvb_irdiff_lines(d, srcs, ops, fns, err, len);
}
