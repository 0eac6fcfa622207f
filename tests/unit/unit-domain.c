/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the domain table (hv/domain.c) and the machine (hv/hv.c):
 * create / destroy and their errors, the domid range, the hash and the
 * sorted list under random churn, hv_domain_list_ids paging, the
 * reference count and its DESTROYED bit, deferred free, the creation /
 * free accounting that hv_destroy() enforces, configuration and CPU
 * checks.
 *
 * The strategy is rcu-noref, named explicitly rather than taken from the
 * slot default, because the deferred-free tests rely on a free that waits
 * for a grace period.  Quarantine is on (2 grace periods), so a freed
 * domain can be inspected (poisoned) while an online CPU holds the grace
 * periods back.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <hv/domain.h>
#include <hv/hv.h>

#include "testlib.h"

#define QUARANTINE 2

static int setup(void **state)
{
    struct hv *hv = tl_hv_create("rcu-noref", 4, QUARANTINE);

    *state = hv;
    return hv != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    struct hv *hv = *state;

    tl_force_offline(hv);
    if ( !tl_drain(hv, "unit-domain", 10.0) )
        return -1; /* leaked: hv_destroy() would abort */
    hv_destroy(hv);
    return 0;
}

static void test_create_destroy(void **state)
{
    struct hv *hv = *state;
    struct hv_domain *d = NULL;

    assert_int_equal(hv_domain_create(hv, 5, 16, &d), 0);
    assert_non_null(d);
    assert_int_equal(d->domain_id, 5);
    assert_ptr_equal(d->hv, hv);
    assert_int_equal(atomic_load(&d->magic), HV_DOMAIN_MAGIC);
    assert_int_equal(atomic_load(&d->pipe_age), 0);
    assert_int_equal(atomic_load(&d->refcnt), 1);
    assert_false(atomic_load(&d->is_dying));
    assert_non_null(d->grant_table);
    assert_int_equal(d->grant_table->nr_entries, 16);
    assert_int_equal(hv_domain_count(hv), 1);
    assert_int_equal(tl_created(hv), 1);

    /* A live id cannot be created twice; the failure is not counted. */
    assert_int_equal(hv_domain_create(hv, 5, 16, NULL), -EEXIST);
    assert_int_equal(hv_domain_count(hv), 1);
    assert_int_equal(tl_created(hv), 1);

    assert_int_equal(hv_domain_destroy(hv, 5), 0);
    assert_int_equal(hv_domain_count(hv), 0);
    assert_int_equal(hv_domain_destroy(hv, 5), -ESRCH);
    assert_int_equal(hv_domain_destroy(hv, 6), -ESRCH);
    assert_int_equal(hv_domtab_check(hv), 0);

    /* No CPU on line: nobody can hold it, the free is immediate. */
    assert_int_equal(tl_freed(hv), 1);
}

static void test_reserved_and_limits(void **state)
{
    struct hv *hv = *state;
    static const domid_t reserved[] = {
        DOMID_FIRST_RESERVED, DOMID_SELF, DOMID_IO, DOMID_XEN,
        DOMID_INVALID,        DOMID_IDLE, 0x8000,   0xFFFF};
    unsigned int i;

    for ( i = 0; i < HV_ARRAY_SIZE(reserved); i++ )
    {
        assert_int_equal(hv_domain_create(hv, reserved[i], 1, NULL), -EINVAL);
        assert_int_equal(hv_domain_destroy(hv, reserved[i]), -EINVAL);
    }
    assert_int_equal(hv_domain_create(hv, 1, (1u << 20) + 1, NULL), -EINVAL);
    assert_int_equal(hv_domain_count(hv), 0);
    assert_int_equal(tl_created(hv), 0);
}

static void test_first_and_last_domid(void **state)
{
    struct hv *hv = *state;
    struct hv_domain *d0, *dl;
    domid_t ids[4];

    assert_int_equal(hv_domain_create(hv, 0, 0, &d0), 0);
    assert_int_equal(hv_domain_create(hv, 0x7FEF, 0, &dl), 0);
    assert_ptr_equal(hv_domid_to_domain(hv_domtab(hv), 0), d0);
    assert_ptr_equal(hv_domid_to_domain(hv_domtab(hv), 0x7FEF), dl);
    assert_int_equal(hv_domain_list_ids(hv, 0, ids, 4), 2);
    assert_int_equal(ids[0], 0);
    assert_int_equal(ids[1], 0x7FEF);
    assert_int_equal(hv_domtab_check(hv), 0);
    assert_int_equal(hv_domain_destroy(hv, 0), 0);
    assert_int_equal(hv_domain_destroy(hv, 0x7FEF), 0);
    assert_int_equal(hv_domain_count(hv), 0);
}

static void test_list_ids_paging(void **state)
{
    struct hv *hv = *state;
    static const domid_t made[] = {5, 1, 300, 2, 0x7FEF, 0, 257};
    static const domid_t sorted[] = {0, 1, 2, 5, 257, 300, 0x7FEF};
    domid_t ids[16];
    unsigned int i, n;

    for ( i = 0; i < HV_ARRAY_SIZE(made); i++ )
        assert_int_equal(hv_domain_create(hv, made[i], 0, NULL), 0);

    n = hv_domain_list_ids(hv, 0, ids, 16);
    assert_int_equal(n, HV_ARRAY_SIZE(sorted));
    assert_memory_equal(ids, sorted, sizeof(sorted));

    n = hv_domain_list_ids(hv, 3, ids, 16); /* from a gap */
    assert_int_equal(n, 4);
    assert_memory_equal(ids, sorted + 3, 4 * sizeof(domid_t));

    n = hv_domain_list_ids(hv, 257, ids, 2); /* from a member */
    assert_int_equal(n, 2);
    assert_int_equal(ids[0], 257);
    assert_int_equal(ids[1], 300);

    assert_int_equal(hv_domain_list_ids(hv, 0, ids, 0), 0);
    assert_int_equal(hv_domain_list_ids(hv, 0x7FEF, ids, 16), 1);
    assert_int_equal(hv_domain_list_ids(hv, DOMID_FIRST_RESERVED, ids, 16), 0);
}

/* Compare the table with a reference bitmap: count, order, contents. */
static void check_against(struct hv *hv, const bool *ref, unsigned int nref,
                          const domid_t *universe)
{
    domid_t ids[37], expect[1100];
    unsigned int i, n, ne = 0, seen = 0;
    domid_t first = 0;

    for ( i = 0; i < nref; i++ )
        if ( ref[i] )
            expect[ne++] = universe[i];
    /* universe is sorted, so expect is the table's domid order. */
    assert_int_equal(hv_domtab_check(hv), 0);
    assert_int_equal(hv_domain_count(hv), ne);
    /* Page through with an odd page size. */
    while ( (n = hv_domain_list_ids(hv, first, ids, HV_ARRAY_SIZE(ids))) )
    {
        assert_true(seen + n <= ne);
        assert_memory_equal(ids, expect + seen, n * sizeof(domid_t));
        seen += n;
        if ( ids[n - 1] == 0x7FEF )
            break;
        first = ids[n - 1] + 1;
    }
    assert_int_equal(seen, ne);
}

static void test_random_churn_keeps_table_sorted(void **state)
{
    struct hv *hv = *state;
    domid_t universe[1030];
    bool ref[HV_ARRAY_SIZE(universe)];
    uint64_t seed = tl_seed(20240601);
    unsigned int i, op, n = 0;

    /* 0..1023 fills every bucket four deep; plus the top of the range. */
    for ( i = 0; i < 1024; i++ )
        universe[n++] = i;
    for ( i = 0x7FEA; i <= 0x7FEF; i++ )
        universe[n++] = i;
    memset(ref, 0, sizeof(ref));

    for ( op = 0; op < 20000; op++ )
    {
        unsigned int k = tl_rand(&seed) % n;
        bool create = tl_rand(&seed) % 3 != 0 ? !ref[k] : ref[k];
        int rc;

        if ( create )
        {
            rc = hv_domain_create(hv, universe[k], 0, NULL);
            assert_int_equal(rc, ref[k] ? -EEXIST : 0);
            ref[k] = true;
        }
        else
        {
            rc = hv_domain_destroy(hv, universe[k]);
            assert_int_equal(rc, ref[k] ? 0 : -ESRCH);
            ref[k] = false;
        }
        if ( op % 997 == 0 )
            check_against(hv, ref, n, universe);
    }
    check_against(hv, ref, n, universe);
    assert_int_equal(tl_created(hv) - tl_freed(hv), hv_domain_count(hv));
}

static void test_refcount_and_destroyed_bit(void **state)
{
    struct hv *hv = *state;
    struct hv_cpu *cpu = hv_cpu_enter(hv, 0); /* holds grace periods */
    struct hv_domain *d;
    uint64_t retries = 0;

    assert_non_null(cpu);
    assert_int_equal(hv_domain_create(hv, 9, 1, &d), 0);
    assert_true(hv_get_domain(d, NULL));
    assert_int_equal(atomic_load(&d->refcnt), 2);
    hv_put_domain(d);
    assert_int_equal(atomic_load(&d->refcnt), 1);

    /* Destroy drops the creation reference; ours keeps it linked. */
    assert_true(hv_get_domain(d, NULL));
    assert_int_equal(hv_domain_destroy(hv, 9), 0);
    assert_true(atomic_load(&d->is_dying));
    assert_int_equal(atomic_load(&d->refcnt), 1);
    assert_int_equal(hv_domain_count(hv), 1);
    assert_ptr_equal(hv_domid_to_domain(hv_domtab(hv), 9), d);
    assert_int_equal(hv_domain_destroy(hv, 9), -ESRCH); /* dying */
    assert_int_equal(hv_domain_create(hv, 9, 1, NULL), -EEXIST);

    /* Dying is not destroyed: a reference can still be taken. */
    assert_true(hv_get_domain(d, NULL));
    hv_put_domain(d);

    /* The last put: refcnt 0 -> DESTROYED, unlinked, retired. */
    hv_put_domain(d);
    assert_int_equal(atomic_load(&d->refcnt), HV_DOMAIN_DESTROYED);
    assert_int_equal(hv_domain_count(hv), 0);
    assert_null(hv_domid_to_domain(hv_domtab(hv), 9));
    assert_false(hv_get_domain(d, &retries));
    assert_int_equal(retries, 0);
    assert_int_equal(atomic_load(&d->refcnt), HV_DOMAIN_DESTROYED);

    /* Unlinked but not freed: CPU0 has not passed a quiescent state. */
    assert_int_equal(hv_rcu_poll(hv), 0);
    assert_int_equal(atomic_load(&d->magic), HV_DOMAIN_MAGIC);
    assert_int_equal(tl_freed(hv), 0);

    /* The id is free for a new domain already. */
    assert_int_equal(hv_domain_create(hv, 9, 1, NULL), 0);

    /* Grace period: freed, poisoned, kept in quarantine (CPU0 again). */
    hv_rcu_quiescent(cpu);
    assert_int_equal(hv_rcu_poll(hv), 1);
    assert_int_equal(tl_freed(hv), 1);
    assert_int_equal(atomic_load(&d->magic), HV_DOMAIN_MAGIC_FREE);
    assert_int_equal(atomic_load(&d->pipe_age), 1);
    assert_null(d->grant_table);
    hv_cpu_leave(cpu);
}

/*
 * A count of 0 is a domain whose last reference was just dropped: its
 * dropper is about to mark it DESTROYED and retire it, and a new
 * reference would let a second thread destroy and free it under the
 * dropper (a use-after-free the torture found under ASan and TSan).  The
 * window is inside hv_put_domain(), so set the count by hand.
 */
static void test_no_reference_from_zero(void **state)
{
    struct hv *hv = *state;
    struct hv_domain *d;
    uint64_t retries = 0;

    assert_int_equal(hv_domain_create(hv, 12, 1, &d), 0);
    atomic_store(&d->refcnt, 0);
    assert_false(hv_get_domain(d, &retries));
    assert_int_equal(atomic_load(&d->refcnt), 0);
    atomic_store(&d->refcnt, 1); /* back to normal */
    assert_true(hv_get_domain(d, NULL));
    hv_put_domain(d);
}

static void test_deferred_free_while_referenced(void **state)
{
    struct hv *hv = *state;
    struct hv_domain *d;
    unsigned int i;

    assert_int_equal(hv_domain_create(hv, 77, 4, &d), 0);
    assert_true(hv_get_domain(d, NULL));
    assert_int_equal(hv_domain_destroy(hv, 77), 0);
    /* Whatever polls, a referenced domain stays whole and unfreed. */
    for ( i = 0; i < 10; i++ )
        hv_rcu_poll(hv);
    assert_int_equal(atomic_load(&d->magic), HV_DOMAIN_MAGIC);
    assert_int_equal(d->domain_id, 77);
    assert_non_null(d->grant_table);
    assert_int_equal(d->grant_table->nr_entries, 4);
    assert_int_equal(tl_freed(hv), 0);
    assert_int_equal(hv_rcu_pending(hv), 0); /* not even queued */

    hv_put_domain(d); /* no CPU on line: freed at once */
    assert_int_equal(tl_freed(hv), 1);
    assert_int_equal(hv_domain_count(hv), 0);
}

static void test_retire_stats(void **state)
{
    struct hv *hv = *state;
    const struct hv_stats *st = hv_stats(hv);

    assert_int_equal(hv_domain_create(hv, 3, 1, NULL), 0);
    assert_int_equal(hv_domain_destroy(hv, 3), 0);
    assert_int_equal(tl_freed(hv), 1);
    assert_true(atomic_load(&st->retire_ns_max) <=
                atomic_load(&st->retire_ns_total));
}

static void test_accounting(void **state)
{
    struct hv *hv = *state;
    unsigned int i;

    for ( i = 0; i < 100; i++ )
        assert_int_equal(hv_domain_create(hv, (domid_t)(i * 7), 2, NULL), 0);
    for ( i = 0; i < 60; i++ )
        assert_int_equal(hv_domain_destroy(hv, (domid_t)(i * 7)), 0);
    assert_true(tl_wait_freed(hv, NULL, 60, 10.0));
    assert_int_equal(tl_created(hv), 100);
    assert_int_equal(tl_freed(hv), 60);
    assert_int_equal(hv_domain_count(hv), 40);
    /* The teardown's hv_destroy() frees the other 40 and checks. */
}

static void destroy_balanced(void *unused)
{
    struct hv *hv = tl_hv_create("rcu-noref", 2, QUARANTINE);
    struct hv_cpu *cpu;
    struct hv_domain *d;

    if ( hv == NULL )
        _exit(3);
    if ( hv_domain_create(hv, 1, 1, NULL) || hv_domain_create(hv, 2, 1, &d) ||
         hv_domain_destroy(hv, 1) )
        _exit(4);
    cpu = hv_cpu_enter(hv, 1);
    d = hv_domain_lock_by_id(cpu, 2);
    hv_domain_unlock(cpu, d);
    hv_rcu_quiescent(cpu);
    hv_cpu_leave(cpu);
    hv_destroy(hv); /* destroys d2, waits, checks the books */
}

/* A leaked reference: the domain is never freed, the books do not
 * balance, and hv_destroy() must say so. */
static void destroy_leaked(void *unused)
{
    struct hv *hv = tl_hv_create("rcu-noref", 2, QUARANTINE);
    struct hv_domain *d;

    if ( hv == NULL || hv_domain_create(hv, 1, 1, &d) )
        _exit(3);
    fprintf(stderr, "(a BUG message is expected here)\n");
    if ( !hv_get_domain(d, NULL) )
        _exit(4);
    hv_destroy(hv);
}

static void test_hv_destroy_checks_accounting(void **state)
{
    assert_int_equal(tl_child_status(destroy_balanced, NULL), 0);
    assert_int_equal(tl_child_status(destroy_leaked, NULL), 128 + SIGABRT);
}

static void test_config_checked(void **state)
{
    struct hv_config cfg;
    struct hv *hv = (struct hv *)(uintptr_t)1; /* must be reset */
    char err[256];

    hv_config_init(&cfg);
    assert_int_equal(cfg.nr_cpus, 64);
    assert_int_equal(cfg.maptrack_entries, 4096);
    assert_int_equal(cfg.quarantine_gps, 0);
    assert_null(cfg.plugins[HV_SLOT_DOMLOOKUP].hdr);

    cfg.nr_cpus = 0;
    err[0] = '\0';
    assert_int_equal(hv_create(&cfg, &hv, err, sizeof(err)), -EINVAL);
    assert_null(hv);
    assert_non_null(strstr(err, "nr_cpus"));
    cfg.nr_cpus = HV_MAX_CPUS + 1;
    assert_int_equal(hv_create(&cfg, &hv, err, sizeof(err)), -EINVAL);
    cfg.nr_cpus = 2;
    cfg.maptrack_entries = 0;
    assert_int_equal(hv_create(&cfg, &hv, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "maptrack"));

    /* No plugin named: the slot default, recorded as resolved. */
    cfg.maptrack_entries = 16;
    assert_int_equal(hv_create(&cfg, &hv, err, sizeof(err)), 0);
    assert_non_null(hv_slot_plugin(hv, HV_SLOT_DOMLOOKUP)->hdr);
    assert_string_equal(hv_slot_plugin(hv, HV_SLOT_DOMLOOKUP)->spec,
                        hv_slot_find("domlookup")->default_plugin);
    assert_int_equal(hv_nr_cpus(hv), 2);
    assert_null(hv_cpu_at(hv, 2));
    hv_destroy(hv);
}

static void test_cpu_enter_leave(void **state)
{
    struct hv *hv = *state;
    struct hv_cpu *c;

    errno = 0;
    assert_null(hv_cpu_enter(hv, hv_nr_cpus(hv)));
    assert_int_equal(errno, EINVAL);
    c = hv_cpu_enter(hv, 1);
    assert_non_null(c);
    assert_ptr_equal(c, hv_cpu_at(hv, 1));
    assert_int_equal(c->id, 1);
    assert_ptr_equal(c->hv, hv);
    errno = 0;
    assert_null(hv_cpu_enter(hv, 1));
    assert_int_equal(errno, EBUSY);
    hv_cpu_leave(c);
    c = hv_cpu_enter(hv, 1);
    assert_non_null(c);
    hv_cpu_leave(c);
}

static void test_instances_are_independent(void **state)
{
    struct hv *a = *state, *b = tl_hv_create("rcu-ref", 2, 0);
    struct hv_domain *da, *db;

    assert_non_null(b);
    assert_int_equal(hv_domain_create(a, 5, 1, &da), 0);
    assert_int_equal(hv_domain_create(b, 5, 1, &db), 0);
    assert_ptr_not_equal(da, db);
    assert_int_equal(hv_domain_destroy(b, 5), 0);
    assert_ptr_equal(hv_domid_to_domain(hv_domtab(a), 5), da);
    assert_int_equal(hv_domain_count(a), 1);
    assert_int_equal(hv_domain_count(b), 0);
    assert_string_equal(hv_slot_plugin(b, HV_SLOT_DOMLOOKUP)->spec, "rcu-ref");
    hv_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        T(test_create_destroy),
        T(test_reserved_and_limits),
        T(test_first_and_last_domid),
        T(test_list_ids_paging),
        T(test_random_churn_keeps_table_sorted),
        T(test_refcount_and_destroyed_bit),
        T(test_no_reference_from_zero),
        T(test_deferred_free_while_referenced),
        T(test_retire_stats),
        T(test_accounting),
        T(test_hv_destroy_checks_accounting),
        T(test_cpu_enter_leave),
        T(test_instances_are_independent),
        cmocka_unit_test(test_config_checked),
#undef T
    };

    return cmocka_run_group_tests_name("domain", tests, NULL, NULL);
}
