/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-domlookup: the domlookup conformance suite (domlookup-suite.c) run
 * once for EVERY registered plugin of the slot, built-in and test-only,
 * as one cmocka group per plugin ("domlookup/<name>"; test names carry
 * the plugin too).  Nothing is skipped unless the command line says so:
 *
 *   test-domlookup [--exclude NAME]...
 *
 * --exclude exists for the ThreadSanitizer run, which cannot see
 * liburcu's grace periods (see tests/CMakeLists.txt); an excluded name
 * that is not registered is an error, so a stale exclusion cannot hide a
 * plugin.  Then the negative control: rcu-broken must fail the
 * destroy-while-held oracle.
 *
 * Exit 0 if every test passed, 1 otherwise, 2 on a usage error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <hv/plugin.h>
#include <hv/plugin_registry.h>

#include "domlookup-suite.h"

#define MAX_EXCLUDE 16

int main(int argc, char **argv)
{
    const char *exclude[MAX_EXCLUDE];
    const struct hv_plugin_hdr *h;
    unsigned int nr_exclude = 0, i, j, ran = 0;
    int failed = 0, rc;
    char err[512];

    for ( i = 1; i < (unsigned int)argc; i++ )
    {
        if ( strcmp(argv[i], "--exclude") == 0 && i + 1 < (unsigned int)argc &&
             nr_exclude < MAX_EXCLUDE )
            exclude[nr_exclude++] = argv[++i];
        else
        {
            fprintf(stderr, "usage: %s [--exclude PLUGIN]...\n", argv[0]);
            return 2;
        }
    }
    if ( hv_plugin_registry_init(err, sizeof(err)) )
    {
        fprintf(stderr, "test-domlookup: %s\n", err);
        return 1;
    }
    for ( j = 0; j < nr_exclude; j++ )
        if ( hv_plugin_find("domlookup", exclude[j]) == NULL )
        {
            fprintf(stderr, "test-domlookup: --exclude %s: no such plugin\n",
                    exclude[j]);
            return 2;
        }

    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
    {
        bool skip = false;

        if ( strcmp(h->slot, "domlookup") != 0 )
            continue;
        for ( j = 0; j < nr_exclude; j++ )
            skip |= strcmp(exclude[j], h->name) == 0;
        if ( skip )
        {
            printf("[ EXCLUDED ] domlookup/%s (command line)\n", h->name);
            continue;
        }
        rc = domlookup_suite_run(h->name, h->name);
        failed += rc < 0 ? 1 : rc;
        ran++;
    }
    if ( ran == 0 )
    {
        fprintf(stderr, "test-domlookup: no domlookup plugin registered\n");
        failed++;
    }

    /* The negative control is part of the suite, not optional. */
    if ( hv_plugin_find("domlookup", "rcu-broken") == NULL )
    {
        fprintf(stderr, "test-domlookup: negative control rcu-broken is not "
                        "linked in\n");
        failed++;
    }
    else
    {
        rc = domlookup_suite_run_negative("rcu-broken");
        failed += rc < 0 ? 1 : rc;
    }
    printf("test-domlookup: %u plugins, %d failed tests\n", ran, failed);
    return failed ? 1 : 0;
}
