/* SPDX-License-Identifier: GPL-2.0-only */
/* C++ symbol demangling for the C side (hvb/symname.h). */
#include <cxxabi.h>
#include <cstdlib>

#include <hvb/symname.h>

extern "C" char *hvb_cxx_demangle(const char *mangled)
{
    int status = 0;

    /* malloc'd by the runtime; NULL when @mangled is not a C++ name. */
    return abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
}
