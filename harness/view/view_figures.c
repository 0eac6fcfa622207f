/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The figures of the review's tables as a person reads them: a number
 * without exponents (2.16e-06 reads 0, 23.4 reads 23.4), the range of a
 * figure over the rounds ("22.9–24.1", an en dash, apart from a minus),
 * their mean, and the tables built from them: the lock table delta, a
 * row per lock whose figures read differently in the two builds, e.g.
 *   | domlist_lock (read) rwlock_ref_lock | 1 (1–1) | 1 (1–1) | 45 (44–47)
 *   | 60 (58–61) | 58 (55–60) | 90 (88–93) |
 * and the wait and wall views' stacks ranked by their change, in the
 * unit their largest figure reads best in, e.g.
 *   | `[benchmark engine]; lh_thread; [wait] lock-hold` | 240.9
 *   (237.1–246.2) | 439.6 (438.0–441.5) | +198.7 |
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hvb/view.h>

/*
 * @v for a table: no exponents, "0" for what rounds to nothing at a
 * thousandth, fewer decimals as it grows: 0, 0.004, 2.16, 23.4, 12345.
 */
const char *hvb_view_num(double v, char *buf, size_t len)
{
    double a = fabs(v);

    if ( a < 5e-4 )
        snprintf(buf, len, "0");
    else
        snprintf(buf, len,
                 a < 1       ? "%.3f"
                 : a < 100   ? "%.2f"
                 : a < 10000 ? "%.1f"
                             : "%.0f",
                 v);
    return buf;
}

/* "min–max" of the per-round values @a ("-" when there are none). */
const char *hvb_view_spread(json_t *a, char *buf, size_t len)
{
    char l[32], h[32];
    double lo = INFINITY, hi = -INFINITY, v;
    size_t i;
    json_t *x;

    json_array_foreach(a, i, x)
    {
        v = json_number_value(x);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if ( json_array_size(a) == 0 )
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s–%s", hvb_view_num(lo, l, sizeof(l)),
                 hvb_view_num(hi, h, sizeof(h)));
    return buf;
}

double hvb_view_mean(json_t *a)
{
    double s = 0;
    size_t i;
    json_t *x;

    json_array_foreach(a, i, x)
        s += json_number_value(x);
    return json_array_size(a) ? s / (double)json_array_size(a) : 0;
}

/* "mean (min-max)" of figure @key of lock side @side, or "-". */
static const char *lock_fig(json_t *side, const char *key, char *buf,
                            size_t len)
{
    char r[80], m[32];
    json_t *a = json_object_get(side, key);

    if ( json_array_size(a) == 0 )
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s (%s)",
                 hvb_view_num(hvb_view_mean(a), m, sizeof(m)),
                 hvb_view_spread(a, r, sizeof(r)));
    return buf;
}

/* The lock table's heading and header (@html: HTML, else markdown). */
static void lock_head(FILE *f, json_t *lk, bool html, const char *unit)
{
    fprintf(f,
            html ? "<p>Lock table delta, %d alternating rounds per build "
                   "(lockstat; each build's mean, its rounds' range):</p>\n"
                   "<table><tr><th>lock (kind) taken in</th><th>acq/op base"
                   "</th><th>head</th><th>contended %% base</th><th>head</th>"
                   "<th>%s base</th><th>head</th></tr>\n"
                 : "\nLock table delta, %d alternating rounds per build "
                   "(lockstat; each build's mean, its rounds' range):\n\n"
                   "| lock (kind) taken in | acq/op base | head | contended %% "
                   "base | head | %s base | head |\n"
                   "|---|---:|---:|---:|---:|---:|---:|\n",
            (int)json_integer_value(json_object_get(lk, "rounds")), unit);
}

/*
 * A cell's lock table delta, as markdown (@html false) or HTML rows: the
 * locks whose figures read differently in the two builds; when none
 * does, a line that says so.
 */
void hvb_view_lock_rows(FILE *f, json_t *lk, bool html)
{
    const char *by = json_string_value(json_object_get(lk, "by"));
    const char *unit =
        strcmp(by, "wait_ns_per_op") ? "wait ns/acquisition" : "wait ns/op";
    char a[96], b[96], c[96], d[96], e[96], g[96];
    json_t *r, *rows = json_object_get(lk, "rows");
    size_t i, shown = 0;

    json_array_foreach(rows, i, r)
    {
        json_t *x = json_object_get(r, "base"), *y = json_object_get(r, "head");

        lock_fig(x, "acquisitions_per_op", a, sizeof(a));
        lock_fig(y, "acquisitions_per_op", b, sizeof(b));
        lock_fig(x, "contended_pct", c, sizeof(c));
        lock_fig(y, "contended_pct", d, sizeof(d));
        lock_fig(x, by, e, sizeof(e));
        lock_fig(y, by, g, sizeof(g));
        if ( !strcmp(a, b) && !strcmp(c, d) && !strcmp(e, g) )
            continue;
        if ( shown++ == 0 )
            lock_head(f, lk, html, unit);
        if ( html )
        {
            fputs("<tr><td><code>", f);
            hvb_view_html(f, json_string_value(json_object_get(r, "lock")));
            fprintf(f,
                    "</code></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                    "<td>%s</td><td>%s</td></tr>\n",
                    a, b, c, d, e, g);
        }
        else
        {
            fputs("| ", f);
            hvb_view_md_code(f, json_string_value(json_object_get(r, "lock")),
                             true);
            fprintf(f, " | %s | %s | %s | %s | %s | %s |\n", a, b, c, d, e, g);
        }
    }
    if ( shown && html )
        fputs("</table>\n", f);
    if ( shown == 0 )
        fprintf(f,
                "%sLock table delta, %d alternating rounds per build "
                "(lockstat): the same in both builds, %zu lock(s) "
                "taken.%s\n",
                html ? "<p>" : "\n",
                (int)json_integer_value(json_object_get(lk, "rounds")),
                json_array_size(rows), html ? "</p>" : "");
}

double hvb_view_per_op(double max, const char **u)
{
    *u = max >= 1e7 ? "ms/op" : max >= 1e4 ? "µs/op" : "ns/op";
    return max >= 1e7 ? 1e6 : max >= 1e4 ? 1e3 : 1;
}

void hvb_view_rounds(FILE *f, json_t *a, double div)
{
    char m[32], r[64];
    json_t *s = json_array(), *x;
    size_t i;

    json_array_foreach(a, i, x)
        json_array_append_new(s, json_real(json_number_value(x) / div));
    fprintf(f, "%s (%s)", hvb_view_num(hvb_view_mean(s), m, sizeof(m)),
            hvb_view_spread(s, r, sizeof(r)));
    json_decref(s);
}

/* The largest of @m and row @r's "base" and "head": a table's unit. */
static double larger(double m, json_t *r)
{
    double a = json_number_value(json_object_get(r, "base"));
    double h = json_number_value(json_object_get(r, "head"));

    return a > m && a >= h ? a : h > m ? h : m;
}

void hvb_view_role_rows(FILE *f, json_t *rows, size_t n, bool html)
{
    static const char *const parts[] = {"on", "waiting", "idle"};
    json_t *r;
    const char *u;
    double div = 0;
    size_t i, k;

    if ( json_array_size(rows) == 0 )
        return;
    json_array_foreach(rows, i, r)
        for ( k = 0; k < 3; k++ )
            div = larger(div, json_object_get(r, parts[k]));
    div = hvb_view_per_op(div, &u);
    fprintf(f,
            html ? "<table><tr><th>threads by role</th><th>on CPU, %s: base "
                   "(rounds) &rarr; head</th><th>waiting</th><th>idle</th>"
                   "</tr>\n"
                 : "\n| threads by role | on CPU, %s: base (rounds) -> head "
                   "| waiting | idle |\n|---|---:|---:|---:|\n",
            u);
    json_array_foreach(rows, i, r)
    {
        if ( i == n )
            break;
        fputs(html ? "<tr><td><code>" : "| ", f);
        if ( html )
            hvb_view_html(f, json_string_value(json_object_get(r, "role")));
        else
            hvb_view_md_code(f, json_string_value(json_object_get(r, "role")),
                             false);
        if ( json_is_true(json_object_get(r, "within_spread")) )
            fputs(html ? "</code> <small>(within the rounds' spread)</small>"
                       : " (within the rounds' spread)",
                  f);
        else if ( html )
            fputs("</code>", f);
        for ( k = 0; k < 3; k++ )
        {
            json_t *p = json_object_get(r, parts[k]);

            fputs(html ? "</td><td class=\"n\">" : " | ", f);
            hvb_view_rounds(f, json_object_get(p, "base_rounds"), div);
            fputs(html ? " &rarr; " : " -> ", f);
            hvb_view_rounds(f, json_object_get(p, "head_rounds"), div);
        }
        fputs(html ? "</td></tr>\n" : " |\n", f);
    }
    if ( html )
        fputs("</table>\n", f);
}

void hvb_view_stack_rows(FILE *f, json_t *rows, const char *view, size_t n,
                         bool html)
{
    json_t *r;
    const char *u;
    double div = 0;
    size_t i, shown = 0;

    json_array_foreach(rows, i, r)
        div = larger(div, r);
    div = hvb_view_per_op(div, &u);
    fprintf(f,
            html ? "<table><tr><th>stack (%s view)</th><th>base %s "
                   "(rounds)</th><th>head</th><th>change</th></tr>\n"
                 : "\n| stack (%s view) | base %s (rounds) | head | change "
                   "|\n|---|---:|---:|---:|\n",
            view, u);
    json_array_foreach(rows, i, r)
    {
        const char *kind = json_string_value(json_object_get(r, "change"));
        bool grey = json_is_true(json_object_get(r, "within_spread"));
        char d[32];

        if ( shown == n || (kind && strcmp(kind, "same") == 0) )
            continue;
        shown++;
        fputs(html ? "<tr><td style=\"max-width:40em\"><code "
                     "style=\"white-space:normal\">"
                   : "| ",
              f);
        if ( html )
            hvb_view_html(f, json_string_value(json_object_get(r, "label")));
        else
            hvb_view_md_code(f, json_string_value(json_object_get(r, "label")),
                             false);
        fputs(html ? "</code></td><td class=\"n\">" : " | ", f);
        hvb_view_rounds(f, json_object_get(r, "base_rounds"), div);
        fputs(html ? "</td><td class=\"n\">" : " | ", f);
        hvb_view_rounds(f, json_object_get(r, "head_rounds"), div);
        hvb_view_num(json_number_value(json_object_get(r, "delta")) / div, d,
                     sizeof(d));
        fprintf(f,
                html ? "</td><td class=\"n %s\">%s%s%s</td></tr>\n"
                     : " | %.0s%s%s%s |\n",
                grey          ? "unk"
                : d[0] == '-' ? "imp"
                              : "reg",
                d[0] == '-' ? "" : "+", d,
                grey ? (html ? " <small>(within the rounds' spread)</small>"
                             : " (within the rounds' spread)")
                     : "");
    }
    if ( html )
        fputs("</table>\n", f);
}
