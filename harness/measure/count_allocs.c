/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The counting pass (hvb/meter.h, hvb_meter_count_begin()): jemalloc's
 * experimental hooks count every allocation and free call of the
 * measured threads, for allocs_per_op and frees_per_op.  Untimed: while
 * a hook is installed every malloc takes jemalloc's slow path.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/meter.h>

#include "private.h"

/*
 * jemalloc 5.3's hooks_t (src/hook.h, not in its public header), for
 * the mallctl "experimental.hooks.install": the alloc hook runs for every
 * allocation call (malloc, calloc, posix_memalign, mallocx, a realloc
 * that moves), the dalloc hook for every free (free, dallocx, a realloc
 * that moves), the expand hook for a realloc resized in place.
 */
struct je_hooks {
    void (*alloc)(void *extra, int type, void *result, uintptr_t result_raw,
                  uintptr_t args_raw[3]);
    void (*dalloc)(void *extra, int type, void *address, uintptr_t args_raw[3]);
    void (*expand)(void *extra, int type, void *address, size_t old_usize,
                   size_t new_usize, uintptr_t result_raw,
                   uintptr_t args_raw[4]);
    void *extra;
};

/*
 * Every thread's allocation and free calls while the hooks are installed
 * (initial-exec: no allocation, no lazy TLS set-up inside a hook).
 */
__thread uint64_t hvb_meter_tl_allocs
    __attribute__((tls_model("initial-exec")));
__thread uint64_t hvb_meter_tl_frees __attribute__((tls_model("initial-exec")));

static void hook_alloc(void *extra, int type, void *result,
                       uintptr_t result_raw, uintptr_t args_raw[3])
{
    if ( result != NULL )
        hvb_meter_tl_allocs++;
}

static void hook_dalloc(void *extra, int type, void *address,
                        uintptr_t args_raw[3])
{
    hvb_meter_tl_frees++;
}

static int hooks_install(void)
{
    struct je_hooks h = {.alloc = hook_alloc, .dalloc = hook_dalloc};
    size_t sz = sizeof(hvb_meter_cfg.hooks_handle);

    /* jemalloc copies @h into its own table. */
    return hvb_meter_cfg.mallctl("experimental.hooks.install",
                                 &hvb_meter_cfg.hooks_handle, &sz, &h,
                                 sizeof(h));
}

static void hooks_remove(void)
{
    hvb_meter_cfg.mallctl("experimental.hooks.remove", NULL, NULL,
                          &hvb_meter_cfg.hooks_handle,
                          sizeof(hvb_meter_cfg.hooks_handle));
    hvb_meter_cfg.hooks_handle = NULL;
}

/* Can this process count allocation calls?  Installs and removes once. */
void hvb_meter_probe_hooks(bool count_allocs)
{
    uint64_t before;
    void *p;
    int rc;

    if ( hvb_meter_cfg.mallctl == NULL )
    {
        snprintf(hvb_meter_cfg.count_why, sizeof(hvb_meter_cfg.count_why), "%s",
                 hvb_meter_cfg.alloc_why);
        return;
    }
    if ( hvb_meter_cfg.callgrind )
    {
        /* The counting pass would add its own dumps and Ir. */
        snprintf(hvb_meter_cfg.count_why, sizeof(hvb_meter_cfg.count_why),
                 "no counting pass under --instrument callgrind");
        return;
    }
    if ( !count_allocs )
    {
        snprintf(hvb_meter_cfg.count_why, sizeof(hvb_meter_cfg.count_why),
                 "no counting pass in profile or lockstat");
        return;
    }
    rc = hooks_install();
    if ( rc )
    {
        snprintf(hvb_meter_cfg.count_why, sizeof(hvb_meter_cfg.count_why),
                 "jemalloc experimental.hooks.install: %s", strerror(rc));
        return;
    }
    /*
     * A malloc the hooks do not see: jemalloc is linked but is not this
     * process's malloc.  The barriers keep the compiler, which assumes
     * malloc touches no global, from moving the reads across it.
     */
    before = hvb_meter_tl_allocs;
    __asm__ volatile("" : : : "memory");
    p = malloc(1);
    __asm__ volatile("" : : "r"(p) : "memory");
    free(p);
    hooks_remove();
    hvb_meter_cfg.hooks = hvb_meter_tl_allocs != before;
    if ( !hvb_meter_cfg.hooks )
        snprintf(hvb_meter_cfg.count_why, sizeof(hvb_meter_cfg.count_why),
                 "jemalloc's hooks saw no malloc (jemalloc is not this "
                 "process's malloc)");
}

bool hvb_meter_count_available(void)
{
    return hvb_meter_cfg.hooks;
}

int hvb_meter_count_begin(void)
{
    int rc;

    if ( !hvb_meter_cfg.hooks )
        return -ENOTSUP;
    rc = hooks_install();
    if ( rc )
        return -rc;
    atomic_store(&hvb_meter_cfg.counting, true);
    return 0;
}

void hvb_meter_count_end(void)
{
    if ( !atomic_exchange(&hvb_meter_cfg.counting, false) )
        return;
    hooks_remove();
}
