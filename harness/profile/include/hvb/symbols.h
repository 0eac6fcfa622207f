/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Symbolising this process's code addresses with elfutils (libdw): the
 * executable, its libraries and every plugin .so loaded so far, static
 * functions included (from .symtab).  Names are cached per address.
 */
#ifndef HVB_SYMBOLS_H
#define HVB_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hvb_symbols;

/* After every plugin is loaded.  0 or -errno. */
int hvb_symbols_open(struct hvb_symbols **out);

/*
 * hvb_symbols_name - the function containing @addr (a return address
 * when @ret: looked up at addr - 1), "[module+0x...]" without a symbol,
 * "[unknown]" outside every module.  Never contains ';' or a newline.
 */
const char *hvb_symbols_name(struct hvb_symbols *s, uint64_t addr, bool ret);

/*
 * hvb_symbols_leaf_caller - the return address into the caller of the
 * function at @ip when that function's frame is not set up at @ip (its
 * CFA, from the module's CFI, is the stack pointer plus an offset: before
 * "push %rbp; mov %rsp,%rbp", after the epilogue's "pop %rbp", or all
 * through a shrink-wrapped fast path or code built without frame
 * pointers).  A frame-pointer walk then reads the caller's frame as if it
 * were the leaf's and skips the caller.  Read from @nr words @stack at
 * stack pointer @sp; 0 when the frame is set up or it cannot tell
 * (x86-64 only).
 */
uint64_t hvb_symbols_leaf_caller(struct hvb_symbols *s, uint64_t ip,
                                 uint64_t sp, const uint64_t *stack, size_t nr);

/*
 * hvb_symbols_unwind_sp - the callers hvb_symbols_leaf_caller() finds,
 * repeated: from @ip, while the function's frame is not set up (glibc's
 * functions, built without frame pointers, never set one up), the
 * return address at its CFA, read from the @nr words @stack at the stack
 * pointer, then the same from there.  They go to @out (at most @max),
 * innermost first; returns their number.  The last is in a function
 * whose frame is set up: the frame-pointer walk goes on from its caller.
 */
size_t hvb_symbols_unwind_sp(struct hvb_symbols *s, uint64_t ip,
                             const uint64_t *stack, size_t nr, uint64_t *out,
                             size_t max);

void hvb_symbols_close(struct hvb_symbols *s);

#endif /* HVB_SYMBOLS_H */
