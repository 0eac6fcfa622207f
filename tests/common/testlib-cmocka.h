/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The asserting half of the test helpers (testlib.h asserts nothing):
 * these fail the cmocka test, which longjmps, so call them on the test's
 * own thread only.
 */
#ifndef HVB_TESTLIB_CMOCKA_H
#define HVB_TESTLIB_CMOCKA_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <hv/hv.h>

/* tl_enter - bring CPU @id of @hv on line; fails the test if it cannot. */
static inline struct hv_cpu *tl_enter(struct hv *hv, unsigned int id)
{
    struct hv_cpu *cpu = hv_cpu_enter(hv, id);

    assert_non_null(cpu);
    return cpu;
}

#endif /* HVB_TESTLIB_CMOCKA_H */
