/* SPDX-License-Identifier: GPL-2.0-only */
/* Symbolising addresses of this process with libdw (hvb/symbols.h). */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvb/symbols.h>
#include <hvb/symname.h>

struct slot {
    uint64_t key; /* addr << 1 | ret; 0 = free */
    char *name;
};

/* A pc's CFA rule, cached: off > 0 is "rsp + off", 0 anything else. */
struct cfa_slot {
    uint64_t pc; /* 0 = free */
    uint64_t off;
};

struct hvb_symbols {
    Dwfl *dwfl;
    struct slot *tab;
    size_t cap, nr;
    struct cfa_slot *cfa;
    size_t cfa_cap, cfa_nr;
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

int hvb_symbols_open(struct hvb_symbols **out)
{
    struct hvb_symbols *s = calloc(1, sizeof(*s));

    if ( s == NULL )
        return -ENOMEM;
    s->cap = 4096;
    s->tab = calloc(s->cap, sizeof(*s->tab));
    s->dwfl = dwfl_begin(&callbacks);
    if ( s->tab == NULL || s->dwfl == NULL )
    {
        hvb_symbols_close(s);
        return -ENOMEM;
    }
    if ( dwfl_linux_proc_report(s->dwfl, getpid()) != 0 ||
         dwfl_report_end(s->dwfl, NULL, NULL) != 0 )
    {
        hvb_symbols_close(s);
        return -EIO;
    }
    *out = s;
    return 0;
}

/* Section @name of @elf's headers, into @sh: its section, or NULL. */
static Elf_Scn *section(Elf *elf, size_t shstr, const char *name, GElf_Shdr *sh)
{
    Elf_Scn *scn = NULL;
    const char *n;

    while ( (scn = elf_nextscn(elf, scn)) != NULL )
        if ( gelf_getshdr(scn, sh) != NULL &&
             (n = elf_strptr(elf, shstr, sh->sh_name)) != NULL &&
             strcmp(n, name) == 0 )
            return scn;
    return NULL;
}

/*
 * A PLT stub's name, as perf gives it ("recv@plt"), or NULL.  E.g. the
 * stub at .plt + 0x1500 is the 0x150th of 16 bytes after PLT0: it jumps
 * through .rela.plt's entry 0x14f, whose symbol is recv.  With IBT's
 * .plt.sec the stubs there count from 0.
 */
static char *plt_name(Dwfl_Module *mod, uint64_t addr)
{
    GElf_Shdr plt, rsh, dsh;
    GElf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    Elf_Scn *rela, *dyn;
    Elf_Data *rd, *sd;
    const char *name;
    size_t shstr;
    GElf_Rela r;
    GElf_Sym sym;
    uint64_t a = addr - bias, idx;
    char *out;

    if ( elf == NULL || elf_getshdrstrndx(elf, &shstr) != 0 ||
         (rela = section(elf, shstr, ".rela.plt", &rsh)) == NULL )
        return NULL;
    if ( section(elf, shstr, ".plt.sec", &plt) != NULL )
        idx = a - plt.sh_addr;
    else if ( section(elf, shstr, ".plt", &plt) != NULL )
        idx = a - plt.sh_addr - 16;
    else
        return NULL;
    if ( a < plt.sh_addr || idx >= plt.sh_size ||
         (rd = elf_getdata(rela, NULL)) == NULL ||
         gelf_getrela(rd, (int)(idx / 16), &r) == NULL ||
         (dyn = elf_getscn(elf, rsh.sh_link)) == NULL ||
         gelf_getshdr(dyn, &dsh) == NULL ||
         (sd = elf_getdata(dyn, NULL)) == NULL ||
         gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) == NULL ||
         (name = elf_strptr(elf, dsh.sh_link, sym.st_name)) == NULL || !*name ||
         asprintf(&out, "%s@plt", name) < 0 )
        return NULL;
    return out;
}

static char *resolve(struct hvb_symbols *s, uint64_t addr)
{
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
    const char *name = NULL, *mname;
    char buf[512], *p, *plt;
    GElf_Off off = 0;
    GElf_Sym sym;
    Dwarf_Addr start;

    if ( mod == NULL )
        return strdup("[unknown]");
    name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
    if ( name != NULL && *name )
        return hvb_symname_pretty(name);
    mname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
    /*
     * A file mapped twice (libdw reads the executable through mmap) is
     * one module from its first mapping to its last: an address between
     * them, gigabytes past the start, is none of its code.
     */
    if ( addr - start >= (1ull << 32) )
        return strdup("[unknown]");
    if ( (plt = plt_name(mod, addr)) != NULL )
        return plt;
    p = mname ? strrchr(mname, '/') : NULL;
    snprintf(buf, sizeof(buf), "[%s+0x%llx]", p ? p + 1 : (mname ? mname : "?"),
             (unsigned long long)(addr - start));
    for ( p = buf; *p; p++ )
        if ( *p == ';' || *p == '\n' || *p == '\r' )
            *p = ':';
    return strdup(buf);
}

static bool grow(struct hvb_symbols *s)
{
    struct slot *old = s->tab, *n = calloc(s->cap * 2, sizeof(*n));
    size_t i, cap = s->cap * 2;

    if ( n == NULL )
        return false;
    for ( i = 0; i < s->cap; i++ )
        if ( old[i].key )
        {
            size_t j = (old[i].key * 0x9E3779B97F4A7C15ull) >> 20;

            for ( j &= cap - 1; n[j].key; j = (j + 1) & (cap - 1) )
                ;
            n[j] = old[i];
        }
    free(old);
    s->tab = n;
    s->cap = cap;
    return true;
}

const char *hvb_symbols_name(struct hvb_symbols *s, uint64_t addr, bool ret)
{
    uint64_t a = ret && addr ? addr - 1 : addr;
    uint64_t key = (a << 1) | 1;
    size_t j;

    if ( s->nr * 2 >= s->cap && !grow(s) )
        return "[unknown]";
    j = ((key * 0x9E3779B97F4A7C15ull) >> 20) & (s->cap - 1);
    for ( ; s->tab[j].key; j = (j + 1) & (s->cap - 1) )
        if ( s->tab[j].key == key )
            return s->tab[j].name;
    s->tab[j].name = resolve(s, a);
    if ( s->tab[j].name == NULL )
        return "[unknown]";
    s->tab[j].key = key;
    s->nr++;
    return s->tab[j].name;
}

/*
 * The offset of the CFA from the stack pointer at @pc when the function's
 * frame is not set up there (CFA = rsp + off): true with @off, or false
 * (the CFA is rbp-based, or no CFI says).
 */
static bool cfa_lookup(struct hvb_symbols *s, uint64_t pc, uint64_t *off)
{
#if defined(__x86_64__)
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, pc);
    Dwarf_Frame *frame = NULL;
    Dwarf_CFI *cfi = NULL;
    Dwarf_Addr bias = 0;
    Dwarf_Op *ops;
    size_t nops;
    bool on_sp = false;

    if ( mod == NULL )
        return false;
    cfi = dwfl_module_eh_cfi(mod, &bias);
    if ( cfi == NULL )
        cfi = dwfl_module_dwarf_cfi(mod, &bias);
    if ( cfi == NULL || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0 )
        return false;
    /* DWARF register 7 is rsp. */
    if ( dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 &&
         ops[0].atom == DW_OP_bregx && ops[0].number == 7 &&
         ops[0].number2 >= 8 && ops[0].number2 % 8 == 0 )
    {
        *off = ops[0].number2;
        on_sp = true;
    }
    free(frame);
    return on_sp;
#else
    return false;
#endif
}

static struct cfa_slot *cfa_slot(struct cfa_slot *t, size_t cap, uint64_t pc)
{
    size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);

    while ( t[i].pc != 0 && t[i].pc != pc )
        i = (i + 1) & (cap - 1);
    return &t[i];
}

/* Grow the cache to keep it at most half full; false: out of memory. */
static bool cfa_grow(struct hvb_symbols *s)
{
    size_t cap = s->cfa_cap ? 2 * s->cfa_cap : 4096, i;
    struct cfa_slot *t;

    if ( 2 * (s->cfa_nr + 1) <= s->cfa_cap )
        return true;
    if ( (t = calloc(cap, sizeof(*t))) == NULL )
        return false;
    for ( i = 0; i < s->cfa_cap; i++ )
        if ( s->cfa[i].pc != 0 )
            *cfa_slot(t, cap, s->cfa[i].pc) = s->cfa[i];
    free(s->cfa);
    s->cfa = t;
    s->cfa_cap = cap;
    return true;
}

/* cfa_lookup(), cached (the off-CPU view asks for the same pcs often). */
static bool cfa_on_sp(struct hvb_symbols *s, uint64_t pc, uint64_t *off)
{
    struct cfa_slot *e;

    if ( pc == 0 || !cfa_grow(s) )
        return pc != 0 && cfa_lookup(s, pc, off);
    e = cfa_slot(s->cfa, s->cfa_cap, pc);
    if ( e->pc == 0 )
    {
        e->pc = pc;
        e->off = cfa_lookup(s, pc, off) ? *off : 0;
        s->cfa_nr++;
    }
    *off = e->off;
    return e->off != 0;
}

size_t hvb_symbols_unwind_sp(struct hvb_symbols *s, uint64_t ip,
                             const uint64_t *stack, size_t nr, uint64_t *out,
                             size_t max)
{
    uint64_t pc = ip, off;
    size_t n = 0, base = 0;

    /* The return address is at CFA - 8; the caller's sp is the CFA. */
    while ( n < max && cfa_on_sp(s, n ? pc - 1 : pc, &off) &&
            base + (off - 8) / 8 < nr )
    {
        pc = out[n++] = stack[base + (off - 8) / 8];
        base += off / 8;
    }
    return n;
}

uint64_t hvb_symbols_leaf_caller(struct hvb_symbols *s, uint64_t ip,
                                 uint64_t sp, const uint64_t *stack, size_t nr)
{
    uint64_t ret = 0;

    if ( sp == 0 || hvb_symbols_unwind_sp(s, ip, stack, nr, &ret, 1) == 0 )
        return 0;
    return ret;
}

void hvb_symbols_close(struct hvb_symbols *s)
{
    size_t i;

    if ( s == NULL )
        return;
    for ( i = 0; s->tab && i < s->cap; i++ )
        free(s->tab[i].name);
    free(s->tab);
    free(s->cfa);
    if ( s->dwfl )
        dwfl_end(s->dwfl);
    free(s);
}
