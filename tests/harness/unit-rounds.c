/* SPDX-License-Identifier: GPL-2.0-only */
/* harness/run/rounds.c: the order of paired rounds (ABBA, Latin square). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <hvb/rounds.h>

static void order(struct hvb_matrix *m, unsigned int r, const size_t *want)
{
    size_t got[8], i;

    hvb_rounds_order(m, r, got);
    for ( i = 0; i < m->nr_cells; i++ )
        if ( got[i] != want[i] )
            fail_msg("round %u position %zu: cell %zu, want %zu", r, i, got[i],
                     want[i]);
}

/* Two groups of two: AB BA BA AB in each, groups keep their place. */
static void test_abba(void **state)
{
    struct hvb_mcell cells[4];
    struct hvb_matrix m;
    static const size_t want[4][4] = {
        {0, 1, 2, 3}, {1, 0, 3, 2}, {1, 0, 3, 2}, {0, 1, 2, 3}};
    unsigned int r;

    memset(cells, 0, sizeof(cells));
    memset(&m, 0, sizeof(m));
    cells[2].group = cells[3].group = 1;
    m.cells = cells;
    m.nr_cells = 4;
    for ( r = 0; r < 8; r++ )
        order(&m, r, want[r % 4]);
}

/*
 * Three variants: a cyclic Latin square (each variant once in each
 * position over three rounds), then the same reversed.
 */
static void test_latin(void **state)
{
    struct hvb_mcell cells[3];
    struct hvb_matrix m;
    static const size_t want[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                      {2, 1, 0}, {0, 2, 1}, {1, 0, 2}};
    size_t pos[3][3] = {{0}};
    unsigned int r, i;

    memset(cells, 0, sizeof(cells));
    memset(&m, 0, sizeof(m));
    m.cells = cells;
    m.nr_cells = 3;
    for ( r = 0; r < 6; r++ )
    {
        size_t got[3];

        order(&m, r, want[r]);
        hvb_rounds_order(&m, r, got);
        for ( i = 0; i < 3 && r < 3; i++ )
            pos[got[i]][i]++;
    }
    for ( r = 0; r < 3; r++ )
        for ( i = 0; i < 3; i++ )
            assert_int_equal(pos[r][i], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abba),
        cmocka_unit_test(test_latin),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
