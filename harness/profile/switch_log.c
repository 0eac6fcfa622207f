/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The context-switch log (hvb/switches.h): events in order of arrival,
 * call chains kept once.  E.g. 20,000 switches of lock-hold's waiter out
 * of the same futex wait intern one chain, [3, 5, __schedule+0x..,
 * schedule+0x.., futex_wait+0x.., ip, ret...], and each event names it
 * by index: 24 bytes a switch instead of a kilobyte of frames.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/switches.h>

static uint64_t hash_words(const uint64_t *w, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;

    for ( i = 0; i < n; i++ )
        h = (h ^ w[i]) * 0x100000001b3ull;
    return h ? h : 1;
}

static bool grow(void **v, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap ? *cap : 1024;
    void *n;

    if ( need <= *cap )
        return true;
    while ( c < need )
        c *= 2;
    if ( (n = realloc(*v, c * size)) == NULL )
        return false;
    *v = n;
    *cap = c;
    return true;
}

int hvb_switch_log_event(struct hvb_switch_log *l, uint64_t t, uint32_t tid,
                         enum hvb_switch_kind kind, uint32_t chain)
{
    if ( !grow((void **)&l->ev, &l->cap, l->nr + 1, sizeof(*l->ev)) )
        return -ENOMEM;
    l->ev[l->nr++] = (struct hvb_switch_ev){t, tid, (uint16_t)kind, chain};
    return 0;
}

static size_t chain_len(const struct hvb_switch_log *l, size_t i)
{
    return 2 + l->words[l->chain_off[i]] + l->words[l->chain_off[i] + 1];
}

/* Rehash into a table twice the chains' number, at least. */
static bool rehash(struct hvb_switch_log *l)
{
    size_t cap = l->hcap ? 2 * l->hcap : 1024, i, k;
    uint32_t *h;

    if ( 2 * (l->nr_chains + 1) <= l->hcap )
        return true;
    if ( (h = calloc(cap, sizeof(*h))) == NULL )
        return false;
    for ( i = 0; i < l->nr_chains; i++ )
    {
        k = hash_words(&l->words[l->chain_off[i]], chain_len(l, i)) & (cap - 1);
        while ( h[k] )
            k = (k + 1) & (cap - 1);
        h[k] = (uint32_t)i + 1;
    }
    free(l->hash);
    l->hash = h;
    l->hcap = cap;
    return true;
}

long hvb_switch_log_intern(struct hvb_switch_log *l, const uint64_t *w,
                           size_t n)
{
    size_t k;

    if ( !rehash(l) )
        return -1;
    k = hash_words(w, n) & (l->hcap - 1);
    for ( ; l->hash[k]; k = (k + 1) & (l->hcap - 1) )
    {
        size_t i = l->hash[k] - 1;

        if ( chain_len(l, i) == n &&
             memcmp(&l->words[l->chain_off[i]], w, n * sizeof(*w)) == 0 )
            return (long)i;
    }
    if ( !grow((void **)&l->words, &l->cw, l->nw + n, sizeof(*l->words)) ||
         !grow((void **)&l->chain_off, &l->cap_chains, l->nr_chains + 1,
               sizeof(*l->chain_off)) )
        return -1;
    memcpy(&l->words[l->nw], w, n * sizeof(*w));
    l->chain_off[l->nr_chains] = l->nw;
    l->nw += n;
    l->hash[k] = (uint32_t)++l->nr_chains;
    return (long)l->nr_chains - 1;
}

long hvb_switch_log_name(struct hvb_switch_log *l, const char *name)
{
    char n[HVB_COMM_LEN], *p;
    size_t i;

    /* A frame of a folded line: no separator, no control character. */
    strncpy(n, name, sizeof(n) - 1);
    n[sizeof(n) - 1] = '\0';
    for ( p = n; *p; p++ )
        if ( *p == ';' || (unsigned char)*p < ' ' || *p == 0x7f )
            *p = '_';
    for ( i = 0; i < l->nr_names; i++ ) /* a few roles: a storm has ten */
        if ( strcmp(l->names[i], n) == 0 )
            return (long)i;
    if ( !grow((void **)&l->names, &l->cap_names, l->nr_names + 1,
               sizeof(*l->names)) )
        return -1;
    memcpy(l->names[l->nr_names], n, sizeof(n));
    return (long)l->nr_names++;
}

void hvb_switch_log_free(struct hvb_switch_log *l)
{
    free(l->ev);
    free(l->words);
    free(l->chain_off);
    free(l->hash);
    free(l->names);
    memset(l, 0, sizeof(*l));
}
