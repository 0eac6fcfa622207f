/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libvirt QEMU driver (seed 003): the API calls a client makes,
 * on a domain-object list (hv/virt_domobj.h) and a security manager
 * (hv/virt_security.h).
 *
 *   define     virConnectDefineXML: parse (modelled sleep, no lock), then
 *              add under the list lock; the name search (slot
 *              namesearch) refuses an existing name (-EEXIST).
 *   create     virDomainCreateWithFlags: look up by UUID, lock, begin a
 *              job; GenLabel (slot seclock), then, if the interface has
 *              a filter, its instantiation under the nwfilter driver's
 *              global locks (hv/virt_nwfilter.h), then SetAllLabel, all
 *              with the object locked, in qemuProcessStart's order; QEMU
 *              start (a modelled sleep) with the object UNLOCKED, as
 *              THREADS.txt demands; running.
 *   destroy    virDomainDestroy: RestoreAllLabel, shut off.
 *   undefine   virDomainUndefine: refused (-EBUSY) while running.
 *   lookup_*   by UUID, name or id: a copy of the state.
 *
 * Worked example, seclock=global + namesearch=lock-each, two creations
 * and a define: A holds VM1's lock and waits for the manager lock, held
 * by B, whose helper runs for label_ms; C defines VM3: under the list
 * lock it locks VM1 to read its name and waits for A; every lookup by
 * UUID now waits for C on the list lock.  C's define takes about as long
 * as every label operation queued before A's.
 */
#ifndef HV_VIRT_QEMU_H
#define HV_VIRT_QEMU_H

#include <hv/virt_domobj.h>
#include <hv/virt_nwfilter.h>
#include <hv/virt_security.h>

struct hv_virt;

struct hv_virt_config {
    unsigned int define_us;     /* modelled XML parse of define */
    unsigned int qemu_start_us; /* modelled QEMU start, object unlocked */
    struct hv_secmgr_config sec;
    bool nwfilter; /* the interface has a <filterref> (default: no) */
    struct hv_nwfilter_config nwf;
    unsigned int quarantine; /* freed objects kept poisoned (tests) */
    const struct hv_plugin_inst *seclock, *namesearch; /* NULL: default */
};

struct hv_virt_info {
    char name[HV_VIRT_NAME_MAX];
    unsigned char uuid[HV_VIRT_UUID_LEN];
    enum hv_vobj_state state;
    int id;
};

/* Defaults: the seed's costs scaled 1/100 (hv/toolstack/virt_qemu.c). */
void hv_virt_config_init(struct hv_virt_config *cfg);

/* 0, -EINVAL with @err, -ENOMEM. */
int HV_MUST_CHECK hv_virt_create(const struct hv_virt_config *cfg,
                                 struct hv_virt **out, char *err, size_t len);
void hv_virt_destroy(struct hv_virt *v);

int HV_MUST_CHECK hv_virt_define(struct hv_virt *v, const char *name,
                                 const unsigned char *uuid);
int HV_MUST_CHECK hv_virt_undefine(struct hv_virt *v,
                                   const unsigned char *uuid);
int HV_MUST_CHECK hv_virt_start(struct hv_virt *v, const unsigned char *uuid);
int HV_MUST_CHECK hv_virt_stop(struct hv_virt *v, const unsigned char *uuid);

/* 0 or -ENOENT. */
int HV_MUST_CHECK hv_virt_lookup_uuid(struct hv_virt *v,
                                      const unsigned char *uuid,
                                      struct hv_virt_info *out);
int HV_MUST_CHECK hv_virt_lookup_name(struct hv_virt *v, const char *name,
                                      struct hv_virt_info *out);
int HV_MUST_CHECK hv_virt_lookup_id(struct hv_virt *v, int id,
                                    struct hv_virt_info *out);

struct hv_vobjlist *hv_virt_list(struct hv_virt *v);
struct hv_secmgr *hv_virt_secmgr(struct hv_virt *v);
/* NULL unless cfg->nwfilter. */
struct hv_nwfilter *hv_virt_nwfilter(struct hv_virt *v);

/*
 * One VM's API call as a libvirtd worker runs it (hv_rpc_call's fn and
 * arg, virt_rpc.h): @arg is a struct hv_virt_req.  E.g. a client fills
 * {v, "vm-7", uuid} and submits {.fn = hv_virt_req_define, .arg = &req}.
 */
struct hv_virt_req {
    struct hv_virt *v;
    char name[HV_VIRT_NAME_MAX];
    unsigned char uuid[HV_VIRT_UUID_LEN];
};

int hv_virt_req_define(void *arg);
int hv_virt_req_undefine(void *arg);
int hv_virt_req_start(void *arg);
int hv_virt_req_stop(void *arg);
int hv_virt_req_lookup(void *arg); /* by UUID */

/* A UUID from @seed (distinct seeds, distinct UUIDs). */
void hv_virt_uuid(uint64_t seed, unsigned char *uuid);

#endif /* HV_VIRT_QEMU_H */
