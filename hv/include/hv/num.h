/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one grammar of an integer a user gives hvbench, wherever it is
 * given: plugin options and workload params (the option engine,
 * hv/opt.c) and the command line's own options (--repetitions N,
 * --threads N,M: harness/cmdline/optparse.c's hvb_parse_u64).
 *
 *   NUMBER := DIGIT... [SUFFIX]    decimal digits, then at most one of
 *   SUFFIX := k | K | M | G        x1000, x1000, x10^6, x10^9
 *
 * and nothing else: no sign, no space, no hex or octal ("010" is ten,
 * "0x10" is refused), no fraction or exponent, at most UINT64_MAX.
 *
 * Worked example: "2k" is 2000, "010" is 10, "1G" is 1000000000, and
 * "18446744073709551615" is UINT64_MAX; "18446744073709551616" and
 * "18446744073709552k" are -ERANGE; "", "k", "-1", "+1", " 1", "1 ",
 * "0x10", "1.5k", "1e3", "1kk", "1m", "1Ki" are -EINVAL.  Whoever reads
 * the number checks its range and says what it takes with
 * hv_num_allowed(): "bad value '40k' for --threads (an integer in
 * [1, 255]; k/M/G suffixes multiply by 1000)".
 */
#ifndef HV_NUM_H
#define HV_NUM_H

#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>

/* @s as a NUMBER: 0 and *@out, -EINVAL (not one) or -ERANGE (too big). */
int HV_MUST_CHECK hv_num_parse(const char *s, uint64_t *out);

/*
 * What a NUMBER in [@min, @max] is, for messages: "an integer in
 * [1, 256]; k/M/G suffixes multiply by 1000".
 */
void hv_num_allowed(uint64_t min, uint64_t max, char *buf, size_t len);

#endif /* HV_NUM_H */
