/* SPDX-License-Identifier: GPL-2.0-only */
/* Folded stacks, one file per cell; see hvb/folded.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/strbuf.h>
#include <hvb/folded.h>
#include <hvb/outfile.h>

void hvb_folded_slug(const char *name, char *out, size_t len)
{
    size_t i;

    for ( i = 0; name[i] && i + 1 < len; i++ )
    {
        char c = name[i];

        out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '.' || c == '=' ||
                         c == '-'
                     ? c
                     : '_';
    }
    out[i] = '\0';
}

void hvb_folded_pair_name(const char *a, const char *b, char *out, size_t len)
{
    size_t la = strlen(a), lb = strlen(b), pre = 0, suf = 0;
    uint64_t h = 0xcbf29ce484222325ull;
    const char *p;

    if ( la + lb + 6 <= HVB_FOLDED_NAME_MAX )
    {
        snprintf(out, len, "%s--vs--%s", a, b);
        return;
    }
    while ( pre < la && pre < lb && a[pre] == b[pre] )
        pre++;
    while ( suf < la - pre && suf < lb - pre &&
            a[la - 1 - suf] == b[lb - 1 - suf] )
        suf++;
    for ( p = b; *p; p++ )
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    /* A, then what of B differs (its common head and tail cut). */
    snprintf(out, len, "%.*s--vs--%.*s-%08x",
             (int)(la < HVB_FOLDED_NAME_MAX / 2 ? la : HVB_FOLDED_NAME_MAX / 2),
             a, (int)(lb - pre - suf < 40 ? lb - pre - suf : 40), b + pre,
             (unsigned int)(h & 0xffffffffu));
}

static int line_cmp(const void *a, const void *b)
{
    return strcmp(((const struct hvb_folded_line *)a)->stack,
                  ((const struct hvb_folded_line *)b)->stack);
}

char *hvb_folded_stack(struct hvb_symbols *sym, const uint64_t *chain,
                       size_t nf, bool leaf_ip, const char *leaf)
{
    struct hv_strbuf sb;
    const char *prev = NULL;
    size_t len = 1 + (leaf ? strlen(leaf) + 1 : 0), k;
    char *line;

    for ( k = nf; k-- > 0; )
        len += strlen(hvb_symbols_name(sym, chain[k], k > 0 || !leaf_ip)) + 1;
    line = malloc(len + 1);
    if ( line == NULL )
        return NULL;
    hv_strbuf_init(&sb, line, len + 1);
    for ( k = nf; k-- > 0; )
    {
        const char *name = hvb_symbols_name(sym, chain[k], k > 0 || !leaf_ip);

        /*
         * A chain walked through code without frame pointers reads
         * garbage up to the depth limit: keep one [unknown] per run.
         */
        if ( prev && strcmp(name, "[unknown]") == 0 && strcmp(prev, name) == 0 )
            continue;
        hv_strbuf_join(&sb, ";", "%s", name);
        prev = name;
    }
    if ( leaf != NULL )
        hv_strbuf_join(&sb, ";", "%s", leaf);
    return line;
}

int hvb_folded_emit(const char *path, struct hvb_folded_line *v, size_t nr,
                    bool integral)
{
    struct hvb_outfile out;
    char err[768];
    size_t i, j;
    int rc;

    qsort(v, nr, sizeof(*v), line_cmp);
    rc = hvb_outfile_open(&out, path, "folded stacks", err, sizeof(err));
    for ( i = 0; rc == 0 && i < nr; i = j )
    {
        double w = v[i].weight;

        for ( j = i + 1; j < nr && strcmp(v[j].stack, v[i].stack) == 0; j++ )
            w += v[j].weight;
        if ( integral )
            fprintf(out.f, "%s %.0f\n", v[i].stack, w);
        else
            fprintf(out.f, "%s %.4f\n", v[i].stack, w);
    }
    if ( rc == 0 )
        rc = hvb_outfile_commit(&out, err, sizeof(err));
    return rc;
}

void hvb_folded_free(struct hvb_folded_line *v, size_t nr)
{
    size_t i;

    for ( i = 0; i < nr; i++ )
        free(v[i].stack);
    free(v);
}

int hvb_folded_push(struct hvb_folded_line **v, size_t *nr, size_t *cap,
                    char *stack, double weight)
{
    if ( stack == NULL )
        return -ENOMEM;
    if ( *nr == *cap )
    {
        size_t c = *cap ? 2 * *cap : 1024;
        struct hvb_folded_line *n = realloc(*v, c * sizeof(*n));

        if ( n == NULL )
        {
            free(stack);
            return -ENOMEM;
        }
        *v = n;
        *cap = c;
    }
    (*v)[(*nr)++] = (struct hvb_folded_line){stack, weight};
    return 0;
}

size_t hvb_folded_sample_chain(struct hvb_symbols *sym, const uint64_t *r,
                               uint64_t *chain, size_t max)
{
    size_t nf = 0, k;

    if ( r[2] == 0 || max < 2 )
        return 0;
    /* The leaf, its caller when the frame walk skipped it, the rest. */
    chain[nf++] = r[HVB_SAMPLE_HDR];
    chain[nf] =
        hvb_symbols_leaf_caller(sym, chain[0], r[3], &r[4], HVB_SAMPLE_STACK);
    if ( chain[nf] && (r[2] < 2 || chain[nf] != r[HVB_SAMPLE_HDR + 1]) )
        nf++;
    for ( k = 1; k < r[2] && nf < max; k++ )
        chain[nf++] = r[HVB_SAMPLE_HDR + k];
    return nf;
}

int hvb_folded_write(const char *path, const struct hvb_sample_buf *b,
                     struct hvb_symbols *sym, const size_t *owner, size_t c,
                     uint64_t *samples, double *mean_depth)
{
    uint64_t chain[HVB_SAMPLE_HDR + 128 + 1];
    struct hvb_folded_line *lines = NULL;
    size_t nr = 0, cap = 0, off, idx = 0;
    uint64_t depth = 0;
    int rc;

    for ( off = 0; off < b->len; off += HVB_SAMPLE_HDR + b->v[off + 2], idx++ )
    {
        const uint64_t *r = &b->v[off];
        size_t nf = 0;

        if ( owner[idx] != c || r[2] == 0 )
            continue;
        nf = hvb_folded_sample_chain(sym, r, chain,
                                     sizeof(chain) / sizeof(chain[0]));
        rc = hvb_folded_push(&lines, &nr, &cap,
                             hvb_folded_stack(sym, chain, nf, true, NULL), 1);
        if ( rc )
        {
            hvb_folded_free(lines, nr);
            return rc;
        }
        depth += nf;
    }
    *samples = nr;
    *mean_depth = nr ? (double)depth / (double)nr : 0;
    rc = hvb_folded_emit(path, lines, nr, true);
    hvb_folded_free(lines, nr);
    return rc;
}
