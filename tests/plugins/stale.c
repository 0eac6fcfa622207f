/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * namesearch/stale: the negative control of the namesearch slot.  A ring
 * of copied names searched newest first, whose remove hook forgets to
 * remove: after an undefine, a search for that name returns the removed
 * object, which may already be freed.
 *
 *   undefine "vm1": unlinked from the UUID hash, last ref -> freed
 *   define "vm1" / lookup "vm1": the ring still says obj(vm1): freed
 *
 * The list checks every object a strategy returns (its magic, poisoned
 * on free and kept by the quarantine; under ASan, ASan sees the access),
 * and the torture checks define's EEXIST against what it defined; if
 * neither fires, those checks prove nothing.  Test-only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hv/namesearch.h>
#include <hv/virt_domobj.h>

#define RING 4096

struct stale {
    unsigned int next;
    struct {
        char name[HV_VIRT_NAME_MAX];
        struct hv_vobj *obj;
    } e[RING];
};

static int stale_init(const void *opts, void **priv)
{
    *priv = calloc(1, sizeof(struct stale));
    return *priv ? 0 : -ENOMEM;
}

static void stale_fini(void *priv)
{
    free(priv);
}

static int stale_add(void *priv, struct hv_vobj *obj)
{
    struct stale *s = priv;
    unsigned int i = s->next++ % RING;

    memcpy(s->e[i].name, obj->name, sizeof(s->e[i].name));
    s->e[i].obj = obj;
    return 0;
}

/* THE BUG: the entry stays. */
static void stale_remove(void *priv, struct hv_vobj *obj)
{
}

static struct hv_vobj *stale_find(void *priv, struct hv_vobjlist *l,
                                  const char *name)
{
    struct stale *s = priv;
    unsigned int n;

    for ( n = 1; n <= RING && n <= s->next; n++ )
    {
        unsigned int i = (s->next - n) % RING;

        if ( strcmp(s->e[i].name, name) == 0 )
            return s->e[i].obj;
    }
    return NULL;
}

static const struct hv_namesearch_ops stale_ops = {
    .hdr =
        {
            HV_PLUGIN_HDR("namesearch", "stale", struct hv_namesearch_ops),
            .flags = HV_PF_TEST_ONLY,
            .summary = "NEGATIVE CONTROL: a name index that never forgets "
                       "(tests only)",
        },
    .init = stale_init,
    .fini = stale_fini,
    .add = stale_add,
    .remove = stale_remove,
    .find = stale_find,
};

HV_REGISTER_PLUGIN(stale_ops);
