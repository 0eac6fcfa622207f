/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The security manager (hv/virt_security.h): the label table, the helper
 * process, and the dispatch to the seclock strategy.
 */
#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hv/seclock.h>
#include <hv/virt_domobj.h>
#include <hv/virt_security.h>

extern char **environ;

static HV_LOCK_CLASS(mgr_class, "virSecurityManager");
static HV_LOCK_CLASS(table_class, "virSecurityDriver");

struct hv_secmgr {
    hv_mutex_t lock;       /* the manager's: seclock global, job */
    hv_mutex_t table_lock; /* the driver's own: seclock per-domain */
    struct hv_secmgr_config cfg;
    char *helper;
    /* owner[label]: the object holding it, NULL when free. */
    struct hv_vobj *_Atomic *owner;
    const struct hv_seclock_ops *ops;
    void *priv;
    struct hv_plugin_inst inst;
    _Atomic uint64_t ops_done[HV_LABEL_NR];
    _Atomic uint64_t spawns, spawn_ns, delay_ns;
};

/*
 * A modelled delay lasts what it says.  A thread's default timer slack is
 * 50 us: the kernel may end a sleep that much late to batch wake-ups, so
 * a modelled 130 us define slept 185 us here (1500 us: 1570 us).  Each
 * sleeping thread sets its slack to 1 ns once (PR_SET_TIMERSLACK), and
 * the sleep then ends within the wake-up latency (137 us, 1519 us).
 */
void hv_virt_sleep_us(unsigned int us)
{
    static _Thread_local bool exact;
    struct timespec ts = {.tv_sec = us / 1000000,
                          .tv_nsec = (long)(us % 1000000) * 1000};

    if ( us && !exact )
    {
        /* Cannot fail for a value > 0; a failure leaves the old slack. */
        (void)!prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        exact = true;
    }
    while ( us && nanosleep(&ts, &ts) != 0 && errno == EINTR )
        ;
}

int hv_secmgr_create(const struct hv_secmgr_config *cfg,
                     const struct hv_plugin_inst *seclock,
                     struct hv_secmgr **out, char *err, size_t len)
{
    struct hv_secmgr *m;
    int rc;

    *out = NULL;
    if ( cfg->label_space == 0 || cfg->label_space > (1u << 20) )
    {
        snprintf(err, len, "label_space must be 1..%u", 1u << 20);
        return -EINVAL;
    }
    rc = hv_virt_check_exec("label helper", cfg->helper, err, len);
    if ( rc )
        return rc;
    m = calloc(1, sizeof(*m));
    if ( m == NULL )
        return -ENOMEM;
    m->cfg = *cfg;
    m->owner = calloc(cfg->label_space, sizeof(*m->owner));
    m->helper = cfg->helper ? strdup(cfg->helper) : NULL;
    if ( m->owner == NULL || (cfg->helper && m->helper == NULL) )
        rc = -ENOMEM;
    else if ( seclock != NULL && seclock->hdr != NULL )
        rc = hv_plugin_inst_copy(&m->inst, seclock);
    else
        rc = hv_plugin_resolve("seclock",
                               hv_slot_find("seclock")->default_plugin, false,
                               &m->inst, err, len);
    if ( rc == 0 && strcmp(m->inst.hdr->slot, "seclock") != 0 )
    {
        snprintf(err, len, "plugin %s/%s given for slot seclock",
                 m->inst.hdr->slot, m->inst.hdr->name);
        rc = -EINVAL;
    }
    if ( rc == 0 )
    {
        m->ops = (const struct hv_seclock_ops *)m->inst.hdr;
        if ( m->ops->init && (rc = m->ops->init(m->inst.opts, &m->priv)) )
            snprintf(err, len, "seclock %s: init failed", m->ops->hdr.name);
    }
    if ( rc )
    {
        hv_plugin_inst_free(&m->inst);
        free(m->helper);
        free(m->owner);
        free(m);
        return rc;
    }
    m->cfg.helper = m->helper;
    hv_mutex_init(&m->lock, &mgr_class);
    hv_mutex_init(&m->table_lock, &table_class);
    *out = m;
    return 0;
}

void hv_secmgr_destroy(struct hv_secmgr *m)
{
    if ( m == NULL )
        return;
    if ( m->ops->fini )
        m->ops->fini(m->priv);
    hv_plugin_inst_free(&m->inst);
    hv_mutex_destroy(&m->lock);
    hv_mutex_destroy(&m->table_lock);
    free(m->helper);
    free(m->owner);
    free(m);
}

int hv_secmgr_label(struct hv_secmgr *m, struct hv_vobj *obj,
                    enum hv_label_op op)
{
    int rc = m->ops->label(m->priv, m, obj, op);

    if ( rc == 0 )
        atomic_fetch_add_explicit(&m->ops_done[op], 1, memory_order_relaxed);
    return rc;
}

int hv_secmgr_pick(struct hv_secmgr *m)
{
    unsigned int i;

    for ( i = 0; i < m->cfg.label_space; i++ )
        if ( atomic_load_explicit(&m->owner[i], memory_order_acquire) == NULL )
            return (int)i;
    return -ENOSPC;
}

void hv_secmgr_claim(struct hv_secmgr *m, struct hv_vobj *obj, int label)
{
    atomic_store_explicit(&m->owner[label], obj, memory_order_release);
    atomic_store_explicit(&obj->label, label, memory_order_release);
}

void hv_secmgr_release(struct hv_secmgr *m, struct hv_vobj *obj)
{
    int label = atomic_exchange(&obj->label, -1);
    struct hv_vobj *expect = obj;

    /* Only our own entry: a strategy that let another claim it loses. */
    if ( label >= 0 )
        atomic_compare_exchange_strong(&m->owner[label], &expect, NULL);
}

bool hv_secmgr_label_ok(struct hv_secmgr *m, const struct hv_vobj *obj)
{
    int label = atomic_load_explicit(&obj->label, memory_order_acquire);

    return label >= 0 && (unsigned int)label < m->cfg.label_space &&
           atomic_load_explicit(&m->owner[label], memory_order_acquire) == obj;
}

unsigned int hv_secmgr_labels_held(struct hv_secmgr *m)
{
    unsigned int i, n = 0;

    for ( i = 0; i < m->cfg.label_space; i++ )
        n += atomic_load(&m->owner[i]) != NULL;
    return n;
}

int hv_virt_check_exec(const char *what, const char *path, char *err,
                       size_t len)
{
    struct stat st;

    if ( path == NULL || (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
                          access(path, X_OK) == 0) )
        return 0;
    snprintf(err, len, "%s '%s' is not an executable file", what, path);
    return -EINVAL;
}

int hv_virt_spawn(const char *path, char *const argv[], uint64_t *ns)
{
    uint64_t t0 = hv_now_ns();
    int status, rc;
    pid_t pid;

    rc = posix_spawn(&pid, path, NULL, NULL, argv, environ);
    if ( rc != 0 )
        return -rc;
    while ( waitpid(pid, &status, 0) < 0 )
        if ( errno != EINTR )
            return -errno;
    *ns += hv_now_ns() - t0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/* The helper: a real spawn and wait (measured), then the modelled work. */
int hv_secmgr_helper(struct hv_secmgr *m, enum hv_label_op op)
{
    static const char *const what[HV_LABEL_NR] = {"genlabel", "setall",
                                                  "restore"};

    if ( op == HV_LABEL_SETALL && !m->cfg.setall_helper )
        return 0; /* AppArmor's start: no profile reload */
    if ( m->helper != NULL )
    {
        char *argv[] = {m->helper, (char *)what[op], NULL};
        uint64_t ns = 0;
        int rc = hv_virt_spawn(m->helper, argv, &ns);

        if ( rc == -EIO || rc == 0 )
        {
            atomic_fetch_add_explicit(&m->spawn_ns, ns, memory_order_relaxed);
            atomic_fetch_add_explicit(&m->spawns, 1, memory_order_relaxed);
        }
        if ( rc )
            return rc; /* -EIO: the helper failed, so does the label */
    }
    if ( m->cfg.delay_us )
    {
        hv_virt_sleep_us(m->cfg.delay_us);
        atomic_fetch_add_explicit(&m->delay_ns,
                                  (uint64_t)m->cfg.delay_us * 1000,
                                  memory_order_relaxed);
    }
    return 0;
}

int hv_secmgr_label_steps(struct hv_secmgr *m, struct hv_vobj *obj,
                          enum hv_label_op op)
{
    int label, rc;

    switch ( op )
    {
    case HV_LABEL_GEN:
        label = hv_secmgr_pick(m);
        if ( label < 0 )
            return label;
        rc = hv_secmgr_helper(m, op);
        if ( rc == 0 )
            hv_secmgr_claim(m, obj, label);
        return rc;
    case HV_LABEL_SETALL:
        return hv_secmgr_helper(m, op);
    case HV_LABEL_RESTORE:
        rc = hv_secmgr_helper(m, op);
        hv_secmgr_release(m, obj);
        return rc;
    case HV_LABEL_NR:
        break;
    }
    return -EINVAL;
}

hv_mutex_t *hv_secmgr_lock(struct hv_secmgr *m)
{
    return &m->lock;
}

hv_mutex_t *hv_secmgr_table_lock(struct hv_secmgr *m)
{
    return &m->table_lock;
}

void hv_secmgr_stats(struct hv_secmgr *m, struct hv_secmgr_stats *st)
{
    unsigned int i;

    for ( i = 0; i < HV_LABEL_NR; i++ )
        st->ops[i] = atomic_load(&m->ops_done[i]);
    st->spawns = atomic_load(&m->spawns);
    st->spawn_ns = atomic_load(&m->spawn_ns);
    st->delay_ns = atomic_load(&m->delay_ns);
}
