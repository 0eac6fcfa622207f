/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The view for CI systems (hvb/view.h).  A JUnit XML report, the format GitLab's test
 * report, Jenkins' junit step and GitHub actions' test reporters read
 * (Ant's XMLJUnitResultFormatter, as Jenkins' junit-10.xsd describes
 * it; tests/review/junit.xsd checks ours): one <testsuite> per suite
 * line, one <testcase> per cell and blocking metric, e.g.
 *
 *   <testcase classname="hvbench.review.sim_instructions"
 *             name="lookup/domlookup=rcu-ref/threads:1">
 *     <failure type="regressed" message="+56 instructions per op
 *       (+24.3%)">lookup rcu-ref, 1 thread: 43.7% slower ...</failure>
 *   </testcase>
 *
 * regressed: <failure>; unknown: <error> (the review exits 3, not 0),
 * with its reason; same and improved pass, the sentence in <system-out>.
 *
 * And GitHub's workflow commands that annotate a source line in a pull
 * request's diff: per cell that moved in a blocking metric, its costliest
 * function at its lines, e.g.
 *
 *   ::error file=plugins/domlookup/rcu-ref.c,line=31,endLine=40,
 *   title=hvbench review%3A lookup rcu-ref%2C 1 thread::lookup rcu-ref, ...
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hvb/view.h>

/* @s escaped for XML or HTML, text and attributes (hvb/view.h). */
void hvb_view_html(FILE *f, const char *s)
{
    for ( ; s != NULL && *s != '\0'; s++ )
        switch ( *s )
        {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            if ( (unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t' )
                fputc(*s, f);
        }
}

/* Is cell @i the first of its suite line? */
static bool first_of_line(const struct hvb_view *v, size_t i)
{
    const char *l = v->cells[i].line ? v->cells[i].line : "";

    return i == 0 ||
           strcmp(l, v->cells[i - 1].line ? v->cells[i - 1].line : "") != 0;
}

/* Of cells @i.. on the same line: how many cases, failures, errors. */
static void line_counts(const struct hvb_view *v, size_t i, size_t n[3])
{
    size_t m;

    n[0] = n[1] = n[2] = 0;
    do
    {
        for ( m = 0; m < v->nr_metrics; m++ )
        {
            const struct hvb_view_fig *g = &v->cells[i].figs[m];

            if ( !v->metrics[m].blocking || !g->present )
                continue;
            n[0]++;
            n[1] += g->verdict == HVB_VIEW_REGRESSED;
            n[2] += g->verdict == HVB_VIEW_UNKNOWN;
        }
        i++;
    } while ( i < v->nr_cells && !first_of_line(v, i) );
}

static void testcase(FILE *f, const struct hvb_view *v,
                     const struct hvb_view_cell *c, size_t m)
{
    const struct hvb_view_fig *g = &c->figs[m];
    char s[1024], chg[96];

    fputs("    <testcase classname=\"hvbench.review.", f);
    hvb_view_html(f, v->metrics[m].name);
    fputs("\" name=\"", f);
    hvb_view_html(f, c->name);
    fputs("\">\n", f);
    hvb_view_sentence(v, c, s, sizeof(s));
    hvb_view_change(g, chg, sizeof(chg));
    if ( g->verdict == HVB_VIEW_REGRESSED || g->verdict == HVB_VIEW_UNKNOWN )
    {
        const char *tag =
            g->verdict == HVB_VIEW_REGRESSED ? "failure" : "error";

        fprintf(f, "      <%s type=\"%s\" message=\"%s ", tag,
                hvb_view_verdict_word(g->verdict), v->metrics[m].name);
        hvb_view_html(f, chg);
        if ( g->why != NULL )
        {
            fputs(": ", f);
            hvb_view_html(f, g->why);
        }
        fputs("\">", f);
        hvb_view_html(f, s);
        fprintf(f, "</%s>\n", tag);
    }
    else if ( *s != '\0' || isfinite(g->ratio) )
    {
        fputs("      <system-out>", f);
        hvb_view_html(f, *s ? s : c->title);
        fputs(": ", f);
        hvb_view_html(f, v->metrics[m].name);
        fputc(' ', f);
        hvb_view_html(f, hvb_view_verdict_word(g->verdict));
        fputc(' ', f);
        hvb_view_html(f, chg);
        fputs("</system-out>\n", f);
    }
    fputs("    </testcase>\n", f);
}

void hvb_view_junit(FILE *f, const struct hvb_view *v)
{
    size_t i, m, n[3], all[3] = {0, 0, 0};

    for ( i = 0; i < v->nr_cells; i++ )
        if ( first_of_line(v, i) )
        {
            line_counts(v, i, n);
            for ( m = 0; m < 3; m++ )
                all[m] += n[m];
        }
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"hvbench review\" tests=\"%zu\" "
            "failures=\"%zu\" errors=\"%zu\">\n",
            all[0], all[1], all[2]);
    for ( i = 0; i < v->nr_cells; i++ )
    {
        if ( first_of_line(v, i) )
        {
            if ( i > 0 )
                fputs("  </testsuite>\n", f);
            line_counts(v, i, n);
            fputs("  <testsuite name=\"", f);
            hvb_view_html(f, v->cells[i].line ? v->cells[i].line : "review");
            fprintf(f,
                    "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
                    "skipped=\"0\">\n",
                    n[0], n[1], n[2]);
        }
        for ( m = 0; m < v->nr_metrics; m++ )
            if ( v->metrics[m].blocking && v->cells[i].figs[m].present )
                testcase(f, v, &v->cells[i], m);
    }
    if ( v->nr_cells > 0 )
        fputs("  </testsuite>\n", f);
    fputs("</testsuites>\n", f);
}

/* @s as a workflow command's property (@prop) or message. */
static void gh(FILE *f, const char *s, bool prop)
{
    for ( ; s != NULL && *s != '\0'; s++ )
        if ( *s == '%' )
            fputs("%25", f);
        else if ( *s == '\r' )
            fputs("%0D", f);
        else if ( *s == '\n' )
            fputs("%0A", f);
        else if ( prop && *s == ':' )
            fputs("%3A", f);
        else if ( prop && *s == ',' )
            fputs("%2C", f);
        else
            fputc(*s, f);
}

void hvb_view_annotations(FILE *f, const struct hvb_view *v)
{
    char s[1024];
    const char *file, *lines;
    json_t *top;
    size_t i;
    long a, b;

    for ( i = 0; i < v->nr_cells; i++ )
    {
        const struct hvb_view_cell *c = &v->cells[i];

        top = json_array_get(c->functions, 0);
        file = json_string_value(json_object_get(top, "file"));
        lines = json_string_value(json_object_get(top, "head_lines"));
        if ( (c->verdict != HVB_VIEW_REGRESSED &&
              c->verdict != HVB_VIEW_IMPROVED) ||
             file == NULL || *file == '\0' || *file == '/' )
            continue;
        a = b = 1;
        if ( lines != NULL && sscanf(lines, "%ld-%ld", &a, &b) < 2 )
            b = a;
        fputs(c->verdict == HVB_VIEW_REGRESSED ? "::error file="
                                               : "::notice file=",
              f);
        gh(f, file, true);
        fprintf(f, ",line=%ld,endLine=%ld,title=", a, b);
        gh(f, "hvbench review: ", true);
        gh(f, c->title, true);
        fputs("::", f);
        gh(f, hvb_view_sentence(v, c, s, sizeof(s)), false);
        fputc('\n', f);
    }
}
