/* SPDX-License-Identifier: GPL-2.0-only */
/* Display names in profiles: C++ demangled and shortened, C unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <hvb/symname.h>

static void check(const char *raw, const char *want)
{
    char *got = hvb_symname_pretty(raw);

    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void c_names_unchanged(void **state)
{
    check("rwlock_ref_lock", "rwlock_ref_lock");
    check("[libbenchmark.so.1.7.1+0x2d6ee]", "[libbenchmark.so.1.7.1+0x2d6ee]");
    check("_Znotmangled", "_Znotmangled");
    check("a;b\nc", "a:b:c");
}

static void cxx_demangled_and_shortened(void **state)
{
    /* The Google Benchmark lambda frame of harness/run/gbench/shim.cc. */
    check("_ZN9benchmark8internal15LambdaBenchmarkIZN12_GLOBAL__N_13runEPK16"
          "hvb_engine_benchmRK15hvb_engine_optsP17hvb_engine_resultPcmEUlRN"
          "S_5StateEE_E3RunESD_",
          "benchmark::internal::LambdaBenchmark<(anon)::run::{lambda#1}>::"
          "Run");
    check("_ZN9benchmark5State16StartKeepRunningEv",
          "benchmark::State::StartKeepRunning");
    check("_ZNKSt6vectorIiSaIiEE4sizeEv",
          "std::vector<int, std::allocator<int> >::size");
    check("_ZN3FooclEi", "Foo::operator()");
    check("_Z3fooi.isra.0", "foo");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(c_names_unchanged),
        cmocka_unit_test(cxx_demangled_and_shortened),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
