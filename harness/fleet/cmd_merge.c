/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench merge OUT.json SHARD.json...": join the shards of one run
 * matrix; see hvb/merge.h.
 *
 * Worked example: shards 1, 2 and 4 of "run lookup --plugin
 * domlookup=rwlock-ref,rcu-noref --param domains=10,100,1000 --threads
 * 1,2 --shard K/4" are given, 3 is not:
 *
 *   $ hvbench merge all.json s1.json s2.json s4.json
 *   hvbench: merge: 10 of 12 cells from 3 of 4 shards (hosts: n1, n2)
 *   hvbench: merge: shard 3/4 missing (2 cells): rerun it with
 *   "run ... --shard 3/4" (fleet: --resume)
 *
 * and all.json holds the ten cells at their places in the whole matrix
 * (index 0, 1, 2, 3, 6, ...), status 1.  Had s2.json been run with
 * --repetitions 10 instead of 5: exit 2, "merge: 's2.json' and
 * 's1.json' differ in run.repetitions (10, 5): shards of one matrix come
 * from one command line and build".
 *
 * Each shard is also checked against the plan that made it: its K is
 * claimed by one file only, each cell is as run writes it (one sample
 * per round done, a summary over them, plugins and given params as its
 * name says, benchmarks[] times >= 0), and its cells are, by name, group
 * and place, what "hvbench run <its command line> --shard K/N --plan"
 * says shard K/N is.  E.g. s2.json (of 4) with one cell's params edited to
 * domains=5 (and its name to match) is exit 2: "merge: 's2.json': cell
 * 0 is 'lookup/domlookup=rwlock-ref/domains=5/threads:2' (matrix cell
 * 2), where the plan of shard 2/4 has '.../domains=10/threads:2' (matrix
 * cell 2)"; had it been merged, compare would take it for a reference.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hv/strbuf.h>
#include <hvb/cmdline.h>
#include <hvb/cli_files.h>
#include <hvb/merge.h>
#include <hvb/results.h>
#include <hvb/results_read.h>

#include "private.h"

/* What must be equal in every shard: {object under hvbench, key}. */
static const struct {
    const char *obj, *key;
} same[] = {
    {NULL, HVB_RK_SCHEMA},
    {NULL, "version"},
    {HVB_RK_GIT, "commit"},
    {HVB_RK_GIT, "dirty"},
    {HVB_RK_BUILD, "compiler"},
    {HVB_RK_BUILD, "cflags"},
    {HVB_RK_BUILD, "build_type"},
    {HVB_RK_RUN, "workload"},
    {HVB_RK_RUN, HVB_RK_REPETITIONS},
    {HVB_RK_RUN, HVB_RK_PROCESSES},
    {HVB_RK_RUN, HVB_RK_MIN_TIME},
    {HVB_RK_RUN, "interleaved"},
    {HVB_RK_RUN, "seed"},
    {HVB_RK_RUN, "affinity"},
    {HVB_RK_RUN, HVB_RK_ITERATIONS},
    {HVB_RK_RUN, "instrument"},
    {HVB_RK_SHARD, HVB_RK_SHARD_N},
    {HVB_RK_SHARD, HVB_RK_CELLS_TOTAL},
    {HVB_RK_SHARD, "groups_total"},
};

struct shard {
    const char *path;
    json_t *doc;
    unsigned int k;
    const char *host;
};

/* The command line less what differs between shards of one matrix. */
static json_t *canonical_cmd(json_t *doc)
{
    json_t *cmd = hvb_rd_get(doc, "command_line", NULL), *out = json_array();
    size_t i, n = json_array_size(cmd);

    for ( i = 1; out != NULL && i < n; i++ )
    {
        const char *a = json_string_value(json_array_get(cmd, i)) ?: "";

        if ( strcmp(a, "--shard") == 0 || strcmp(a, "--out") == 0 ||
             strcmp(a, "-o") == 0 || strcmp(a, "--format") == 0 ||
             strcmp(a, "-f") == 0 )
        {
            i++;
            continue;
        }
        if ( strncmp(a, "--shard=", 8) == 0 || strncmp(a, "--out=", 6) == 0 ||
             strncmp(a, "--format=", 9) == 0 || strcmp(a, "--quiet") == 0 ||
             strcmp(a, "-q") == 0 )
            continue;
        json_array_append(out, json_array_get(cmd, i));
    }
    return out;
}

static char *shown(json_t *v)
{
    return v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("none");
}

/* Does @b match @a (the first shard)?  Exit 2 naming the difference. */
static int check_same(const struct shard *a, const struct shard *b)
{
    json_t *x, *y;
    size_t i;
    int status = HVB_EXIT_OK;

    for ( i = 0; i < sizeof(same) / sizeof(same[0]); i++ )
    {
        char *sx, *sy;

        x = same[i].obj ? hvb_rd_get(a->doc, same[i].obj, same[i].key)
                        : hvb_rd_get(a->doc, same[i].key, NULL);
        y = same[i].obj ? hvb_rd_get(b->doc, same[i].obj, same[i].key)
                        : hvb_rd_get(b->doc, same[i].key, NULL);
        if ( (x == NULL && y == NULL) || (x && y && json_equal(x, y)) )
            continue;
        sx = shown(x);
        sy = shown(y);
        status = hvb_usage_error(
            "merge: '%s' and '%s' differ in %s%s%s (%.60s, %.60s): shards of "
            "one matrix come from one command line and build",
            b->path, a->path, same[i].obj ?: "", same[i].obj ? "." : "",
            same[i].key, sy ?: "?", sx ?: "?");
        free(sx);
        free(sy);
        return status;
    }
    x = canonical_cmd(a->doc);
    y = canonical_cmd(b->doc);
    if ( x == NULL || y == NULL || !json_equal(x, y) )
    {
        char *sx = shown(x), *sy = shown(y);

        status = hvb_usage_error(
            "merge: '%s' and '%s' come from other command lines (%.200s; "
            "%.200s; --shard, --out, --quiet and --format aside)",
            b->path, a->path, sy ?: "?", sx ?: "?");
        free(sx);
        free(sy);
    }
    json_decref(x);
    json_decref(y);
    return status;
}

/* Load @path as a shard; exit status. */
static int load_shard(const char *path, struct shard *s)
{
    char err[512] = "";
    json_t *sh, *k;

    s->path = path;
    s->doc = hvb_results_load(path, err, sizeof(err));
    if ( s->doc == NULL )
        return hvb_usage_error("merge: %s", err);
    if ( !hvb_results_complete(s->doc, err, sizeof(err)) )
        return hvb_usage_error("merge: '%s' is an interrupted run (%s): "
                               "finish it with --resume first",
                               path, err);
    sh = hvb_rd_get(s->doc, HVB_RK_SHARD, NULL);
    k = json_object_get(sh, HVB_RK_SHARD_K);
    if ( !json_is_object(sh) || !json_is_integer(k) ||
         json_integer_value(k) < 1 ||
         json_integer_value(k) >
             json_integer_value(json_object_get(sh, HVB_RK_SHARD_N)) ||
         json_array_size(json_object_get(sh, HVB_RK_CELLS)) !=
             json_array_size(hvb_rd_cells(s->doc)) )
        return hvb_usage_error("merge: '%s' is not the results of a shard "
                               "(run ... --shard K/N)",
                               path);
    s->k = (unsigned int)json_integer_value(k);
    s->host = json_string_value(json_object_get(
                  json_object_get(s->doc, HVB_RK_CONTEXT), "host_name"))
                  ?: "unknown";
    return HVB_EXIT_OK;
}

/* Does @name ("lookup/domlookup=rcu-ref/domains=10/threads:1") hold KEY=@v? */
static bool in_name(const char *name, const char *key, json_t *v)
{
    char want[256];
    const char *p = name;
    size_t n;

    if ( json_is_string(v) )
        snprintf(want, sizeof(want), "%s=%s", key, json_string_value(v));
    else if ( json_is_integer(v) )
        snprintf(want, sizeof(want), "%s=%lld", key,
                 (long long)json_integer_value(v));
    else if ( json_is_boolean(v) )
        snprintf(want, sizeof(want), "%s=%s", key,
                 json_is_true(v) ? "true" : "false");
    else
        return false;
    n = strlen(want);
    while ( p != NULL )
    {
        if ( strncmp(p, want, n) == 0 && (p[n] == '/' || p[n] == '\0') )
            return true;
        p = strchr(p, '/');
        p = p ? p + 1 : NULL;
    }
    return false;
}

/* What is wrong with cell @c of a shard of @rounds rounds, or NULL. */
static const char *cell_flaw(json_t *c, json_int_t rounds, char *buf,
                             size_t len)
{
    const char *name = json_string_value(json_object_get(c, HVB_RK_NAME)) ?: "";
    json_t *smp = json_object_get(c, HVB_RK_SAMPLES), *params, *v;
    size_t j, n = json_array_size(smp), valid = 0;
    json_int_t sn;
    const char *key;

    json_array_foreach(smp, j, v)
        valid += json_is_number(v);
    sn = json_integer_value(
        json_object_get(json_object_get(c, HVB_RK_SUMMARY), "n"));
    if ( (json_int_t)n != rounds ||
         json_array_size(json_object_get(c, HVB_RK_CPU_SAMPLES)) != n ||
         json_array_size(json_object_get(c, HVB_RK_ITERATIONS)) != n )
        snprintf(buf, len,
                 "%zu samples, %zu cpu samples, %zu iterations for %lld "
                 "rounds done",
                 n, json_array_size(json_object_get(c, HVB_RK_CPU_SAMPLES)),
                 json_array_size(json_object_get(c, HVB_RK_ITERATIONS)),
                 (long long)rounds);
    else if ( sn != (json_int_t)valid )
        snprintf(buf, len, "%zu samples but summary.n %lld", valid,
                 (long long)sn);
    else
        buf[0] = '\0';
    if ( buf[0] )
        return buf;
    json_object_foreach(json_object_get(c, "plugins"), key, v)
        if ( !in_name(name, key, json_object_get(v, "label")) )
        {
            snprintf(buf, len, "plugins.%s is not the one its name says", key);
            return buf;
        }
    params = json_object_get(c, "params");
    json_array_foreach(json_object_get(c, "params_given"), j, v)
    {
        key = json_string_value(v) ?: "";
        if ( !in_name(name, key, json_object_get(params, key)) )
        {
            snprintf(buf, len, "params.%s is not the value its name says", key);
            return buf;
        }
    }
    return NULL;
}

/* A time of a benchmarks[] row: absent, or a finite number >= 0. */
static bool row_time_ok(json_t *t)
{
    return t == NULL || (json_is_number(t) && json_number_value(t) >= 0 &&
                         json_number_value(t) < HUGE_VAL);
}

/*
 * Is @s a shard as "run --shard K/N" writes it, cell by cell?  Every cell
 * has one sample per round done (samples, cpu samples, iterations) and a
 * summary over its valid ones; its plugins and given params are the ones
 * its name says (the name is what check_plan() holds against the plan);
 * every benchmarks[] row has times >= 0.  Exit 2 naming the first flaw,
 * e.g. "merge: 's2.json': cell 1 'lookup/.../domains=10/threads:1': 3
 * samples but summary.n 12: not a cell as run writes it".
 */
static int check_cells(const struct shard *s)
{
    json_int_t rounds =
        json_integer_value(hvb_rd_get(s->doc, HVB_RK_RUN, HVB_RK_ROUNDS_DONE));
    const char *why;
    char buf[256];
    json_t *c, *r;
    size_t i;

    json_array_foreach(hvb_rd_cells(s->doc), i, c)
    {
        why = cell_flaw(c, rounds, buf, sizeof(buf));
        if ( why != NULL )
            return hvb_usage_error(
                "merge: '%s': cell %zu '%s': %s: not a cell as run writes "
                "it",
                s->path, i,
                json_string_value(json_object_get(c, HVB_RK_NAME)) ?: "?", why);
    }
    json_array_foreach(json_object_get(s->doc, HVB_RK_BENCHMARKS), i, r)
        if ( !row_time_ok(json_object_get(r, "real_time")) ||
             !row_time_ok(json_object_get(r, "cpu_time")) )
            return hvb_usage_error("merge: '%s': benchmarks[%zu] has a "
                                   "real_time or cpu_time that is not a time "
                                   ">= 0",
                                   s->path, i);
    return HVB_EXIT_OK;
}

/*
 * Is @s what its plan says shard K/N is?  The plan comes from this
 * hvbench: "run <its command line> --shard K/N --plan" (the cells of
 * that shard, their names, their places in the whole matrix).  Cell j
 * of @s must be the plan's j-th, by name, group and index; so a cell
 * with params of no cell of the matrix, or another shard's cells under
 * this K, are exit 2.
 */
static int check_plan(const struct shard *s, const char *self)
{
    json_t *cmd = canonical_cmd(s->doc), *plan = NULL, *list, *full, *c, *p;
    size_t i, n = json_array_size(cmd);
    char **av = calloc(n + 6, sizeof(*av)), kn[32], err[512];
    struct hvb_exec fc = {.timeout_s = FLEET_CMD_TIMEOUT,
                          .max_out = 64u << 20,
                          .capture_err = true};
    int rc, status = HVB_EXIT_OK;

    if ( cmd == NULL || av == NULL )
    {
        json_decref(cmd);
        free(av);
        return hvb_failure("merge: out of memory");
    }
    snprintf(kn, sizeof(kn), "%u/%lld", s->k,
             (long long)json_integer_value(
                 hvb_rd_get(s->doc, HVB_RK_SHARD, HVB_RK_SHARD_N)));
    av[0] = (char *)self;
    for ( i = 0; i < n; i++ )
        av[i + 1] = (char *)(json_string_value(json_array_get(cmd, i)) ?: "");
    av[n + 1] = "--shard";
    av[n + 2] = kn;
    av[n + 3] = "--plan";
    fc.argv = av;
    rc = hvb_exec_run(&fc);
    if ( rc == 0 )
        plan = json_loads(fc.out, 0, NULL);
    if ( plan == NULL )
    {
        if ( rc )
            hvb_exec_error(&fc, rc, err, sizeof(err));
        status = hvb_usage_error(
            "merge: '%s': cannot rebuild its plan here ('run ... --shard %s "
            "--plan': %s): merge with the hvbench that ran it",
            s->path, kn, rc ? err : "not JSON");
        goto out;
    }
    list = json_object_get(plan, "list");
    full = hvb_rd_get(s->doc, HVB_RK_SHARD, HVB_RK_CELLS);
    if ( json_array_size(list) != json_array_size(hvb_rd_cells(s->doc)) )
    {
        status = hvb_usage_error(
            "merge: '%s' has %zu cells where its plan has %zu for shard %s",
            s->path, json_array_size(hvb_rd_cells(s->doc)),
            json_array_size(list), kn);
        goto out;
    }
    json_array_foreach(list, i, p)
    {
        c = json_array_get(hvb_rd_cells(s->doc), i);
        if ( json_equal(json_object_get(p, HVB_RK_NAME),
                        json_object_get(c, HVB_RK_NAME)) &&
             json_equal(json_object_get(p, HVB_RK_GROUP),
                        json_object_get(c, HVB_RK_GROUP)) &&
             json_equal(json_object_get(p, "full_index"),
                        json_array_get(full, i)) )
            continue;
        status = hvb_usage_error(
            "merge: '%s': cell %zu is '%s' (matrix cell %lld), where the plan "
            "of shard %s has '%s' (matrix cell %lld)",
            s->path, i,
            json_string_value(json_object_get(c, HVB_RK_NAME)) ?: "?",
            (long long)json_integer_value(json_array_get(full, i)), kn,
            json_string_value(json_object_get(p, HVB_RK_NAME)) ?: "?",
            (long long)json_integer_value(json_object_get(p, "full_index")));
        break;
    }
out:
    hvb_exec_free(&fc);
    json_decref(plan);
    json_decref(cmd);
    free(av);
    return status;
}

/* The rows of @doc's local cell @local, renumbered to @global, onto @rows. */
static int move_rows(json_t *doc, json_int_t local, json_int_t global,
                     json_t *rows)
{
    json_t *r, *meta;
    size_t i;

    json_array_foreach(json_object_get(doc, HVB_RK_BENCHMARKS), i, r)
    {
        if ( json_integer_value(json_object_get(r, HVB_RK_FAMILY)) != local )
            continue;
        r = json_deep_copy(r);
        meta = json_object_get(r, HVB_RK_HVBENCH);
        if ( r == NULL ||
             json_object_set_new(r, HVB_RK_FAMILY, json_integer(global)) ||
             (meta != NULL &&
              json_object_set_new(meta, "cell", json_integer(global))) ||
             json_array_append_new(rows, r) )
            return -ENOMEM;
    }
    return 0;
}

struct slot {
    const struct shard *s;
    json_t *cell; /* borrowed from s->doc */
    json_int_t local;
};

/* A merge under way: where each cell of the whole matrix comes from. */
struct join {
    const struct shard *sh;
    size_t nr;
    json_int_t total; /* cells of the whole matrix */
    struct slot *at;  /* [total]: the shard and cell of each, or none */
    bool *have;       /* [n + 1]: shard K given */
    json_t *cells, *rows, *hosts, *merged, *list, *missing;
    json_int_t failed;
    bool oom;
};

/* hvbench.hosts[HOST] of shard @s, once per host. */
static void join_host(struct join *jn, const struct shard *s)
{
    json_t *h = json_object_get(jn->hosts, s->host);

    if ( h != NULL )
        return;
    h = json_object();
    jn->oom |= json_object_set_new(jn->hosts, s->host, h) != 0;
    jn->oom |= json_object_set(h, "environment",
                               hvb_rd_get(s->doc, "environment", NULL)
                                   ?: json_null()) != 0;
    jn->oom |= json_object_set(h, HVB_RK_COUNTERS,
                               hvb_rd_get(s->doc, HVB_RK_COUNTERS, NULL)
                                   ?: json_null()) != 0;
    jn->oom |= json_object_set(h, HVB_RK_CONTEXT,
                               json_object_get(s->doc, HVB_RK_CONTEXT)) != 0;
}

/* Shard @s's cells into their places: 0, or the exit status. */
static int join_place(struct join *jn, const struct shard *s)
{
    json_t *full = hvb_rd_get(s->doc, HVB_RK_SHARD, HVB_RK_CELLS), *c;
    json_int_t g;
    size_t j;

    json_array_foreach(full, j, c)
    {
        g = json_integer_value(c);
        if ( !json_is_integer(c) || g < 0 || g >= jn->total )
            return hvb_usage_error(
                "merge: '%s': shard.cells[%zu] is not a cell of the %lld",
                s->path, j, (long long)jn->total);
        if ( jn->at[g].s != NULL )
            return hvb_usage_error(
                "merge: cell %lld '%s' is in both '%s' and '%s' (a shard "
                "given twice?)",
                (long long)g,
                json_string_value(json_object_get(
                    json_array_get(hvb_rd_cells(s->doc), j), HVB_RK_NAME)),
                jn->at[g].s->path, s->path);
        jn->at[g] = (struct slot){s, json_array_get(hvb_rd_cells(s->doc), j),
                                  (json_int_t)j};
    }
    jn->have[s->k] = true;
    join_host(jn, s);
    c = json_pack("{s:I, s:s, s:s, s:I}", HVB_RK_SHARD_K, (json_int_t)s->k,
                  "file", s->path, HVB_RK_HOST, s->host, HVB_RK_CELLS,
                  (json_int_t)json_array_size(full));
    jn->oom |= json_array_append_new(jn->list, c) != 0;
    return 0;
}

/* The cells present in matrix order, with their rows, into @jn. */
static void join_cells(struct join *jn, struct hvb_merge_result *res)
{
    json_int_t g, group = -1, prev_group = -1;
    const struct shard *prev = NULL;
    json_t *c;

    for ( g = 0; !jn->oom && g < jn->total; g++ )
    {
        const struct slot *at = &jn->at[g];

        if ( at->s == NULL )
            continue;
        /* Groups numbered as a run of the cells present would number them. */
        if ( at->s != prev || json_integer_value(json_object_get(
                                  at->cell, HVB_RK_GROUP)) != prev_group )
            group++;
        prev = at->s;
        prev_group =
            json_integer_value(json_object_get(at->cell, HVB_RK_GROUP));
        c = json_deep_copy(at->cell);
        jn->oom |= c == NULL;
        jn->oom |= json_object_set_new(c, "index", json_integer(g)) != 0;
        jn->oom |=
            json_object_set_new(c, HVB_RK_GROUP, json_integer(group)) != 0;
        jn->oom |=
            json_object_set_new(c, HVB_RK_HOST, json_string(at->s->host)) != 0;
        jn->oom |=
            json_object_set_new(c, HVB_RK_SHARD, json_integer(at->s->k)) != 0;
        jn->failed += json_is_null(json_object_get(c, HVB_RK_ERROR)) ? 0 : 1;
        jn->oom |= json_array_append_new(jn->cells, c) != 0;
        jn->oom |= move_rows(at->s->doc, at->local, g, jn->rows) != 0;
        res->cells++;
    }
}

/* The shards not given, into @res and @jn->missing. */
static void join_missing(struct join *jn, struct hvb_merge_result *res)
{
    unsigned int k;

    res->missing = calloc(res->n + 1, sizeof(*res->missing));
    jn->oom |= res->missing == NULL;
    for ( k = 1; !jn->oom && k <= res->n; k++ )
        if ( !jn->have[k] )
        {
            res->missing[res->nr_missing++] = k;
            jn->oom |= json_array_append_new(jn->missing, json_integer(k)) != 0;
        }
}

/* What was joined into @root: hvbench.merged, .hosts, the cells, rows. */
static void join_write(struct join *jn, json_t *root,
                       const struct hvb_merge_result *res)
{
    json_t *hv = json_object_get(root, HVB_RK_HVBENCH), *cmd, *run;
    bool oom = jn->oom;

    cmd = canonical_cmd(jn->sh[0].doc);
    if ( cmd != NULL )
        oom |= json_array_insert(
            cmd, 0,
            json_array_get(hvb_rd_get(jn->sh[0].doc, "command_line", NULL), 0));
    oom |= cmd == NULL || json_object_set_new(hv, "command_line", cmd);
    oom |=
        json_object_set_new(jn->merged, HVB_RK_SHARD_N, json_integer(res->n));
    oom |= json_object_set_new(jn->merged, HVB_RK_CELLS_TOTAL,
                               json_integer(jn->total));
    oom |= json_object_set_new(jn->merged, HVB_RK_CELLS,
                               json_integer((json_int_t)res->cells));
    oom |= json_object_set_new(jn->merged, "shards", jn->list);
    oom |= json_object_set_new(jn->merged, "missing_shards", jn->missing);
    oom |= json_object_set_new(jn->merged, HVB_RK_COMPLETE,
                               json_boolean(res->nr_missing == 0));
    jn->list = jn->missing = NULL;
    oom |= json_object_set_new(hv, HVB_RK_MERGED, jn->merged);
    oom |= json_object_set_new(hv, "hosts", jn->hosts);
    jn->merged = jn->hosts = NULL;
    oom |= json_object_del(hv, HVB_RK_SHARD) != 0;
    oom |= json_object_set_new(hv, HVB_RK_CELLS, jn->cells) != 0;
    oom |= json_object_set_new(root, HVB_RK_BENCHMARKS, jn->rows) != 0;
    jn->cells = jn->rows = NULL;
    run = json_object_get(hv, HVB_RK_RUN);
    oom |= json_object_set_new(run, HVB_RK_CELLS,
                               json_integer((json_int_t)res->cells)) != 0;
    oom |=
        json_object_set_new(run, "failed_cells", json_integer(jn->failed)) != 0;
    jn->oom = oom;
}

/* Build the merged document into @root (a copy of the first shard's). */
static int join(struct shard *sh, size_t nr, json_t *root,
                struct hvb_merge_result *res)
{
    struct join jn = {
        .sh = sh,
        .nr = nr,
        .total = json_integer_value(
            hvb_rd_get(sh[0].doc, HVB_RK_SHARD, HVB_RK_CELLS_TOTAL)),
        .cells = json_array(),
        .rows = json_array(),
        .hosts = json_object(),
        .merged = json_object(),
        .list = json_array(),
        .missing = json_array(),
    };
    int status = HVB_EXIT_OK;
    size_t i;

    jn.at = calloc((size_t)jn.total + 1, sizeof(*jn.at));
    jn.have = calloc(res->n + 1, sizeof(*jn.have));
    jn.oom = jn.cells == NULL || jn.rows == NULL || jn.hosts == NULL ||
             jn.merged == NULL || jn.list == NULL || jn.missing == NULL ||
             jn.at == NULL || jn.have == NULL;
    for ( i = 0; !jn.oom && i < nr && status == HVB_EXIT_OK; i++ )
        status = join_place(&jn, &sh[i]);
    if ( status == HVB_EXIT_OK )
    {
        join_cells(&jn, res);
        res->cells_total = (size_t)jn.total;
        join_missing(&jn, res);
        join_write(&jn, root, res);
        if ( jn.oom )
            status = hvb_failure("merge: out of memory");
    }
    json_decref(jn.cells);
    json_decref(jn.rows);
    json_decref(jn.hosts);
    json_decref(jn.merged);
    json_decref(jn.list);
    json_decref(jn.missing);
    free(jn.at);
    free(jn.have);
    return status;
}

/* Print what was merged and what is missing. */
static void say(const struct shard *sh, size_t nr,
                const struct hvb_merge_result *res, const char *out)
{
    struct hv_strbuf b;
    char hosts[512];
    size_t i, j;
    unsigned int m;

    hv_strbuf_init(&b, hosts, sizeof(hosts));
    for ( i = 0; i < nr; i++ )
    {
        for ( j = 0; j < i; j++ )
            if ( strcmp(sh[j].host, sh[i].host) == 0 )
                break;
        if ( j == i )
            hv_strbuf_join(&b, ", ", "%s", sh[i].host);
    }
    fprintf(stderr,
            "hvbench: merge: %zu of %zu cells from %zu of %u shards (hosts: "
            "%s) into %s\n",
            res->cells, res->cells_total, nr, res->n, hosts, out);
    for ( m = 0; m < res->nr_missing; m++ )
        fprintf(stderr,
                "hvbench: merge: shard %u/%u missing: rerun it with \"run ... "
                "--shard %u/%u\" (fleet: --resume)\n",
                res->missing[m], res->n, res->missing[m], res->n);
}

/* Shard @i of @sh: its K claimed once, its cells, its plan.  Status. */
static int check_shard(const struct shard *sh, size_t i)
{
    char self[PATH_MAX];
    ssize_t sl;
    size_t j;
    int status;

    for ( j = 0; j < i; j++ )
        if ( sh[j].k == sh[i].k )
            return hvb_usage_error(
                "merge: shard %u/%lld is in both '%s' and '%s' (a shard given "
                "twice, or one relabelled?)",
                sh[i].k,
                (long long)json_integer_value(
                    hvb_rd_get(sh[i].doc, HVB_RK_SHARD, HVB_RK_SHARD_N)),
                sh[j].path, sh[i].path);
    status = check_cells(&sh[i]);
    if ( status )
        return status;
    sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if ( sl <= 0 )
        return hvb_failure("merge: /proc/self/exe: %s", strerror(errno));
    self[sl] = '\0';
    return check_plan(&sh[i], self);
}

int hvb_merge_files(const char *out, char *const *paths, size_t nr, bool quiet,
                    struct hvb_merge_result *res)
{
    struct shard *sh = calloc(nr + 1, sizeof(*sh));
    char err[512] = "";
    json_t *root = NULL, *back;
    int status = HVB_EXIT_OK;
    size_t i;

    memset(res, 0, sizeof(*res));
    if ( sh == NULL )
        return hvb_failure("merge: out of memory");
    for ( i = 0; i < nr && status == HVB_EXIT_OK; i++ )
        status = load_shard(paths[i], &sh[i]);
    for ( i = 1; i < nr && status == HVB_EXIT_OK; i++ )
        status = check_same(&sh[0], &sh[i]);
    for ( i = 0; i < nr && status == HVB_EXIT_OK; i++ )
        status = check_shard(sh, i);
    if ( status == HVB_EXIT_OK )
    {
        res->n = (unsigned int)json_integer_value(
            hvb_rd_get(sh[0].doc, HVB_RK_SHARD, HVB_RK_SHARD_N));
        root = json_deep_copy(sh[0].doc);
        status = root ? join(sh, nr, root, res)
                      : hvb_failure("merge: out of memory");
    }
    /* What compare and gate will read must pass their check. */
    if ( status == HVB_EXIT_OK )
    {
        char *text = json_dumps(root, JSON_COMPACT);

        back =
            text ? hvb_results_parse(text, strlen(text), out, err, sizeof(err))
                 : NULL;
        free(text);
        if ( back == NULL )
            status = hvb_failure("merge: the merged document fails the "
                                 "readers' check: %s",
                                 err[0] ? err : "out of memory");
        json_decref(back);
    }
    if ( status == HVB_EXIT_OK &&
         hvb_results_write(out, root, err, sizeof(err)) )
        status = hvb_failure("merge: %s", err);
    if ( status == HVB_EXIT_OK )
    {
        if ( !quiet || res->nr_missing )
            say(sh, nr, res, out);
        if ( res->nr_missing )
            status = HVB_EXIT_FAIL;
    }
    json_decref(root);
    for ( i = 0; i < nr; i++ )
        json_decref(sh[i].doc);
    free(sh);
    return status;
}

void hvb_merge_result_free(struct hvb_merge_result *res)
{
    free(res->missing);
    res->missing = NULL;
}

/* One "merge" command line being read: what its options set. */
struct merge_cmd {
    bool quiet;
};

static const struct hvb_optdef merge_opts[] = {
    HVB_OPT_SET("quiet", 'q', struct merge_cmd, quiet,
                "say nothing unless shards are missing"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};

const struct hvb_cmd_doc hvb_doc_merge = {
    .usage = "merge OUT.json SHARD.json... [--quiet]",
    .text = "Join the results of 'hvbench run ... --shard K/N' into OUT.json\n"
            "(written atomically), which compare, gate and report read like\n"
            "any results file.  Every shard must come from the same command\n"
            "line (--shard, --out, --quiet and --format aside), build and\n"
            "settings.  Each cell keeps its place in the whole matrix and\n"
            "records the host that measured it; hvbench.hosts holds each\n"
            "host's environment.\n"
            "\n"
            "A shard not given is named as missing and OUT.json holds the\n"
            "rest (status 1); a cell in two files is an error, and so is a\n"
            "shard that is not what its plan made ('run ... --shard K/N\n"
            "--plan' with this hvbench: the same cells, each with its samples\n"
            "and its params as its name says).",
    .opts = merge_opts,
    .notes = "exit status: 0 merged, 1 shards missing, 2 usage or input error\n"
             "(mismatched shards, not a shard, a cell twice)",
};

int hvb_cmd_merge(struct hvb_cmd_ctx *ctx)
{
    struct hvb_merge_result res;
    struct merge_cmd m = {.quiet = false};
    char **files;
    size_t nr;
    int status;

    status = hvb_cli_files(ctx->argc, ctx->argv, "merge", &hvb_doc_merge, &m,
                           &files, &nr);
    if ( status != HVB_FILES_GO_ON )
        return status;
    if ( nr < 2 )
    {
        free(files);
        return hvb_usage_error("merge needs OUT.json and at least one "
                               "SHARD.json (see 'hvbench merge --help')");
    }
    status = hvb_merge_files(files[0], files + 1, nr - 1, m.quiet, &res);
    hvb_merge_result_free(&res);
    free(files);
    return status;
}
