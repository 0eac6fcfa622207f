/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvbench: validate the plugin and workload registries, then hand the
 * command line to a subcommand (harness/cli/cmd_*.c).
 */
#include <stdio.h>
#include <string.h>

#include <hv/plugin.h>
#include <hv/plugin_registry.h>
#include <hvb/buildinfo.h>
#include <hvb/cli.h>
#include "gate.h"
#include <hvb/registry.h>

static int dispatch(const char *cmd, int argc, char **argv, int full_argc,
                    char **full_argv)
{
    if ( strcmp(cmd, "list") == 0 )
        return hvb_cmd_list(argc, argv);
    if ( strcmp(cmd, "run") == 0 )
        return hvb_cmd_run(argc, argv, full_argc, full_argv);
    if ( strcmp(cmd, "compare") == 0 )
        return hvb_cmd_compare(argc, argv);
    if ( strcmp(cmd, "gate") == 0 )
        return hvb_cmd_gate(argc, argv);
    if ( strcmp(cmd, "lockstat") == 0 )
        return hvb_cmd_lockstat(argc, argv, full_argc, full_argv);
    if ( strcmp(cmd, "profile") == 0 )
        return hvb_cmd_profile(argc, argv, full_argc, full_argv);
    if ( strcmp(cmd, "report") == 0 )
        return hvb_cmd_report(argc, argv, full_argc, full_argv);
    if ( strcmp(cmd, "xenstored") == 0 )
        return hvb_cmd_xenstored(argc, argv);
    if ( strcmp(cmd, "merge") == 0 )
        return hvb_cmd_merge(argc, argv);
    if ( strcmp(cmd, "fleet") == 0 )
        return hvb_cmd_fleet(argc, argv, full_argc, full_argv);
    if ( strcmp(cmd, "reproduce") == 0 )
        return hvb_cmd_reproduce(argc, argv);
    if ( strcmp(cmd, "worker") == 0 ) /* internal: gate --base-bin's */
        return hvb_cmd_worker(argc, argv, full_argc, full_argv);
    return hvb_usage_error("unknown command '%s' (commands: list, run, "
                           "compare, gate, profile, lockstat, report, "
                           "xenstored, merge, fleet, reproduce; see "
                           "'hvbench --help')",
                           cmd);
}

int main(int argc, char **argv)
{
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
    if ( strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
         (strcmp(argv[1], "help") == 0 && argc == 2) )
    {
        hvb_cli_help(stdout);
        return HVB_EXIT_OK;
    }
    if ( strcmp(argv[1], "--version") == 0 )
    {
        printf("hvbench %s\n", hvb_version());
        return HVB_EXIT_OK;
    }
    if ( strcmp(argv[1], "help") == 0 )
    {
        char *help_argv[] = {argv[2], "--help", NULL};

        if ( argc > 3 )
            return hvb_usage_error("help takes one COMMAND");
        return dispatch(argv[2], 2, help_argv, argc, argv);
    }
    if ( argv[1][0] == '-' )
        return hvb_usage_error("unknown option '%s' (see 'hvbench --help')",
                               argv[1]);
    return dispatch(argv[1], argc - 1, argv + 1, argc, argv);
}
