/* SPDX-License-Identifier: GPL-2.0-only */
/* A command's files and flags; see hvb/cli_files.h. */
#include <stdlib.h>

#include <hvb/cli_files.h>

int hvb_cli_files(int argc, char **argv, const char *cmd,
                  const struct hvb_cmd_doc *doc, int help_id, char ***files,
                  size_t *nr, unsigned int *flags)
{
    struct hvb_optparse p = {.argc = argc, .argv = argv, .i = 1, .cmd = cmd};
    const char *val;
    int id;

    *nr = 0;
    *flags = 0;
    *files = calloc((size_t)argc + 1, sizeof(**files));
    if ( *files == NULL )
        return hvb_failure("out of memory");
    while ( (id = hvb_getopt(&p, doc->opts, &val)) != HVB_OPT_DONE )
    {
        if ( id == HVB_OPT_POSITIONAL )
        {
            (*files)[(*nr)++] = (char *)val;
            continue;
        }
        if ( id == HVB_OPT_ERROR || id == help_id )
        {
            if ( id == help_id )
                hvb_cmd_doc_help(stdout, doc);
            free(*files);
            *files = NULL;
            return id == help_id ? HVB_EXIT_OK : HVB_EXIT_USAGE;
        }
        *flags |= 1u << id;
    }
    return HVB_FILES_GO_ON;
}
