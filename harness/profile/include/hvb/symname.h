/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Display names of functions in profiles: C++ names demangled
 * (abi::__cxa_demangle) and shortened for flame graphs, every name made
 * safe for the folded format.
 */
#ifndef HVB_SYMNAME_H
#define HVB_SYMNAME_H

#ifdef __cplusplus
extern "C" {
#endif

/* The demangled @mangled (malloc'd), or NULL if it is not a C++ name. */
char *hvb_cxx_demangle(const char *mangled);

/*
 * hvb_symname_pretty - the name to show for symbol @raw (malloc'd, NULL
 * when out of memory).  A C++ name is demangled, then shortened: no
 * parameter lists or cv/ref qualifiers after them, "{lambda(...)#N}"
 * becomes "{lambda#N}", "(anonymous namespace)" "(anon)", no
 * "[abi:...]" tags or " [clone ...]" suffixes.  Template arguments stay.
 * ';' and line breaks become ':' (they delimit folded stacks).
 */
char *hvb_symname_pretty(const char *raw);

#ifdef __cplusplus
}
#endif

#endif /* HVB_SYMNAME_H */
