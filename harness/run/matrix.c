/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run matrix: expand --plugin, --param and --threads into cells,
 * validate everything the user named (never falling back to a default
 * for something invalid).  See hvb/matrix.h for order and names;
 * matrix_models.c runs the workload's check() on each cell and creates
 * each cell's model.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/suggest.h>
#include <hvb/matrix.h>
#include <hvb/registry.h>

/* A growable list of strings. */
struct strlist {
    char **v;
    size_t n;
};

static int strlist_push(struct strlist *l, const char *s, size_t n)
{
    char **v = realloc(l->v, (l->n + 1) * sizeof(*v));

    if ( v == NULL )
        return -ENOMEM;
    l->v = v;
    l->v[l->n] = strndup(s, n);
    if ( l->v[l->n] == NULL )
        return -ENOMEM;
    l->n++;
    return 0;
}

static void strlist_free(struct strlist *l)
{
    size_t i;

    for ( i = 0; i < l->n; i++ )
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/*
 * Split "KEY=V1,V2" of option @opt: the key into @key (malloc'd), the
 * values appended to @vals.
 */
static int split_kv(const char *opt, const char *arg, char **key,
                    struct strlist *vals, char *err, size_t len)
{
    const char *eq = strchr(arg, '='), *p;
    const char *form = strcmp(opt, "--plugin") == 0 ? "SLOT=PLUGIN[,PLUGIN...]"
                                                    : "KEY=VALUE[,VALUE...]";

    if ( eq == NULL || eq == arg || eq[1] == '\0' )
    {
        snprintf(err, len, "%s wants %s, not '%s'", opt, form, arg);
        return -EINVAL;
    }
    *key = strndup(arg, (size_t)(eq - arg));
    if ( *key == NULL )
        return -ENOMEM;
    for ( p = eq + 1;; )
    {
        size_t n = strcspn(p, ",");

        if ( n == 0 )
        {
            snprintf(err, len, "%s '%s' has an empty value", opt, arg);
            return -EINVAL;
        }
        if ( strlist_push(vals, p, n) )
            return -ENOMEM;
        p += n;
        if ( *p == '\0' )
            return 0;
        p++;
    }
}

static int resolve_axis(const struct hvb_workload *w, struct hvb_slot_axis *a,
                        struct strlist *specs, bool allow_test_only, char *err,
                        size_t len)
{
    const struct hv_slot *slot = hv_slot_find(a->slot);
    struct strlist dflt = {0};
    size_t i, j;
    int rc;

    if ( slot == NULL )
    {
        snprintf(err, len, "workload %s uses unknown slot '%s'", w->name,
                 a->slot);
        return -ENOENT;
    }
    a->user = specs->n > 0;
    if ( !a->user )
    {
        if ( slot->default_plugin == NULL ||
             strlist_push(&dflt, slot->default_plugin,
                          strlen(slot->default_plugin)) )
        {
            snprintf(err, len, "slot %s has no default plugin", a->slot);
            return slot->default_plugin ? -ENOMEM : -ENOENT;
        }
        specs = &dflt;
    }
    a->insts = calloc(specs->n, sizeof(*a->insts));
    a->labels = calloc(specs->n, sizeof(*a->labels));
    if ( a->insts == NULL || a->labels == NULL )
    {
        strlist_free(&dflt);
        return -ENOMEM;
    }
    for ( i = 0; i < specs->n; i++ )
    {
        rc = hv_plugin_resolve(a->slot, specs->v[i], a->user && allow_test_only,
                               &a->insts[i], err, len);
        if ( rc )
        {
            /* Whatever the user named and cannot be used is input. */
            if ( a->user && rc != -ENOMEM )
                rc = -EINVAL;
            if ( !a->user )
            {
                char why[256];

                snprintf(why, sizeof(why), "%s", err);
                snprintf(err, len, "slot %s: default plugin: %s", a->slot, why);
                rc = -ENOENT;
            }
            strlist_free(&dflt);
            return rc;
        }
        a->nr = i + 1;
        a->labels[i] = strdup(a->insts[i].label);
        if ( a->labels[i] == NULL )
        {
            strlist_free(&dflt);
            return -ENOMEM;
        }
        for ( j = 0; j < i; j++ )
            if ( strcmp(a->insts[j].spec, a->insts[i].spec) == 0 )
            {
                snprintf(err, len, "plugin %s=%s given twice (as %s)", a->slot,
                         specs->v[i], a->insts[i].spec);
                strlist_free(&dflt);
                return -EINVAL;
            }
    }
    strlist_free(&dflt);
    return 0;
}

/*
 * An axis the command line names by "KEY=V1,V2,...": @opt, "--plugin" or
 * "--param"; key(m, i), the KEY of axis i; unknown(), the error for a KEY
 * that names none; resolve(), axis i from the values given for it.
 */
struct axis_kind {
    const char *opt;
    const char *(*key)(const struct hvb_matrix *m, size_t i);
    void (*unknown)(const struct hvb_matrix *m, const char *key, char *err,
                    size_t len);
    int (*resolve)(struct hvb_matrix *m, const struct hvb_matrix_spec *s,
                   size_t i, struct strlist *vals, char *err, size_t len);
};

/*
 * The values of the arguments @args of option @k->opt, one list per axis
 * (@nr of them) into @per.  E.g. "--param" "domains=10,100" "domains=1000"
 * where domains is param 0 of 2: {{"10", "100", "1000"}, {}}.
 */
static int gather_args(const struct hvb_matrix *m, const struct axis_kind *k,
                       const char *const *args, size_t nr_args, size_t nr,
                       struct strlist *per, char *err, size_t len)
{
    size_t a, i;
    int rc = 0;

    for ( a = 0; a < nr_args && rc == 0; a++ )
    {
        struct strlist vals = {0};
        char *key = NULL;

        rc = split_kv(k->opt, args[a], &key, &vals, err, len);
        for ( i = 0; rc == 0 && i < nr; i++ )
            if ( strcmp(k->key(m, i), key) == 0 )
                break;
        if ( rc == 0 && i == nr )
        {
            k->unknown(m, key, err, len);
            rc = -EINVAL;
        }
        for ( size_t v = 0; rc == 0 && v < vals.n; v++ )
            rc = strlist_push(&per[i], vals.v[v], strlen(vals.v[v]));
        strlist_free(&vals);
        free(key);
    }
    return rc;
}

/* The @nr axes of kind @k of @m from arguments @args of its option. */
static int build_axes(struct hvb_matrix *m, const struct hvb_matrix_spec *s,
                      const struct axis_kind *k, const char *const *args,
                      size_t nr_args, size_t nr, char *err, size_t len)
{
    struct strlist *per = calloc(nr ? nr : 1, sizeof(*per));
    size_t i;
    int rc;

    if ( per == NULL )
        return -ENOMEM;
    rc = gather_args(m, k, args, nr_args, nr, per, err, len);
    for ( i = 0; i < nr && rc == 0; i++ )
        rc = k->resolve(m, s, i, &per[i], err, len);
    for ( i = 0; i < nr; i++ )
        strlist_free(&per[i]);
    free(per);
    return rc;
}

static const char *slot_key(const struct hvb_matrix *m, size_t i)
{
    return m->slots[i].slot;
}

static void slot_unknown(const struct hvb_matrix *m, const char *key, char *err,
                         size_t len)
{
    struct hv_suggest sg;
    char slots[256], dym[96];
    size_t i;

    hvb_workload_slot_names(m->w, slots, sizeof(slots));
    hv_suggest_init(&sg, key);
    for ( i = 0; i < m->nr_slots; i++ )
        hv_suggest_add(&sg, m->slots[i].slot);
    if ( hv_slot_find(key) == NULL )
        snprintf(err, len, "unknown slot '%s' (workload %s uses: %s)%s", key,
                 m->w->name, slots, hv_suggest_fmt(&sg, dym, sizeof(dym)));
    else
        snprintf(err, len,
                 "workload %s does not exercise slot %s (it uses: %s)",
                 m->w->name, key, slots);
}

static int slot_resolve(struct hvb_matrix *m, const struct hvb_matrix_spec *s,
                        size_t i, struct strlist *specs, char *err, size_t len)
{
    return resolve_axis(m->w, &m->slots[i], specs, s->allow_test_only, err,
                        len);
}

static const struct axis_kind slot_axes = {"--plugin", slot_key, slot_unknown,
                                           slot_resolve};

static int build_slots(struct hvb_matrix *m, const struct hvb_matrix_spec *s,
                       char *err, size_t len)
{
    const struct hvb_workload *w = m->w;
    size_t i;

    while ( w->slots != NULL && w->slots[m->nr_slots] != NULL )
        m->nr_slots++;
    m->slots = calloc(m->nr_slots ? m->nr_slots : 1, sizeof(*m->slots));
    if ( m->slots == NULL )
        return -ENOMEM;
    for ( i = 0; i < m->nr_slots; i++ )
        m->slots[i].slot = w->slots[i];
    return build_axes(m, s, &slot_axes, s->plugin_args, s->nr_plugin_args,
                      m->nr_slots, err, len);
}

static int parse_axis(const struct hvb_workload *w, struct hvb_param_axis *a,
                      struct strlist *texts, char *err, size_t len)
{
    struct strlist dflt = {0};
    size_t i, j;
    int rc = 0;

    a->user = texts->n > 0;
    if ( !a->user )
    {
        if ( strlist_push(&dflt, a->p->def, strlen(a->p->def)) )
            return -ENOMEM;
        texts = &dflt;
    }
    a->vals = calloc(texts->n, sizeof(*a->vals));
    if ( a->vals == NULL )
        rc = -ENOMEM;
    for ( i = 0; i < texts->n && rc == 0; i++ )
    {
        rc = hvb_param_parse(w, a->p, texts->v[i], &a->vals[i], err, len);
        if ( rc )
            break;
        a->nr = i + 1;
        for ( j = 0; j < i; j++ )
            if ( strcmp(a->vals[j].text, a->vals[i].text) == 0 )
            {
                snprintf(err, len, "param %s: value %s given twice", a->p->name,
                         a->vals[i].text);
                rc = -EINVAL;
            }
    }
    if ( rc && !a->user && rc != -ENOMEM )
        rc = -ENOENT; /* a bad default: the workload's */
    strlist_free(&dflt);
    return rc;
}

static const char *param_key(const struct hvb_matrix *m, size_t i)
{
    return m->params[i].p->name;
}

static void param_unknown(const struct hvb_matrix *m, const char *key,
                          char *err, size_t len)
{
    struct hv_suggest sg;
    char names[512], dym[96];
    size_t i;

    hv_opt_names(m->w->params, names, sizeof(names));
    hv_suggest_init(&sg, key);
    for ( i = 0; i < m->nr_params; i++ )
        hv_suggest_add(&sg, m->params[i].p->name);
    snprintf(err, len, "unknown param '%s' for workload %s (valid: %s)%s", key,
             m->w->name, names, hv_suggest_fmt(&sg, dym, sizeof(dym)));
}

static int param_resolve(struct hvb_matrix *m, const struct hvb_matrix_spec *s,
                         size_t i, struct strlist *texts, char *err, size_t len)
{
    return parse_axis(m->w, &m->params[i], texts, err, len);
}

static const struct axis_kind param_axes = {"--param", param_key, param_unknown,
                                            param_resolve};

static int build_params(struct hvb_matrix *m, const struct hvb_matrix_spec *s,
                        char *err, size_t len)
{
    const struct hvb_workload *w = m->w;
    size_t i;

    m->nr_params = hv_opt_count(w->params);
    m->params = calloc(m->nr_params ? m->nr_params : 1, sizeof(*m->params));
    if ( m->params == NULL )
        return -ENOMEM;
    for ( i = 0; i < m->nr_params; i++ )
        m->params[i].p = &w->params[i];
    return build_axes(m, s, &param_axes, s->param_args, s->nr_param_args,
                      m->nr_params, err, len);
}

static int build_threads(struct hvb_matrix *m, const struct hvb_matrix_spec *s,
                         char *err, size_t len)
{
    size_t i, j;

    if ( s->nr_threads == 0 )
    {
        snprintf(err, len, "no thread count given");
        return -EINVAL;
    }
    m->threads = calloc(s->nr_threads, sizeof(*m->threads));
    if ( m->threads == NULL )
        return -ENOMEM;
    for ( i = 0; i < s->nr_threads; i++ )
    {
        if ( s->threads[i] < 1 || s->threads[i] >= HV_MAX_CPUS )
        {
            snprintf(err, len, "bad thread count %u (an integer in [1, %u])",
                     s->threads[i], HV_MAX_CPUS - 1);
            return -EINVAL;
        }
        for ( j = 0; j < i; j++ )
            if ( s->threads[j] == s->threads[i] )
            {
                snprintf(err, len, "thread count %u given twice",
                         s->threads[i]);
                return -EINVAL;
            }
        m->threads[i] = s->threads[i];
    }
    m->nr_threads = s->nr_threads;
    return 0;
}

/* @a * @b into @out unless it passes HVB_MAX_CELLS. */
static bool mul_capped(size_t a, size_t b, size_t *out)
{
    if ( a != 0 && b > HVB_MAX_CELLS / a )
        return false;
    *out = a * b;
    return *out <= HVB_MAX_CELLS;
}

static int cell_names(struct hvb_mcell *mc)
{
    const struct hvb_matrix *m = mc->m;
    char *buf[2] = {NULL, NULL};
    size_t n[2], i;
    FILE *f[2];
    int k;

    for ( k = 0; k < 2; k++ )
    {
        f[k] = open_memstream(&buf[k], &n[k]);
        if ( f[k] == NULL )
        {
            if ( k == 1 )
            {
                fclose(f[0]);
                free(buf[0]);
            }
            return -ENOMEM;
        }
        fputs(m->w->name, f[k]);
    }
    for ( i = 0; i < m->nr_slots; i++ )
        fprintf(f[0], "/%s=%s", m->slots[i].slot,
                m->slots[i].labels[mc->slot_sel[i]]);
    for ( i = 0; i < m->nr_params; i++ )
    {
        if ( !m->params[i].user )
            continue;
        for ( k = 0; k < 2; k++ )
            fprintf(f[k], "/%s=%s", m->params[i].p->name,
                    hvb_mcell_param(mc, i)->text);
    }
    for ( k = 0; k < 2; k++ )
        fprintf(f[k], "/threads:%u", mc->cell.threads);
    k = fclose(f[0]) | fclose(f[1]);
    mc->name = buf[0];
    mc->group_name = buf[1];
    return k ? -ENOMEM : 0;
}

static int build_cells(struct hvb_matrix *m, char *err, size_t len)
{
    size_t nr_pc = 1, nr_var = 1, groups, total, c, i, x;
    int rc;

    for ( i = 0; i < m->nr_params; i++ )
        if ( !mul_capped(nr_pc, m->params[i].nr, &nr_pc) )
            goto too_many;
    for ( i = 0; i < m->nr_slots; i++ )
        if ( !mul_capped(nr_var, m->slots[i].nr, &nr_var) )
            goto too_many;
    if ( !mul_capped(nr_pc, m->nr_threads, &groups) ||
         !mul_capped(groups, nr_var, &total) )
        goto too_many;

    m->cells = calloc(total, sizeof(*m->cells));
    if ( m->cells == NULL )
        return -ENOMEM;
    m->nr_groups = groups;
    m->nr_variants = nr_var;
    for ( c = 0; c < total; c++ )
    {
        struct hvb_mcell *mc = &m->cells[c];
        size_t pc = c / (m->nr_threads * nr_var);

        m->nr_cells = c + 1;
        mc->m = m;
        mc->index = c;
        mc->group = c / nr_var;
        mc->variant = c % nr_var;
        mc->cell.w = m->w;
        mc->cell.threads = m->threads[(c / nr_var) % m->nr_threads];
        mc->slot_sel = calloc(m->nr_slots + 1, sizeof(*mc->slot_sel));
        mc->param_sel = calloc(m->nr_params + 1, sizeof(*mc->param_sel));
        if ( mc->slot_sel == NULL || mc->param_sel == NULL )
            return -ENOMEM;
        /* Mixed radix, the first axis varying slowest. */
        for ( x = mc->variant, i = m->nr_slots; i-- > 0; )
        {
            mc->slot_sel[i] = x % m->slots[i].nr;
            x /= m->slots[i].nr;
        }
        for ( x = pc, i = m->nr_params; i-- > 0; )
        {
            mc->param_sel[i] = x % m->params[i].nr;
            x /= m->params[i].nr;
        }
        /* The workload's typed view: its param struct, every field set. */
        mc->params = calloc(1, m->w->params_size ? m->w->params_size : 1);
        if ( mc->params == NULL )
            return -ENOMEM;
        for ( i = 0; i < m->nr_params; i++ )
            hv_opt_store(m->params[i].p, hvb_mcell_param(mc, i), mc->params);
        mc->cell.params = mc->params;
        mc->full_index = c;
        rc = cell_names(mc);
        if ( rc )
            return rc;
    }
    return 0;

too_many:
    snprintf(
        err, len,
        "the run matrix has more than %u cells: name fewer plugins, values or thread counts",
        HVB_MAX_CELLS);
    return -EINVAL;
}

int hvb_matrix_build(const struct hvb_matrix_spec *spec,
                     struct hvb_matrix **out, char *err, size_t len)
{
    struct hvb_matrix *m = calloc(1, sizeof(*m));
    int rc;

    *out = NULL;
    if ( m == NULL )
        return -ENOMEM;
    m->w = spec->w;
    m->seed = spec->seed;
    m->affinity = spec->affinity;
    rc = build_slots(m, spec, err, len);
    if ( rc == 0 )
        rc = build_params(m, spec, err, len);
    if ( rc == 0 )
        rc = build_threads(m, spec, err, len);
    if ( rc == 0 )
        rc = build_cells(m, err, len);
    m->full_cells = m->nr_cells;
    m->full_groups = m->nr_groups;
    if ( rc == 0 && spec->cells != NULL )
        rc = hvb_matrix_select_cells(m, spec->cells, err, len);
    if ( rc == 0 && spec->shard_n > 0 )
        rc = spec->shard_select
                 ? spec->shard_select(m, spec->shard_k, spec->shard_n,
                                      spec->shard_costs, err, len)
                 : -EINVAL;
    for ( size_t i = 0; rc == 0 && i < m->nr_cells; i++ )
    {
        rc = hvb_cell_rt_init(&m->cells[i].rt);
        m->cells[i].rt_ready = rc == 0;
    }
    if ( rc )
    {
        if ( rc == -ENOMEM )
            snprintf(err, len, "out of memory");
        hvb_matrix_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

void hvb_matrix_free(struct hvb_matrix *m)
{
    size_t i, j;

    if ( m == NULL )
        return;
    for ( i = 0; i < m->nr_cells; i++ )
    {
        struct hvb_mcell *mc = &m->cells[i];

        if ( mc->rt_ready && mc->rt.prepare_called && m->w->cleanup )
            m->w->cleanup(&mc->cell);
        if ( mc->cell.hv != NULL )
            hv_destroy(mc->cell.hv);
        if ( mc->rt_ready )
            hvb_cell_rt_fini(&mc->rt);
        free(mc->slot_sel);
        free(mc->param_sel);
        free(mc->name);
        free(mc->group_name);
        free(mc->params);
    }
    free(m->cells);
    for ( i = 0; i < m->nr_slots; i++ )
    {
        for ( j = 0; j < m->slots[i].nr; j++ )
        {
            hv_plugin_inst_free(&m->slots[i].insts[j]);
            free(m->slots[i].labels[j]);
        }
        free(m->slots[i].insts);
        free(m->slots[i].labels);
    }
    free(m->slots);
    for ( i = 0; i < m->nr_params; i++ )
        free(m->params[i].vals);
    free(m->params);
    free(m->threads);
    free(m);
}
