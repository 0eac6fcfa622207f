/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where in a changed function the instructions moved, line by line
 * (hvb/irdiff.h): callgrind's per-line self cost (Ir, as callgrind_annotate
 * shows it beside the source), per op as the function rows are.
 *
 * Each build's dump of the cell (the one review_explain.c checked) is
 * read once: a cost line under "fn=F" is F's, at the current file
 * ("fl=", or "fi="/"fe=" where the code was inlined from) and line; the
 * cost line after a "calls=" is the callee's, not F's.  A function's
 * lines are those of the one file where its Ir/op moved most, which
 * becomes its row's "file" (rcu_ref_lock spends most in domain.h's
 * inlined refcount; the spin patch changes it in rcu-ref.c); a file is
 * found in each build's tree by its path relative to it (debug
 * information may name another cache entry's tree: ccache).  Its range
 * in a build ("head_lines", "base_lines") runs from its first to its
 * last line with a cost there.
 *
 * The rule that matches the two builds' lines: the source text of base's
 * range (from base's tree) and of head's (from head's) is diffed, a
 * longest common subsequence of the lines with blanks at either end
 * ignored.  A head line paired with a base line shows both counts; a
 * head line with no counterpart is "new" (base 0), a base line with
 * none "gone" (head 0), so a line the patch edits is one of each.  The
 * lines whose Ir/op moved by HVB_IRDIFF_MIN_DELTA_IR or more are listed,
 * the HVB_IRDIFF_TOP_LINES largest changes, in source order, and how
 * many more moved.
 *
 * Worked example (the review of tests/review's spin patch): the patch
 * inserts six lines, a block with "while ( spin < 64 ) spin++;", after
 * line 22 of rcu-ref.c ("hv_rcu_read_lock(cpu);").  rcu_ref_lock's range
 * is 19-29 in base, 19-35 in head.  The diff pairs base 19-22 with head
 * 19-22 and base 23-29 with head 29-35; head 23-28 are new.  Base 23
 * "d = hv_domid_to_domain(priv, id);" is head 29, the same Ir/op in
 * both: not listed.  The block (review.md):
 *
 *   rcu_ref_lock (plugins/domlookup/rcu-ref.c:19-35), Ir/op by line
 *    base  head  base Ir/op  head Ir/op    change  source
 *      19    19        2.00        4.00     +2.00  {
 *     new    24           -        1.00     +1.00  volatile unsigned in...
 *     new    26           -      196.00   +196.00  while ( spin < 64 )
 *     new    27           -      192.00   +192.00  spin++;
 *      29    35        2.00        3.00     +1.00  }
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvb/fsutil.h>

#include <hvb/irdiff.h>
#include <hvb/view.h>

#define NAMES_MAX (1u << 20) /* a callgrind name id */
#define SPAN_MAX  1500       /* a function's lines in one file */
#define SRC_SHOWN 100        /* a source line's characters, shown */

/* One cost of a listed function: its row, file (index), line. */
struct ent {
    size_t row, file;
    unsigned long line;
    double ir;
};

/* One dump as it is read. */
struct cg {
    char **names[2]; /* compressed names by id: files, functions */
    size_t nr[2];
    char **files, **rel; /* each file named once; relative to the trees */
    size_t nr_files;
    long file, row; /* the current file; function's row (-1: unlisted) */
    char lit[2][4096];
    unsigned long pos[2]; /* the last position: address, line */
    int ir_col;           /* Ir among the events, -1: no events yet */
    bool addr, call;      /* positions have an address; a call's cost next */
    struct ent *v;
    size_t nr_v, cap;
};

/* A build's lines lo..hi of a function: Ir/op, text (trimmed, length). */
struct side {
    unsigned long lo, hi; /* lo 0: no line */
    double *ir;
    const char **t;
    size_t *tn;
    char *buf, **l; /* the source file, its lines */
    size_t nr_l;
};

/* One line of the block. */
struct lrow {
    unsigned long b, h; /* line numbers (0: no counterpart) */
    double base, head;
    const char *text; /* head's where there is one */
    size_t tlen;
    bool shown;
};

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? s : "";
}

/* "(id) name", "(id)" or "name" of kind @k: the name, or NULL (bad id). */
static const char *name_of(struct cg *g, int k, char *s, char *lit)
{
    unsigned long id;
    char *end, **v;

    if ( *s != '(' )
        return strncpy(lit, s, sizeof(g->lit[0]) - 1);
    id = strtoul(s + 1, &end, 10);
    if ( end == s + 1 || *end != ')' || id >= NAMES_MAX ||
         (end[1] != '\0' && end[1] != ' ') )
        return NULL;
    if ( end[1] == '\0' )
        return id < g->nr[k] ? g->names[k][id] : NULL;
    if ( id >= g->nr[k] )
    {
        v = realloc(g->names[k], (id + 1) * sizeof(*v));
        if ( v == NULL )
            return NULL;
        memset(v + g->nr[k], 0, (id + 1 - g->nr[k]) * sizeof(*v));
        g->names[k] = v;
        g->nr[k] = id + 1;
    }
    if ( g->names[k][id] == NULL )
        g->names[k][id] = strdup(end + 2);
    return g->names[k][id];
}

/* File @n's index in @g's files, added where it is new; -1: no memory. */
static long intern(struct cg *g, const char *n)
{
    char **v;
    size_t i;

    for ( i = 0; i < g->nr_files; i++ )
        if ( strcmp(g->files[i], n) == 0 )
            return (long)i;
    v = realloc(g->files, (i + 1) * sizeof(*v));
    if ( v == NULL )
        return -1;
    g->files = v;
    if ( (v[i] = strdup(n)) == NULL )
        return -1;
    g->nr_files++;
    return (long)i;
}

/* @g's cost @i is row @row's in file @rel (relative to the trees)? */
static bool mine(const struct cg *g, size_t i, size_t row, const char *rel)
{
    const char *f = g->rel[g->v[i].file];

    return g->v[i].row == row && f != NULL && strcmp(f, rel) == 0;
}

/* A position's column at *@p ("N", "+N", "-N", "*", "0xN") into *@last. */
static bool position(char **p, unsigned long *last, int base)
{
    unsigned long v = *last;
    char *s = *p, *end = s + 1;

    if ( *s == '+' || *s == '-' )
        v = strtoul(s + 1, &end, base);
    else if ( *s != '*' )
        v = strtoul(s, &end, base ? 0 : 10);
    if ( end == s || (*end != ' ' && *end != '\0') )
        return false;
    *last = *s == '+' ? *last + v : *s == '-' ? *last - v : v;
    *p = end;
    return true;
}

/* A cost line: the Ir of a listed function's line kept. */
static bool cost_line(struct cg *g, char *s)
{
    double ir = 0;
    char *end;
    int i;

    if ( g->ir_col < 0 || (g->addr && !position(&s, &g->pos[0], 16)) ||
         !position(&s, &g->pos[1], 0) )
        return false;
    for ( i = 0; i <= g->ir_col && *s != '\0'; i++, s = end )
    {
        ir = strtod(s, &end);
        if ( end == s || (*end != ' ' && *end != '\0') )
            return false;
    }
    ir = i > g->ir_col ? ir : 0;
    if ( g->call || g->row < 0 || g->file < 0 || g->pos[1] == 0 )
    {
        g->call = false; /* a call's cost is the callee's */
        return true;
    }
    if ( g->nr_v == g->cap )
    {
        struct ent *v = realloc(g->v, (g->cap * 2 + 64) * sizeof(*v));

        if ( v == NULL )
            return false;
        g->v = v;
        g->cap = g->cap * 2 + 64;
    }
    g->v[g->nr_v++] =
        (struct ent){(size_t)g->row, (size_t)g->file, g->pos[1], ir};
    return true;
}

/* A "key=value" line: the current file and function (a row of @fns). */
static bool spec(struct cg *g, const char *key, char *val, json_t *fns)
{
    bool file = !strcmp(key, "fl") || !strcmp(key, "fi") || !strcmp(key, "fe");
    const char *n = NULL;
    size_t i;

    if ( file || !strcmp(key, "cfi") || !strcmp(key, "cfl") ||
         !strcmp(key, "jfi") )
        n = name_of(g, 0, val, g->lit[!file]);
    else if ( !strcmp(key, "fn") || !strcmp(key, "cfn") || !strcmp(key, "jfn") )
        n = name_of(g, 1, val, g->lit[1]);
    else
    {
        g->call = g->call || !strcmp(key, "calls"); /* its cost next */
        return true; /* ob, cob, jump, jcnd: nothing of ours */
    }
    if ( n == NULL )
        return false;
    if ( file )
        return (g->file = intern(g, n)) >= 0;
    if ( !strcmp(key, "fn") )
        for ( g->row = -1, i = 0; i < json_array_size(fns); i++ )
            if ( strcmp(n, str(json_array_get(fns, i), "function")) == 0 )
                g->row = (long)i;
    return true;
}

/* One line of a dump; false when it is none of callgrind's. */
static bool cg_line(struct cg *g, char *s, json_t *fns)
{
    size_t k = strspn(s, "abcdefghijklmnopqrstuvwxyz");
    char c = s[k], *w, *save;
    int i = 0;

    s[strcspn(s, "\r\n")] = '\0';
    if ( s[0] == '#' || s[strspn(s, " \t")] == '\0' )
        return true;
    if ( k == 0 || (c != '=' && c != ':') )
        return cost_line(g, s);
    s[k] = '\0';
    if ( c == '=' )
        return spec(g, s, s + k + 1, fns);
    if ( strcmp(s, "positions") == 0 )
        g->addr = strstr(s + k + 1, "instr") || strstr(s + k + 1, "addr");
    if ( strcmp(s, "events") != 0 )
        return true;
    for ( w = strtok_r(s + k + 1, " ", &save); w;
          w = strtok_r(NULL, " ", &save), i++ )
        g->ir_col = strcmp(w, "Ir") == 0 ? i : g->ir_col;
    return g->ir_col >= 0;
}

/* Dump @path's costs of the rows of @fns into @g. */
static int cg_read(struct cg *g, const char *path, json_t *fns, char *err,
                   size_t len)
{
    char *s = NULL;
    size_t cap = 0, n = 0;
    FILE *f = fopen(path, "r");
    int rc = f ? 0 : -errno;

    g->row = g->file = g->ir_col = -1;
    while ( rc == 0 && getline(&s, &cap, f) > 0 )
        if ( n++, !cg_line(g, s, fns) )
            rc = -EINVAL;
    if ( rc == 0 && g->ir_col < 0 )
        rc = -EBADMSG;
    if ( rc == -EINVAL )
        snprintf(err, len, "%s:%zu: not a callgrind dump line: '%.40s'", path,
                 n, s);
    else if ( rc )
        snprintf(err, len, "%s: %s", path,
                 rc == -EBADMSG ? "not a callgrind dump (no Ir event)"
                                : strerror(-rc));
    free(s);
    if ( f != NULL )
        fclose(f);
    return rc == -EBADMSG ? -EINVAL : rc;
}

/* @s without the blanks at either end, its length in *@n. */
static const char *trimmed(const char *s, size_t *n)
{
    s += strspn(s, " \t");
    for ( *n = strlen(s); *n > 0 && strchr(" \t\r", s[*n - 1]); (*n)-- )
        ;
    return s;
}

/* Source file @rel of tree @root. */
static int src_read(struct side *d, const char *root, const char *rel,
                    char *err, size_t len)
{
    char path[4300], *p, *e;
    size_t n = 0, nr = 1;

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    d->buf = hvb_slurp(path, &n);
    for ( p = d->buf; p && (p = memchr(p, '\n', d->buf + n - p)); p++ )
        nr++;
    d->l = d->buf ? calloc(nr, sizeof(*d->l)) : NULL;
    if ( d->l == NULL )
    {
        snprintf(err, len, "%.900s: %s", path, strerror(errno));
        return -EIO;
    }
    for ( p = d->buf; p < d->buf + n; p = e + 1 )
    {
        e = memchr(p, '\n', d->buf + n - p);
        e = e ? e : d->buf + n;
        *e = '\0';
        d->l[d->nr_l++] = p;
    }
    return 0;
}

/* Row @row's lines in dump @g (@ops operations), their text in @root. */
static int side_get(struct side *d, const struct cg *g, size_t row, double ops,
                    const char *root, const char *rel, char *err, size_t len)
{
    size_t i, n;
    int rc;

    for ( i = 0; i < g->nr_v; i++ )
        if ( mine(g, i, row, rel) )
        {
            d->lo = d->lo && d->lo < g->v[i].line ? d->lo : g->v[i].line;
            d->hi = d->hi > g->v[i].line ? d->hi : g->v[i].line;
        }
    if ( d->lo == 0 )
        return 0;
    n = d->hi - d->lo + 1;
    if ( n > SPAN_MAX )
    {
        snprintf(err, len, "%s:%lu-%lu: more than %d lines to match", rel,
                 d->lo, d->hi, SPAN_MAX);
        return -E2BIG;
    }
    rc = src_read(d, root, rel, err, len);
    if ( rc == 0 && d->nr_l < d->hi )
    {
        snprintf(err, len, "%s/%s has %zu lines, callgrind names line %lu",
                 root, rel, d->nr_l, d->hi);
        rc = -EINVAL;
    }
    d->ir = calloc(n, sizeof(*d->ir));
    d->t = calloc(n, sizeof(*d->t));
    d->tn = calloc(n, sizeof(*d->tn));
    if ( rc == 0 && (!d->ir || !d->t || !d->tn) )
    {
        snprintf(err, len, "out of memory");
        rc = -ENOMEM;
    }
    for ( i = 0; rc == 0 && i < g->nr_v; i++ )
        if ( mine(g, i, row, rel) )
            d->ir[g->v[i].line - d->lo] += g->v[i].ir / ops;
    for ( i = 0; rc == 0 && i < n; i++ )
        d->t[i] = trimmed(d->l[d->lo + i - 1], &d->tn[i]);
    return rc;
}

/* Base line @i and head line @j (of their ranges) read the same? */
static bool same_text(const struct side d[2], size_t i, size_t j)
{
    return d[0].tn[i] == d[1].tn[j] &&
           memcmp(d[0].t[i], d[1].t[j], d[0].tn[i]) == 0;
}

/* Side @d's line @i of its range into @r. */
static void take(struct lrow *r, const struct side *d, size_t i, bool head)
{
    *(head ? &r->h : &r->b) = d->lo + i;
    *(head ? &r->head : &r->base) = d->ir[i];
    r->text = d->t[i];
    r->tlen = d->tn[i];
}

/*
 * The two sides' lines matched (a longest common subsequence of their
 * text), in source order, into @out (room for both ranges): how many.
 */
static size_t match(const struct side d[2], struct lrow *out)
{
    size_t nb = d[0].lo ? d[0].hi - d[0].lo + 1 : 0, i = nb, j, n = 0;
    size_t nh = d[1].lo ? d[1].hi - d[1].lo + 1 : 0, w = nh + 1;
    unsigned short *m = calloc((nb + 1) * w, sizeof(*m));

    if ( m == NULL )
        return SIZE_MAX;
    /* m[i * w + j]: the longest of base's lines i.. and head's j.. */
    while ( i-- > 0 )
        for ( j = nh; j-- > 0; )
            m[i * w + j] = same_text(d, i, j) ? m[(i + 1) * w + j + 1] + 1
                           : m[(i + 1) * w + j] > m[i * w + j + 1]
                               ? m[(i + 1) * w + j]
                               : m[i * w + j + 1];
    for ( i = j = 0; i < nb || j < nh; n++ )
    {
        bool pair = i < nb && j < nh && same_text(d, i, j);
        bool gone = !pair && i < nb &&
                    (j == nh || m[(i + 1) * w + j] >= m[i * w + j + 1]);

        out[n] = (struct lrow){0};
        if ( pair || gone )
            take(&out[n], &d[0], i++, false);
        if ( !gone )
            take(&out[n], &d[1], j++, true); /* head's text where it has one */
    }
    free(m);
    return n;
}

/* Line @r as review.json has it. */
static json_t *line_json(const struct lrow *r)
{
    char t[SRC_SHOWN + 4];
    size_t i, n = r->tlen < SRC_SHOWN ? r->tlen : SRC_SHOWN;
    json_t *s;

    for ( i = 0; i < n; i++ )
        t[i] = (unsigned char)r->text[i] < 0x20 ? ' ' : r->text[i];
    strcpy(t + n, r->tlen > n ? "..." : "");
    s = json_string(t);
    for ( i = 0; s == NULL && i < n; i++ ) /* not UTF-8: ASCII only */
        t[i] = (unsigned char)t[i] >= 0x7f ? '?' : t[i];
    return json_pack("{s:o, s:o, s:o, s:f, s:f}", "base_line",
                     r->b ? json_integer((json_int_t)r->b) : json_null(),
                     "head_line",
                     r->h ? json_integer((json_int_t)r->h) : json_null(), "src",
                     s ? s : json_string(t), "base", r->base, "head", r->head);
}

/* Row @fn's block from its lines @rows (@n): the largest changes. */
static void block(json_t *fn, const struct side d[2], struct lrow *rows,
                  size_t n)
{
    json_t *a = json_array();
    size_t i, k, best, moved = 0;

    for ( i = 0; i < n; i++ )
        moved += fabs(rows[i].head - rows[i].base) >= HVB_IRDIFF_MIN_DELTA_IR;
    for ( k = 0; k < HVB_IRDIFF_TOP_LINES && k < moved; k++ )
    {
        for ( best = n, i = 0; i < n; i++ )
            if ( !rows[i].shown &&
                 (best == n || fabs(rows[i].head - rows[i].base) >
                                   fabs(rows[best].head - rows[best].base)) )
                best = i;
        rows[best].shown = true;
    }
    for ( i = 0; i < n; i++ )
        if ( rows[i].shown )
            json_array_append_new(a, line_json(&rows[i]));
    for ( i = 0; i < 2; i++ )
        if ( d[i].lo )
            json_object_set_new(fn, i ? "head_lines" : "base_lines",
                                json_sprintf("%lu-%lu", d[i].lo, d[i].hi));
    json_object_set_new(fn, "lines", a);
    json_object_set_new(fn, "lines_more",
                        json_integer((json_int_t)(moved - k)));
}

/*
 * The file (relative to the trees) where row @r's Ir/op moved most, or
 * NULL; a tie goes to @file.  One candidate per run of a file's costs.
 */
static const char *moved_file(const struct cg g[2], size_t r,
                              const double ops[2], const char *file)
{
    const char *best = NULL, *f;
    double most = -1, d;
    size_t i, j, last;
    int k, l;

    for ( k = 0; k < 2; k++ )
        for ( last = SIZE_MAX, i = 0; i < g[k].nr_v; i++ )
        {
            if ( g[k].v[i].row != r || g[k].v[i].file == last ||
                 (f = g[k].rel[g[k].v[i].file]) == NULL )
                continue;
            last = g[k].v[i].file;
            for ( d = 0, l = 0; l < 2; l++ )
                for ( j = 0; j < g[l].nr_v; j++ )
                    d += mine(&g[l], j, r, f)
                             ? (l ? 1 : -1) * g[l].v[j].ir / ops[l]
                             : 0;
            if ( fabs(d) > most || (fabs(d) == most && !strcmp(f, file)) )
            {
                most = fabs(d);
                best = f;
            }
        }
    return best;
}

/* Row @fn gets its line block and that file, or "lines_error". */
static void fn_lines(json_t *fn, size_t r, const struct cg g[2],
                     char *const srcs[2], const double ops[2])
{
    const char *rel = moved_file(g, r, ops, str(fn, "file"));
    struct side d[2];
    struct lrow *rows = NULL;
    char err[1024] = "no line numbers here (no debug information), or its "
                     "file in neither source tree";
    size_t n = 0;
    int k, rc = rel ? 0 : -ENOENT;

    memset(d, 0, sizeof(d));
    for ( k = 0; k < 2 && rc == 0; k++ )
        rc = side_get(&d[k], &g[k], r, ops[k], srcs[k], rel, err, sizeof(err));
    if ( rc == 0 )
        rows = calloc(d[0].hi - d[0].lo + d[1].hi - d[1].lo + 2, sizeof(*rows));
    if ( rc == 0 && (rows == NULL || (n = match(d, rows)) == SIZE_MAX) )
    {
        snprintf(err, sizeof(err), "out of memory");
        rc = -ENOMEM;
    }
    if ( rc == 0 )
    {
        block(fn, d, rows, n);
        json_object_set_new(fn, "file", json_string(rel));
    }
    else
        json_object_set_new(fn, "lines_error", json_string(err));
    for ( k = 0; k < 2; k++ )
    {
        free(d[k].ir);
        free(d[k].t);
        free(d[k].tn);
        free(d[k].buf);
        free(d[k].l);
    }
    free(rows);
}

/* @file relative to the trees: as named, its longest tail in one, NULL. */
static char *rel_path(const char *file, char *const srcs[2])
{
    char path[4300];
    const char *p;
    int k;

    if ( file[0] != '/' )
        return strdup(file);
    for ( p = file; (p = strchr(p, '/')) != NULL; )
        for ( p++, k = 1; k >= 0 && strncmp(p, "../", 3) != 0; k-- )
            if ( snprintf(path, sizeof(path), "%s/%s", srcs[k], p) > 0 &&
                 access(path, R_OK) == 0 )
                return strdup(p);
    return NULL; /* in neither tree (a system header; --base-bin) */
}

static void cg_free(struct cg *g)
{
    size_t i;
    int k;

    for ( k = 0; k < 2; k++ )
    {
        for ( i = 0; i < g->nr[k]; i++ )
            free(g->names[k][i]);
        free(g->names[k]);
    }
    for ( i = 0; i < g->nr_files; i++ )
    {
        free(g->files[i]);
        free(g->rel ? g->rel[i] : NULL);
    }
    free(g->files);
    free(g->rel);
    free(g->v);
}

int hvb_irdiff_lines(char *const dumps[2], char *const srcs[2],
                     const double ops[2], json_t *fns, char *err, size_t len)
{
    struct cg g[2];
    json_t *fn;
    char *rel;
    size_t i;
    int k, rc = 0;

    memset(g, 0, sizeof(g));
    for ( k = 0; k < 2 && rc == 0; k++ )
        rc = cg_read(&g[k], dumps[k], fns, err, len);
    for ( k = 0; k < 2 && rc == 0; k++ )
    {
        g[k].rel = calloc(g[k].nr_files + 1, sizeof(*g[k].rel));
        for ( i = 0; g[k].rel != NULL && i < g[k].nr_files; i++ )
            g[k].rel[i] = rel_path(g[k].files[i], srcs);
        if ( g[k].rel == NULL )
            rc = -ENOMEM;
    }
    if ( rc == -ENOMEM )
        snprintf(err, len, "out of memory");
    json_array_foreach(fns, i, fn)
    {
        /* Another entry's tree (ccache) named as this one's: relative. */
        rel = rel_path(str(fn, "file"), srcs);
        if ( rel != NULL )
            json_object_set_new(fn, "file", json_string(rel));
        free(rel);
        if ( rc == 0 )
            fn_lines(fn, i, g, srcs, ops);
        else
            json_object_set_new(fn, "lines_error", json_string(err));
    }
    cg_free(&g[0]);
    cg_free(&g[1]);
    return rc;
}

/* Function row @r's line block, markdown (a fenced block) or HTML. */
static void lines_block(FILE *f, json_t *r, bool html)
{
    json_t *hr = json_object_get(r, "head_lines"), *l, *x[2];
    json_int_t more = json_integer_value(json_object_get(r, "lines_more"));
    char c[5][32], t[700];
    size_t i, k;

    snprintf(t, sizeof(t), "%s (%s:%s%s), Ir/op by line", str(r, "function"),
             str(r, "file"),
             json_string_value(hr ? hr : json_object_get(r, "base_lines")),
             hr ? "" : " in base");
    if ( html )
    {
        fputs("<p>", f);
        hvb_view_html(f, t);
        fputs(":</p>\n<table class=\"lines\"><tr><th>base line</th><th>head "
              "line</th><th>base Ir/op</th><th>head Ir/op</th><th>change</th>"
              "<th>source</th></tr>\n",
              f);
    }
    else
        fprintf(f, "\n```text\n%s\n%5s %5s %11s %11s %9s  source\n", t, "base",
                "head", "base Ir/op", "head Ir/op", "change");
    json_array_foreach(json_object_get(r, "lines"), i, l)
    {
        for ( k = 0; k < 2; k++ ) /* "new", "gone": no counterpart */
        {
            x[k] = json_object_get(l, k ? "head_line" : "base_line");
            snprintf(c[k], 32, "%lld", (long long)json_integer_value(x[k]));
            snprintf(
                c[k + 2], 32, "%.2f",
                json_number_value(json_object_get(l, k ? "head" : "base")));
            if ( !json_is_integer(x[k]) )
            {
                strcpy(c[k], k ? "gone" : "new");
                strcpy(c[k + 2], "-");
            }
        }
        snprintf(c[4], 32, "%+.2f",
                 json_number_value(json_object_get(l, "head")) -
                     json_number_value(json_object_get(l, "base")));
        if ( !html )
            fprintf(f, "%5s %5s %11s %11s %9s  %s\n", c[0], c[1], c[2], c[3],
                    c[4], str(l, "src"));
        else
        {
            fprintf(f,
                    "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                    "<td class=\"%s\">%s</td><td><code>",
                    c[0], c[1], c[2], c[3], c[4][0] == '+' ? "reg" : "imp",
                    c[4]);
            hvb_view_html(f, str(l, "src"));
            fputs("</code></td></tr>\n", f);
        }
    }
    if ( more > 0 )
        fprintf(f,
                html ? "</table>\n<p>%lld more changed lines</p>\n"
                     : "(%lld more changed lines)\n```\n",
                (long long)more);
    else
        fputs(html ? "</table>\n" : "```\n", f);
}

static void blocks(FILE *f, json_t *fns, size_t top, bool html)
{
    json_t *r;
    size_t i;

    json_array_foreach(fns, i, r)
        if ( i < top && json_array_size(json_object_get(r, "lines")) > 0 )
            lines_block(f, r, html);
}

void hvb_irdiff_md_lines(FILE *f, json_t *fns, size_t top)
{
    blocks(f, fns, top, false);
}

void hvb_irdiff_html_lines(FILE *f, json_t *fns, size_t top)
{
    blocks(f, fns, top, true);
}
