/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * torture-domlookup: an rcutorture-style lifetime torture of one domlookup
 * strategy.
 *
 *   torture-domlookup [--quarantine N] PLUGIN [SECONDS]
 *
 * (SECONDS default 3; PLUGIN may carry options, "percpu-ref:ncpus=1").
 *
 * Two reader threads are model CPUs.  Each loops: pick a domid from a
 * small set, hv_domain_lock_by_id() it, read d->magic and d->pipe_age
 * (relaxed atomic loads), hold it for a random while, re-reading both,
 * then unlock; every READER_QS_EVERY lookups it reports a quiescent state.
 * One writer thread (not a CPU) destroys and re-creates the same domids
 * continuously, so domains die under the readers all the time.
 *
 * The model runs with quarantine_gps = 2 (--quarantine N): a freed domain
 * is poisoned (magic HV_DOMAIN_MAGIC_FREE, pipe_age 1) and aged one step
 * per grace period before its memory goes back to malloc.  A held domain
 * has pipe_age 0 and the live magic, always; a reader that sees anything
 * else holds an object that has been freed: the strategy broke the
 * lifetime rule.  Like rcutorture's "Reader Pipe", the summary prints the
 * histogram of ages readers saw; every entry after the first must be 0
 * (flagged "!!!" otherwise).
 *
 * The quarantine keeps freed memory mapped, so it also hides a strategy
 * that touches a freed domain without holding it (a hash walk, a failed
 * get_domain).  Under AddressSanitizer, --quarantine 0 frees at once and
 * lets ASan see those accesses too (tests/CMakeLists.txt runs both).
 *
 * Without ASan, --quarantine 0 still catches a held domain freed early:
 * the model poisons the magic before free(), and a domain's serial (its
 * creation's number) is checked on every re-read, so a reader of freed
 * memory sees the poison, or a serial not its own once a new domain has
 * taken the memory (malloc hands the same chunk back: the writer
 * re-creates the same domids, so the domid alone would not tell).  The
 * plain control torture-rcu-broken-free runs it so.  A reader may also
 * follow what malloc wrote into the freed domain and fault: SIGSEGV and
 * SIGBUS are caught (outside sanitizers) and said as the FAILURE they are.
 *
 * At the end: every domain destroyed, every one freed (created == freed,
 * the urcu hash test's nr_leaked), lookups counted by the readers equal
 * the model's per-CPU counters (hits + misses), the table is consistent,
 * and the run did work (a run in which no domain ever died under a reader
 * proves nothing: rcutorture's "tfle").  hv_destroy() then re-checks the
 * accounting itself.
 *
 * Exit 0: SUCCESS.  1: FAILURE (any violation).  2: usage or set-up error.
 * The run stops early at the first violation.  The seed is printed;
 * HVB_TORTURE_SEED=N replays the writer's and readers' choices (thread
 * interleaving, of course, differs).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hv/domain.h>
#include <hv/hv.h>

#include "testlib.h"

#define NR_READERS      2
#define QUARANTINE_GPS  2 /* default; --quarantine N */
#define PIPE_LEN        4 /* Reader Pipe buckets: ages 0, 1, 2, 3+ */
#define READER_QS_EVERY 8
#define HOLD_MAX        64   /* relax-and-recheck rounds while held */
#define PENDING_MAX     4096 /* writer backs off above this backlog */
#define WAIT_FREED_S    30.0

/* A few domids, three in one hash bucket, so the writer hits held ones. */
static const domid_t torture_ids[] = {1, 2, 3, 257, 513, 0x7FEF};
#define NR_IDS HV_ARRAY_SIZE(torture_ids)

struct torture {
    struct hv *hv;
    const char *plugin;
    bool long_ref; /* HV_PF_LONG_REF: hold across QS too */
    pthread_barrier_t start;
    _Atomic bool stop;
    _Atomic uint64_t violations; /* seen by the main thread early */
};

struct reader {
    struct torture *t;
    unsigned int cpu_id;
    pthread_t thread;
    uint64_t seed;
    uint64_t reads, hits, misses, dying_seen;
    uint64_t pipe[PIPE_LEN]; /* oldest age seen, per hold */
    uint64_t bad_magic, bad_id, bad_serial, nesting;
    uint64_t long_holds; /* holds that crossed a quiescent state */
    bool enter_failed;
};

struct writer {
    struct torture *t;
    pthread_t thread;
    uint64_t seed;
    uint64_t creates, destroys, busy, errors, backoffs;
};

/*
 * Without a quarantine and without ASan, a reader of a freed domain may
 * follow what malloc wrote into it (the hash link) and fault: that is the
 * violation too, said as one (the plain negative control expects
 * "PLUGIN: FAILURE").  Under a sanitizer, its own report says it.
 */
static const char *fault_plugin = "?";

static void say(const char *s)
{
    ssize_t rc = write(STDOUT_FILENO, s, strlen(s));

    (void)rc;
}

static void on_fault(int sig)
{
    say("torture-domlookup: ");
    say(fault_plugin);
    say(sig == SIGSEGV ? ": FAILURE (SIGSEGV" : ": FAILURE (SIGBUS");
    say(": a reader touched freed memory)\n");
    _exit(1);
}

static void catch_faults(const char *plugin)
{
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    struct sigaction sa = {.sa_handler = on_fault, .sa_flags = SA_RESETHAND};

    fault_plugin = plugin;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
#else
    (void)plugin;
#endif
}

static void violation(struct torture *t)
{
    atomic_fetch_add(&t->violations, 1);
    atomic_store(&t->stop, true);
}

/*
 * What a reader saw of one held domain, over all its re-checks: the
 * oldest pipe age and whether the magic, the domid or the serial (the
 * one of its first check) was ever wrong.  A changed serial is freed
 * memory a new domain of the same domid has taken: live magic, age 0,
 * the right domid, and still not the domain the reader looked up.
 */
struct hold {
    uint32_t max_age;
    uint64_t serial;
    bool bad_magic, bad_id, bad_serial;
};

static bool hold_ok(const struct hold *h)
{
    return h->max_age == 0 && !h->bad_magic && !h->bad_id && !h->bad_serial;
}

static bool check_held(struct hold *h, struct hv_domain *d, domid_t id)
{
    uint32_t magic = atomic_load_explicit(&d->magic, memory_order_relaxed);
    uint32_t age = atomic_load_explicit(&d->pipe_age, memory_order_relaxed);
    uint64_t serial = atomic_load_explicit(&d->serial, memory_order_relaxed);

    if ( age > h->max_age )
        h->max_age = age;
    if ( h->serial == 0 )
        h->serial = serial;
    h->bad_magic |= magic != HV_DOMAIN_MAGIC;
    h->bad_id |= d->domain_id != id;
    h->bad_serial |= serial != h->serial;
    return hold_ok(h);
}

/* Account one hold: one Reader Pipe entry per held domain. */
static bool record_hold(struct reader *r, const struct hold *h)
{
    r->pipe[h->max_age < PIPE_LEN ? h->max_age : PIPE_LEN - 1]++;
    r->bad_magic += h->bad_magic;
    r->bad_id += h->bad_id;
    r->bad_serial += h->bad_serial;
    return hold_ok(h);
}

static void *reader_main(void *arg)
{
    struct reader *r = arg;
    struct torture *t = r->t;
    struct hv_cpu *cpu = hv_cpu_enter(t->hv, r->cpu_id);

    pthread_barrier_wait(&t->start);
    if ( cpu == NULL )
    {
        r->enter_failed = true;
        violation(t);
        return NULL;
    }
    while ( !atomic_load_explicit(&t->stop, memory_order_relaxed) )
    {
        domid_t id = torture_ids[tl_rand(&r->seed) % NR_IDS];
        struct hv_domain *d = hv_domain_lock_by_id(cpu, id);

        r->reads++;
        if ( d == NULL )
            r->misses++;
        else
        {
            unsigned int spins = tl_rand(&r->seed) % HOLD_MAX, i;
            struct hold h = {0};
            bool ok = check_held(&h, d, id);

            r->hits++;
            /* Hold it a while: a window for the writer to kill it. */
            for ( i = 0; i < spins && ok; i++ )
            {
                cpu_relax();
                if ( (i & 7) == 7 )
                    ok = check_held(&h, d, id);
            }
            /*
             * A real reference must outlive quiescent states: every 4th
             * hold of such a strategy passes one, and lets callbacks run,
             * before its last check.
             */
            if ( t->long_ref && ok && (r->hits & 3) == 0 )
            {
                hv_rcu_quiescent(cpu);
                hv_rcu_poll(t->hv);
                r->long_holds++;
            }
            check_held(&h, d, id);
            if ( atomic_load_explicit(&d->is_dying, memory_order_relaxed) )
                r->dying_seen++;
            hv_domain_unlock(cpu, d);
            if ( !record_hold(r, &h) )
                violation(t);
        }
        if ( cpu->rcu_nesting != 0 )
        {
            r->nesting++; /* unbalanced read section */
            violation(t);
            cpu->rcu_nesting = 0; /* so the CPU can leave */
            break;
        }
        if ( r->reads % READER_QS_EVERY == 0 )
            hv_rcu_quiescent(cpu);
    }
    hv_rcu_quiescent(cpu);
    hv_cpu_leave(cpu);
    return NULL;
}

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    struct torture *t = w->t;
    bool live[NR_IDS];
    unsigned int i;

    for ( i = 0; i < NR_IDS; i++ )
        live[i] = true; /* main created them */
    pthread_barrier_wait(&t->start);
    while ( !atomic_load_explicit(&t->stop, memory_order_relaxed) )
    {
        int rc = 0;

        i = tl_rand(&w->seed) % NR_IDS;
        if ( live[i] )
        {
            /* Only this thread destroys: it must succeed. */
            rc = hv_domain_destroy(t->hv, torture_ids[i]);
            if ( rc == 0 )
                w->destroys++;
            live[i] = false;
        }
        /* Mostly re-create at once: readers then find the new domain
         * while the old one dies under them; sometimes leave a gap. */
        if ( rc == 0 && !live[i] && (tl_rand(&w->seed) & 3) != 0 )
        {
            rc = hv_domain_create(t->hv, torture_ids[i], 1, NULL);
            if ( rc == 0 )
            {
                w->creates++;
                live[i] = true;
            }
            else if ( rc == -EEXIST )
            {
                /* A reader still holds the previous incarnation (a
                 * refcount strategy keeps it linked until then). */
                w->busy++;
                rc = 0;
            }
        }
        if ( rc != 0 )
        {
            fprintf(stderr, "torture: writer: domid %u: %s\n", torture_ids[i],
                    strerror(-rc));
            w->errors++;
            violation(t);
        }
        /* Throttle, not synchronise: bound the callback backlog. */
        if ( hv_rcu_pending(t->hv) > PENDING_MAX )
        {
            w->backoffs++;
            sched_yield();
        }
    }
    return NULL;
}

static void sleep_s(double s)
{
    struct timespec ts = {.tv_sec = (time_t)s,
                          .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};

    nanosleep(&ts, NULL);
}

static int usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--quarantine N] PLUGIN [SECONDS]\n"
            "  rcutorture-style lifetime torture of one domlookup plugin:\n"
            "  %d reader CPUs hold domains while a writer destroys and\n"
            "  re-creates them, for SECONDS (default 3).  Freed domains\n"
            "  are poisoned and quarantined for N grace periods (default\n"
            "  %d, at most 8; 0 frees at once, for AddressSanitizer).\n"
            "  Exit 0 SUCCESS, 1 FAILURE, 2 usage.\n",
            prog, NR_READERS, QUARANTINE_GPS);
    return 2;
}

int main(int argc, char **argv)
{
    struct torture t = {.stop = false};
    struct reader r[NR_READERS];
    struct writer w;
    uint64_t long_holds = 0;
    uint64_t reads = 0, hits = 0, misses = 0, dying = 0, bad_magic = 0,
             bad_id = 0, bad_serial = 0, nesting = 0, pipe[PIPE_LEN] = {0},
             seed, perfc_look, perfc_miss, qs, created, freed;
    double seconds = 3.0, t0, elapsed;
    unsigned int i, j, bad_pipe = 0, failures = 0;
    unsigned int quarantine = QUARANTINE_GPS;
    int a;
    struct hv_plugin_inst inst;
    char err[512], *end;
    const char *s;

    /* Line-buffered: a sanitizer's _exit must not swallow the summary. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    for ( a = 1; a < argc && argv[a][0] == '-'; a++ )
    {
        unsigned long q;

        if ( strcmp(argv[a], "--quarantine") != 0 || a + 1 == argc )
            return usage(argv[0]);
        q = strtoul(argv[++a], &end, 10);
        if ( *end != '\0' || q > 8 )
            return usage(argv[0]);
        quarantine = (unsigned int)q;
    }
    if ( argc - a < 1 || argc - a > 2 )
        return usage(argv[0]);
    t.plugin = argv[a];
    catch_faults(t.plugin);
    if ( argc - a == 2 )
    {
        seconds = strtod(argv[a + 1], &end);
        if ( *end != '\0' || !(seconds > 0 && seconds <= 86400) )
            return usage(argv[0]);
    }
    if ( hv_plugin_resolve("domlookup", t.plugin, true, &inst, err,
                           sizeof(err)) )
    {
        fprintf(stderr, "torture-domlookup: %s\n", err);
        return 2;
    }
    if ( inst.hdr->flags & HV_PF_NO_CHURN )
    {
        fprintf(stderr,
                "torture-domlookup: %s declares HV_PF_NO_CHURN: it does not "
                "protect against concurrent destruction, nothing to torture\n",
                inst.hdr->name);
        hv_plugin_inst_free(&inst);
        return 2;
    }
    t.long_ref = inst.hdr->flags & HV_PF_LONG_REF;
    hv_plugin_inst_free(&inst);

    t.hv = tl_hv_create(t.plugin, NR_READERS, quarantine);
    if ( t.hv == NULL )
        return 2;
    for ( i = 0; i < NR_IDS; i++ )
        if ( hv_domain_create(t.hv, torture_ids[i], 1, NULL) )
        {
            fprintf(stderr, "torture-domlookup: cannot create domains\n");
            return 2;
        }

    s = getenv("HVB_TORTURE_SEED");
    seed = s ? strtoull(s, NULL, 0)
             : (uint64_t)(tl_now() * 1e9) ^ ((uint64_t)getpid() << 32);
    pthread_barrier_init(&t.start, NULL, NR_READERS + 2);
    for ( i = 0; i < NR_READERS; i++ )
    {
        r[i] = (struct reader){
            .t = &t, .cpu_id = i, .seed = tl_seed(seed * 2654435761u + i)};
        if ( pthread_create(&r[i].thread, NULL, reader_main, &r[i]) )
        {
            perror("pthread_create");
            return 2;
        }
    }
    w = (struct writer){.t = &t, .seed = tl_seed(seed ^ 0xabcdef)};
    if ( pthread_create(&w.thread, NULL, writer_main, &w) )
    {
        perror("pthread_create");
        return 2;
    }
    pthread_barrier_wait(&t.start);
    t0 = tl_now();

    /* The duration; a violation ends the run early. */
    while ( !atomic_load(&t.stop) && tl_now() - t0 < seconds )
        sleep_s(0.01);
    atomic_store(&t.stop, true);
    for ( i = 0; i < NR_READERS; i++ )
        pthread_join(r[i].thread, NULL);
    pthread_join(w.thread, NULL);
    elapsed = tl_now() - t0;
    pthread_barrier_destroy(&t.start);

    for ( i = 0; i < NR_READERS; i++ )
    {
        reads += r[i].reads;
        hits += r[i].hits;
        misses += r[i].misses;
        dying += r[i].dying_seen;
        long_holds += r[i].long_holds;
        bad_magic += r[i].bad_magic;
        bad_id += r[i].bad_id;
        bad_serial += r[i].bad_serial;
        nesting += r[i].nesting;
        for ( j = 0; j < PIPE_LEN; j++ )
            pipe[j] += r[i].pipe[j];
        if ( r[i].enter_failed )
        {
            fprintf(stderr, "torture: reader %u could not enter CPU %u\n", i,
                    r[i].cpu_id);
            failures++;
        }
    }
    for ( j = 1; j < PIPE_LEN; j++ )
        bad_pipe += pipe[j] != 0;

    /* Take everything down, then the accounting must balance. */
    perfc_look = hv_perfc_sum(t.hv, HV_PERFC_dom_lookup);
    perfc_miss = hv_perfc_sum(t.hv, HV_PERFC_dom_lookup_miss);
    qs = hv_perfc_sum(t.hv, HV_PERFC_rcu_qs);
    tl_destroy_all(t.hv);
    if ( !tl_wait_freed(t.hv, NULL, tl_created(t.hv), WAIT_FREED_S) )
        fprintf(stderr, "torture: deferred frees did not finish in %.0f s\n",
                WAIT_FREED_S);
    created = tl_created(t.hv);
    freed = tl_freed(t.hv);

    printf("torture-domlookup: %s: %.2f s, seed %" PRIu64 ", %d readers, "
           "quarantine %d GPs\n",
           t.plugin, elapsed, seed, NR_READERS, quarantine);
    printf("  reads: %" PRIu64 " hits %" PRIu64 " misses %" PRIu64
           " (model counted %" PRIu64 " / %" PRIu64 ")%s\n",
           reads, hits, misses, perfc_look, perfc_miss,
           (perfc_look != reads || perfc_miss != misses) ? " !!!" : "");
    printf("  writer: creates %" PRIu64 " destroys %" PRIu64 " busy %" PRIu64
           " errors %" PRIu64 " backoffs %" PRIu64 "%s\n",
           w.creates, w.destroys, w.busy, w.errors, w.backoffs,
           w.errors ? " !!!" : "");
    printf("  died under a reader: %" PRIu64 "  quiescent states: %" PRIu64
           "%s\n",
           dying, qs, dying == 0 ? " !!! (nothing was tortured)" : "");
    if ( t.long_ref )
        printf("  holds across a quiescent state (long references): %" PRIu64
               "\n",
               long_holds);
    printf("  Reader Pipe:");
    for ( j = 0; j < PIPE_LEN; j++ )
        printf(" %" PRIu64, pipe[j]);
    printf("%s\n", bad_pipe ? " !!!" : "");
    printf("  errors: magic %" PRIu64 " domid %" PRIu64 " serial %" PRIu64
           " nesting %" PRIu64 "%s\n",
           bad_magic, bad_id, bad_serial, nesting,
           (bad_magic || bad_id || bad_serial || nesting) ? " !!!" : "");
    printf("  accounting: created %" PRIu64 " freed %" PRIu64 " live %u"
           "%s\n",
           created, freed, hv_domain_count(t.hv),
           created != freed ? " !!!" : "");

    failures += bad_pipe + (bad_magic != 0) + (bad_id != 0) +
                (bad_serial != 0) + (nesting != 0);
    failures += atomic_load(&t.violations) != 0;
    failures += w.errors != 0;
    failures +=
        perfc_look != reads || perfc_miss != misses || hits + misses != reads;
    failures += created != freed || hv_domain_count(t.hv) != 0;
    failures += hv_domtab_check(t.hv) != 0;
    /* Only a full-length run must show the race was exercised. */
    if ( atomic_load(&t.violations) == 0 )
        failures += dying == 0 || w.destroys == 0 || hits == 0;

    /*
     * hv_destroy() BUG_ONs if the books do not balance: then the model is
     * leaked instead, so the summary above is the verdict.  Otherwise it
     * is destroyed even after a violation, so LeakSanitizer stays quiet
     * and the exit status is this program's own.
     */
    if ( created == freed && hv_domain_count(t.hv) == 0 )
        hv_destroy(t.hv);
    printf("torture-domlookup: %s: %s\n", t.plugin,
           failures ? "FAILURE" : "SUCCESS");
    return failures ? 1 : 0;
}
