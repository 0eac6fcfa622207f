/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The domlookup conformance suite (see domlookup-suite.h).
 *
 * Every test runs on a fresh model with 2 CPUs and quarantine_gps = 2:
 * a freed domain is poisoned (magic HV_DOMAIN_MAGIC_FREE, pipe_age >= 1)
 * and its memory kept for two more grace periods, so a test that still
 * holds a domain it should not can read the poison instead of crashing.
 * The teardown of every test destroys what is left, waits until every
 * created domain has been freed and checks the table; a test that leaks
 * or double-frees a domain fails there.
 *
 * What a strategy must do (domlookup.h), and which test checks it:
 *   lookup_hit_miss      hits return the live domain, misses NULL, and
 *                        both leave the CPU's RCU nesting balanced
 *   hold_two             two domains (one bucket) held at once, nested
 *   destroyed_lookup     a destroyed domain is not found; it is freed
 *   domid_reuse          a domid is reusable at once after destroy
 *   destroy_while_held   the holder's domain stays intact until unlock
 *                        and a quiescent state; then it is freed
 *   mt_readers           2 CPUs looking up a static set
 *   mt_churn             2 CPUs looking up while domains die and return
 *
 * Plugins flagged HV_PF_NO_CHURN (knownalive: no protection at all) skip
 * the two tests where a domain dies under a reader; test-only plugins
 * (negative controls) skip them too, since they are meant to fail them:
 * domlookup_suite_run_negative() checks that rcu-broken does.
 *
 * cmocka's assertions longjmp, so they run on the test's own thread only;
 * reader threads count problems and the test asserts the counts after
 * joining them.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <hv/domain.h>
#include <hv/hv.h>

#include "domlookup-suite.h"
#include "testlib-cmocka.h"
#include "testlib.h"

#define SUITE_CPUS       2
#define SUITE_QUARANTINE 2
#define SUITE_WAIT_S     10.0  /* deadline for deferred frees */
#define MT_READS         50000 /* per reader thread, mt_readers */
#define MT_CHURN_OPS     20000 /* writer toggles, mt_churn */
#define MT_CHURN_S       2.0   /* ... or this long, whichever is first */

/* One plugin under test: shared by its tests, which run one at a time. */
struct dl_fixture {
    const char *spec;
    const char *label;
    uint32_t flags;
    struct hv *hv;
};

/* A test body: the plugin's fixture and the fresh model it runs on. */
typedef void dl_test_fn(struct dl_fixture *fx, struct hv *hv);

/* One test's cmocka state: which body, on which plugin. */
struct dl_test {
    struct dl_fixture *fx;
    dl_test_fn *fn;
};

static int dl_setup(void **state)
{
    struct dl_fixture *fx = ((struct dl_test *)*state)->fx;

    fx->hv = tl_hv_create(fx->spec, SUITE_CPUS, SUITE_QUARANTINE);
    return fx->hv != NULL ? 0 : -1;
}

static void dl_run(void **state)
{
    struct dl_test *t = *state;

    t->fn(t->fx, t->fx->hv);
}

/*
 * Take down what a test left and check the accounting.  A test that
 * failed half-way may have left a CPU on line inside a read section:
 * force it off line so the other plugins' tests can still run.  If the
 * accounting does not balance, the model is leaked rather than handed to
 * hv_destroy(), whose BUG_ON would abort the whole binary.
 */
static int dl_teardown(void **state)
{
    struct dl_fixture *fx = ((struct dl_test *)*state)->fx;
    struct hv *hv = fx->hv;
    unsigned int left;
    int rc = 0;

    if ( hv == NULL )
        return 0;
    fx->hv = NULL;
    left = tl_force_offline(hv);
    if ( left != 0 )
    {
        print_error("%s: %u CPUs left on line\n", fx->label, left);
        rc = -1;
    }
    if ( hv_domtab_check(hv) != 0 )
    {
        print_error("%s: domain table inconsistent\n", fx->label);
        rc = -1;
    }
    if ( !tl_drain(hv, fx->label, SUITE_WAIT_S) )
        return -1; /* leak the model, see above */
    if ( hv_domain_count(hv) != 0 )
    {
        print_error("%s: %u domains still linked after destroying all\n",
                    fx->label, hv_domain_count(hv));
        rc = -1;
    }
    hv_destroy(hv);
    return rc;
}

static bool skips_churn(const struct dl_fixture *fx)
{
    if ( fx->flags & HV_PF_NO_CHURN )
    {
        print_message("%s: HV_PF_NO_CHURN (no protection against "
                      "concurrent destruction): skipped\n",
                      fx->label);
        return true;
    }
    if ( fx->flags & HV_PF_TEST_ONLY )
    {
        print_message("%s: test-only negative control, expected to fail "
                      "this: skipped\n",
                      fx->label);
        return true;
    }
    return false;
}

/* The lifetime oracle: what a holder of @d must see. */
static bool held_intact(struct hv_domain *d, domid_t id)
{
    return atomic_load_explicit(&d->magic, memory_order_relaxed) ==
               HV_DOMAIN_MAGIC &&
           atomic_load_explicit(&d->pipe_age, memory_order_relaxed) == 0 &&
           d->domain_id == id;
}

/* A CPU that holds nothing reports a quiescent state and goes off line. */
static void leave(struct hv_cpu *cpu)
{
    hv_rcu_quiescent(cpu);
    hv_cpu_leave(cpu);
}

/*
 * Look up @id, which must find @made, live and intact, and release it:
 * the CPU's read nesting is balanced again and it reports a quiescent
 * state.
 */
static void expect_found(struct hv_cpu *cpu, domid_t id, struct hv_domain *made)
{
    struct hv_domain *d = hv_domain_lock_by_id(cpu, id);

    assert_ptr_equal(d, made);
    assert_true(held_intact(d, id));
    assert_false(atomic_load(&d->is_dying));
    hv_domain_unlock(cpu, d);
    assert_int_equal(cpu->rcu_nesting, 0);
    hv_rcu_quiescent(cpu);
}

/*
 * Create domain @id, bring CPU0 on line (*@cpu), note the free count
 * (*@freed0), then lock @id and destroy it while held.  Returns the held,
 * dying domain.
 */
static struct hv_domain *hold_and_destroy(struct hv *hv, domid_t id,
                                          struct hv_cpu **cpu, uint64_t *freed0)
{
    struct hv_domain *d;

    assert_int_equal(hv_domain_create(hv, id, 4, NULL), 0);
    *cpu = tl_enter(hv, 0);
    *freed0 = tl_freed(hv);
    d = hv_domain_lock_by_id(*cpu, id);
    assert_non_null(d);
    assert_int_equal(hv_domain_destroy(hv, id), 0);
    return d;
}

static void test_lookup_hit_miss(struct dl_fixture *fx, struct hv *hv)
{
    /* 1, 257 and 513 share bucket 1; 769 misses in that bucket. */
    static const domid_t live[] = {0, 1, 257, 513, 0x7FEF};
    static const domid_t absent[] = {2, 769, 0x7FEE, DOMID_FIRST_RESERVED,
                                     DOMID_IDLE};
    struct hv_domain *made[HV_ARRAY_SIZE(live)];
    uint64_t look0, miss0;
    struct hv_cpu *cpu;
    unsigned int i;

    for ( i = 0; i < HV_ARRAY_SIZE(live); i++ )
        assert_int_equal(hv_domain_create(hv, live[i], 8, &made[i]), 0);
    cpu = tl_enter(hv, 0);
    look0 = hv_perfc_sum(hv, HV_PERFC_dom_lookup);
    miss0 = hv_perfc_sum(hv, HV_PERFC_dom_lookup_miss);

    for ( i = 0; i < HV_ARRAY_SIZE(live); i++ )
        expect_found(cpu, live[i], made[i]);
    for ( i = 0; i < HV_ARRAY_SIZE(absent); i++ )
    {
        assert_null(hv_domain_lock_by_id(cpu, absent[i]));
        /* A miss must leave no read section open. */
        assert_int_equal(cpu->rcu_nesting, 0);
        hv_rcu_quiescent(cpu);
    }
    assert_int_equal(hv_perfc_sum(hv, HV_PERFC_dom_lookup) - look0,
                     HV_ARRAY_SIZE(live) + HV_ARRAY_SIZE(absent));
    assert_int_equal(hv_perfc_sum(hv, HV_PERFC_dom_lookup_miss) - miss0,
                     HV_ARRAY_SIZE(absent));
    hv_cpu_leave(cpu);
    assert_int_equal(hv_domain_count(hv), HV_ARRAY_SIZE(live));
}

static void test_hold_two(struct dl_fixture *fx, struct hv *hv)
{
    struct hv_domain *a, *b, *a2;
    struct hv_cpu *cpu;

    assert_int_equal(hv_domain_create(hv, 3, 1, NULL), 0);
    assert_int_equal(hv_domain_create(hv, 259, 1, NULL), 0);
    cpu = tl_enter(hv, 0);
    a = hv_domain_lock_by_id(cpu, 3);
    b = hv_domain_lock_by_id(cpu, 259);
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    a2 = hv_domain_lock_by_id(cpu, 3); /* nested, same domain */
    assert_ptr_equal(a2, a);
    assert_true(held_intact(a, 3));
    assert_true(held_intact(b, 259));
    hv_domain_unlock(cpu, a2);
    hv_domain_unlock(cpu, b);
    hv_domain_unlock(cpu, a);
    assert_int_equal(cpu->rcu_nesting, 0);
    leave(cpu);
}

static void test_destroyed_lookup(struct dl_fixture *fx, struct hv *hv)
{
    struct hv_cpu *cpu;
    uint64_t freed0 = tl_freed(hv);

    assert_int_equal(hv_domain_create(hv, 10, 4, NULL), 0);
    cpu = tl_enter(hv, 0);
    assert_int_equal(hv_domain_destroy(hv, 10), 0);
    assert_int_equal(hv_domain_destroy(hv, 10), -ESRCH);
    assert_int_equal(hv_domain_destroy(hv, 11), -ESRCH);
    assert_int_equal(hv_domain_destroy(hv, DOMID_FIRST_RESERVED), -EINVAL);
    assert_null(hv_domain_lock_by_id(cpu, 10));
    assert_int_equal(cpu->rcu_nesting, 0);
    assert_int_equal(hv_domain_count(hv), 0);
    assert_true(tl_wait_freed(hv, cpu, freed0 + 1, SUITE_WAIT_S));
    assert_int_equal(tl_freed(hv), freed0 + 1);
    assert_null(hv_domain_lock_by_id(cpu, 10));
    leave(cpu);
}

static void test_domid_reuse(struct dl_fixture *fx, struct hv *hv)
{
    struct hv_cpu *cpu = tl_enter(hv, 0);
    unsigned int round;

    /*
     * Re-create at once: the previous incarnation is usually still
     * waiting for its grace period, and must not be what lookups find.
     */
    for ( round = 0; round < 200; round++ )
    {
        struct hv_domain *made;

        assert_int_equal(hv_domain_create(hv, 42, 2, &made), 0);
        expect_found(cpu, 42, made);
        assert_int_equal(hv_domain_destroy(hv, 42), 0);
        assert_null(hv_domain_lock_by_id(cpu, 42));
        hv_rcu_quiescent(cpu);
    }
    assert_int_equal(tl_created(hv), 200);
    assert_true(tl_wait_freed(hv, cpu, 200, SUITE_WAIT_S));
    hv_cpu_leave(cpu);
}

/*
 * Hold d7 on CPU0, destroy it from the same thread (a writer need not be
 * a CPU), and check nothing frees it before CPU0 lets go.  Strategies
 * differ in what a lookup of a dying, still-held domain returns: RCU
 * without a reference has unlinked it (NULL), a refcount strategy keeps
 * it linked until the last reference (the same, dying, domain).  Both are
 * Xen behaviours; anything else is a failure.
 */
static void test_destroy_while_held(struct dl_fixture *fx, struct hv *hv)
{
    struct hv_domain *d, *again;
    struct hv_cpu *cpu;
    uint64_t freed0;
    unsigned int i;
    uint32_t magic;

    if ( skips_churn(fx) )
        skip();
    d = hold_and_destroy(hv, 7, &cpu, &freed0);
    assert_int_equal(hv_domain_destroy(hv, 7), -ESRCH);
    assert_true(atomic_load(&d->is_dying));

    /* Give every free path (polls here, liburcu's thread) its chance. */
    for ( i = 0; i < 100; i++ )
    {
        hv_rcu_poll(hv);
        sched_yield();
    }
    assert_true(held_intact(d, 7));
    assert_int_equal(tl_freed(hv), freed0);

    again = hv_domain_lock_by_id(cpu, 7);
    if ( again != NULL )
    {
        assert_ptr_equal(again, d);
        assert_true(atomic_load(&again->is_dying));
        hv_domain_unlock(cpu, again);
    }
    assert_true(held_intact(d, 7));
    hv_domain_unlock(cpu, d);

    /*
     * Released, but CPU0 has not passed a quiescent state: the memory is
     * still there (at worst in quarantine), so this read is safe.  A
     * strategy without grace periods (rwlock-ref) has freed it already.
     */
    magic = atomic_load_explicit(&d->magic, memory_order_relaxed);
    assert_true(magic == HV_DOMAIN_MAGIC || magic == HV_DOMAIN_MAGIC_FREE);

    assert_true(tl_wait_freed(hv, cpu, freed0 + 1, SUITE_WAIT_S));
    assert_int_equal(tl_freed(hv), freed0 + 1);
    assert_null(hv_domain_lock_by_id(cpu, 7));

    /* And the domid is free again. */
    assert_int_equal(hv_domain_create(hv, 7, 4, &again), 0);
    expect_found(cpu, 7, again);
    leave(cpu);
}

/*
 * A real reference (HV_PF_LONG_REF) keeps a destroyed domain alive across
 * any number of quiescent states of its holder, until it is released:
 * nothing but the reference protects it then, so a strategy that ignored
 * its counters would free it here.
 */
static void test_held_across_quiescent(struct dl_fixture *fx, struct hv *hv)
{
    struct hv_domain *d;
    struct hv_cpu *cpu;
    uint64_t freed0;
    unsigned int i;

    if ( !(fx->flags & HV_PF_LONG_REF) )
    {
        print_message("[  SKIPPED ] %s: pins end at the next quiescent "
                      "state (no HV_PF_LONG_REF)\n",
                      fx->label);
        skip();
    }
    d = hold_and_destroy(hv, 9, &cpu, &freed0);
    for ( i = 0; i < 200; i++ )
    {
        hv_rcu_quiescent(cpu);
        hv_rcu_poll(hv);
        sched_yield();
    }
    assert_true(held_intact(d, 9));
    assert_int_equal(tl_freed(hv), freed0);
    hv_domain_unlock(cpu, d);
    assert_true(tl_wait_freed(hv, cpu, freed0 + 1, SUITE_WAIT_S));
    hv_cpu_leave(cpu);
}

/* Multi-threaded parts: 2 reader CPUs, the test thread writes. */

static const domid_t mt_ids[] = {1, 2, 3, 4, 257, 258, 513, 0x7FEF};

struct mt_shared {
    struct hv *hv;
    pthread_barrier_t start;
    _Atomic bool stop;
    bool churn;             /* ids may die: a miss is legal */
    unsigned int live_mask; /* without churn: which ids exist */
};

struct mt_reader {
    struct mt_shared *sh;
    unsigned int cpu_id;
    pthread_t thread;
    uint64_t reads, hits, errors, enter_failed;
};

static void *mt_reader_main(void *arg)
{
    struct mt_reader *r = arg;
    struct mt_shared *sh = r->sh;
    struct hv_cpu *cpu = hv_cpu_enter(sh->hv, r->cpu_id);
    uint64_t seed = tl_seed(0x1234 + r->cpu_id);

    pthread_barrier_wait(&sh->start);
    if ( cpu == NULL )
    {
        r->enter_failed = 1;
        return NULL;
    }
    while ( sh->churn ? !atomic_load_explicit(&sh->stop, memory_order_relaxed)
                      : r->reads < MT_READS )
    {
        unsigned int i = tl_rand(&seed) % HV_ARRAY_SIZE(mt_ids);
        domid_t id = mt_ids[i];
        struct hv_domain *d = hv_domain_lock_by_id(cpu, id);

        r->reads++;
        if ( d != NULL )
        {
            unsigned int spins = tl_rand(&seed) % 32;

            r->hits++;
            if ( !held_intact(d, id) ||
                 !(sh->churn || ((sh->live_mask >> i) & 1)) )
                r->errors++;
            /* Hold it a moment, so it can die under us, and re-check. */
            while ( spins-- )
                cpu_relax();
            if ( !held_intact(d, id) )
                r->errors++;
            hv_domain_unlock(cpu, d);
        }
        else if ( !sh->churn && ((sh->live_mask >> i) & 1) )
            r->errors++;
        if ( cpu->rcu_nesting != 0 )
            r->errors++;
        if ( (r->reads & 7) == 0 )
            hv_rcu_quiescent(cpu);
    }
    leave(cpu);
    return NULL;
}

static void mt_start(struct mt_shared *sh, struct mt_reader *r)
{
    unsigned int i;

    pthread_barrier_init(&sh->start, NULL, SUITE_CPUS + 1);
    for ( i = 0; i < SUITE_CPUS; i++ )
    {
        r[i] = (struct mt_reader){.sh = sh, .cpu_id = i};
        if ( pthread_create(&r[i].thread, NULL, mt_reader_main, &r[i]) )
            fail_msg("pthread_create");
    }
    pthread_barrier_wait(&sh->start);
}

static void mt_join(struct mt_shared *sh, struct mt_reader *r)
{
    unsigned int i;

    atomic_store(&sh->stop, true);
    for ( i = 0; i < SUITE_CPUS; i++ )
        pthread_join(r[i].thread, NULL);
    pthread_barrier_destroy(&sh->start);
}

/*
 * After mt_join(): every reader came on line and saw nothing wrong.
 * Returns the reads of all readers; their hits in *@hits.
 */
static uint64_t mt_check(const struct mt_reader *r, uint64_t *hits)
{
    uint64_t reads = 0;
    unsigned int i;

    *hits = 0;
    for ( i = 0; i < SUITE_CPUS; i++ )
    {
        assert_int_equal(r[i].enter_failed, 0);
        assert_int_equal(r[i].errors, 0);
        reads += r[i].reads;
        *hits += r[i].hits;
    }
    return reads;
}

static void test_mt_readers(struct dl_fixture *fx, struct hv *hv)
{
    struct mt_shared sh = {.hv = hv, .churn = false};
    struct mt_reader r[SUITE_CPUS];
    uint64_t reads, hits, look0;
    unsigned int i;

    /* Every other id exists: half the lookups miss. */
    for ( i = 0; i < HV_ARRAY_SIZE(mt_ids); i += 2 )
    {
        assert_int_equal(hv_domain_create(hv, mt_ids[i], 1, NULL), 0);
        sh.live_mask |= 1u << i;
    }
    look0 = hv_perfc_sum(hv, HV_PERFC_dom_lookup);
    mt_start(&sh, r);
    mt_join(&sh, r);
    reads = mt_check(r, &hits);
    assert_int_equal(reads, SUITE_CPUS * MT_READS);
    assert_true(hits > 0 && hits < reads);
    assert_int_equal(hv_perfc_sum(hv, HV_PERFC_dom_lookup) - look0, reads);
}

static void test_mt_churn(struct dl_fixture *fx, struct hv *hv)
{
    struct mt_shared sh = {.hv = hv, .churn = true};
    struct mt_reader r[SUITE_CPUS];
    bool live[HV_ARRAY_SIZE(mt_ids)];
    uint64_t seed = tl_seed(99), writer_errors = 0, hits;
    unsigned int i, op;
    double deadline;

    if ( skips_churn(fx) )
        skip();
    for ( i = 0; i < HV_ARRAY_SIZE(mt_ids); i++ )
    {
        assert_int_equal(hv_domain_create(hv, mt_ids[i], 1, NULL), 0);
        live[i] = true;
    }
    mt_start(&sh, r);
    deadline = tl_now() + MT_CHURN_S;
    for ( op = 0; op < MT_CHURN_OPS && tl_now() < deadline; op++ )
    {
        int rc;

        i = tl_rand(&seed) % HV_ARRAY_SIZE(mt_ids);
        if ( live[i] )
        {
            rc = hv_domain_destroy(hv, mt_ids[i]);
            live[i] = false;
        }
        else
        {
            /* -EEXIST: a reader still holds the previous incarnation. */
            rc = hv_domain_create(hv, mt_ids[i], 1, NULL);
            if ( rc == 0 )
                live[i] = true;
            else if ( rc == -EEXIST )
                rc = 0;
        }
        if ( rc != 0 )
            writer_errors++;
    }
    mt_join(&sh, r);
    assert_int_equal(writer_errors, 0);
    assert_true(mt_check(r, &hits) > 0);
}

/* rcu-broken: the destroy_while_held oracle must fire at once. */
static void test_negative_destroy_while_held(struct dl_fixture *fx,
                                             struct hv *hv)
{
    struct hv_domain *d;
    struct hv_cpu *cpu;
    uint64_t freed0;

    assert_true(fx->flags & HV_PF_TEST_ONLY);
    d = hold_and_destroy(hv, 7, &cpu, &freed0);
    /* Freed under the holder: poisoned, counted; memory quarantined. */
    assert_false(held_intact(d, 7));
    assert_int_equal(atomic_load(&d->magic), HV_DOMAIN_MAGIC_FREE);
    assert_true(atomic_load(&d->pipe_age) >= 1);
    assert_int_equal(tl_freed(hv), freed0 + 1);
    hv_domain_unlock(cpu, d);
    leave(cpu);
}

struct dl_case {
    const char *name;
    dl_test_fn *fn;
};

static const struct dl_case dl_cases[] = {
    {"lookup_hit_miss", test_lookup_hit_miss},
    {"hold_two", test_hold_two},
    {"destroyed_lookup", test_destroyed_lookup},
    {"domid_reuse", test_domid_reuse},
    {"destroy_while_held", test_destroy_while_held},
    {"held_across_quiescent", test_held_across_quiescent},
    {"mt_readers", test_mt_readers},
    {"mt_churn", test_mt_churn},
};

static int run_cases(const char *spec, const char *label, const char *group,
                     const struct dl_case *cases, unsigned int n)
{
    struct dl_fixture fx = {.spec = spec, .label = label};
    struct dl_test states[HV_ARRAY_SIZE(dl_cases)];
    struct CMUnitTest tests[HV_ARRAY_SIZE(dl_cases)];
    char names[HV_ARRAY_SIZE(dl_cases)][128], err[512];
    struct hv_plugin_inst inst;
    unsigned int i;
    int rc;

    rc = hv_plugin_resolve("domlookup", spec, true, &inst, err, sizeof(err));
    if ( rc )
    {
        fprintf(stderr, "domlookup suite: %s\n", err);
        return -1;
    }
    fx.flags = inst.hdr->flags;
    hv_plugin_inst_free(&inst);

    /* Test names carry the plugin, so a failure names it. */
    for ( i = 0; i < n; i++ )
    {
        snprintf(names[i], sizeof(names[i]), "%s/%s", label, cases[i].name);
        states[i] = (struct dl_test){.fx = &fx, .fn = cases[i].fn};
        tests[i] = (struct CMUnitTest){
            .name = names[i],
            .test_func = dl_run,
            .setup_func = dl_setup,
            .teardown_func = dl_teardown,
            .initial_state = &states[i],
        };
    }
    print_message("[==========] %s (%s)\n", group, spec);
    return _cmocka_run_group_tests(group, tests, n, NULL, NULL);
}

int domlookup_suite_run(const char *spec, const char *label)
{
    char group[128];

    snprintf(group, sizeof(group), "domlookup/%s", label);
    return run_cases(spec, label, group, dl_cases, HV_ARRAY_SIZE(dl_cases));
}

int domlookup_suite_run_negative(const char *spec)
{
    static const struct dl_case neg[] = {
        {"destroy_while_held_detected", test_negative_destroy_while_held},
    };

    return run_cases(spec, spec, "domlookup/negative-control", neg,
                     HV_ARRAY_SIZE(neg));
}
