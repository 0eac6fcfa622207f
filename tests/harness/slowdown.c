/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domlookup/slowdown: a tests-only external plugin for the gate self-test
 * (tests/harness/it-gate.sh).  It is rcu-noref plus a known amount of
 * real work per lookup, set by options (work, every, jitter, and tag, a
 * no-op that makes identical variants of one group for a paired A/A) or,
 * where an option is 0, by environment variables, so that the cell names
 * of a "slow" run match the base run's:
 *
 *   HVB_SLOWDOWN_WORK=K    K work units (a dependent loop step, a few
 *                          instructions each) ...
 *   HVB_SLOWDOWN_EVERY=N   ... on every N-th lookup (default 1), so that
 *                          fractions of a unit per op are possible
 *   HVB_SLOWDOWN_JITTER=J  J x (0..7) extra units, the factor changing
 *                          every 2^26 TSC ticks (~25 ms): a deliberately
 *                          jittery cell
 *   HVB_SLOWDOWN_MALLOCS=M M malloc + free pairs of 64 bytes per lookup:
 *                          a known allocs_per_op (tests/harness/
 *                          it-gate.sh, part 6)
 *
 * Build: cc -shared -fPIC -fvisibility=hidden -DHV_PLUGIN_SHARED ...
 */
#include <stddef.h>
#include <stdlib.h>
#include <x86intrin.h>

#include <hv/domlookup.h>
#include <hv/hv.h>

struct slowdown {
    unsigned long work, every, jitter, mallocs;
    struct hv_domtab *tab; /* cached, as every domlookup strategy does */
};

struct slowdown_opts {
    unsigned int work, every, jitter, tag, mallocs;
};

/* clang-format off */
static const struct hv_opt slowdown_opt_table[] = {
    { .name = "work", .type = HV_OPT_UINT,
      .off = offsetof(struct slowdown_opts, work), .def = "0",
      .min = 0, .max = 1000000, .help = "work units per affected lookup" },
    { .name = "every", .type = HV_OPT_UINT,
      .off = offsetof(struct slowdown_opts, every), .def = "0",
      .min = 0, .max = 1000000, .help = "work on every N-th lookup" },
    { .name = "jitter", .type = HV_OPT_UINT,
      .off = offsetof(struct slowdown_opts, jitter), .def = "0",
      .min = 0, .max = 1000000, .help = "time-varying extra units" },
    { .name = "tag", .type = HV_OPT_UINT,
      .off = offsetof(struct slowdown_opts, tag), .def = "0",
      .min = 0, .max = 1000000, .help = "no effect (A/A variants)" },
    { .name = "mallocs", .type = HV_OPT_UINT,
      .off = offsetof(struct slowdown_opts, mallocs), .def = "0",
      .min = 0, .max = 1000, .help = "malloc + free pairs per lookup" },
    HV_OPT_TABLE_END
};
/* clang-format on */

/*
 * Every lookup pays the same bookkeeping (an initial-exec TLS counter and
 * a modulo, even with work 0 and every 1), so configurations differ only
 * in the spin loop: the known amount of work.
 */
static __thread unsigned long calls __attribute__((tls_model("initial-exec")));

static void spin(unsigned long n)
{
    unsigned long i;

    for ( i = 0; i < n; i++ )
        __asm__ volatile("" ::: "memory");
}

/* @n allocations and frees the compiler cannot elide. */
static void churn_malloc(unsigned long n)
{
    unsigned long i;

    for ( i = 0; i < n; i++ )
    {
        void *p = malloc(64);

        __asm__ volatile("" : : "r"(p) : "memory");
        free(p);
    }
}

static struct hv_domain *slowdown_lock(struct hv_cpu *cpu, void *priv,
                                       domid_t id)
{
    const struct slowdown *s = priv;
    struct hv_domain *d;

    if ( ++calls % s->every == 0 )
        spin(s->work);
    if ( s->jitter )
        spin(s->jitter * ((__rdtsc() >> 26) & 7));
    churn_malloc(s->mallocs);
    hv_rcu_read_lock(cpu);
    d = hv_domid_to_domain(s->tab, id);
    if ( d == NULL )
        hv_rcu_read_unlock(cpu);
    return d;
}

static void slowdown_unlock(struct hv_cpu *cpu, void *priv, struct hv_domain *d)
{
    hv_rcu_read_unlock(cpu);
}

static void slowdown_retire(struct hv *hv, void *priv, struct hv_domain *d)
{
    hv_domain_free_rcu(d);
}

/* Decimal, so that the tests can pad a value to a fixed width (007). */
static unsigned long env(const char *name, unsigned long def)
{
    const char *v = getenv(name);

    return v != NULL && *v ? strtoul(v, NULL, 10) : def;
}

static int slowdown_init(struct hv *hv, const void *opts, void **priv)
{
    const struct slowdown_opts *o = opts;
    struct slowdown *s = calloc(1, sizeof(*s));

    if ( s == NULL )
        return -12; /* -ENOMEM */
    s->work = o && o->work ? o->work : env("HVB_SLOWDOWN_WORK", 0);
    s->every = o && o->every ? o->every : env("HVB_SLOWDOWN_EVERY", 1);
    s->jitter = o && o->jitter ? o->jitter : env("HVB_SLOWDOWN_JITTER", 0);
    s->mallocs = o && o->mallocs ? o->mallocs : env("HVB_SLOWDOWN_MALLOCS", 0);
    if ( s->every == 0 )
        s->every = 1;
    s->tab = hv_domtab(hv);
    *priv = s;
    return 0;
}

static void slowdown_fini(struct hv *hv, void *priv)
{
    free(priv);
}

static const struct hv_domlookup_ops slowdown_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("domlookup", "slowdown", struct hv_domlookup_ops),
            .summary = "tests only: rcu-noref plus HVB_SLOWDOWN_* work (or "
                       "mallocs) per lookup",
            .opts = slowdown_opt_table,
            .opts_size = sizeof(struct slowdown_opts),
        },
    .init = slowdown_init,
    .fini = slowdown_fini,
    .lock = slowdown_lock,
    .unlock = slowdown_unlock,
    .retire = slowdown_retire,
};

HV_REGISTER_PLUGIN(slowdown_ops);
