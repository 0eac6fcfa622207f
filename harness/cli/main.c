/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvbench: validate the plugin and workload registries, then hand the
 * command line to a command of the table (harness/cli/commands.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hv/plugin.h>
#include <hv/plugin_registry.h>
#include <hvb/buildinfo.h>
#include <hvb/cli.h>
#include <hvb/registry.h>

/* "hvbench 0.1.0 (git 1a2b3c4d5e6f, dirty; Release)". */
static int version(void)
{
    struct hvb_buildinfo bi;

    hvb_buildinfo_get(&bi);
    printf("hvbench %s (git %.12s%s; %s)\n", bi.version, bi.commit,
           bi.dirty > 0 ? ", dirty" : "",
           bi.build_type[0] ? bi.build_type : "no build type");
    return HVB_EXIT_OK;
}

static int run(int argc, char **argv)
{
    struct hvb_cmd_ctx ctx = {.full_argc = argc, .full_argv = argv};
    const struct hvb_cmd *c;
    char err[512];

    if ( hv_plugin_registry_init(err, sizeof(err)) )
        return hvb_failure("invalid plugin: %s", err);
    if ( hvb_workload_registry_check(err, sizeof(err)) )
        return hvb_failure("invalid workload: %s", err);

    if ( argc < 2 )
    {
        hvb_cli_help(stderr);
        return HVB_EXIT_USAGE;
    }
    if ( strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 )
    {
        hvb_cli_help(stdout);
        return HVB_EXIT_OK;
    }
    if ( strcmp(argv[1], "--version") == 0 )
        return version();
    if ( argv[1][0] == '-' )
        return hvb_usage_error("unknown option '%s' (see 'hvbench --help')",
                               argv[1]);
    c = hvb_cmd_find(argv[1]);
    if ( c == NULL )
        return hvb_cmd_unknown(argv[1]);
    ctx.argc = argc - 1;
    ctx.argv = argv + 1;
    return hvb_cmd_dispatch(c, &ctx);
}

/*
 * The command, then its standard output flushed and closed: a write that
 * failed (a full disk, a closed pipe's EPIPE aside) is exit 2, never a
 * 0 for a 0-byte "backup" ("history export > /dev/full").
 */
int main(int argc, char **argv)
{
    int status = run(argc, argv);

    if ( fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0 )
    {
        if ( errno == EPIPE )
            return status;
        fprintf(stderr, "hvbench: writing the standard output: %s\n",
                strerror(errno ? errno : EIO));
        return HVB_EXIT_USAGE;
    }
    return status;
}
