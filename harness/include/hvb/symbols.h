/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Symbolising this process's code addresses with elfutils (libdw): the
 * executable, its libraries and every plugin .so loaded so far, static
 * functions included (from .symtab).  Names are cached per address.
 */
#ifndef HVB_SYMBOLS_H
#define HVB_SYMBOLS_H

#include <stdbool.h>
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

void hvb_symbols_close(struct hvb_symbols *s);

#endif /* HVB_SYMBOLS_H */
