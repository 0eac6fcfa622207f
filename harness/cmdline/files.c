/* SPDX-License-Identifier: GPL-2.0-only */
/* A command's files and flags; see hvb/cli_files.h. */
#include <stdlib.h>

#include <hvb/cli_files.h>

int hvb_cli_files(int argc, char **argv, const char *cmd,
                  const struct hvb_cmd_doc *doc, void *state, char ***files,
                  size_t *nr)
{
    struct hvb_optparse p = {
        .argc = argc, .argv = argv, .i = 1, .cmd = cmd, .doc = doc};
    const char *val;
    int id;

    *nr = 0;
    *files = calloc((size_t)argc + 1, sizeof(**files));
    if ( *files == NULL )
        return hvb_failure("out of memory");
    while ( (id = hvb_opt_parse(&p, doc->opts, state, &val)) != HVB_OPT_DONE )
    {
        if ( id != HVB_OPT_POSITIONAL )
        {
            free(*files);
            *files = NULL;
            return id == HVB_OPT_HELP_SHOWN ? HVB_EXIT_OK : HVB_EXIT_USAGE;
        }
        (*files)[(*nr)++] = (char *)val;
    }
    return HVB_FILES_GO_ON;
}
