/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * torture-libvirt: the libvirt model under one seclock x namesearch pair,
 * bounded, with a watchdog.
 *
 *   torture-libvirt [--quarantine N] SECLOCK NAMESEARCH [SECONDS]
 *
 * (SECONDS default 3.)  NR_WORKERS threads each own NR_NAMES domain names
 * and drive them through define / start / stop / undefine at random, with
 * short real label helpers (/bin/true spawned per label op) and short
 * modelled delays, while looking up the other threads' domains by name,
 * UUID and id.  Every answer is checked against what the owner knows:
 *
 *  - define of a name the thread has defined fails with -EEXIST (also
 *    with a fresh UUID), of one it has not succeeds;
 *  - undefine of a running domain is -EBUSY; after undefine, lookups by
 *    its name and UUID find nothing;
 *  - an object a lookup returns is live (magic), not removed, and has the
 *    name / UUID / id asked for: lookups never return a destroyed object
 *    (the list also checks the magic of whatever a namesearch strategy
 *    returns: the quarantine keeps freed objects poisoned; under ASan,
 *    --quarantine 0 frees at once and ASan sees a stale access);
 *  - a running domain's security label is its own (no two domains share
 *    one), checked after start and again on every pass;
 *  - at the end, after undefining everything: no object is left alive and
 *    no label is held.
 *
 * Deadlock: a watchdog thread fails the run when no operation completes
 * for WATCHDOG_S seconds, or when the run overruns SECONDS + GRACE_S.
 * The torture runs in a child process: a crash (the list's own check
 * aborts) is reported as a FAILURE like any violation.
 *
 * Output: "SUCCESS ..." and exit 0, or "FAILURE: ..." and exit 1; 2 for
 * usage and set-up errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hv/plugin.h>
#include <hv/plugin_registry.h>
#include <hv/virt_qemu.h>

#include "testlib.h"

#define NR_WORKERS 6
#define NR_NAMES   3
#define WATCHDOG_S 20
#define GRACE_S    60

enum nstate {
    UNDEF,
    DEFINED,
    RUNNING
};

struct torture {
    struct hv_virt *v;
    struct hv_vobjlist *l;
    struct hv_secmgr *sec;
    _Atomic bool stop;
    _Atomic uint64_t progress, violations;
    _Atomic uint64_t defines, eexist, starts, undefines, lookups, hits;
    _Atomic int max_id;
};

struct worker {
    struct torture *t;
    unsigned int w;
    uint64_t rng;
    enum nstate st[NR_NAMES];
    pthread_t tid;
};

static void name_of(unsigned int w, unsigned int k, char *buf, size_t len)
{
    snprintf(buf, len, "t%u-%u", w, k);
}

static uint64_t seed_of(unsigned int w, unsigned int k)
{
    return 1000 + w * 100 + k;
}

static uint64_t rnd(struct worker *wk)
{
    return tl_rand(&wk->rng);
}

#define VIOLATION(t, ...)                      \
    do                                         \
    {                                          \
        printf("FAILURE: " __VA_ARGS__);       \
        printf("\n");                          \
        fflush(stdout);                        \
        atomic_fetch_add(&(t)->violations, 1); \
        atomic_store(&(t)->stop, true);        \
    } while ( 0 )

/* A looked-up object (locked, referenced): is it what was asked for? */
static void check_obj(struct torture *t, struct hv_vobj *obj, const char *name,
                      const unsigned char *uuid, int id)
{
    if ( atomic_load(&obj->magic) != HV_VOBJ_MAGIC )
        VIOLATION(t, "lookup returned a freed object");
    else if ( obj->removed )
        VIOLATION(t, "lookup returned an undefined object (%s)", obj->name);
    else if ( name && strcmp(obj->name, name) != 0 )
        VIOLATION(t, "lookup by name %s returned %s", name, obj->name);
    else if ( uuid && memcmp(obj->uuid, uuid, HV_VIRT_UUID_LEN) != 0 )
        VIOLATION(t, "lookup by UUID returned another domain (%s)", obj->name);
    else if ( id >= 0 && obj->id != id )
        VIOLATION(t, "lookup by id %d returned id %d", id, obj->id);
    atomic_fetch_add(&t->hits, 1);
    hv_vobj_end(obj);
}

/* Look up a random domain of any thread, by name, UUID or id. */
static void random_lookup(struct worker *wk)
{
    struct torture *t = wk->t;
    unsigned int w = rnd(wk) % NR_WORKERS, k = rnd(wk) % NR_NAMES;
    unsigned char uuid[HV_VIRT_UUID_LEN];
    char name[HV_VIRT_NAME_MAX];
    struct hv_vobj *obj;
    int id;

    name_of(w, k, name, sizeof(name));
    hv_virt_uuid(seed_of(w, k), uuid);
    atomic_fetch_add(&t->lookups, 1);
    switch ( rnd(wk) % 3 )
    {
    case 0:
        if ( (obj = hv_vobjlist_find_by_name(t->l, name)) != NULL )
            check_obj(t, obj, name, NULL, -1);
        break;
    case 1:
        if ( (obj = hv_vobjlist_find_by_uuid(t->l, uuid)) != NULL )
            check_obj(t, obj, NULL, uuid, -1);
        break;
    default:
        id = 1 + (int)(rnd(wk) % (uint64_t)(atomic_load(&t->max_id) + 1));
        if ( (obj = hv_vobjlist_find_by_id(t->l, id)) != NULL )
            check_obj(t, obj, NULL, NULL, id);
    }
}

/* My running domain @k: running, labelled with its own label. */
static void check_running(struct worker *wk, unsigned int k)
{
    struct torture *t = wk->t;
    unsigned char uuid[HV_VIRT_UUID_LEN];
    struct hv_vobj *obj;

    hv_virt_uuid(seed_of(wk->w, k), uuid);
    obj = hv_vobjlist_find_by_uuid(t->l, uuid);
    if ( obj == NULL )
    {
        VIOLATION(t, "t%u-%u: my running domain is gone", wk->w, k);
        return;
    }
    if ( obj->state != HV_VOBJ_RUNNING )
        VIOLATION(t, "t%u-%u: started but state %d", wk->w, k, obj->state);
    else if ( !hv_secmgr_label_ok(t->sec, obj) )
        VIOLATION(t,
                  "t%u-%u: its security label %d is not its own "
                  "(another domain holds it)",
                  wk->w, k, atomic_load(&obj->label));
    if ( obj->id > atomic_load(&t->max_id) )
        atomic_store(&t->max_id, obj->id);
    hv_vobj_end(obj);
}

static void expect(struct torture *t, int got, int want, const char *what,
                   unsigned int w, unsigned int k)
{
    if ( got != want )
        VIOLATION(t, "t%u-%u: %s returned %d (%s), expected %d", w, k, what,
                  got, strerror(-got), want);
}

static void step(struct worker *wk)
{
    struct torture *t = wk->t;
    unsigned int k = rnd(wk) % NR_NAMES, i;
    unsigned char uuid[HV_VIRT_UUID_LEN], other[HV_VIRT_UUID_LEN];
    char name[HV_VIRT_NAME_MAX];
    struct hv_virt_info info;
    bool coin = rnd(wk) & 1;

    name_of(wk->w, k, name, sizeof(name));
    hv_virt_uuid(seed_of(wk->w, k), uuid);
    hv_virt_uuid(seed_of(wk->w, k) + (1ull << 32) + rnd(wk) % 1000, other);
    switch ( wk->st[k] )
    {
    case UNDEF:
        expect(t, hv_virt_define(t->v, name, uuid), 0, "define", wk->w, k);
        expect(t, hv_virt_define(t->v, name, other), -EEXIST,
               "define of an existing name", wk->w, k);
        atomic_fetch_add(&t->defines, 1);
        atomic_fetch_add(&t->eexist, 1);
        wk->st[k] = DEFINED;
        break;
    case DEFINED:
        if ( coin )
        {
            expect(t, hv_virt_start(t->v, uuid), 0, "start", wk->w, k);
            atomic_fetch_add(&t->starts, 1);
            wk->st[k] = RUNNING;
            check_running(wk, k);
        }
        else
        {
            expect(t, hv_virt_undefine(t->v, uuid), 0, "undefine", wk->w, k);
            expect(t, hv_virt_lookup_name(t->v, name, &info), -ENOENT,
                   "lookup by name after undefine", wk->w, k);
            expect(t, hv_virt_lookup_uuid(t->v, uuid, &info), -ENOENT,
                   "lookup by UUID after undefine", wk->w, k);
            atomic_fetch_add(&t->undefines, 1);
            wk->st[k] = UNDEF;
        }
        break;
    case RUNNING:
        if ( coin )
        {
            expect(t, hv_virt_stop(t->v, uuid), 0, "stop", wk->w, k);
            wk->st[k] = DEFINED;
        }
        else
        {
            expect(t, hv_virt_undefine(t->v, uuid), -EBUSY,
                   "undefine of a running domain", wk->w, k);
            expect(t, hv_virt_define(t->v, name, other), -EEXIST,
                   "define of a running domain's name", wk->w, k);
            atomic_fetch_add(&t->eexist, 1);
        }
        break;
    }
    for ( i = 0; i < NR_NAMES; i++ )
        if ( wk->st[i] == RUNNING )
            check_running(wk, i);
    random_lookup(wk);
    atomic_fetch_add(&t->progress, 1);
}

static void *worker_main(void *arg)
{
    struct worker *wk = arg;

    while ( !atomic_load(&wk->t->stop) )
        step(wk);
    return NULL;
}

struct watchdog {
    struct torture *t;
    unsigned int seconds;
};

/*
 * Once a second: no progress for WATCHDOG_S seconds, or past SECONDS +
 * GRACE_S, is a deadlock.  It looks at the stop flag every 0.1 s: with
 * sleep(1) and at least one second, the run's end waited up to a second
 * in the join (a 3 s torture took 4 s, a caught negative control 1 s).
 */
static void *watchdog_main(void *arg)
{
    struct watchdog *wd = arg;
    uint64_t last = 0, now;
    unsigned int idle = 0, elapsed = 0, tick = 0;

    while ( !atomic_load(&wd->t->stop) )
    {
        usleep(100000);
        if ( ++tick % 10 )
            continue;
        elapsed++;
        now = atomic_load(&wd->t->progress);
        idle = now == last ? idle + 1 : 0;
        last = now;
        if ( idle >= WATCHDOG_S || elapsed > wd->seconds + GRACE_S )
        {
            printf("FAILURE: no progress for %u s (%" PRIu64
                   " steps done): deadlock\n",
                   idle, now);
            fflush(stdout);
            _exit(1);
        }
    }
    return NULL;
}

static int resolve(const char *slot, const char *spec,
                   struct hv_plugin_inst *inst)
{
    char err[256] = "";
    int rc = hv_plugin_resolve(slot, spec, true, inst, err, sizeof(err));

    if ( rc )
        fprintf(stderr, "torture-libvirt: %s\n", err);
    return rc;
}

static int run(const char *seclock, const char *namesearch,
               unsigned int seconds, unsigned int quarantine)
{
    struct hv_plugin_inst sl = {0}, ns = {0};
    struct worker wk[NR_WORKERS];
    struct torture t = {0};
    struct hv_virt_config cfg;
    struct watchdog wd = {&t, seconds};
    struct hv_secmgr_stats st;
    pthread_t wdt;
    char err[256] = "";
    unsigned int i, k;
    int rc;

    if ( resolve("seclock", seclock, &sl) ||
         resolve("namesearch", namesearch, &ns) )
        return 2;
    hv_virt_config_init(&cfg);
    cfg.define_us = 0;
    cfg.qemu_start_us = 200;
    cfg.sec.delay_us = 300;
    cfg.sec.label_space = 4 * NR_WORKERS * NR_NAMES;
    cfg.quarantine = quarantine;
    cfg.seclock = &sl;
    cfg.namesearch = &ns;
    rc = hv_virt_create(&cfg, &t.v, err, sizeof(err));
    hv_plugin_inst_free(&sl);
    hv_plugin_inst_free(&ns);
    if ( rc )
    {
        fprintf(stderr, "torture-libvirt: %s\n", err);
        return 2;
    }
    t.l = hv_virt_list(t.v);
    t.sec = hv_virt_secmgr(t.v);
    printf("torture-libvirt: seclock=%s namesearch=%s %u s, %u workers x %u "
           "domains, quarantine %u\n",
           seclock, namesearch, seconds, NR_WORKERS, NR_NAMES, quarantine);
    fflush(stdout);
    pthread_create(&wdt, NULL, watchdog_main, &wd);
    for ( i = 0; i < NR_WORKERS; i++ )
    {
        wk[i] = (struct worker){
            .t = &t, .w = i, .rng = 0x9E3779B97F4A7C15ull * (i + 1)};
        pthread_create(&wk[i].tid, NULL, worker_main, &wk[i]);
    }
    for ( k = 0; k < seconds * 10 && !atomic_load(&t.stop); k++ )
        usleep(100000);
    atomic_store(&t.stop, true);
    for ( i = 0; i < NR_WORKERS; i++ )
        pthread_join(wk[i].tid, NULL);
    pthread_join(wdt, NULL);

    /* Take everything down; nothing may be left. */
    for ( i = 0; i < NR_WORKERS; i++ )
        for ( k = 0; k < NR_NAMES; k++ )
        {
            unsigned char uuid[HV_VIRT_UUID_LEN];

            hv_virt_uuid(seed_of(i, k), uuid);
            if ( wk[i].st[k] == RUNNING )
                expect(&t, hv_virt_stop(t.v, uuid), 0, "final stop", i, k);
            if ( wk[i].st[k] != UNDEF )
                expect(&t, hv_virt_undefine(t.v, uuid), 0, "final undefine", i,
                       k);
        }
    if ( hv_vobjlist_live_objects(t.l) != 0 )
        VIOLATION(&t, "%" PRIu64 " domain objects left alive",
                  hv_vobjlist_live_objects(t.l));
    if ( hv_secmgr_labels_held(t.sec) != 0 )
        VIOLATION(&t, "%u labels still held", hv_secmgr_labels_held(t.sec));
    if ( atomic_load(&t.violations) == 0 &&
         (t.starts == 0 || t.undefines == 0 || t.hits == 0) )
        VIOLATION(&t,
                  "the run did no work (starts %" PRIu64 ", undefines %" PRIu64
                  ", lookup hits %" PRIu64 ")",
                  t.starts, t.undefines, t.hits);
    hv_secmgr_stats(t.sec, &st);
    printf("%s: %" PRIu64 " steps: %" PRIu64 " defines (%" PRIu64
           " EEXIST checks), %" PRIu64 " starts, %" PRIu64
           " undefines, %" PRIu64 " lookups (%" PRIu64 " hits); %" PRIu64
           " helper spawns, mean %.0f us\n",
           atomic_load(&t.violations) ? "FAILURE" : "SUCCESS", t.progress,
           t.defines, t.eexist, t.starts, t.undefines, t.lookups, t.hits,
           st.spawns, st.spawns ? (double)st.spawn_ns / st.spawns / 1e3 : 0.0);
    rc = atomic_load(&t.violations) ? 1 : 0;
    hv_virt_destroy(t.v);
    return rc;
}

static void usage(void)
{
    fprintf(stderr, "usage: torture-libvirt [--quarantine N] SECLOCK "
                    "NAMESEARCH [SECONDS]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    unsigned int quarantine = 256, seconds = 3;
    int i = 1, status;
    pid_t pid;

    if ( i + 1 < argc && strcmp(argv[i], "--quarantine") == 0 )
    {
        quarantine = (unsigned int)strtoul(argv[i + 1], NULL, 10);
        i += 2;
    }
    if ( argc - i < 2 || argc - i > 3 )
        usage();
    if ( argc - i == 3 && (seconds = strtoul(argv[i + 2], NULL, 10)) == 0 )
        usage();
    if ( !tl_registry_init("torture-libvirt") )
        return 2;
    fflush(NULL);
    pid = fork();
    if ( pid < 0 )
    {
        perror("torture-libvirt: fork");
        return 2;
    }
    if ( pid == 0 )
    {
        int rc = run(argv[i], argv[i + 1], seconds, quarantine);

        fflush(NULL);
        _exit(rc);
    }
    while ( waitpid(pid, &status, 0) < 0 )
        if ( errno != EINTR )
            return 2;
    if ( WIFSIGNALED(status) )
    {
        printf("FAILURE: the torture died of signal %d (%s)\n",
               WTERMSIG(status), strsignal(WTERMSIG(status)));
        return 1;
    }
    if ( WIFEXITED(status) && WEXITSTATUS(status) == 0 )
        return 0;
    if ( WIFEXITED(status) && WEXITSTATUS(status) == 2 )
        return 2;
    /* A sanitizer's report ends the child with its own exit code. */
    printf("FAILURE: the torture exited with status %d\n",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 1;
}
