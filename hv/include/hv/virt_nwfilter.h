/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libvirt nwfilter driver as a domain start meets it (seed 003): the
 * serialised step of a creation outside the security manager.
 *
 * libvirt's QEMU driver of 2013 (qemuProcessStart -> qemuBuildCommandLine
 * -> qemuNetworkIfaceConnect) creates the domain's tap device and, when
 * the interface has a <filterref> (OpenStack's libvirt driver gives every
 * interface one, "nova-instance-<name>-<mac>"), instantiates the filter
 * with virDomainConfNWFilterInstantiate.  That runs, with the domain
 * object locked and the start's job held:
 *
 *   virNWFilterLockFilterUpdates()    one global mutex ("only one filter
 *                                     update allowed", nwfilter_conf.c)
 *     build the rules                 (CPU)
 *     ebiptablesExecCLI()             under a second global mutex,
 *                                     execCLIMutex: /bin/sh runs the
 *                                     script of ebtables/iptables commands
 *   virNWFilterUnlockFilterUpdates()
 *
 * so filter instantiations of all domains run one at a time.  Commit
 * 6e5c79a1 ("Push nwfilter update locking up to top level", January 2014)
 * lists the start path's order as the domain object lock, then the
 * nwfilter update lock, and turned the mutex into a read/write lock.
 *
 * Here both mutexes are real (hv_mutex_t: "virNWFilterUpdate",
 * "ebiptablesExecCLI"), the shell is spawned for real (posix_spawn of
 * @shell -c ':', then waitpid; measured: spawn_ns) and what its ebtables
 * commands would do is a sleep of @delay_us (MODELLED: delay_ns).
 *
 * Worked example, three creations A, B, C, delay 5 ms, labels off: A
 * takes the update lock and runs its script (5 ms + the spawn); B and C,
 * each with its own domain object locked, wait for it; B runs at 5 ms, C
 * at 10 ms.  Their QEMU starts (object unlocked) overlap, so three
 * creations take about 3 x 5 ms plus one QEMU start: the filter, not
 * QEMU, sets the pace of a parallel boot.  A define whose name search
 * locks every object (namesearch=lock-each) waits for C's object until
 * C's filter is done.
 */
#ifndef HV_VIRT_NWFILTER_H
#define HV_VIRT_NWFILTER_H

#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>

struct hv_nwfilter;

struct hv_nwfilter_config {
    const char *shell;     /* spawned per instantiation; NULL: none */
    unsigned int delay_us; /* modelled: the script's ebtables commands */
};

struct hv_nwfilter_stats {
    uint64_t instantiations;
    uint64_t spawns, spawn_ns; /* real: posix_spawn to waitpid */
    uint64_t delay_ns;         /* modelled: the sleeps */
};

/* 0, -EINVAL (@err: the shell is not an executable file), -ENOMEM. */
int HV_MUST_CHECK hv_nwfilter_create(const struct hv_nwfilter_config *cfg,
                                     struct hv_nwfilter **out, char *err,
                                     size_t len);
void hv_nwfilter_destroy(struct hv_nwfilter *f);

/*
 * hv_nwfilter_instantiate - instantiate one interface's filter, under
 * both global locks.  The caller (a start) holds its domain object lock
 * and job, as qemuProcessStart does.  0 or the shell's -errno / -EIO.
 */
int HV_MUST_CHECK hv_nwfilter_instantiate(struct hv_nwfilter *f);

void hv_nwfilter_stats(struct hv_nwfilter *f, struct hv_nwfilter_stats *st);

#endif /* HV_VIRT_NWFILTER_H */
