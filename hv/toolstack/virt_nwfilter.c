/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The nwfilter driver's instantiation (hv/virt_nwfilter.h): two global
 * mutexes, a real shell, a modelled script.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <hv/lock.h>
#include <hv/virt_nwfilter.h>
#include <hv/virt_security.h>

static HV_LOCK_CLASS(update_class, "virNWFilterUpdate");
static HV_LOCK_CLASS(exec_class, "ebiptablesExecCLI");

struct hv_nwfilter {
    hv_mutex_t update; /* updateMutex: one filter update at a time */
    hv_mutex_t exec;   /* execCLIMutex: one script at a time */
    char *shell;
    unsigned int delay_us;
    _Atomic uint64_t instantiations, spawns, spawn_ns, delay_ns;
};

int hv_nwfilter_create(const struct hv_nwfilter_config *cfg,
                       struct hv_nwfilter **out, char *err, size_t len)
{
    struct hv_nwfilter *f;
    int rc;

    *out = NULL;
    rc = hv_virt_check_exec("nwfilter shell", cfg->shell, err, len);
    if ( rc )
        return rc;
    f = calloc(1, sizeof(*f));
    if ( f == NULL )
        return -ENOMEM;
    if ( cfg->shell != NULL && (f->shell = strdup(cfg->shell)) == NULL )
    {
        free(f);
        return -ENOMEM;
    }
    f->delay_us = cfg->delay_us;
    hv_mutex_init(&f->update, &update_class);
    hv_mutex_init(&f->exec, &exec_class);
    *out = f;
    return 0;
}

void hv_nwfilter_destroy(struct hv_nwfilter *f)
{
    if ( f == NULL )
        return;
    hv_mutex_destroy(&f->update);
    hv_mutex_destroy(&f->exec);
    free(f->shell);
    free(f);
}

/* ebiptablesExecCLI: the script, one at a time. */
static int exec_script(struct hv_nwfilter *f)
{
    int rc = 0;

    hv_mutex_lock(&f->exec);
    if ( f->shell != NULL )
    {
        char *argv[] = {f->shell, "-c", ":", NULL};
        uint64_t ns = 0;

        rc = hv_virt_spawn(f->shell, argv, &ns);
        if ( rc == 0 || rc == -EIO )
        {
            atomic_fetch_add_explicit(&f->spawn_ns, ns, memory_order_relaxed);
            atomic_fetch_add_explicit(&f->spawns, 1, memory_order_relaxed);
        }
    }
    if ( rc == 0 && f->delay_us )
    {
        hv_virt_sleep_us(f->delay_us);
        atomic_fetch_add_explicit(&f->delay_ns, (uint64_t)f->delay_us * 1000,
                                  memory_order_relaxed);
    }
    hv_mutex_unlock(&f->exec);
    return rc;
}

int hv_nwfilter_instantiate(struct hv_nwfilter *f)
{
    int rc;

    hv_mutex_lock(&f->update);
    rc = exec_script(f);
    hv_mutex_unlock(&f->update);
    if ( rc == 0 )
        atomic_fetch_add_explicit(&f->instantiations, 1, memory_order_relaxed);
    return rc;
}

void hv_nwfilter_stats(struct hv_nwfilter *f, struct hv_nwfilter_stats *st)
{
    st->instantiations = atomic_load(&f->instantiations);
    st->spawns = atomic_load(&f->spawns);
    st->spawn_ns = atomic_load(&f->spawn_ns);
    st->delay_ns = atomic_load(&f->delay_ns);
}
