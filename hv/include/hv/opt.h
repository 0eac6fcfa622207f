/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The option engine: one parser, one set of rules and one set of error
 * messages for every "KEY=VALUE" a user gives, plugin options
 * (--plugin SLOT=NAME:K=V:...) and workload parameters (--param K=V,...)
 * alike.  A table of struct hv_opt rows describes the fields of a plain C
 * struct (offsetof); the engine turns text into those fields and back
 * into canonical text, the only spelling used in cell names and results.
 *
 * Values, per row type:
 *   HV_OPT_UINT  unsigned int    a number (hv/num.h, as on the command
 *   HV_OPT_U64   uint64_t        line): decimal digits, then at most one
 *                                suffix k/K (x1000), M (x10^6) or G
 *                                (x10^9); in [min, max]
 *   HV_OPT_BOOL  bool            1/0, true/false, yes/no, on/off
 *   HV_OPT_ENUM  unsigned int    one of choices "a|b|c", exactly: its index
 *   HV_OPT_STR   char[64]        a word of [A-Za-z0-9.:+_-], 1..63 long;
 *                                choices, if set, is its syntax in one line
 *
 * Numbers are decimal only: "010" is ten, "0x10" is refused (hex and
 * octal were a second engine's rules).  Canonical text: the plain decimal
 * number, "true"/"false", the choice, the word.
 *
 * Worked example: the percpu-ref plugin's table has one row
 *
 *   HV_OPT_UINT_ROW(struct percpu_ref_opts, ncpus, "ncpus", "0", 0, 256, "..")
 *
 * and "percpu-ref:ncpus=010" makes the registry call
 *   hv_opt_set(row, "010", opts, "option", "plugin domlookup/percpu-ref", ..)
 * which stores 10 in opts->ncpus; hv_opt_load() then gives the text "10",
 * so the cell is named ".../domlookup=percpu-ref:ncpus=10/...".  The text
 * "2k" would be 2000, refused by the bounds with
 *
 *   bad value '2k' for option ncpus of plugin domlookup/percpu-ref
 *   (an integer in [0, 256]; k/M/G suffixes multiply by 1000)
 *
 * while "--param domains=2k" gives the lookup workload 2000 domains, and
 * "--param domains=40k" gets the same message with "param domains of
 * workload lookup" and that row's bounds, [1, 32751].
 *
 * struct hv_opt and the first four types are part of the plugin ABI v1
 * (hv/plugin.h): types are only ever appended to enum hv_opt_type, and
 * the struct's layout is frozen.  A v1 .so's table uses UINT, BOOL and
 * ENUM, whose parsing is this engine's (decimal only since issue 12).
 */
#ifndef HV_OPT_H
#define HV_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>

enum hv_opt_type {
    HV_OPT_END = 0,
    HV_OPT_UINT, /* unsigned int, range [min, max] */
    HV_OPT_BOOL, /* bool: 0/1/true/false/yes/no/on/off */
    HV_OPT_ENUM, /* unsigned int index into choices ("a|b|c") */
    /* Not in plugin ABI v1: */
    HV_OPT_U64, /* uint64_t, range [min, max] */
    HV_OPT_STR, /* char[HV_OPT_TEXT_MAX], a word; choices: its syntax */
};

struct hv_opt {
    const char *name;
    enum hv_opt_type type;
    size_t off;      /* offset in the option struct */
    const char *def; /* default, as text */
    const char *help;
    uint64_t min, max;   /* HV_OPT_UINT, HV_OPT_U64 */
    const char *choices; /* HV_OPT_ENUM; HV_OPT_STR: its syntax */
};

/* Canonical text, HV_OPT_STR fields: at most 63 characters and a NUL. */
#define HV_OPT_TEXT_MAX 64

/* Table rows: field @f of option struct @st. */
/* clang-format off */
#define HV_OPT_UINT_ROW(st, f, name_, def_, min_, max_, help_)                 \
    { .name = (name_), .type = HV_OPT_UINT, .off = offsetof(st, f),           \
      .def = (def_), .help = (help_), .min = (min_), .max = (max_) }
#define HV_OPT_U64_ROW(st, f, name_, def_, min_, max_, help_)                  \
    { .name = (name_), .type = HV_OPT_U64, .off = offsetof(st, f),            \
      .def = (def_), .help = (help_), .min = (min_), .max = (max_) }
#define HV_OPT_BOOL_ROW(st, f, name_, def_, help_)                             \
    { .name = (name_), .type = HV_OPT_BOOL, .off = offsetof(st, f),           \
      .def = (def_), .help = (help_) }
#define HV_OPT_ENUM_ROW(st, f, name_, def_, choices_, help_)                   \
    { .name = (name_), .type = HV_OPT_ENUM, .off = offsetof(st, f),           \
      .def = (def_), .help = (help_), .choices = (choices_) }
#define HV_OPT_STR_ROW(st, f, name_, def_, syntax_, help_)                     \
    { .name = (name_), .type = HV_OPT_STR, .off = offsetof(st, f),            \
      .def = (def_), .help = (help_), .choices = (syntax_) }
#define HV_OPT_TABLE_END { .name = NULL, .type = HV_OPT_END }
/* clang-format on */

/* One parsed value. */
struct hv_opt_val {
    uint64_t u;                 /* UINT, U64; BOOL 0/1; ENUM the index */
    char text[HV_OPT_TEXT_MAX]; /* canonical text */
};

/*
 * hv_opt_parse - parse @text for row @o into @v.  0, or -EINVAL for a
 * value the row does not allow (hv_opt_allowed() says what it does).
 */
int HV_MUST_CHECK hv_opt_parse(const struct hv_opt *o, const char *text,
                               struct hv_opt_val *v);

/* Store @v into @o's field of option struct @opts, and read it back. */
void hv_opt_store(const struct hv_opt *o, const struct hv_opt_val *v,
                  void *opts);
void hv_opt_load(const struct hv_opt *o, const void *opts,
                 struct hv_opt_val *v);

/*
 * hv_opt_set - parse @text and store it into @opts.  On a bad value,
 * -EINVAL with @err reading
 *   "bad value 'TEXT' for KIND NAME of OWNER (ALLOWED)"
 * where @kind is "option" or "param" and @owner "plugin SLOT/NAME" or
 * "workload NAME".
 */
int HV_MUST_CHECK hv_opt_set(const struct hv_opt *o, const char *text,
                             void *opts, const char *kind, const char *owner,
                             char *err, size_t len);

/* @err = "bad value 'TEXT' for KIND NAME of OWNER (ALLOWED)". */
void hv_opt_bad_value(const struct hv_opt *o, const char *text,
                      const char *kind, const char *owner, char *err,
                      size_t len);

/* What @o allows, for messages: "an integer in [1, 64]; k/M/G ...". */
void hv_opt_allowed(const struct hv_opt *o, char *buf, size_t len);

/* Its range for listings: "[1, 256]", "a|b|c", "true|false", a syntax. */
void hv_opt_range(const struct hv_opt *o, char *buf, size_t len);

/* "uint", "bool", "enum", "string" (HV_OPT_U64 is a "uint" too). */
const char *hv_opt_type_name(enum hv_opt_type t);

/* The row of @table named @name, or NULL; the number of rows. */
const struct hv_opt *hv_opt_find(const struct hv_opt *table, const char *name);
size_t hv_opt_count(const struct hv_opt *table);

/* "a, b, c": the names of @table, or "none". */
void hv_opt_names(const struct hv_opt *table, char *buf, size_t len);

/*
 * hv_opt_defaults - check @table against a struct of @size bytes (names
 * of [a-z0-9_-], help and default set, a known type, min <= max, choices
 * for an enum, the field inside the struct, no name twice) and store
 * every default into @opts (@size bytes, may be NULL when @size is 0).
 * -EINVAL with @err naming the row ("bad KIND table entry 'x'",
 * "KIND x twice", or the bad default's hv_opt_set() message).
 */
int HV_MUST_CHECK hv_opt_defaults(const struct hv_opt *table, void *opts,
                                  size_t size, const char *kind,
                                  const char *owner, char *err, size_t len);

/*
 * hv_name_ok - a name of 1..32 characters of [a-z0-9] and @extra: the
 * rule for plugin, option, workload and parameter names.
 */
bool hv_name_ok(const char *s, const char *extra);

/* Typed option access for plugins' init hooks. */
static inline unsigned int hv_opt_uint(const void *opts, size_t off)
{
    return *(const unsigned int *)((const char *)opts + off);
}

#endif /* HV_OPT_H */
