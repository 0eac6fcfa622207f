/* SPDX-License-Identifier: GPL-2.0-only */
/* Shards of a run matrix: whole groups, balanced by cost; see hvb/shard.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/results.h>
#include <hvb/results_read.h>
#include <hvb/shard.h>

int hvb_shard_parse(const char *s, unsigned int *k, unsigned int *n, char *err,
                    size_t len)
{
    unsigned long a, b;
    char *end;

    errno = 0;
    a = strtoul(s, &end, 10);
    if ( end == s || *end != '/' || s[0] == '-' || s[0] == '+' )
        goto bad;
    s = end + 1;
    b = strtoul(s, &end, 10);
    if ( end == s || *end != '\0' || s[0] == '-' || s[0] == '+' || errno )
        goto bad;
    if ( b < 1 || b > HVB_SHARD_MAX || a < 1 || a > b )
        goto bad;
    *k = (unsigned int)a;
    *n = (unsigned int)b;
    return 0;

bad:
    snprintf(err, len,
             "bad value for --shard (K/N: the K-th of N shards, 1 <= K <= N "
             "<= %d)",
             HVB_SHARD_MAX);
    return -EINVAL;
}

static const double *sort_cost; /* qsort has no context argument */

static int cmp_group(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    if ( sort_cost[x] != sort_cost[y] )
        return sort_cost[x] > sort_cost[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

void hvb_shard_assign(const double *cost, size_t nr, unsigned int n,
                      unsigned int *owner)
{
    size_t *order = malloc((nr ? nr : 1) * sizeof(*order)), i;
    double *load = calloc(n ? n : 1, sizeof(*load));
    unsigned int s, best;

    if ( order == NULL || load == NULL )
    {
        /* Still deterministic and whole: round robin. */
        for ( i = 0; i < nr; i++ )
            owner[i] = (unsigned int)(i % n);
        free(order);
        free(load);
        return;
    }
    for ( i = 0; i < nr; i++ )
        order[i] = i;
    sort_cost = cost;
    qsort(order, nr, sizeof(*order), cmp_group);
    for ( i = 0; i < nr; i++ )
    {
        for ( best = 0, s = 1; s < n; s++ )
            if ( load[s] < load[best] )
                best = s;
        owner[order[i]] = best;
        load[best] += cost[order[i]];
    }
    free(order);
    free(load);
}

/* A cell's time per round in @doc (by name), or NAN if it has none. */
static double measured(json_t *cells, const char *name)
{
    json_t *c, *s, *it;
    double sum = 0;
    size_t i, j;

    json_array_foreach(cells, i, c)
    {
        if ( strcmp(json_string_value(json_object_get(c, HVB_RK_NAME)) ?: "",
                    name) != 0 )
            continue;
        s = json_object_get(c, HVB_RK_SAMPLES);
        it = json_object_get(c, HVB_RK_ITERATIONS);
        for ( j = 0; j < json_array_size(s); j++ )
            sum += json_number_value(json_array_get(s, j)) *
                   (double)json_integer_value(json_array_get(it, j));
        return sum > 0 ? sum : NAN;
    }
    return NAN;
}

/* cost[g] of every group of @m, from @path or estimated. */
static int group_costs(const struct hvb_matrix *m, const char *path,
                       double *cost, char *err, size_t len)
{
    double *cc = NULL, known = 0;
    size_t i, nr_known = 0;
    json_t *doc;

    for ( i = 0; i < m->nr_groups; i++ )
        cost[i] = 0;
    if ( path == NULL )
    {
        for ( i = 0; i < m->nr_cells; i++ )
            cost[m->cells[i].group] += 1;
        return 0;
    }
    doc = hvb_results_load(path, err, len);
    if ( doc == NULL )
        return -EINVAL;
    cc = calloc(m->nr_cells, sizeof(*cc));
    if ( cc == NULL )
    {
        json_decref(doc);
        return -ENOMEM;
    }
    for ( i = 0; i < m->nr_cells; i++ )
    {
        cc[i] = measured(hvb_rd_cells(doc), m->cells[i].name);
        if ( !isnan(cc[i]) )
            known += cc[i], nr_known++;
    }
    json_decref(doc);
    if ( nr_known == 0 )
    {
        snprintf(err, len,
                 "--shard-costs '%s': no cell of this matrix was measured "
                 "there",
                 path);
        free(cc);
        return -EINVAL;
    }
    for ( i = 0; i < m->nr_cells; i++ )
        cost[m->cells[i].group] +=
            isnan(cc[i]) ? known / (double)nr_known : cc[i];
    free(cc);
    return 0;
}

int hvb_shard_select(struct hvb_matrix *m, unsigned int k, unsigned int n,
                     const char *costs_path, char *err, size_t len)
{
    double *cost = calloc(m->nr_groups + 1, sizeof(*cost));
    unsigned int *owner = calloc(m->nr_groups + 1, sizeof(*owner));
    bool *keep = NULL;
    size_t i;
    int rc;

    if ( cost == NULL || owner == NULL )
    {
        rc = -ENOMEM;
        goto out;
    }
    if ( n > m->nr_groups )
    {
        snprintf(err, len,
                 "--shard %u/%u: the matrix has %zu group(s) of paired cells "
                 "and a shard is whole groups: use at most %zu shards",
                 k, n, m->nr_groups, m->nr_groups);
        rc = -EINVAL;
        goto out;
    }
    rc = group_costs(m, costs_path, cost, err, len);
    if ( rc )
        goto out;
    hvb_shard_assign(cost, m->nr_groups, n, owner);
    keep = calloc(m->nr_cells + 1, sizeof(*keep));
    if ( keep == NULL )
    {
        rc = -ENOMEM;
        goto out;
    }
    for ( i = 0; i < m->nr_cells; i++ )
        keep[i] = owner[m->cells[i].group] == k - 1;
    hvb_matrix_compact(m, keep);
    m->shard_k = k;
    m->shard_n = n;
out:
    free(keep);
    free(cost);
    free(owner);
    return rc;
}

int hvb_shard_plan_print(FILE *f, const struct hvb_matrix *m)
{
    json_t *o, *list = json_array();
    size_t i;
    int rc;

    for ( i = 0; list != NULL && i < m->nr_cells; i++ )
        if ( json_array_append_new(
                 list, json_pack("{s:I, s:I, s:I, s:s}", "index",
                                 (json_int_t)m->cells[i].index, "full_index",
                                 (json_int_t)m->cells[i].full_index, "group",
                                 (json_int_t)m->cells[i].group, HVB_RK_NAME,
                                 m->cells[i].name)) )
            break;
    o = json_pack(
        "{s:s, s:I, s:I, s:I, s:I, s:o, s:o}", "workload", m->w->name,
        HVB_RK_CELLS, (json_int_t)m->nr_cells, "groups",
        (json_int_t)m->nr_groups, HVB_RK_CELLS_TOTAL, (json_int_t)m->full_cells,
        "groups_total", (json_int_t)m->full_groups, HVB_RK_SHARD,
        m->shard_n ? json_pack("{s:i, s:i}", HVB_RK_SHARD_K, (int)m->shard_k,
                               HVB_RK_SHARD_N, (int)m->shard_n)
                   : json_null(),
        "list", list);
    if ( o == NULL || list == NULL || i < m->nr_cells )
    {
        json_decref(o);
        fprintf(stderr, "hvbench: out of memory\n");
        return 1;
    }
    rc = json_dumpf(o, f, JSON_INDENT(2)) || fputc('\n', f) == EOF;
    json_decref(o);
    return rc ? 1 : 0;
}
