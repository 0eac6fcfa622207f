/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A claim's figure out of this invocation's results (hvb/reproduce.h).
 *
 * The documents were read and checked by hvb_results_load() when their
 * run ended; here a side of a claim is found as the cell whose name has
 * every component the side lists ("domlookup=rcu-ref/threads:2" matches
 * lookup/domlookup=rcu-ref/distribution=hot/threads:2, not rcu-noref),
 * exactly one such cell, and its metric is the median over repetitions:
 * of samples_ns_per_op for "time", of counters.<name>.samples otherwise.
 *
 * The ratio: when both sides are the time of two cells of one group of
 * one run, the paired rounds' median ratio and its 95% CI (what `run`
 * printed); otherwise num / den of the two medians, without a CI.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hvb/reproduce.h>
#include <hvb/results_read.h>

static const struct hvb_rp_done *run_of(const char *seed, const char *name,
                                        const struct hvb_rp_done *done,
                                        size_t n)
{
    size_t i;

    for ( i = 0; i < n; i++ )
        if ( strcmp(done[i].run->seed, seed) == 0 &&
             strcmp(done[i].run->name, name) == 0 )
            return &done[i];
    return NULL;
}

/* Has @name the '/'-separated component @comp (of length @len)? */
static bool has_component(const char *name, const char *comp, size_t len)
{
    const char *p = name, *e;

    for ( ;; )
    {
        e = strchr(p, '/');
        if ( (size_t)(e ? e - p : (ptrdiff_t)strlen(p)) == len &&
             strncmp(p, comp, len) == 0 )
            return true;
        if ( e == NULL )
            return false;
        p = e + 1;
    }
}

static bool cell_matches(const char *name, const char *sel)
{
    const char *p = sel, *e;

    for ( ;; )
    {
        e = strchr(p, '/');
        if ( !has_component(name, p, e ? (size_t)(e - p) : strlen(p)) )
            return false;
        if ( e == NULL )
            return true;
        p = e + 1;
    }
}

static json_t *find_cell(json_t *doc, const char *sel, const char *file,
                         char *err, size_t len)
{
    json_t *cells = hvb_rd_cells(doc), *c, *hit = NULL;
    const char *name;
    size_t i, n = 0;

    json_array_foreach(cells, i, c)
    {
        name = json_string_value(json_object_get(c, HVB_RK_NAME));
        if ( name != NULL && cell_matches(name, sel) )
        {
            hit = c;
            n++;
        }
    }
    if ( n != 1 )
    {
        snprintf(err, len, "%s: %zu cells match '%s' (need exactly one)", file,
                 n, sel);
        return NULL;
    }
    if ( strcmp(json_string_value(json_object_get(hit, "status")) ?: "",
                "ok") != 0 )
    {
        snprintf(err, len, "%s: cell '%s' failed: %s", file,
                 json_string_value(json_object_get(hit, HVB_RK_NAME)),
                 json_string_value(json_object_get(hit, HVB_RK_ERROR))
                     ?: "no reason recorded");
        return NULL;
    }
    return hit;
}

/* The median of @metric in @cell, or NAN with @err. */
static double metric_median(json_t *cell, const char *metric, const char *file,
                            char *err, size_t len)
{
    json_t *sum;

    if ( strcmp(metric, "time") == 0 )
        sum = json_object_get(cell, HVB_RK_SUMMARY);
    else
        sum = json_object_get(
            json_object_get(json_object_get(cell, HVB_RK_COUNTERS), metric),
            HVB_RK_SUMMARY);
    if ( !json_is_number(json_object_get(sum, HVB_RK_MEDIAN)) )
    {
        snprintf(err, len, "%s: cell '%s' has no %s", file,
                 json_string_value(json_object_get(cell, HVB_RK_NAME)),
                 strcmp(metric, "time") == 0 ? "time summary" : metric);
        return NAN;
    }
    return json_number_value(json_object_get(sum, HVB_RK_MEDIAN));
}

static json_t *side_cell(const struct hvb_rp_claim *c,
                         const struct hvb_rp_side *s,
                         const struct hvb_rp_done *done, size_t n, char *err,
                         size_t len)
{
    const struct hvb_rp_done *d = run_of(c->seed, s->run, done, n);

    if ( d == NULL )
    {
        snprintf(err, len, "run %s-%s was not run", c->seed, s->run);
        return NULL;
    }
    if ( d->doc == NULL )
    {
        snprintf(err, len, "run %s-%s: %s", c->seed, s->run, d->error);
        return NULL;
    }
    return find_cell(d->doc, s->cell, d->file, err, len);
}

/*
 * The paired ratio num / den when @a (num) and @b (den) are two cells of
 * one group, one of them the reference: true with @f's ratio and CI.
 */
static bool paired_ratio(json_t *a, json_t *b, struct hvb_rp_figure *f)
{
    json_t *va = json_object_get(a, HVB_RK_VARIANT),
           *vb = json_object_get(b, HVB_RK_VARIANT), *p, *ci;
    bool inv;

    if ( !json_equal(json_object_get(a, HVB_RK_GROUP),
                     json_object_get(b, HVB_RK_GROUP)) )
        return false;
    if ( json_integer_value(vb) == 0 && json_integer_value(va) > 0 )
        inv = false, p = json_object_get(a, HVB_RK_PAIRED);
    else if ( json_integer_value(va) == 0 && json_integer_value(vb) > 0 )
        inv = true, p = json_object_get(b, HVB_RK_PAIRED);
    else
        return false;
    ci = json_object_get(p, HVB_RK_CI95);
    if ( !json_is_number(json_object_get(p, HVB_RK_MEDIAN)) ||
         json_number_value(json_object_get(p, HVB_RK_MEDIAN)) <= 0 )
        return false;
    f->ratio = json_number_value(json_object_get(p, HVB_RK_MEDIAN));
    if ( json_array_size(ci) == 2 && json_is_number(json_array_get(ci, 0)) &&
         json_is_number(json_array_get(ci, 1)) &&
         json_number_value(json_array_get(ci, 0)) > 0 )
    {
        f->ci_lo = json_number_value(json_array_get(ci, 0));
        f->ci_hi = json_number_value(json_array_get(ci, 1));
    }
    if ( inv )
    {
        double lo = f->ci_lo;

        f->ratio = 1 / f->ratio;
        f->ci_lo = 1 / f->ci_hi;
        f->ci_hi = 1 / lo;
    }
    f->paired = true;
    return true;
}

static void judge(const struct hvb_rp_claim *c, struct hvb_rp_figure *f)
{
    double r = f->ratio;

    if ( r < c->seed_lo )
        f->ror = r / c->seed_lo;
    else if ( r > c->seed_hi )
        f->ror = r / c->seed_hi;
    else
        f->ror = 1;
    f->direction = c->seed_lo > 1 ? r > 1 : c->seed_hi < 1 ? r < 1 : true;
    f->resolved = isnan(f->ci_lo) || !(f->ci_lo <= 1 && f->ci_hi >= 1);
    f->within_2x = f->ror >= 0.5 && f->ror <= 2;
}

/*
 * The medians of @c's "also" sides, NAN where a run, cell or counter is
 * missing (the claim's own figure says why, or it is measured without).
 */
static void also(const struct hvb_rp_claim *c, const struct hvb_rp_done *done,
                 size_t n, struct hvb_rp_figure *f)
{
    const struct hvb_rp_extra *x = c->extra;
    const struct hvb_rp_side *s[2] = {x ? &x->also_num : NULL,
                                      x ? &x->also_den : NULL};
    double *v[2] = {&f->also_num, &f->also_den};
    char err[256];
    int k;

    for ( k = 0; k < 2 && x != NULL && x->also != NULL; k++ )
    {
        json_t *cell = side_cell(c, s[k], done, n, err, sizeof(err));

        if ( cell != NULL )
            *v[k] = metric_median(cell, s[k]->metric, "", err, sizeof(err));
    }
}

void hvb_rp_figure(const struct hvb_rp_claim *c, const struct hvb_rp_done *done,
                   size_t n, struct hvb_rp_figure *f)
{
    const struct hvb_rp_done *dn, *dd;
    json_t *a, *b;

    memset(f, 0, sizeof(*f));
    f->claim = c;
    f->num = f->den = f->ratio = f->ror = NAN;
    f->ci_lo = f->ci_hi = NAN;
    f->also_num = f->also_den = NAN;
    also(c, done, n, f);
    if ( c->unmeasurable != NULL )
    {
        f->state = HVB_RP_UNMEASURABLE;
        return;
    }
    f->state = HVB_RP_FAILED;
    a = side_cell(c, &c->num, done, n, f->error, sizeof(f->error));
    if ( a == NULL )
        return;
    b = side_cell(c, &c->den, done, n, f->error, sizeof(f->error));
    if ( b == NULL )
        return;
    dn = run_of(c->seed, c->num.run, done, n);
    dd = run_of(c->seed, c->den.run, done, n);
    f->num =
        metric_median(a, c->num.metric, dn->file, f->error, sizeof(f->error));
    if ( isnan(f->num) )
        return;
    f->den =
        metric_median(b, c->den.metric, dd->file, f->error, sizeof(f->error));
    if ( isnan(f->den) )
        return;
    if ( !(f->num > 0) || !(f->den > 0) )
    {
        snprintf(f->error, sizeof(f->error),
                 "a figure is not positive (%g / %g): no ratio", f->num,
                 f->den);
        return;
    }
    if ( !(dn == dd && strcmp(c->num.metric, "time") == 0 &&
           strcmp(c->den.metric, "time") == 0 && paired_ratio(a, b, f)) )
        f->ratio = f->num / f->den;
    f->num *= c->scale;
    f->den *= c->scale;
    judge(c, f);
    f->state = HVB_RP_MEASURED;
}
