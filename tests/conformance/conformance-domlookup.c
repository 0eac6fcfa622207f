/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * conformance-domlookup: the domlookup conformance suite (domlookup-suite.c) run
 * once for EVERY registered plugin of the slot, built-in and test-only,
 * as one cmocka group per plugin ("domlookup/<name>"; test names carry
 * the plugin too).  Nothing is skipped but, in a ThreadSanitizer build,
 * the plugins whose own file flags them HV_PF_TSAN_BLIND (TSan cannot see
 * their synchronisation: urcu-ref and liburcu, see tests/CMakeLists.txt):
 * they say so and run in the plain and ASan builds.  Then the negative
 * control: rcu-broken must fail the destroy-while-held oracle.
 *
 *   conformance-domlookup
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
#include "testlib.h"

/* Built with ThreadSanitizer (GCC defines this; so does clang >= 14). */
#ifdef __SANITIZE_THREAD__
#define UNDER_TSAN true
#else
#define UNDER_TSAN false
#endif

int main(int argc, char **argv)
{
    const struct hv_plugin_hdr *h;
    unsigned int i, ran = 0;
    int failed = 0, rc;

    if ( argc != 1 )
    {
        fprintf(stderr, "usage: %s\n", argv[0]);
        return 2;
    }
    if ( !tl_registry_init("conformance-domlookup") )
        return 1;

    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
    {
        if ( strcmp(h->slot, "domlookup") != 0 )
            continue;
        if ( UNDER_TSAN && (h->flags & HV_PF_TSAN_BLIND) )
        {
            printf("[ SKIPPED  ] domlookup/%s (HV_PF_TSAN_BLIND: "
                   "ThreadSanitizer cannot see its synchronisation)\n",
                   h->name);
            continue;
        }
        rc = domlookup_suite_run(h->name, h->name);
        failed += rc < 0 ? 1 : rc;
        ran++;
    }
    if ( ran == 0 )
    {
        fprintf(stderr,
                "conformance-domlookup: no domlookup plugin registered\n");
        failed++;
    }

    /* The negative control is part of the suite, not optional. */
    if ( hv_plugin_find("domlookup", "rcu-broken") == NULL )
    {
        fprintf(stderr,
                "conformance-domlookup: negative control rcu-broken is not "
                "linked in\n");
        failed++;
    }
    else
    {
        rc = domlookup_suite_run_negative("rcu-broken");
        failed += rc < 0 ? 1 : rc;
    }
    printf("conformance-domlookup: %u plugins, %d failed tests\n", ran, failed);
    return failed ? 1 : 0;
}
