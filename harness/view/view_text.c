/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The view as text (hvb/view.h): the head of review.md (answer, sides,
 * the table with both builds' figures), the console's table, and a
 * plain-text reply for a mailing list that keeps to 72 columns, with no
 * markup but indentation, so it can be quoted:
 *
 *   hvbench review: regressed (exit 1)
 *
 *   * lookup rcu-ref, 1 thread: 43.7% slower (5.76 -> 8.28 ns/op, 99%
 *     CI +38.9 to +51.3%); +56 instructions per op (+24.3%), all in
 *     rcu_ref_lock (plugins/domlookup/rcu-ref.c:31-40)
 *   * 6 other cells unchanged.
 *
 * A word longer than a line is broken where the line ends.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/view.h>

#define MAIL_CELL_MIN 20
#define MAIL_METRIC   12 /* "+43.7% REG" and a blank */
#define MAIL_FNS      5

/* @s as a markdown code span: no HTML, mention, link or emphasis renders. */
void hvb_view_md_code(FILE *f, const char *s, bool cell)
{
    size_t run = 0, most = 0, i;
    const char *p;

    s = s ? s : "";
    for ( p = s; *p; p++ )
    {
        run = *p == '`' ? run + 1 : 0;
        most = run > most ? run : most;
    }
    for ( i = 0; i <= most; i++ )
        fputc('`', f);
    fputc(' ', f);
    for ( p = s; *p; p++ )
    {
        if ( cell && *p == '|' )
            fputc('\\', f);
        fputc((unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p, f);
    }
    fputc(' ', f);
    for ( i = 0; i <= most; i++ )
        fputc('`', f);
}

const char *hvb_view_blocking(const struct hvb_view *v, bool md, char *buf,
                              size_t len)
{
    const char *q = md ? "`" : "";
    struct hv_strbuf b;
    size_t m, nb = 0, no = 0;

    hv_strbuf_init(&b, buf, len);
    for ( m = 0; m < v->nr_metrics; m++ )
        if ( v->metrics[m].blocking )
            hv_strbuf_add(&b, "%s%s%s%s", nb++ ? ", " : "", q,
                          v->metrics[m].name, q);
    hv_strbuf_add(&b, nb == 1 ? " decides the exit status"
                              : " decide the exit status");
    for ( m = 0; m < v->nr_metrics; m++ )
        if ( !v->metrics[m].blocking )
            hv_strbuf_add(&b, "%s%s%s%s", no++ ? ", " : "; ", q,
                          v->metrics[m].name, q);
    hv_strbuf_add(&b, no == 0   ? "."
                      : no == 1 ? " is reported."
                                : " are reported.");
    return buf;
}

/* Decimals for 4 significant digits, none from 1000 on: 5.760, 1234. */
static int decimals(double x)
{
    x = fabs(x);
    return x >= 1000 ? 0 : x >= 100 ? 1 : x >= 10 ? 2 : 3;
}

/* "5.76 -> 8.28 +43.70% [+38.9, +51.3]" (markdown: an arrow). */
static void figures(FILE *f, const struct hvb_view_fig *g, const char *arrow)
{
    char c[96];

    if ( !g->present )
    {
        fputs("-", f);
        return;
    }
    if ( isfinite(g->base) && isfinite(g->head) )
        fprintf(f, "%.*f %s %.*f ", decimals(g->base), g->base, arrow,
                decimals(g->head), g->head);
    fputs(hvb_view_change(g, c, sizeof(c)), f);
}

/* "- base `6906050263` (`origin/main`): `subject`" */
static void md_side(FILE *f, const struct hvb_view *v, int k)
{
    const struct hvb_view_side *s = &v->side[k];
    const char *c = s->commit ? s->commit : "?";

    fprintf(f, "- %s `%.12s`", k ? "head" : "base", c);
    /* As given, unless it was the hash. */
    if ( s->spec && strncmp(c, s->spec, strlen(s->spec)) )
    {
        fputs(" (", f);
        hvb_view_md_code(f, s->spec, false);
        fputc(')', f);
    }
    fputs(": ", f);
    hvb_view_md_code(f, s->subject, false);
    if ( s->dirty )
        fputs(", **uncommitted changes included**", f);
    fputc('\n', f);
}

/* Is every metric of @c the same? */
static bool unchanged(const struct hvb_view *v, const struct hvb_view_cell *c)
{
    size_t m;

    for ( m = 0; m < v->nr_metrics; m++ )
        if ( c->figs[m].present && c->figs[m].verdict != HVB_VIEW_SAME )
            return false;
    return true;
}

/* The table's header, then a row per cell not the same in every metric. */
static void md_table(FILE *f, const struct hvb_view *v)
{
    size_t i, m;

    fputs("\n| cell |", f);
    for ( m = 0; m < v->nr_metrics; m++ )
        fprintf(f, " %s (%s)%s |", v->metrics[m].name, v->metrics[m].unit,
                v->metrics[m].blocking ? "" : ", reported");
    fputs("\n|---|", f);
    for ( m = 0; m < v->nr_metrics; m++ )
        fputs("---|", f);
    fputc('\n', f);
    for ( i = 0; i < v->nr_cells; i++ )
    {
        const struct hvb_view_cell *c = &v->cells[i];

        if ( unchanged(v, c) )
            continue;
        fputs("| ", f);
        hvb_view_md_code(f, c->title, true);
        fputs(" |", f);
        for ( m = 0; m < v->nr_metrics; m++ )
        {
            const struct hvb_view_fig *g = &c->figs[m];
            bool loud = g->present && g->verdict != HVB_VIEW_SAME;

            fprintf(f, " %s%s%s ", loud ? "**" : "",
                    g->present ? hvb_view_verdict_word(g->verdict) : "",
                    loud ? "**" : "");
            figures(f, g, "→");
            fputs(" |", f);
        }
        fputc('\n', f);
    }
}

void hvb_view_markdown(FILE *f, const struct hvb_view *v)
{
    char s[512];
    size_t i, same = 0;

    fprintf(f, "## hvbench review: %s\n\n", hvb_view_verdict_word(v->verdict));
    hvb_view_answer(f, v, "- ");
    fprintf(f, "\n%s\n\n", hvb_view_blocking(v, true, s, sizeof(s)));
    md_side(f, v, 0);
    md_side(f, v, 1);
    for ( i = 0; i < v->nr_cells; i++ )
        same += unchanged(v, &v->cells[i]);
    if ( same < v->nr_cells )
        md_table(f, v);
    if ( same > 0 )
    {
        fputs("\nThe same in every metric: ", f);
        for ( i = 0; i < v->nr_cells; i++ )
            if ( unchanged(v, &v->cells[i]) )
            {
                hvb_view_md_code(f, v->cells[i].title, false);
                fputs(--same ? ", "
                             : " (their figures: index.html, "
                               "review.json).\n",
                      f);
            }
    }
    fputs("\nbase → head, the change and its CI: one vote per process pair "
          "of interleaved rounds; same inside the threshold, unknown when "
          "the budget ended first (how to read this: docs/running.md; the "
          "rule: docs/gating.md).\n",
          f);
}

void hvb_view_console(FILE *f, const struct hvb_view *v)
{
    size_t i, m;

    for ( i = 0; i < v->nr_cells; i++ )
    {
        const struct hvb_view_cell *c = &v->cells[i];

        fprintf(f, "%s\n", c->name);
        for ( m = 0; m < v->nr_metrics; m++ )
        {
            if ( !c->figs[m].present )
                continue;
            fprintf(f, "  %-18s %-10s ", v->metrics[m].name,
                    hvb_view_verdict_word(c->figs[m].verdict));
            figures(f, &c->figs[m], "->");
            fprintf(f, " %s%s\n", v->metrics[m].unit,
                    v->metrics[m].blocking ? "" : " (reported)");
        }
    }
    fputc('\n', f);
    hvb_view_answer(f, v, "");
}

/*
 * @text wrapped to HVB_VIEW_MAIL_COLS: the first line after @first, the
 * others after @next (both of the same width).
 */
static void wrap(FILE *f, const char *text, const char *first, const char *next)
{
    size_t ind = strlen(first), width = HVB_VIEW_MAIL_COLS - ind, col = 0, w;
    const char *p = text;

    fputs(first, f);
    while ( *p != '\0' )
    {
        while ( *p == ' ' )
            p++;
        w = strcspn(p, " ");
        if ( w == 0 )
            break;
        if ( col > 0 && col + 1 + w > width )
        {
            fprintf(f, "\n%s", next);
            width = HVB_VIEW_MAIL_COLS - strlen(next);
            col = 0;
        }
        else if ( col > 0 )
        {
            fputc(' ', f);
            col++;
        }
        while ( w > width - col ) /* longer than a line: broken */
        {
            fprintf(f, "%.*s\n%s", (int)(width - col), p, next);
            p += width - col;
            w -= width - col;
            width = HVB_VIEW_MAIL_COLS - strlen(next);
            col = 0;
        }
        fprintf(f, "%.*s", (int)w, p);
        col += w;
        p += w;
    }
    fputc('\n', f);
}

static const char *mail_word(const struct hvb_view_fig *g)
{
    static const char *const w[] = {
        [HVB_VIEW_SAME] = "same",
        [HVB_VIEW_IMPROVED] = "IMP",
        [HVB_VIEW_REGRESSED] = "REG",
        [HVB_VIEW_UNKNOWN] = "?",
    };

    return w[g->verdict];
}

static void mail_table(FILE *f, const struct hvb_view *v)
{
    size_t cw = HVB_VIEW_MAIL_COLS - 2 - v->nr_metrics * MAIL_METRIC, i, m;
    char name[16];

    cw = cw < MAIL_CELL_MIN ? MAIL_CELL_MIN : cw;
    fprintf(f, "  %-*s", (int)cw, "cell");
    for ( m = 0; m < v->nr_metrics; m++ )
    {
        snprintf(name, sizeof(name), "%s",
                 !strcmp(v->metrics[m].name, "sim_instructions")
                     ? "sim_instr"
                     : v->metrics[m].name);
        fprintf(f, " %-*.*s", m + 1 < v->nr_metrics ? MAIL_METRIC - 1 : 0,
                MAIL_METRIC - 1, name);
    }
    fputc('\n', f);
    for ( i = 0; i < v->nr_cells; i++ )
    {
        const struct hvb_view_cell *c = &v->cells[i];
        size_t n = strlen(c->title);

        if ( n > cw - 1 )
            fprintf(f, "  %.*s~", (int)(cw - 2), c->title);
        else
            fprintf(f, "  %-*s", (int)cw, c->title);
        for ( m = 0; m < v->nr_metrics; m++ )
        {
            const struct hvb_view_fig *g = &c->figs[m];
            char cellv[32];

            if ( !g->present || !(g->ratio > 0) )
                snprintf(cellv, sizeof(cellv), "%s",
                         g->present ? mail_word(g) : "-");
            else
                snprintf(cellv, sizeof(cellv), "%+.1f%% %s",
                         (g->ratio - 1) * 100, mail_word(g));
            fprintf(f, " %-*.*s", m + 1 < v->nr_metrics ? MAIL_METRIC - 1 : 0,
                    MAIL_METRIC - 1, cellv);
        }
        fputc('\n', f);
    }
    fputs("  (REG regressed, IMP improved, ? not decided; head over base)\n",
          f);
}

/*
 * The top function's changed lines, one each, cut to the column limit:
 *       26    -  196.00  while ( spin < 64 )
 * (head's line number, "-" for a count it had not).
 */
static void mail_lines(FILE *f, json_t *lines)
{
    char line[256], no[16], base[16];
    json_t *x;
    size_t i;

    json_array_foreach(lines, i, x)
    {
        json_t *hl = json_object_get(x, "head_line");
        json_t *bl = json_object_get(x, "base_line");

        if ( json_is_integer(hl) )
            snprintf(no, sizeof(no), "%lld", (long long)json_integer_value(hl));
        else
            snprintf(no, sizeof(no), "gone");
        if ( json_is_integer(bl) )
            snprintf(base, sizeof(base), "%.2f",
                     json_number_value(json_object_get(x, "base")));
        else
            snprintf(base, sizeof(base), "new");
        snprintf(line, sizeof(line), "      %5s %8s -> %-8.2f %s", no, base,
                 json_number_value(json_object_get(x, "head")),
                 json_string_value(json_object_get(x, "src")));
        fprintf(f, "%.*s\n", HVB_VIEW_MAIL_COLS, line);
    }
}

/* A changed cell's functions, as fixed-width lines. */
static void mail_functions(FILE *f, const struct hvb_view_cell *c)
{
    char line[256];
    json_t *r;
    size_t i;

    if ( json_array_size(c->functions) == 0 )
        return;
    fprintf(f, "\n  Instructions per op (callgrind), base -> head:\n");
    json_array_foreach(c->functions, i, r)
    {
        double b = json_number_value(json_object_get(r, "base_ir_per_op"));
        double h = json_number_value(json_object_get(r, "head_ir_per_op"));

        if ( i == MAIL_FNS )
        {
            fprintf(f, "    and %zu more\n", json_array_size(c->functions) - i);
            break;
        }
        snprintf(line, sizeof(line), "%.2f -> %.2f (%+.2f) %s %s", b, h, h - b,
                 json_string_value(json_object_get(r, "function")),
                 json_string_value(json_object_get(r, "file")));
        wrap(f, line, "    ", "      ");
        if ( i == 0 )
            mail_lines(f, json_object_get(r, "lines"));
    }
}

void hvb_view_mail(FILE *f, const struct hvb_view *v)
{
    char s[1024];
    size_t i, k;

    fprintf(f, "hvbench review: %s (exit %d)\n\n",
            hvb_view_verdict_word(v->verdict), v->status);
    for ( k = 0; k < 2; k++ )
    {
        snprintf(s, sizeof(s), "%s %.12s (%s)%s: %s", k ? "head" : "base",
                 v->side[k].commit ? v->side[k].commit : "?",
                 v->side[k].spec ? v->side[k].spec : "?",
                 v->side[k].dirty ? " with uncommitted changes" : "",
                 v->side[k].subject ? v->side[k].subject : "");
        wrap(f, s, "  ", "      ");
    }
    fputc('\n', f);
    for ( i = 0; i < v->nr_cells; i++ )
        if ( *hvb_view_sentence(v, &v->cells[i], s, sizeof(s)) != '\0' )
            wrap(f, s, "* ", "  ");
    if ( *hvb_view_rest(v, s, sizeof(s)) != '\0' )
        wrap(f, s, "* ", "  ");
    fputc('\n', f);
    wrap(f, hvb_view_blocking(v, false, s, sizeof(s)), "", "");
    fputc('\n', f);
    mail_table(f, v);
    for ( i = 0; i < v->nr_cells; i++ )
    {
        if ( !v->cells[i].changed )
            continue;
        fputc('\n', f);
        wrap(f, v->cells[i].title, "", "");
        mail_functions(f, &v->cells[i]);
    }
}
