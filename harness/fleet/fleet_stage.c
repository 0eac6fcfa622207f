/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvbench fleet: staging the binary and the plugins' .so files into the
 * fleet directory, so that the nodes run what was planned (private.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <hvb/cmdline.h>
#include <hvb/fleet.h>
#include <hvb/hosts.h>
#include <hvb/merge.h>
#include <hvb/progress.h>
#include <hvb/results.h>
#include <hvb/results_read.h>

#include "private.h"

/* Copy the plugin file @spec (its NAME part: @n chars) into DIR/plugins. */
static int stage_one(const struct fleet *fl, const char *spec, size_t n,
                     FILE *f)
{
    char from[PATH_MAX], to[2 * PATH_MAX + 32];
    const char *base;
    int rc;

    snprintf(from, sizeof(from), "%.*s", (int)n, spec);
    base = strrchr(from, '/');
    base = base ? base + 1 : from;
    snprintf(to, sizeof(to), "%s/plugins", fl->dir);
    rc = hvb_mkdirs(to);
    snprintf(to, sizeof(to), "%s/plugins/%s", fl->dir, base);
    rc = rc ?: hvb_copy_file(from, to, 0644);
    if ( rc )
        return hvb_usage_error("fleet: cannot stage plugin '%s' into %s: %s",
                               from, to, strerror(-rc));
    fputs(to, f);
    return HVB_EXIT_OK;
}

/*
 * Stage the --plugin .so files of the run command into DIR/plugins (a
 * spec naming a file: it has a '/' or ends in .so, as hv_plugin_resolve
 * decides) and rewrite the arguments to the copies.  Exit status.
 */
int fleet_stage_plugins(struct fleet *fl)
{
    size_t i, j;

    for ( i = 0; i < fl->run_argc; i++ )
    {
        const char *prefix = "", *val, *eq, *p;
        char *out = NULL;
        size_t cap;
        int status = HVB_EXIT_OK;
        FILE *f;

        if ( strcmp(fl->run_argv[i], "--plugin") == 0 && i + 1 < fl->run_argc )
            j = ++i;
        else if ( strncmp(fl->run_argv[i], "--plugin=", 9) == 0 )
            j = i, prefix = "--plugin=";
        else
            continue;
        val = fl->run_argv[j] + strlen(prefix);
        eq = strchr(val, '=');
        if ( eq == NULL )
            continue; /* run --plan said it is fine: cannot be */
        f = open_memstream(&out, &cap);
        if ( f == NULL )
            return hvb_failure("out of memory");
        fprintf(f, "%s%.*s=", prefix, (int)(eq - val), val);
        for ( p = eq + 1; *p && status == HVB_EXIT_OK; )
        {
            size_t n = strcspn(p, ","), name = strcspn(p, ":,");

            if ( memchr(p, '/', name) != NULL ||
                 (name > 3 && strncmp(p + name - 3, ".so", 3) == 0) )
            {
                status = stage_one(fl, p, name, f);
                fprintf(f, "%.*s", (int)(n - name), p + name);
            }
            else
                fprintf(f, "%.*s", (int)n, p);
            p += n;
            if ( *p == ',' )
                fputc(*p++, f);
        }
        if ( fclose(f) && status == HVB_EXIT_OK )
            status = hvb_failure("out of memory");
        if ( status != HVB_EXIT_OK )
        {
            free(out);
            return status;
        }
        fl->run_argv[j] = out;
    }
    return HVB_EXIT_OK;
}

/* Is @path a complete results document?  (Missing, partial: false.) */
