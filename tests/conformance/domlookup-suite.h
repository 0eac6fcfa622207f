/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The domlookup conformance suite: one set of cmocka tests that every
 * plugin of the slot must pass, whoever wrote it (built-in, test-only or
 * an external .so).  Used by conformance-domlookup (every registered plugin) and
 * unit-external (the skeleton template).
 */
#ifndef HVB_DOMLOOKUP_SUITE_H
#define HVB_DOMLOOKUP_SUITE_H

#include <hv/plugin.h>

/*
 * domlookup_suite_run - run the suite on plugin @spec ("name[:k=v...]" or
 * a .so path) as cmocka group "domlookup/@label".  Returns the number of
 * failed tests, or -1 if @spec does not resolve.
 */
int domlookup_suite_run(const char *spec, const char *label);

/*
 * The rcu-broken negative control, single-threaded: holding a domain
 * while it is destroyed must show the early free (the poison) at once.
 * Proves the suite's destroy-while-held oracle can fail.  Group
 * "domlookup/negative-control"; returns the number of failed tests.
 */
int domlookup_suite_run_negative(const char *spec);

#endif /* HVB_DOMLOOKUP_SUITE_H */
