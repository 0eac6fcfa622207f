/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The plugin registry: built-in plugins found in the "hv_plugins" linker
 * section, external ones loaded with dlopen(), every one validated once
 * (magic first, then ABI; for a .so, that the header's ops struct,
 * strings and option table lie in its loaded segments; then size, slot,
 * name, options, mandatory hooks) and looked up by slot and name.
 * Unknown names are errors that list the valid ones; nothing ever falls
 * back to a default.  Option values are
 * read by the option engine (hv/opt.h), as workload params are: the
 * spec "percpu-ref:ncpus=010" resolves to spec "percpu-ref:ncpus=10"
 * (every option, canonical) and label "percpu-ref:ncpus=10" (the options
 * given: what cell names show).
 *
 * The registry is process-wide, like the linker section it starts from;
 * model instances (struct hv) hold no reference to it beyond the const
 * headers, which live until exit (dlopen handles are never closed).
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/opt.h>
#include <hv/plugin_registry.h>
#include <hv/strbuf.h>
#include <hv/suggest.h>

extern const struct hv_plugin_hdr *const __start_hv_plugins[]
    __attribute__((weak));
extern const struct hv_plugin_hdr *const __stop_hv_plugins[]
    __attribute__((weak));

#define MAX_PLUGINS 128
/* The most headers one shared object's list may hold. */
#define MAX_ENTRY_LIST MAX_PLUGINS

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct hv_plugin_hdr *registry[MAX_PLUGINS];
static const char *registry_origin[MAX_PLUGINS];
static unsigned int nr_registered;
static bool builtins_done;
static int builtins_rc;
static char builtins_err[256];

/* "plugin SLOT/NAME": the owner of an option, in the engine's messages. */
static void owner_of(const struct hv_plugin_hdr *h, char *buf, size_t len)
{
    snprintf(buf, len, "plugin %s/%s", h->slot, h->name);
}

/* Check one header; @origin names it in messages. */
static int validate(const struct hv_plugin_hdr *h, const char *origin,
                    char *err, size_t len)
{
    const struct hv_slot *slot;
    char owner[128], why[512];
    void *scratch;
    int rc;

    if ( h == NULL || h->magic != HV_PLUGIN_MAGIC )
    {
        snprintf(err, len, "%s: not an hvbench plugin (bad magic)", origin);
        return -ENOEXEC;
    }
    if ( h->abi_version == 0 || h->abi_version > HV_PLUGIN_ABI_VERSION )
    {
        snprintf(err, len, "%s: plugin ABI version %u, this hvbench speaks %u",
                 origin, h->abi_version, HV_PLUGIN_ABI_VERSION);
        return -EPROTO;
    }
    if ( h->slot == NULL || (slot = hv_slot_find(h->slot)) == NULL )
    {
        snprintf(err, len, "%s: unknown slot '%s'", origin,
                 h->slot ? h->slot : "(null)");
        return -EINVAL;
    }
    if ( h->ops_size < slot->min_ops_size )
    {
        snprintf(err, len, "%s: ops size %u < %zu for slot %s", origin,
                 h->ops_size, slot->min_ops_size, h->slot);
        return -EPROTO;
    }
    if ( !hv_name_ok(h->name, "-") || h->summary == NULL )
    {
        snprintf(err, len,
                 "%s: plugin needs a name of [a-z0-9-] and a "
                 "summary",
                 origin);
        return -EINVAL;
    }
    if ( slot->validate(h, err, len) )
    {
        snprintf(why, sizeof(why), "%s", err);
        snprintf(err, len, "%s: %s", origin, why);
        return -EINVAL;
    }
    if ( h->opts == NULL )
        return 0;

    scratch = calloc(1, h->opts_size ? h->opts_size : 1);
    if ( scratch == NULL )
        return -ENOMEM;
    owner_of(h, owner, sizeof(owner));
    rc = hv_opt_defaults(h->opts, scratch, h->opts_size, "option", owner, why,
                         sizeof(why));
    if ( rc )
        snprintf(err, len, "%s: %s", origin, why);
    free(scratch);
    return rc;
}

/* reg_lock held. */
static int add_locked(const struct hv_plugin_hdr *h, const char *origin,
                      char *err, size_t len)
{
    unsigned int i;

    for ( i = 0; i < nr_registered; i++ )
        if ( registry[i] == h )
            return 0; /* the same object loaded again */
    for ( i = 0; i < nr_registered; i++ )
        if ( strcmp(registry[i]->slot, h->slot) == 0 &&
             strcmp(registry[i]->name, h->name) == 0 )
        {
            snprintf(err, len, "%s: plugin %s/%s already registered by %s",
                     origin, h->slot, h->name, registry_origin[i]);
            return -EEXIST;
        }
    if ( nr_registered == MAX_PLUGINS )
    {
        snprintf(err, len, "%s: too many plugins", origin);
        return -ENOSPC;
    }
    registry_origin[nr_registered] = origin;
    registry[nr_registered++] = h;
    return 0;
}

/* reg_lock held. */
static void builtins_locked(void)
{
    const struct hv_plugin_hdr *const *p;

    if ( builtins_done )
        return;
    builtins_done = true;
    if ( __start_hv_plugins == NULL )
        return;
    for ( p = __start_hv_plugins; p < __stop_hv_plugins; p++ )
    {
        char name[64];

        snprintf(name, sizeof(name), "built-in %s/%s",
                 *p && (*p)->slot ? (*p)->slot : "?",
                 *p && (*p)->name ? (*p)->name : "?");
        builtins_rc = validate(*p, name, builtins_err, sizeof(builtins_err));
        if ( builtins_rc == 0 )
            builtins_rc =
                add_locked(*p, "built-in", builtins_err, sizeof(builtins_err));
        if ( builtins_rc )
            return;
    }
}

int hv_plugin_registry_init(char *err, size_t len)
{
    int rc;

    pthread_mutex_lock(&reg_lock);
    builtins_locked();
    rc = builtins_rc;
    if ( rc )
        snprintf(err, len, "%s", builtins_err);
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

const struct hv_plugin_hdr *hv_plugin_at(unsigned int i)
{
    const struct hv_plugin_hdr *h;

    pthread_mutex_lock(&reg_lock);
    builtins_locked();
    h = i < nr_registered ? registry[i] : NULL;
    pthread_mutex_unlock(&reg_lock);
    return h;
}

const struct hv_plugin_hdr *hv_plugin_find(const char *slot, const char *name)
{
    const struct hv_plugin_hdr *h;
    unsigned int i;

    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
        if ( strcmp(h->slot, slot) == 0 && strcmp(h->name, name) == 0 )
            return h;
    return NULL;
}

void hv_plugin_names(const char *slot, bool with_test_only, char *buf,
                     size_t len)
{
    const struct hv_plugin_hdr *h;
    struct hv_strbuf b;
    unsigned int i;

    hv_strbuf_init(&b, buf, len);
    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
    {
        if ( strcmp(h->slot, slot) != 0 ||
             (!with_test_only && (h->flags & HV_PF_TEST_ONLY)) )
            continue;
        hv_strbuf_join(&b, ", ", "%s", h->name);
    }
}

/* "; did you mean 'NAME'?" for the plugin of @slot closest to @name. */
static const char *plugin_suggest(const char *slot, const char *name,
                                  bool with_test_only, char *buf,
                                  unsigned int len)
{
    const struct hv_plugin_hdr *h;
    struct hv_suggest sg;
    unsigned int i;

    hv_suggest_init(&sg, name);
    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
        if ( strcmp(h->slot, slot) == 0 &&
             (with_test_only || !(h->flags & HV_PF_TEST_ONLY)) )
            hv_suggest_add(&sg, h->name);
    return hv_suggest_fmt(&sg, buf, len);
}

/* The readable PT_LOAD segments of one loaded object. */
#define MAX_SEGS 16
struct obj_segs {
    uintptr_t probe; /* an address in the object (its entry point) */
    unsigned int nr;
    struct {
        uintptr_t lo, hi;
    } seg[MAX_SEGS];
};

static int find_segs(struct dl_phdr_info *info, size_t size, void *data)
{
    struct obj_segs *o = data;
    unsigned int i, n = 0;
    bool mine = false;

    (void)size;
    for ( i = 0; i < info->dlpi_phnum; i++ )
    {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

        if ( ph->p_type != PT_LOAD )
            continue;
        mine |= o->probe >= lo && o->probe < hi;
        if ( (ph->p_flags & PF_R) && n < MAX_SEGS )
        {
            o->seg[n].lo = lo;
            o->seg[n].hi = hi;
            n++;
        }
    }
    if ( !mine )
        return 0;
    o->nr = n;
    return 1;
}

/* The bytes readable from @p to the end of its segment; 0 if outside. */
static size_t seg_room(const struct obj_segs *o, const void *p)
{
    uintptr_t a = (uintptr_t)p;
    unsigned int i;

    for ( i = 0; i < o->nr; i++ )
        if ( a >= o->seg[i].lo && a < o->seg[i].hi )
            return o->seg[i].hi - a;
    return 0;
}

/* Does [p, p + n) lie, pointer-aligned, in a readable segment of @o? */
static bool in_object(const struct obj_segs *o, const void *p, size_t n)
{
    if ( p == NULL || ((uintptr_t)p & (sizeof(void *) - 1)) )
        return false;
    return seg_room(o, p) >= n;
}

/* Is @s NULL or a string that ends within a readable segment of @o? */
static bool str_ok(const struct obj_segs *o, const char *s)
{
    size_t room = s ? seg_room(o, s) : 0;

    return s == NULL || (room && memchr(s, '\0', room) != NULL);
}

/* The most option rows one header's table may have. */
#define MAX_OPT_ROWS 1024

/*
 * A header with the right magic and ABI is read by validate() and the
 * registry: its ops struct, its strings and its option table must lie
 * in the object first (a wild slot or name pointer was SIGSEGV).  The
 * rest (NULL fields, names, sizes) is validate()'s.
 */
static int check_fields(const struct obj_segs *o, const char *path,
                        unsigned int i, const struct hv_plugin_hdr *h,
                        char *err, size_t len)
{
    const char *bad = NULL;
    const struct hv_opt *r;
    char row[48];
    unsigned int k;

    if ( h->magic != HV_PLUGIN_MAGIC || h->abi_version == 0 ||
         h->abi_version > HV_PLUGIN_ABI_VERSION )
        return 0; /* validate() says which */
    if ( !in_object(o, h, h->ops_size > sizeof(*h) ? h->ops_size : sizeof(*h)) )
        bad = "ops struct (ops_size bytes)";
    else if ( !str_ok(o, h->slot) )
        bad = "slot string";
    else if ( !str_ok(o, h->name) )
        bad = "name string";
    else if ( !str_ok(o, h->summary) )
        bad = "summary string";
    for ( r = h->opts, k = 0; !bad && r != NULL; r++, k++ )
    {
        if ( k == MAX_OPT_ROWS || !in_object(o, r, sizeof(*r)) )
            bad = "option table";
        else if ( r->name == NULL )
            break;
        else if ( !str_ok(o, r->name) || !str_ok(o, r->def) ||
                  !str_ok(o, r->help) || !str_ok(o, r->choices) )
        {
            snprintf(row, sizeof(row), "option row %u's text", k);
            bad = row;
        }
    }
    if ( bad == NULL )
        return 0;
    snprintf(err, len,
             "%s: %s()'s header %u: its %s is not inside the plugin's "
             "loaded segments",
             path, HV_PLUGIN_ENTRY_SYMBOL, i, bad);
    return -ENOEXEC;
}

/*
 * What an entry point returned is read only once it is known to be a
 * NULL-ended list, in the object, of headers in the object whose
 * pointers lie in the object: a plugin that returns &ops.hdr instead of
 * a list (its magic read as a pointer) used to crash the loader.
 */
static int check_list(const char *path, hv_plugin_entry_fn entry,
                      const struct hv_plugin_hdr *const *list, char *err,
                      size_t len)
{
    struct obj_segs o = {.probe = (uintptr_t) * (void **)&entry};
    unsigned int i;
    int rc;

    if ( !dl_iterate_phdr(find_segs, &o) )
    {
        snprintf(err, len, "%s: cannot locate %s()", path,
                 HV_PLUGIN_ENTRY_SYMBOL);
        return -ENOEXEC;
    }
    if ( list == NULL || !in_object(&o, list, sizeof(*list)) )
    {
        snprintf(err, len, "%s: %s() returned %s", path, HV_PLUGIN_ENTRY_SYMBOL,
                 list ? "a pointer outside the plugin" : "no plugin");
        return -ENOEXEC;
    }
    if ( *(const uint32_t *)list == HV_PLUGIN_MAGIC )
    {
        snprintf(err, len,
                 "%s: %s() returned a plugin header, not a NULL-ended list "
                 "of header pointers (use HV_REGISTER_PLUGIN())",
                 path, HV_PLUGIN_ENTRY_SYMBOL);
        return -ENOEXEC;
    }
    for ( i = 0; i < MAX_ENTRY_LIST; i++ )
    {
        if ( !in_object(&o, &list[i], sizeof(*list)) )
            break;
        if ( list[i] == NULL && i > 0 )
            return 0;
        if ( list[i] == NULL )
        {
            snprintf(err, len, "%s: %s() returned no plugin", path,
                     HV_PLUGIN_ENTRY_SYMBOL);
            return -ENOEXEC;
        }
        if ( !in_object(&o, list[i], sizeof(*list[i])) )
        {
            snprintf(err, len,
                     "%s: %s()'s entry %u points outside the plugin: not a "
                     "NULL-ended list of header pointers",
                     path, HV_PLUGIN_ENTRY_SYMBOL, i);
            return -ENOEXEC;
        }
        rc = check_fields(&o, path, i, list[i], err, len);
        if ( rc )
            return rc;
    }
    snprintf(err, len,
             "%s: %s()'s list has no NULL end within %u entries in the "
             "plugin",
             path, HV_PLUGIN_ENTRY_SYMBOL, i);
    return -ENOEXEC;
}

int hv_plugin_load(const char *path, const struct hv_plugin_hdr **out,
                   char *err, size_t len)
{
    const struct hv_plugin_hdr *const *list;
    hv_plugin_entry_fn entry;
    unsigned int before;
    char *origin;
    void *dl;
    int rc = 0;

    dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if ( dl == NULL )
    {
        snprintf(err, len, "cannot load plugin %s: %s", path, dlerror());
        return -ENOENT;
    }
    *(void **)&entry = dlsym(dl, HV_PLUGIN_ENTRY_SYMBOL);
    if ( entry == NULL )
    {
        snprintf(err, len, "%s: no %s() symbol: not an hvbench plugin", path,
                 HV_PLUGIN_ENTRY_SYMBOL);
        return -ENOEXEC; /* handle kept: never dlclose */
    }
    list = entry();
    rc = check_list(path, entry, list, err, len);
    if ( rc )
        return rc;
    origin = strdup(path); /* lives as long as the registry */
    if ( origin == NULL )
        return -ENOMEM;
    pthread_mutex_lock(&reg_lock);
    builtins_locked();
    before = nr_registered;
    for ( ; *list != NULL && rc == 0; list++ )
    {
        rc = validate(*list, path, err, len);
        if ( rc == 0 )
            rc = add_locked(*list, origin, err, len);
        if ( rc == 0 && *out == NULL )
            *out = *list;
    }
    /* Kept only if a header registered with it (not on a reload). */
    if ( nr_registered == before )
        free(origin);
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

static const char *origin_of(const struct hv_plugin_hdr *h)
{
    const char *o = "built-in";
    unsigned int i;

    pthread_mutex_lock(&reg_lock);
    for ( i = 0; i < nr_registered; i++ )
        if ( registry[i] == h )
            o = registry_origin[i];
    pthread_mutex_unlock(&reg_lock);
    return o;
}

/*
 * "name:k=v:..." from parsed @opts, canonical values in table order:
 * every option, or (@given not NULL) those marked in @given.
 */
static char *canonical_spec(const struct hv_plugin_hdr *h, const void *opts,
                            const unsigned char *given)
{
    const struct hv_opt *o;
    struct hv_opt_val v;
    struct hv_strbuf b;
    size_t len = 256;
    char *s;

    for ( o = h->opts; o && o->name; o++ )
        len += strlen(o->name) + sizeof(v.text) + 2;
    s = malloc(len);
    if ( s == NULL )
        return NULL;
    hv_strbuf_init(&b, s, len);
    hv_strbuf_add(&b, "%s", h->name);
    for ( o = h->opts; o && o->name; o++ )
    {
        if ( given != NULL && !given[o - h->opts] )
            continue;
        hv_opt_load(o, opts, &v);
        hv_strbuf_add(&b, ":%s=%s", o->name, v.text);
    }
    return s;
}

/* "unknown slot 'x' (valid: ...)", with the closest name.  -EINVAL. */
static int unknown_slot(const char *slot, char *err, size_t len)
{
    const struct hv_slot *s;
    struct hv_suggest sg;
    struct hv_strbuf b;
    unsigned int i;
    char names[512], dym[96];

    hv_strbuf_init(&b, names, sizeof(names));
    hv_suggest_init(&sg, slot);
    for ( i = 0; (s = hv_slot_at(i)) != NULL; i++ )
    {
        hv_strbuf_join(&b, ", ", "%s", s->name);
        hv_suggest_add(&sg, s->name);
    }
    snprintf(err, len, "unknown slot '%s' (valid: %s)%s", slot, names,
             hv_suggest_fmt(&sg, dym, sizeof(dym)));
    return -EINVAL;
}

/*
 * The plugin @name names in @slot: a path or a name ending in ".so" is
 * loaded, anything else is a registered plugin's name (a test-only one
 * only if @allow_test_only).  0 and *@out, or -errno.
 */
static int find_plugin(const char *slot, const char *name, bool allow_test_only,
                       const struct hv_plugin_hdr **out, char *err, size_t len)
{
    const struct hv_plugin_hdr *h = NULL;
    char names[512], dym[96];
    int rc;

    if ( strchr(name, '/') ||
         (strlen(name) > 3 && !strcmp(name + strlen(name) - 3, ".so")) )
    {
        rc = hv_plugin_load(name, &h, err, len);
        if ( rc == 0 && strcmp(h->slot, slot) != 0 )
        {
            snprintf(err, len, "%s is a %s plugin, not a %s plugin", name,
                     h->slot, slot);
            rc = -EINVAL;
        }
        *out = h;
        return rc;
    }
    h = hv_plugin_find(slot, name);
    if ( h != NULL && (h->flags & HV_PF_TEST_ONLY) && !allow_test_only )
        h = NULL;
    if ( h == NULL )
    {
        hv_plugin_names(slot, allow_test_only, names, sizeof(names));
        snprintf(err, len, "unknown plugin '%s' for slot %s (valid: %s)%s",
                 name, slot, names,
                 plugin_suggest(slot, name, allow_test_only, dym, sizeof(dym)));
        return -EINVAL;
    }
    *out = h;
    return 0;
}

/*
 * One "OPTION=VALUE" of @spec (@kv, split in place) into @inst's
 * options; @seen counts each option's, so none is given twice.
 */
static int set_option(const char *slot, const char *spec, char *kv,
                      struct hv_plugin_inst *inst, unsigned char *seen,
                      const char *owner, char *err, size_t len)
{
    const struct hv_plugin_hdr *h = inst->hdr;
    const struct hv_opt *o;
    char names[512], *eq = strchr(kv, '=');

    if ( eq )
        *eq++ = '\0';
    for ( o = h->opts; o && o->name; o++ )
        if ( strcmp(o->name, kv) == 0 )
            break;
    if ( *kv == '\0' )
    {
        snprintf(err, len,
                 "plugin spec '%s' has an empty option (a ':' with no "
                 "OPTION=VALUE after it)",
                 spec);
        return -EINVAL;
    }
    if ( o == NULL || o->name == NULL )
    {
        hv_opt_names(h->opts, names, sizeof(names));
        snprintf(err, len,
                 "unknown option '%s' for plugin %s/%s "
                 "(valid: %s)",
                 kv, slot, h->name, names);
        return -EINVAL;
    }
    if ( eq == NULL )
    {
        snprintf(err, len,
                 "option %s of plugin %s/%s needs a value "
                 "(%s=VALUE)",
                 kv, slot, h->name, kv);
        return -EINVAL;
    }
    if ( seen[o - h->opts]++ )
    {
        snprintf(err, len, "plugin spec '%s' sets option %s twice", spec, kv);
        return -EINVAL;
    }
    return hv_opt_set(o, eq, inst->opts, "option", owner, err, len);
}

/*
 * @inst's options: every default, then each of @rest's ':'-separated
 * "OPTION=VALUE" (split in place).  *@seen (free() it) marks the options
 * given, once each ("a:n=1:n=2" would let the last win).
 */
static int set_options(const char *slot, const char *spec, char *rest,
                       struct hv_plugin_inst *inst, unsigned char **seen,
                       char *err, size_t len)
{
    const struct hv_plugin_hdr *h = inst->hdr;
    const struct hv_opt *o;
    char owner[128], *kv;
    int rc = 0;

    owner_of(h, owner, sizeof(owner));
    for ( o = h->opts; o && o->name && rc == 0; o++ )
        rc = hv_opt_set(o, o->def, inst->opts, "option", owner, err, len);
    *seen = calloc(hv_opt_count(h->opts) + 1, 1);
    if ( *seen == NULL && rc == 0 )
        rc = -ENOMEM;
    while ( rc == 0 && rest )
    {
        kv = rest;
        rest = strchr(rest, ':');
        if ( rest )
            *rest++ = '\0';
        rc = set_option(slot, spec, kv, inst, *seen, owner, err, len);
    }
    return rc;
}

/* @inst's spec (every option), label (those @given) and origin. */
static int name_inst(struct hv_plugin_inst *inst, const unsigned char *given)
{
    inst->spec = canonical_spec(inst->hdr, inst->opts, NULL);
    inst->label = canonical_spec(inst->hdr, inst->opts, given);
    inst->origin = strdup(origin_of(inst->hdr));
    if ( inst->spec == NULL || inst->label == NULL || inst->origin == NULL )
        return -ENOMEM;
    return 0;
}

int hv_plugin_resolve(const char *slot, const char *spec, bool allow_test_only,
                      struct hv_plugin_inst *inst, char *err, size_t len)
{
    const struct hv_plugin_hdr *h = NULL;
    unsigned char *seen = NULL;
    char *copy, *rest;
    int rc;

    memset(inst, 0, sizeof(*inst));
    if ( hv_slot_find(slot) == NULL )
        return unknown_slot(slot, err, len);
    rc = hv_plugin_registry_init(err, len);
    if ( rc )
        return rc;
    copy = strdup(spec); /* "name:k=v:...", split in place */
    if ( copy == NULL )
        return -ENOMEM;
    rest = strchr(copy, ':');
    if ( rest )
        *rest++ = '\0';
    rc = find_plugin(slot, copy, allow_test_only, &h, err, len);
    if ( rc == 0 )
    {
        inst->hdr = h;
        if ( h->opts_size && (inst->opts = calloc(1, h->opts_size)) == NULL )
            rc = -ENOMEM;
    }
    if ( rc == 0 )
        rc = set_options(slot, spec, rest, inst, &seen, err, len);
    if ( rc == 0 )
        rc = name_inst(inst, seen);
    free(seen);
    free(copy);
    if ( rc )
        hv_plugin_inst_free(inst);
    return rc;
}

void hv_plugin_inst_free(struct hv_plugin_inst *inst)
{
    free(inst->opts);
    free(inst->spec);
    free(inst->origin);
    free(inst->label);
    memset(inst, 0, sizeof(*inst));
}

int hv_plugin_inst_copy(struct hv_plugin_inst *dst,
                        const struct hv_plugin_inst *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->hdr = src->hdr;
    if ( src->hdr == NULL )
        return 0;
    if ( src->hdr->opts_size )
    {
        dst->opts = malloc(src->hdr->opts_size);
        if ( dst->opts == NULL )
            goto nomem;
        memcpy(dst->opts, src->opts, src->hdr->opts_size);
    }
    dst->spec = src->spec ? strdup(src->spec) : NULL;
    dst->origin = src->origin ? strdup(src->origin) : NULL;
    dst->label = src->label ? strdup(src->label) : NULL;
    if ( (src->spec && !dst->spec) || (src->origin && !dst->origin) ||
         (src->label && !dst->label) )
        goto nomem;
    return 0;
nomem:
    hv_plugin_inst_free(dst);
    return -ENOMEM;
}
