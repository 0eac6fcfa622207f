/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench list [plugins|workloads|slots|counters [--events E,...]] [--json]":
 * what can be run and switched, as text or JSON on stdout.  Negative-control plugins
 * (HV_PF_TEST_ONLY) are not listed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <hv/opt.h>
#include <hv/plugin.h>
#include <hv/plugin_registry.h>
#include <hvb/cli.h>
#include <hvb/env.h>
#include <hvb/meter.h>
#include <hvb/registry.h>

/* One list command line being read. */
struct list_args {
    struct hvb_perfev_list ev;
    bool json, events;
};

static bool opt_events(void *st, const char *opt, const char *val)
{
    struct list_args *l = st;
    char err[512];

    (void)opt;
    if ( hvb_perfev_add_list(&l->ev, val, err, sizeof(err)) )
    {
        hvb_usage_error("%s", err);
        return false;
    }
    l->events = true;
    return true;
}

static const struct hvb_optdef list_opts[] = {
    HVB_OPT_SET("json", 0, struct list_args, json, "one JSON object on stdout"),
    HVB_OPT_CALL("events", 0, "E[,E...]", opt_events,
                 "also probe these perf events as 'run --events' would (see "
                 "'hvbench run --help')"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};

enum what {
    LIST_SLOTS = 1u << 0,
    LIST_PLUGINS = 1u << 1,
    LIST_WORKLOADS = 1u << 2,
    LIST_COUNTERS = 1u << 3,
};

const struct hvb_cmd_doc hvb_doc_list = {
    .usage = "list [plugins|workloads|slots|counters] [--json]\n"
             "list counters --events E[,E...] [--json]",
    .text = "List the slots (switchable strategy points of the model), the\n"
            "plugins of each slot with their options, and the workloads with\n"
            "the slots they exercise and their parameters.  Without a topic,\n"
            "list these three.  'counters' probes this machine: which per-op\n"
            "counters a run would record, and why any is unavailable.",
    .opts = list_opts,
};

/* Visible plugins, by slot order then name; malloc'd, NULL-terminated. */
static const struct hv_plugin_hdr **visible_plugins(const char *slot)
{
    const struct hv_plugin_hdr *h, **v;
    size_t n = 0, i, j;

    for ( i = 0; hv_plugin_at((unsigned int)i) != NULL; i++ )
        ;
    v = calloc(i + 1, sizeof(*v));
    if ( v == NULL )
        return NULL;
    for ( i = 0; (h = hv_plugin_at((unsigned int)i)) != NULL; i++ )
    {
        if ( (h->flags & HV_PF_TEST_ONLY) || strcmp(h->slot, slot) != 0 )
            continue;
        for ( j = n; j > 0 && strcmp(v[j - 1]->name, h->name) > 0; j-- )
            v[j] = v[j - 1];
        v[j] = h;
        n++;
    }
    return v;
}

/* ---- text ---- */

static int text_slots(FILE *f)
{
    const struct hv_slot *s;
    char names[512];
    unsigned int i;

    fprintf(f, "slots:\n");
    for ( i = 0; (s = hv_slot_at(i)) != NULL; i++ )
    {
        hv_plugin_names(s->name, false, names, sizeof(names));
        fprintf(f, "  %-12s %s\n", s->name, s->summary);
        fprintf(f, "  %-12s default %s; plugins: %s\n", "",
                s->default_plugin ? s->default_plugin : "(none)", names);
    }
    return 0;
}

static int text_plugins(FILE *f)
{
    const struct hv_plugin_hdr **v;
    const struct hv_opt *o;
    const struct hv_slot *s;
    char range[256];
    unsigned int i;
    size_t k;

    fprintf(f, "plugins:\n");
    for ( i = 0; (s = hv_slot_at(i)) != NULL; i++ )
    {
        v = visible_plugins(s->name);
        if ( v == NULL )
            return -1;
        for ( k = 0; v[k] != NULL; k++ )
        {
            fprintf(
                f, "  %s=%-12s %s%s%s\n", s->name, v[k]->name, v[k]->summary,
                s->default_plugin && strcmp(s->default_plugin, v[k]->name) == 0
                    ? " [default]"
                    : "",
                (v[k]->flags & HV_PF_NO_CHURN) ? " [unsafe with churn]" : "");
            for ( o = v[k]->opts; o != NULL && o->name != NULL; o++ )
            {
                hv_opt_range(o, range, sizeof(range));
                fprintf(f, "      :%s=<%s>  %s, default %s  %s\n", o->name,
                        hv_opt_type_name(o->type), range, o->def, o->help);
            }
        }
        free(v);
    }
    return 0;
}

static int text_workloads(FILE *f)
{
    const struct hvb_workload *w;
    const struct hv_opt *p;
    char range[256], slots[256];
    size_t i;

    fprintf(f, "workloads:\n");
    for ( i = 0; (w = hvb_workload_at(i)) != NULL; i++ )
    {
        hvb_workload_slot_names(w, slots, sizeof(slots));
        fprintf(f, "  %-14s %s, %s%s\n", w->name,
                w->kind == HVB_MACRO ? "macro" : "micro", w->summary,
                (w->flags & HVB_WF_ONE_SHOT) ? " [one iteration per repetition]"
                                             : "");
        fprintf(f, "  %-14s slots: %s\n", "", slots);
        for ( p = w->params; p != NULL && p->name != NULL; p++ )
        {
            hv_opt_range(p, range, sizeof(range));
            fprintf(f, "      %s=<%s>  %s, default %s  %s\n", p->name,
                    hv_opt_type_name(p->type), range, p->def, p->help);
        }
    }
    return 0;
}

/* ---- JSON ---- */

/* One option or parameter row: name, type, default, help, range. */
static json_t *json_opt(const struct hv_opt *o)
{
    json_t *x = json_object();

    json_object_set_new(x, "name", json_string(o->name));
    json_object_set_new(x, "type", json_string(hv_opt_type_name(o->type)));
    json_object_set_new(x, "default", json_string(o->def));
    json_object_set_new(x, "help", json_string(o->help));
    if ( o->type == HV_OPT_UINT || o->type == HV_OPT_U64 )
    {
        json_object_set_new(x, "min", json_integer((json_int_t)o->min));
        json_object_set_new(x, "max",
                            o->max > (uint64_t)INT64_MAX
                                ? json_null()
                                : json_integer((json_int_t)o->max));
    }
    else if ( o->type == HV_OPT_ENUM || o->type == HV_OPT_STR )
        json_object_set_new(x, "choices",
                            json_string(o->choices ? o->choices : ""));
    return x;
}

static json_t *json_plugin(const struct hv_plugin_hdr *h)
{
    json_t *o = json_object(), *opts = json_array(), *flags = json_array();
    const struct hv_opt *opt;

    json_object_set_new(o, "slot", json_string(h->slot));
    json_object_set_new(o, "name", json_string(h->name));
    json_object_set_new(o, "summary", json_string(h->summary));
    if ( h->flags & HV_PF_NO_CHURN )
        json_array_append_new(flags, json_string("no_churn"));
    if ( h->flags & HV_PF_TSAN_BLIND )
        json_array_append_new(flags, json_string("tsan_blind"));
    json_object_set_new(o, "flags", flags);
    for ( opt = h->opts; opt != NULL && opt->name != NULL; opt++ )
        json_array_append_new(opts, json_opt(opt));
    json_object_set_new(o, "options", opts);
    return o;
}

/* Appends row(h) to @a for each plugin of @slot that 'list' shows. */
static void append_plugins(json_t *a, const char *slot,
                           json_t *(*row)(const struct hv_plugin_hdr *h))
{
    const struct hv_plugin_hdr **v = visible_plugins(slot);
    size_t k;

    for ( k = 0; v != NULL && v[k] != NULL; k++ )
        json_array_append_new(a, row(v[k]));
    free(v);
}

static json_t *json_plugin_name(const struct hv_plugin_hdr *h)
{
    return json_string(h->name);
}

static json_t *json_slots(void)
{
    json_t *a = json_array();
    const struct hv_slot *s;
    unsigned int i;

    for ( i = 0; (s = hv_slot_at(i)) != NULL; i++ )
    {
        json_t *o = json_object(), *names = json_array();

        json_object_set_new(o, "name", json_string(s->name));
        json_object_set_new(o, "summary", json_string(s->summary));
        json_object_set_new(o, "default_plugin",
                            s->default_plugin ? json_string(s->default_plugin)
                                              : json_null());
        append_plugins(names, s->name, json_plugin_name);
        json_object_set_new(o, "plugins", names);
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *json_plugins(void)
{
    json_t *a = json_array();
    const struct hv_slot *s;
    unsigned int i;

    for ( i = 0; (s = hv_slot_at(i)) != NULL; i++ )
        append_plugins(a, s->name, json_plugin);
    return a;
}

static json_t *json_workloads(void)
{
    const struct hvb_workload *w;
    const struct hv_opt *p;
    const char *const *s;
    json_t *a = json_array();
    size_t i;

    for ( i = 0; (w = hvb_workload_at(i)) != NULL; i++ )
    {
        json_t *o = json_object(), *slots = json_array(),
               *params = json_array();

        json_object_set_new(o, "name", json_string(w->name));
        json_object_set_new(
            o, "kind", json_string(w->kind == HVB_MACRO ? "macro" : "micro"));
        json_object_set_new(o, "summary", json_string(w->summary));
        json_object_set_new(o, "one_shot",
                            json_boolean(w->flags & HVB_WF_ONE_SHOT));
        for ( s = w->slots; s != NULL && *s != NULL; s++ )
            json_array_append_new(slots, json_string(*s));
        json_object_set_new(o, "slots", slots);
        for ( p = w->params; p != NULL && p->name != NULL; p++ )
            json_array_append_new(params, json_opt(p));
        json_object_set_new(o, "params", params);
        json_object_set_new(o, "smoke",
                            w->smoke ? json_string(w->smoke) : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

static void boundary_line(FILE *f)
{
    json_t *o = hvb_env_boundary_costs(), *e;
    const char *name, *sep = " ";

    fputs("hypercall boundary (one crossing, median of 9 x 64):", f);
    json_object_foreach(o, name, e)
    {
        json_t *ns = json_object_get(e, "crossing_ns");

        if ( ns )
            fprintf(f, "%s%s %.0f ns", sep, name, json_real_value(ns));
        else
            fprintf(f, "%s%s unavailable (%s)", sep, name,
                    json_string_value(json_object_get(e, "error")));
        sep = ", ";
    }
    fputc('\n', f);
    json_decref(o);
}

/* The counter probe a run would make (--counters auto, @ev). */
static int probe_counters(const struct hvb_perfev_list *ev)
{
    char err[256] = "";

    if ( hvb_meter_probe(HVB_COUNTERS_AUTO, ev, false, true, NULL, err,
                         sizeof(err)) )
        return hvb_failure("counter probe: %s", err);
    return 0;
}

static int list_json(unsigned int what, const struct hvb_perfev_list *ev)
{
    json_t *root = json_object();
    int rc;

    if ( what & LIST_COUNTERS )
    {
        if ( probe_counters(ev) )
        {
            json_decref(root);
            return HVB_EXIT_FAIL;
        }
        json_object_set_new(root, "counters", hvb_meter_probe_json());
        json_object_set_new(root, "hypercall_boundary",
                            hvb_env_boundary_costs());
    }
    if ( what & LIST_SLOTS )
        json_object_set_new(root, "slots", json_slots());
    if ( what & LIST_PLUGINS )
        json_object_set_new(root, "plugins", json_plugins());
    if ( what & LIST_WORKLOADS )
        json_object_set_new(root, "workloads", json_workloads());
    rc = json_dumpf(root, stdout, JSON_INDENT(2));
    json_decref(root);
    if ( rc || fputc('\n', stdout) == EOF || fflush(stdout) )
        return hvb_failure("writing the list failed");
    return HVB_EXIT_OK;
}

static int list_text(unsigned int what, const struct hvb_perfev_list *ev)
{
    bool sep = false;

    if ( what & LIST_COUNTERS )
    {
        if ( probe_counters(ev) )
            return HVB_EXIT_FAIL;
        hvb_meter_probe_line(stdout);
        boundary_line(stdout);
    }
    if ( what & LIST_SLOTS )
    {
        text_slots(stdout);
        sep = true;
    }
    if ( what & LIST_PLUGINS )
    {
        if ( sep )
            fputc('\n', stdout);
        if ( text_plugins(stdout) )
            return hvb_failure("out of memory");
        sep = true;
    }
    if ( what & LIST_WORKLOADS )
    {
        if ( sep )
            fputc('\n', stdout);
        text_workloads(stdout);
    }
    if ( fflush(stdout) )
        return hvb_failure("writing the list failed");
    return HVB_EXIT_OK;
}

int hvb_cmd_list(struct hvb_cmd_ctx *ctx)
{
    struct hvb_optparse p = {.argc = ctx->argc,
                             .argv = ctx->argv,
                             .i = 1,
                             .cmd = "list",
                             .doc = &hvb_doc_list};
    struct list_args l = {.ev = {.nr = 0}};
    unsigned int what = 0;
    const char *val;
    int id;

    while ( (id = hvb_opt_parse(&p, list_opts, &l, &val)) != HVB_OPT_DONE )
    {
        switch ( id )
        {
        case HVB_OPT_ERROR:
            return HVB_EXIT_USAGE;
        case HVB_OPT_HELP_SHOWN:
            return HVB_EXIT_OK;
        case HVB_OPT_POSITIONAL:
            if ( what != 0 )
                return hvb_usage_error(
                    "list takes one topic; '%s' is one too many", val);
            if ( strcmp(val, "plugins") == 0 )
                what = LIST_PLUGINS;
            else if ( strcmp(val, "workloads") == 0 )
                what = LIST_WORKLOADS;
            else if ( strcmp(val, "slots") == 0 )
                what = LIST_SLOTS;
            else if ( strcmp(val, "counters") == 0 )
                what = LIST_COUNTERS;
            else
                return hvb_usage_error("unknown list topic '%s' (valid: "
                                       "plugins, workloads, slots, counters)",
                                       val);
            break;
        }
    }
    if ( l.events && what != LIST_COUNTERS )
        return hvb_usage_error("--events goes with 'list counters'");
    if ( what == 0 )
        what = LIST_SLOTS | LIST_PLUGINS | LIST_WORKLOADS;
    return l.json ? list_json(what, &l.ev) : list_text(what, &l.ev);
}
