/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A ratio series across moves of its reference.  Every point of a ratio
 * series is head/base of one review; while the base is one pinned
 * reference build, the points share one scale.  When the reference is
 * moved (history reference set), one overlap review pairs a commit
 * already measured against the old reference with the new one, and the
 * later points are brought onto the first reference's scale by the
 * overlap's factor.  A move without an overlap is a break: the points
 * after it start a segment of their own, and detect never puts a change
 * point across it (the two scales are not comparable).
 *
 * Worked example, base in brackets:
 *   X1 [R1] 1.00   X2 [R1] 1.02   X2 [R2] 0.51   X3 [R2] 0.52
 * X2 was measured against both: factor 1.02 / 0.51 = 2.0.  Chained:
 *   X1 1.00   X2 1.02   (X2 [R2] is the anchor, left out)   X3 1.04
 * Had no commit of R2's points been measured against R1, X2 [R2] would
 * start segment 1 at 0.51 and X3 follow it at 0.52.
 *
 * A point without a base (a results file, a synthetic series) belongs
 * to the epoch it is in: it never starts a move.
 *
 * A move happens only by "history reference set": once a reference is
 * pinned (table refs), a review against a base that is none of them,
 * and not its previous point's commit, is a stray (a review of a branch
 * against another base, recorded into the same history): left out of
 * the series, said by detect.  An A/A review (head = base: its ratio is
 * 1 by construction) is always one.  Before, X10 reviewed against
 * itself started a move with X10 [R1] as its overlap and chained every
 * later point by 1.44.
 *
 * Parent-relative points ("review HEAD^ HEAD" on every commit: each
 * point's base is the previous point's commit) are chained into a level,
 * the running product of the ratios, as a move with the parent as its
 * overlap (the parent against itself is 1): a lasting +5% step at X16 is
 * then a step of the level at X16, where each point alone was one
 * outlier.  Such a move is no reference move (none is listed).  The
 * level's noise adds up from point to point (a random walk), so detect
 * keeps a change of such a series only where that commit's own review
 * moved: its CI excludes 1 (hvb_hchanges()).
 */
#include <math.h>
#include <string.h>

#include "private.h"

static bool same(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* The end of the epoch of base @b that starts at @s: the next point
 * with another known base. */
static size_t epoch_end(const struct hvb_hpoint *p, size_t n, size_t s,
                        const char *b)
{
    while ( s < n && (p[s].base == NULL || same(p[s].base, b)) )
        s++;
    return s;
}

/*
 * The overlap of epochs [s, i) and [i, e): the latest point j of the
 * first whose commit has a point k in the second (the earliest such).
 * true with them, or false.
 */
static bool overlap(const struct hvb_hpoint *p, size_t s, size_t i, size_t e,
                    size_t *j, size_t *k)
{
    size_t a, b;

    for ( a = i; a-- > s; )
        for ( b = i; b < e; b++ )
            if ( same(p[a].commit, p[b].commit) && p[a].value > 0 &&
                 p[b].value > 0 && !p[a].stray && !p[b].stray )
            {
                *j = a;
                *k = b;
                return true;
            }
    return false;
}

/* Points [@i, @e) chained by @f into segment @seg. */
static void scale(struct hvb_hpoint *p, size_t i, size_t e, double f,
                  size_t seg)
{
    for ( ; i < e; i++ )
    {
        if ( p[i].stray )
            continue; /* on no reference's scale */
        p[i].chained = p[i].value * f;
        p[i].lo *= f;
        p[i].hi *= f;
        p[i].segment = seg;
    }
}

/* Is @b one of @refs (NULL-ended)? */
static bool pinned(char *const *refs, const char *b)
{
    for ( ; refs != NULL && *refs != NULL; refs++ )
        if ( same(*refs, b) )
            return true;
    return false;
}

/* Mark @p's strays (above): left out, their base forgotten. */
static void strays(struct hvb_hpoint *p, size_t n, char *const *refs)
{
    size_t i;

    for ( i = 0; i < n; i++ )
    {
        bool parent = i > 0 && same(p[i - 1].commit, p[i].base);

        p[i].stray =
            p[i].base != NULL && (same(p[i].commit, p[i].base) ||
                                  (refs != NULL && *refs != NULL && !parent &&
                                   !pinned(refs, p[i].base)));
        if ( p[i].stray )
            p[i].base = NULL;
    }
}

size_t hvb_hchain(struct hvb_hpoint *p, size_t n, char *const *refs,
                  struct hvb_hmove *moves, size_t max)
{
    const char *base = NULL;
    double f = 1.0;
    size_t s = 0, i, e, j, k, nm = 0, seg = 0;

    strays(p, n, refs);
    for ( i = 0; i < n; i++ )
    {
        p[i].keep = !p[i].stray;
        p[i].parent = false;
        p[i].chained = NAN;
    }
    for ( i = 0; i < n; i = e )
    {
        const char *b = p[i].base;

        if ( base == NULL )
            base = b;
        e = epoch_end(p, n, i, base != NULL ? base : b);
        if ( e == i ) /* p[i] starts the next epoch */
        {
            struct hvb_hmove m = {.at = i, .from = base, .to = b};

            e = epoch_end(p, n, i, b);
            if ( i > 0 && p[i - 1].keep && same(p[i - 1].commit, b) &&
                 isfinite(p[i - 1].chained) )
            {
                /* Against the previous point's commit: one level on. */
                f = p[i - 1].chained;
                for ( j = i; j < e; j++ )
                    p[j].parent = true;
                base = b;
                s = i;
                scale(p, i, e, f, seg);
                continue;
            }
            if ( overlap(p, s, i, e, &j, &k) )
            {
                m.overlap = p[k].commit;
                m.factor = f * p[j].value / p[k].value;
                f = m.factor;
                p[k].keep = false;
            }
            else
            {
                m.factor = NAN;
                f = 1.0;
                seg++;
            }
            if ( nm < max )
                moves[nm] = m;
            nm++;
            base = b;
            s = i;
        }
        scale(p, i, e, f, seg);
    }
    return nm;
}
