/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libvirt QEMU driver (hv/virt_qemu.h): the API calls on the
 * domain-object list and the security manager.
 *
 * Default costs are the seed's figures for one VM scaled by 1/100 so that
 * a run takes seconds: define 13 ms -> 130 us; create 1.8 s -> 18 ms,
 * split into two label operations of 5 ms (GenLabel, SetAllLabel: the
 * helper is spawned for real, the rest is a modelled sleep) and an 8 ms
 * modelled QEMU start.  parallel-create calibrates them further on the
 * seed (GenLabel ~1 s, SetAllLabel without a helper: workloads/lib/
 * wl_virt.h).  The interface's filter (cfg->nwfilter) is off by default:
 * a workload turns it on and gives its modelled delay.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/virt_qemu.h>

struct hv_virt {
    struct hv_virt_config cfg;
    struct hv_vobjlist *list;
    struct hv_secmgr *sec;
    struct hv_nwfilter *nwf; /* NULL: no filter on the interface */
};

void hv_virt_config_init(struct hv_virt_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->define_us = 130;
    cfg->qemu_start_us = 8000;
    cfg->sec.helper = "/bin/true";
    cfg->sec.delay_us = 5000;
    cfg->sec.label_space = 4096;
    cfg->sec.setall_helper = true;
    cfg->nwf.shell = "/bin/sh";
}

int hv_virt_create(const struct hv_virt_config *cfg, struct hv_virt **out,
                   char *err, size_t len)
{
    struct hv_virt *v = calloc(1, sizeof(*v));
    int rc;

    *out = NULL;
    if ( v == NULL )
        return -ENOMEM;
    v->cfg = *cfg;
    rc = hv_vobjlist_create(cfg->namesearch, cfg->quarantine, &v->list, err,
                            len);
    if ( rc == 0 )
        rc = hv_secmgr_create(&cfg->sec, cfg->seclock, &v->sec, err, len);
    if ( rc == 0 && cfg->nwfilter )
        rc = hv_nwfilter_create(&cfg->nwf, &v->nwf, err, len);
    if ( rc )
    {
        hv_virt_destroy(v);
        return rc;
    }
    v->cfg.seclock = v->cfg.namesearch = NULL; /* not kept */
    v->cfg.sec.helper = v->cfg.nwf.shell = NULL;
    *out = v;
    return 0;
}

void hv_virt_destroy(struct hv_virt *v)
{
    if ( v == NULL )
        return;
    hv_vobjlist_destroy(v->list);
    hv_secmgr_destroy(v->sec);
    hv_nwfilter_destroy(v->nwf);
    free(v);
}

struct hv_vobjlist *hv_virt_list(struct hv_virt *v)
{
    return v->list;
}

struct hv_secmgr *hv_virt_secmgr(struct hv_virt *v)
{
    return v->sec;
}

struct hv_nwfilter *hv_virt_nwfilter(struct hv_virt *v)
{
    return v->nwf;
}

void hv_virt_uuid(uint64_t seed, unsigned char *uuid)
{
    uint64_t mix = (seed ^ 0x5DEECE66Dull) * 0x9E3779B97F4A7C15ull;

    memcpy(uuid, &seed, sizeof(seed));
    memcpy(uuid + sizeof(seed), &mix, sizeof(mix));
}

int hv_virt_define(struct hv_virt *v, const char *name,
                   const unsigned char *uuid)
{
    struct hv_vobj *obj;
    int rc;

    hv_virt_sleep_us(v->cfg.define_us); /* parse the XML: modelled */
    rc = hv_vobjlist_add(v->list, name, uuid, &obj);
    if ( rc == 0 )
        hv_vobj_end(obj);
    return rc;
}

static void finish(struct hv_vobj *obj)
{
    hv_vobj_end_job(obj);
    hv_vobj_end(obj);
}

/*
 * Look up by UUID and begin a job on a domain in state @want: the object
 * locked, or -ENOENT, or @wrong if it is in another state.
 */
static int begin(struct hv_virt *v, const unsigned char *uuid,
                 enum hv_vobj_state want, int wrong, struct hv_vobj **out)
{
    struct hv_vobj *obj = hv_vobjlist_find_by_uuid(v->list, uuid);
    int rc;

    *out = NULL;
    if ( obj == NULL )
        return -ENOENT;
    rc = hv_vobj_begin_job(obj);
    if ( rc )
    {
        hv_vobj_end(obj);
        return rc;
    }
    if ( obj->state != want )
    {
        finish(obj);
        return wrong;
    }
    *out = obj;
    return 0;
}

int hv_virt_undefine(struct hv_virt *v, const unsigned char *uuid)
{
    struct hv_vobj *obj;
    int rc = begin(v, uuid, HV_VOBJ_SHUTOFF, -EBUSY, &obj);

    if ( rc )
        return rc;
    hv_vobjlist_remove(v->list, obj);
    return 0;
}

/*
 * qemuProcessStart, reduced to its locking: GenLabel; qemuBuildCommandLine
 * instantiates the interface's filter (object still locked); SetAllLabel
 * after the fork; the object unlocked only while QEMU comes up.
 */
int hv_virt_start(struct hv_virt *v, const unsigned char *uuid)
{
    struct hv_vobj *obj;
    int rc = begin(v, uuid, HV_VOBJ_SHUTOFF, -EBUSY, &obj);

    if ( rc )
        return rc;
    rc = hv_secmgr_label(v->sec, obj, HV_LABEL_GEN);
    if ( rc == 0 )
    {
        if ( v->nwf != NULL )
            rc = hv_nwfilter_instantiate(v->nwf);
        if ( rc == 0 )
            rc = hv_secmgr_label(v->sec, obj, HV_LABEL_SETALL);
        if ( rc )
            (void)!hv_secmgr_label(v->sec, obj, HV_LABEL_RESTORE);
    }
    if ( rc == 0 )
    {
        /* QEMU starts, the monitor answers: the object lock is released. */
        obj->state = HV_VOBJ_STARTING;
        hv_mutex_unlock(&obj->lock);
        hv_virt_sleep_us(v->cfg.qemu_start_us);
        hv_mutex_lock(&obj->lock);
        obj->id = hv_vobjlist_next_id(v->list);
        obj->state = HV_VOBJ_RUNNING;
    }
    finish(obj);
    return rc;
}

int hv_virt_stop(struct hv_virt *v, const unsigned char *uuid)
{
    struct hv_vobj *obj;
    int rc = begin(v, uuid, HV_VOBJ_RUNNING, -EINVAL, &obj);

    if ( rc )
        return rc;
    rc = hv_secmgr_label(v->sec, obj, HV_LABEL_RESTORE);
    obj->state = HV_VOBJ_SHUTOFF;
    obj->id = -1;
    finish(obj);
    return rc;
}

static int info(struct hv_vobj *obj, struct hv_virt_info *out)
{
    if ( obj == NULL )
        return -ENOENT;
    memcpy(out->name, obj->name, sizeof(out->name));
    memcpy(out->uuid, obj->uuid, sizeof(out->uuid));
    out->state = obj->state;
    out->id = obj->id;
    hv_vobj_end(obj);
    return 0;
}

int hv_virt_lookup_uuid(struct hv_virt *v, const unsigned char *uuid,
                        struct hv_virt_info *out)
{
    return info(hv_vobjlist_find_by_uuid(v->list, uuid), out);
}

int hv_virt_lookup_name(struct hv_virt *v, const char *name,
                        struct hv_virt_info *out)
{
    return info(hv_vobjlist_find_by_name(v->list, name), out);
}

int hv_virt_lookup_id(struct hv_virt *v, int id, struct hv_virt_info *out)
{
    return info(hv_vobjlist_find_by_id(v->list, id), out);
}

int hv_virt_req_define(void *arg)
{
    struct hv_virt_req *r = arg;

    return hv_virt_define(r->v, r->name, r->uuid);
}

int hv_virt_req_undefine(void *arg)
{
    struct hv_virt_req *r = arg;

    return hv_virt_undefine(r->v, r->uuid);
}

int hv_virt_req_start(void *arg)
{
    struct hv_virt_req *r = arg;

    return hv_virt_start(r->v, r->uuid);
}

int hv_virt_req_stop(void *arg)
{
    struct hv_virt_req *r = arg;

    return hv_virt_stop(r->v, r->uuid);
}

int hv_virt_req_lookup(void *arg)
{
    struct hv_virt_req *r = arg;
    struct hv_virt_info info;

    return hv_virt_lookup_uuid(r->v, r->uuid, &info);
}
