/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench completion bash": a bash completion script.  The commands,
 * their options and the choices of an option's value (its row's
 * "console|json|csv") are written into the script from the command
 * table and the option rows; the registry's names (workloads, slots,
 * plugins, params) are asked of hvbench at completion time with
 * "hvbench completion words TOPIC [ARG]", so a plugin added is offered
 * without regenerating anything.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <hv/opt.h>
#include <hv/plugin_registry.h>
#include <hvb/cli.h>
#include <hvb/registry.h>
#include <hvb/workload.h>

/*
 * Each listed row of @c's doc, then of every form or sub-command of
 * @c, then of the command they inherit.
 */
static void each_row(const struct hvb_cmd *c,
                     bool (*fn)(const struct hvb_optdef *d, void *ctx),
                     void *ctx)
{
    const struct hvb_cmd *parent = NULL, *s = c->subs;
    const struct hvb_cmd_doc *d;

    for ( d = c->doc; d != NULL; d = s && s->name ? (s++)->doc : NULL )
    {
        if ( d->opts != NULL )
            hvb_opt_each(d->opts, false, fn, ctx);
        if ( d->inherits != NULL )
            parent = hvb_cmd_find(d->inherits);
    }
    if ( parent != NULL && parent != c )
        each_row(parent, fn, ctx);
}

/* A list of option names, each once: " --out -o --help -h". */
struct names {
    char buf[4096];
    size_t len;
    bool valued; /* only the options that take a value */
};

static void add_name(struct names *n, const char *name)
{
    char word[64];
    int w = snprintf(word, sizeof(word), " %s ", name);

    n->buf[n->len] = ' ';
    n->buf[n->len + 1] = '\0';
    if ( w < 0 || (size_t)w >= sizeof(word) || strstr(n->buf, word) != NULL ||
         n->len + (size_t)w + 2 > sizeof(n->buf) )
    {
        n->buf[n->len] = '\0';
        return;
    }
    memcpy(n->buf + n->len, word, (size_t)w - 1);
    n->len += (size_t)w - 1;
    n->buf[n->len] = '\0';
}

static bool add_row(const struct hvb_optdef *d, void *ctx)
{
    struct names *n = ctx;
    char s[64];

    if ( n->valued && d->arg == NULL )
        return false;
    snprintf(s, sizeof(s), "--%s", d->name);
    add_name(n, s);
    if ( d->short_name )
    {
        snprintf(s, sizeof(s), "-%c", d->short_name);
        add_name(n, s);
    }
    return false;
}

/* Is @s (of @n) a literal choice ("json"), not a name ("FILE", "M")? */
static bool literal(const char *s, size_t n)
{
    size_t i;

    for ( i = 0; i < n; i++ )
        if ( !islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) &&
             s[i] != '-' && s[i] != '_' )
            return false;
    return n > 0;
}

struct values_ctx {
    FILE *f;
    const char *cmd;
};

/* ["run --format"]="console json csv markdown" for a row of choices. */
static bool print_values(const struct hvb_optdef *d, void *ctx)
{
    struct values_ctx *v = ctx;
    const char *s = d->arg;
    int k;

    if ( s == NULL || strchr(s, '|') == NULL )
        return false;
    for ( k = 0; k < 2; k++ )
    {
        if ( k == 1 && !d->short_name )
            break;
        if ( k == 0 )
            fprintf(v->f, "    [\"%s --%s\"]=\"", v->cmd, d->name);
        else
            fprintf(v->f, "    [\"%s -%c\"]=\"", v->cmd, d->short_name);
        for ( s = d->arg; *s != '\0'; )
        {
            size_t n = strcspn(s, "|");

            if ( literal(s, n) )
                fprintf(v->f, " %.*s", (int)n, s);
            s += n + (s[n] == '|');
        }
        fputs("\"\n", v->f);
    }
    return false;
}

static const char script_body[] =
    "_hvbench_words()\n"
    "{\n"
    "    \"${COMP_WORDS[0]}\" completion words \"$@\" 2>/dev/null\n"
    "}\n"
    "\n"
    "_hvbench()\n"
    "{\n"
    "    local i w cur prev cmd= optcmd dd= cands= strip= slot key\n"
    "    local -a words=() pos=()\n"
    "    # Join the words COMP_WORDBREAKS split at '=' (SLOT=NAME).\n"
    "    for (( i = 0; i <= COMP_CWORD; i++ )); do\n"
    "        w=${COMP_WORDS[i]}\n"
    "        if (( i > 1 )) && [[ $w == = || ${COMP_WORDS[i-1]} == = ]]; then\n"
    "            words[${#words[@]}-1]+=$w\n"
    "        else\n"
    "            words+=(\"$w\")\n"
    "        fi\n"
    "    done\n"
    "    cur=${words[${#words[@]}-1]}\n"
    "    prev=${words[${#words[@]}-2]-}\n"
    "    # bash replaces only what follows the last '=' it split at.\n"
    "    if [[ $cur == *=* && ${COMP_WORDS[COMP_CWORD]} != \"$cur\" ]]; then\n"
    "        strip=${cur%=*}=\n"
    "    fi\n"
    "    for (( i = 1; i < ${#words[@]} - 1; i++ )); do\n"
    "        w=${words[i]}\n"
    "        if [[ -z $cmd ]]; then\n"
    "            [[ $w != -* ]] && cmd=$w\n"
    "        elif [[ $w == -- ]]; then\n"
    "            dd=1 pos=()\n"
    "        elif [[ $w != -* && \" $_hvbench_valued \" != *\" ${words[i-1]} \"* ]]; then\n"
    "            pos+=(\"$w\")\n"
    "        fi\n"
    "    done\n"
    "    optcmd=$cmd\n"
    "    if [[ -n $cmd && -n ${_hvbench_subs[$cmd]-} && -n ${pos[0]-} ]]; then\n"
    "        optcmd=\"$cmd ${pos[0]}\" pos=(\"${pos[@]:1}\")\n"
    "    fi\n"
    "    if [[ -n $dd ]]; then\n"
    "        optcmd=run\n"
    "        [[ $cmd == fleet && ${pos[0]-} == run ]] && pos=(\"${pos[@]:1}\")\n"
    "    fi\n"
    "    if [[ $cur == --*=* ]]; then\n"
    "        prev=${cur%%=*} key=$prev=\n"
    "    else\n"
    "        key=\n"
    "    fi\n"
    "    local val=${cur#\"$key\"}\n"
    "    if [[ -z $cmd ]]; then\n"
    "        cands=\"$_hvbench_commands --help --version\"\n"
    "    elif [[ $prev == --plugin && $val == *=* ]]; then\n"
    "        slot=${val%%=*}\n"
    "        for w in $(_hvbench_words plugins \"$slot\"); do\n"
    "            cands+=\" $key$slot=$w\"\n"
    "        done\n"
    "    elif [[ $prev == --plugin || $prev == --param ]]; then\n"
    "        [[ $prev == --plugin ]] && w=slots || w=params\n"
    "        for w in $(_hvbench_words $w \"${pos[0]-}\"); do\n"
    "            cands+=\" $key$w=\"\n"
    "        done\n"
    "        compopt -o nospace 2>/dev/null\n"
    "    elif [[ -n ${_hvbench_values[\"$optcmd $prev\"]-} ]]; then\n"
    "        for w in ${_hvbench_values[\"$optcmd $prev\"]}; do\n"
    "            cands+=\" $key$w\"\n"
    "        done\n"
    "    elif [[ \" $_hvbench_valued \" == *\" $prev \"* ]]; then\n"
    "        COMPREPLY=($(compgen -f -- \"$val\"))\n"
    "        return\n"
    "    elif [[ $cur == -* ]]; then\n"
    "        cands=${_hvbench_opts[$optcmd]-}\n"
    "    elif [[ -n ${_hvbench_subs[$cmd]-} && $optcmd == \"$cmd\" ]]; then\n"
    "        cands=${_hvbench_subs[$cmd]}\n"
    "    else\n"
    "        case $optcmd in\n"
    "        run|profile|lockstat|worker)\n"
    "            (( ${#pos[@]} == 0 )) && cands=$(_hvbench_words workloads) ;;\n"
    "        list) cands=\"plugins workloads slots counters\" ;;\n"
    "        help) cands=$_hvbench_commands ;;\n"
    "        completion) cands=bash ;;\n"
    "        fleet) cands=slurm ;;\n"
    "        esac\n"
    "        if [[ -z $cands ]]; then\n"
    "            COMPREPLY=($(compgen -f -- \"$cur\"))\n"
    "            return\n"
    "        fi\n"
    "    fi\n"
    "    COMPREPLY=($(compgen -W \"$cands\" -- \"$cur\"))\n"
    "    [[ -n $strip ]] && COMPREPLY=(\"${COMPREPLY[@]#\"$strip\"}\")\n"
    "}\n"
    "complete -F _hvbench hvbench\n";

/* ["history"]="record import ...": the sub-commands to offer. */
static void print_subs(FILE *f)
{
    const struct hvb_cmd *c, *s;

    fputs("declare -A _hvbench_subs=(\n", f);
    for ( c = hvb_commands; c->name != NULL; c++ )
    {
        if ( !hvb_cmd_has_subcommands(c) )
            continue;
        fprintf(f, "    [%s]=\"", c->name);
        for ( s = c->subs; s->name != NULL; s++ )
            fprintf(f, "%s%s", s == c->subs ? "" : " ", s->name);
        fputs("\"\n", f);
    }
    fputs(")\n", f);
}

/* [KEY]="--out -o ..." of the rows of @c (@doc alone if not NULL). */
static void print_opts(FILE *f, const char *key, const struct hvb_cmd *c,
                       const struct hvb_cmd_doc *doc)
{
    static struct names n;

    n.len = 0;
    n.buf[0] = '\0';
    n.valued = false;
    if ( doc != NULL )
        hvb_opt_each(doc->opts, false, add_row, &n);
    else
        each_row(c, add_row, &n);
    fprintf(f, "    [%s]=\"%s\"\n", key, n.buf + (n.len > 0));
}

static void script(FILE *f)
{
    const struct hvb_cmd *c, *s;
    struct values_ctx v = {.f = f};
    static struct names n;
    char key[96];

    fputs("# bash completion for hvbench; generated by 'hvbench completion "
          "bash'\n# from its command table and option rows.\n\n"
          "_hvbench_commands=\"",
          f);
    for ( c = hvb_commands; c->name != NULL; c++ )
        if ( !(c->flags & HVB_CMD_HIDDEN) )
            fprintf(f, "%s%s", c == hvb_commands ? "" : " ", c->name);
    fputs("\"\ndeclare -A _hvbench_opts=(\n", f);
    for ( c = hvb_commands; c->name != NULL; c++ )
    {
        print_opts(f, c->name, c, NULL);
        for ( s = c->subs; hvb_cmd_has_subcommands(c) && s->name; s++ )
        {
            snprintf(key, sizeof(key), "\"%s %s\"", c->name, s->name);
            print_opts(f, key, c, s->doc);
        }
    }
    n.len = 0;
    n.buf[0] = '\0';
    n.valued = true;
    for ( c = hvb_commands; c->name != NULL; c++ )
        each_row(c, add_row, &n);
    fprintf(f, ")\n_hvbench_valued=\"%s\"\ndeclare -A _hvbench_values=(\n",
            n.buf + (n.len > 0));
    for ( c = hvb_commands; c->name != NULL; c++ )
    {
        v.cmd = c->name;
        each_row(c, print_values, &v);
        for ( s = c->subs; hvb_cmd_has_subcommands(c) && s->name; s++ )
        {
            snprintf(key, sizeof(key), "%s %s", c->name, s->name);
            v.cmd = key;
            hvb_opt_each(s->doc->opts, false, print_values, &v);
        }
    }
    fputs(")\n", f);
    print_subs(f);
    fputc('\n', f);
    fputs(script_body, f);
}

/* "completion words TOPIC [ARG]": the registry's names, one a line. */
static int words(const char *topic, const char *arg)
{
    const struct hvb_workload *w = arg && *arg ? hvb_workload_find(arg) : NULL;
    const struct hv_plugin_hdr *h;
    const struct hv_slot *s;
    size_t i, j;

    if ( strcmp(topic, "workloads") == 0 )
        for ( i = 0; (w = hvb_workload_at(i)) != NULL; i++ )
            printf("%s\n", w->name);
    else if ( strcmp(topic, "slots") == 0 && w != NULL )
        for ( i = 0; w->slots != NULL && w->slots[i] != NULL; i++ )
            printf("%s\n", w->slots[i]);
    else if ( strcmp(topic, "slots") == 0 )
        for ( i = 0; (s = hv_slot_at((unsigned int)i)) != NULL; i++ )
            printf("%s\n", s->name);
    else if ( strcmp(topic, "plugins") == 0 )
        for ( i = 0; (h = hv_plugin_at((unsigned int)i)) != NULL; i++ )
        {
            if ( !(h->flags & HV_PF_TEST_ONLY) &&
                 (arg == NULL || strcmp(h->slot, arg) == 0) )
                printf("%s\n", h->name);
        }
    else if ( strcmp(topic, "params") == 0 )
        for ( i = 0; (w == NULL || i == 0) &&
                     (w != NULL || hvb_workload_at(i) != NULL);
              i++ )
        {
            const struct hvb_workload *x = w ? w : hvb_workload_at(i);

            for ( j = 0; x->params != NULL && x->params[j].name != NULL; j++ )
                printf("%s\n", x->params[j].name);
        }
    else
        return hvb_usage_error("completion words: unknown topic '%s' "
                               "(workloads, slots [WORKLOAD], plugins [SLOT], "
                               "params [WORKLOAD])",
                               topic);
    return HVB_EXIT_OK;
}

static const struct hvb_optdef completion_opts[] = {
    HVB_OPT_HELP,
    HVB_OPT_END,
};

const struct hvb_cmd_doc hvb_doc_completion = {
    .usage = "completion bash\ncompletion words TOPIC [ARG]",
    .text = "Print a bash completion script: source it, or install it as\n"
            "/usr/share/bash-completion/completions/hvbench.  It completes\n"
            "commands, their options and the choices of an option's value,\n"
            "workloads, --plugin SLOT=NAME, and --param KEY= for the\n"
            "workload given.\n"
            "\n"
            "'completion words' is what the script asks at completion time,\n"
            "one name a line: workloads, slots [WORKLOAD], plugins [SLOT],\n"
            "params [WORKLOAD].",
    .opts = completion_opts,
};

int hvb_cmd_completion(struct hvb_cmd_ctx *ctx)
{
    struct hvb_optparse p = {.argc = ctx->argc,
                             .argv = ctx->argv,
                             .i = 1,
                             .cmd = "completion",
                             .doc = &hvb_doc_completion};
    const char *val, *args[3] = {NULL, NULL, NULL};
    size_t n = 0;
    int id;

    while ( (id = hvb_opt_parse(&p, completion_opts, NULL, &val)) !=
            HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_ERROR )
            return HVB_EXIT_USAGE;
        if ( id == HVB_OPT_HELP_SHOWN )
            return HVB_EXIT_OK;
        if ( n == 3 )
            return hvb_usage_error("completion: '%s' is one argument too "
                                   "many",
                                   val);
        args[n++] = val;
    }
    if ( n == 1 && strcmp(args[0], "bash") == 0 )
    {
        script(stdout);
        return HVB_EXIT_OK;
    }
    if ( n >= 2 && strcmp(args[0], "words") == 0 )
        return words(args[1], args[2]);
    return hvb_usage_error("completion takes 'bash' (or 'words TOPIC [ARG]'; "
                           "see 'hvbench completion --help')");
}
