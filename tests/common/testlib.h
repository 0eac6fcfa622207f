/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the model's tests (unit, conformance, stress,
 * external): build a model instance around one plugin spec, wait for
 * deferred frees with a deadline, a seeded PRNG, a monotonic clock.
 *
 * Nothing here asserts: callers decide what a failure means (cmocka tests
 * assert, the torture program counts), so the helpers are usable from
 * worker threads too.
 */
#ifndef HVB_TESTLIB_H
#define HVB_TESTLIB_H

#include <stdbool.h>
#include <stdint.h>

#include <hv/hv.h>

/*
 * tl_hv_create_cfg - hv_create(@cfg) with @spec (test-only plugins
 * allowed; NULL: the default) as the plugin of @slot.  NULL, with a line
 * on stderr, on failure.
 */
struct hv *tl_hv_create_cfg(struct hv_config *cfg, const char *slot,
                            const char *spec);

/* tl_hv_create_slot - a one-CPU model with @spec as the plugin of @slot. */
struct hv *tl_hv_create_slot(const char *slot, const char *spec);

/*
 * tl_hv_create - a model with @nr_cpus CPUs, @quarantine_gps quarantine
 * grace periods and the domlookup plugin @spec ("name[:k=v...]", a .so
 * path, or NULL for the slot's default); test-only plugins allowed.
 * Returns NULL and prints why on failure.
 */
struct hv *tl_hv_create(const char *spec, unsigned int nr_cpus,
                        unsigned int quarantine_gps);

static inline uint64_t tl_created(const struct hv *hv)
{
    return atomic_load(&hv_stats(hv)->domains_created);
}

static inline uint64_t tl_freed(const struct hv *hv)
{
    return atomic_load(&hv_stats(hv)->domains_freed);
}

/*
 * tl_wait_freed - drive grace periods until at least @freed domains have
 * been freed, or @timeout_s passes.  @cpu (may be NULL) is an online CPU
 * of the caller's that holds nothing: it reports quiescent states so
 * grace periods can end.  Every other CPU must be off line or reporting on
 * its own.  Frees a strategy defers to its own machinery (liburcu's
 * call_rcu thread) arrive asynchronously, hence the deadline rather than
 * hv_rcu_barrier().  Returns true if the count was reached.
 */
bool tl_wait_freed(struct hv *hv, struct hv_cpu *cpu, uint64_t freed,
                   double timeout_s);

/*
 * tl_destroy_all - destroy every live domain.  Returns how many
 * destructions were started.
 */
unsigned int tl_destroy_all(struct hv *hv);

/*
 * tl_force_offline - take every CPU still on line off line, closing the
 * read section a test that failed half-way may have left it in, so that
 * grace periods can end and hv_destroy() accepts the model.  Returns how
 * many CPUs were on line.
 */
unsigned int tl_force_offline(struct hv *hv);

/*
 * tl_drain - destroy every live domain and wait (at most @timeout_s) until
 * every domain ever created has been freed, exactly once.  False, with
 * "@label: accounting: ..." on stderr, if not: then hv_destroy() would
 * abort, so the caller should leak the model instead.
 */
bool tl_drain(struct hv *hv, const char *label, double timeout_s);

/*
 * tl_child_status - run @fn(@arg) in a forked child, which exits 0 if @fn
 * returns.  Returns the child's exit status, 128 + the signal that killed
 * it (128 + SIGABRT: an HV_BUG_ON fired), or -1 if it could not be run.
 */
int tl_child_status(void (*fn)(void *arg), void *arg);

/*
 * tl_registry_init - hv_plugin_registry_init(), for a test's main().
 * False, with "@who: <why>" on stderr, if it fails.
 */
bool tl_registry_init(const char *who);

/* Seconds on the monotonic clock. */
double tl_now(void);

/* xorshift64*: deterministic per seed, one state per thread. */
static inline uint64_t tl_rand(uint64_t *s)
{
    uint64_t x = *s;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* A seed that is never 0 (xorshift's fixed point). */
static inline uint64_t tl_seed(uint64_t s)
{
    return s ? s : 0x9E3779B97F4A7C15ull;
}

#endif /* HVB_TESTLIB_H */
