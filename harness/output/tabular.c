/* SPDX-License-Identifier: GPL-2.0-only */
/* CSV and markdown tables of a results document; see hvb/tabular.h. */
#include <stdbool.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/results_read.h>
#include <hvb/tabular.h>

static double numv(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);

    return json_is_number(v) ? json_number_value(v) : -1;
}

/* "a;b" of the noise flags, "k=v;..." of the counter medians. */
static void flags_str(const json_t *c, char *buf, size_t len)
{
    struct hv_strbuf b;
    json_t *v;
    size_t i;

    hv_strbuf_init(&b, buf, len);
    json_array_foreach(json_object_get(c, HVB_RK_NOISE), i, v)
        hv_strbuf_join(&b, ";", "%s", json_string_value(v));
}

/*
 * Every counter, the model's perfc.* included (as the console and JSON
 * show them); a list too long for @buf ends in ";..." (never cut
 * silently).
 */
static void ctrs_str(const json_t *c, char *buf, size_t len)
{
    struct hv_strbuf b;
    const char *k;
    json_t *v;

    hv_strbuf_init(&b, buf, len);
    json_object_foreach((json_t *)json_object_get(c, HVB_RK_COUNTERS), k, v)
    {
        hv_strbuf_join(&b, ";", "%s=%.6g", k,
                       numv(json_object_get(v, HVB_RK_SUMMARY), HVB_RK_MEDIAN));
    }
    if ( hv_strbuf_cut(&b) && len > 4 )
        memcpy(buf + len - 5, ";...", 5);
}

static void row(FILE *f, const json_t *c, bool md)
{
    const json_t *s = json_object_get(c, HVB_RK_SUMMARY);
    const json_t *p = json_object_get(c, HVB_RK_PAIRED);
    const json_t *ci = json_object_get(p, HVB_RK_CI95);
    char fl[256], ct[8192];

    flags_str(c, fl, sizeof(fl));
    ctrs_str(c, ct, sizeof(ct));
    if ( md )
        fprintf(f, "| `%s` | %.2f | %.2f | %.1f%% | %.2f | %.2f | %lld | ",
                json_string_value(json_object_get(c, HVB_RK_NAME)),
                numv(s, HVB_RK_MEDIAN), numv(s, "mad"), numv(s, "cv") * 100,
                numv(s, "min"), numv(s, "max"),
                (long long)json_integer_value(json_object_get(s, "n")));
    else
    {
        hvb_csv_field(f, json_string_value(json_object_get(c, HVB_RK_NAME)));
        fprintf(f, ",%.6g,%.6g,%.6g,%.6g,%.6g,%lld,", numv(s, HVB_RK_MEDIAN),
                numv(s, "mad"), numv(s, "cv"), numv(s, "min"), numv(s, "max"),
                (long long)json_integer_value(json_object_get(s, "n")));
    }
    if ( p != NULL && md )
        fprintf(f, "%.3f [%.3f, %.3f] | %.3g | ", numv(p, HVB_RK_MEDIAN),
                json_number_value(json_array_get(ci, 0)),
                json_number_value(json_array_get(ci, 1)),
                numv(p, "mannwhitney_p"));
    else if ( p != NULL )
        fprintf(f, "%.6g,%.6g,%.6g,%.6g,", numv(p, HVB_RK_MEDIAN),
                json_number_value(json_array_get(ci, 0)),
                json_number_value(json_array_get(ci, 1)),
                numv(p, "mannwhitney_p"));
    else
        fprintf(f, md ? "%s | | " : "%s,,,,", md ? "1 (reference)" : "1");
    if ( md )
        fprintf(f, "%s | %s |\n", fl, ct);
    else
    {
        hvb_csv_field(f, fl);
        fputc(',', f);
        hvb_csv_field(f, ct);
        fputc('\n', f);
    }
}

void hvb_csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    if ( s != NULL && *s != '\0' && strchr("=+-@\t\r", *s) != NULL )
        fputc('\'', f);
    for ( ; s != NULL && *s; s++ )
        fputs(*s == '"' ? "\"\"" : (char[]){*s, 0}, f);
    fputc('"', f);
}

void hvb_tabular_csv(FILE *f, const json_t *root)
{
    size_t i;
    json_t *c;

    fprintf(f, "name,median_ns,mad_ns,cv,min_ns,max_ns,n,ratio,ratio_ci_lo,"
               "ratio_ci_hi,mannwhitney_p,noise_flags,counters\n");
    json_array_foreach(
        json_object_get(json_object_get(root, HVB_RK_HVBENCH), HVB_RK_CELLS), i,
        c)
        row(f, c, false);
}

void hvb_tabular_markdown(FILE *f, const json_t *root)
{
    size_t i;
    json_t *c;

    fprintf(f, "| benchmark | median ns/op | MAD | CV | min | max | n | "
               "ratio [95%% CI] | MWU p | noise | counters (median per op) |\n"
               "|---|---:|---:|---:|---:|---:|---:|---|---:|---|---|\n");
    json_array_foreach(
        json_object_get(json_object_get(root, HVB_RK_HVBENCH), HVB_RK_CELLS), i,
        c)
        row(f, c, true);
}
