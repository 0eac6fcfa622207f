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

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int hvb_folded_write(const char *path, const struct hvb_sample_buf *b,
                     struct hvb_symbols *sym, const size_t *owner, size_t c,
                     uint64_t *samples, double *mean_depth)
{
    uint64_t chain[HVB_SAMPLE_HDR + 128 + 1];
    char **lines = NULL;
    size_t nr = 0, cap = 0, off, k, i, idx = 0;
    uint64_t depth = 0;
    const char *prev;
    struct hvb_outfile out;
    char err[768];
    int rc;

    for ( off = 0; off < b->len; off += HVB_SAMPLE_HDR + b->v[off + 2], idx++ )
    {
        const uint64_t *r = &b->v[off];
        struct hv_strbuf sb;
        size_t len, nf = 0;
        char *line;

        if ( owner[idx] != c || r[2] == 0 )
            continue;
        /* The leaf, its caller when the frame walk skipped it, the rest. */
        chain[nf++] = r[HVB_SAMPLE_HDR];
        chain[nf] = hvb_symbols_leaf_caller(sym, chain[0], r[3], &r[4],
                                            HVB_SAMPLE_STACK);
        if ( chain[nf] && (r[2] < 2 || chain[nf] != r[HVB_SAMPLE_HDR + 1]) )
            nf++;
        for ( k = 1; k < r[2] && nf < sizeof(chain) / sizeof(chain[0]); k++ )
            chain[nf++] = r[HVB_SAMPLE_HDR + k];
        len = 1;
        for ( k = nf; k-- > 0; )
            len += strlen(hvb_symbols_name(sym, chain[k], k > 0)) + 1;
        line = malloc(len + 1);
        if ( line == NULL )
            goto oom;
        hv_strbuf_init(&sb, line, len + 1);
        prev = NULL;
        for ( k = nf; k-- > 0; )
        {
            const char *name = hvb_symbols_name(sym, chain[k], k > 0);

            /*
             * A chain walked through code without frame pointers reads
             * garbage up to the depth limit: keep one [unknown] per run.
             */
            if ( prev && strcmp(name, "[unknown]") == 0 &&
                 strcmp(prev, name) == 0 )
                continue;
            hv_strbuf_join(&sb, ";", "%s", name);
            prev = name;
        }
        if ( nr == cap )
        {
            char **n;

            cap = cap ? 2 * cap : 1024;
            n = realloc(lines, cap * sizeof(*n));
            if ( n == NULL )
            {
                free(line);
                goto oom;
            }
            lines = n;
        }
        lines[nr++] = line;
        depth += nf;
    }
    *samples = nr;
    *mean_depth = nr ? (double)depth / (double)nr : 0;
    qsort(lines, nr, sizeof(*lines), str_cmp);
    rc = hvb_outfile_open(&out, path, "folded stacks", err, sizeof(err));
    for ( i = 0; rc == 0 && i < nr; )
    {
        size_t j = i + 1;

        while ( j < nr && strcmp(lines[j], lines[i]) == 0 )
            j++;
        fprintf(out.f, "%s %zu\n", lines[i], j - i);
        i = j;
    }
    if ( rc == 0 )
        rc = hvb_outfile_commit(&out, err, sizeof(err));
    for ( i = 0; i < nr; i++ )
        free(lines[i]);
    free(lines);
    return rc;
oom:
    for ( i = 0; i < nr; i++ )
        free(lines[i]);
    free(lines);
    return -ENOMEM;
}
