/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hvbench xenstored": a model machine's store behind the sockets.
 *
 *   hvbench xenstored --socket /tmp/xs.sock --plugin quota=persistent
 *   XENSTORED_PATH=/tmp/xs.sock xenstore-write /a hello
 *
 * Without --foreground the command returns once the sockets listen and
 * the pid file is written (the daemon runs on, detached): scripts can use
 * the socket at once.  SIGTERM or SIGINT stop it cleanly: connections
 * closed (their transactions aborted), sockets unlinked, pid file removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hv/hv.h>
#include <hv/plugin.h>
#include <hv/xenstore.h>
#include <hvb/cli.h>

#include "xenstored.h"

static struct xsd_server *running;

static void on_signal(int sig)
{
    (void)sig;
    if ( running )
        xsd_server_stop(running);
}

enum {
    OPT_SOCKET = 1,
    OPT_RO,
    OPT_PLUGIN,
    OPT_FG,
    OPT_PID,
    OPT_LOG,
    OPT_HELP
};

static const struct hvb_optdef defs[] = {
    HVB_OPT("socket", 0, "PATH", OPT_SOCKET, "the read-write socket"),
    HVB_OPT("ro-socket", 0, "PATH", OPT_RO, "a read-only socket too"),
    HVB_OPT("plugin", 0, "quota=NAME[:K=V...]", OPT_PLUGIN,
            "the quota strategy (default: the slot's)"),
    HVB_OPT_FLAG("foreground", 0, OPT_FG,
                 "stay attached (default: detach once listening)"),
    HVB_OPT("pid-file", 0, "FILE", OPT_PID,
            "write the daemon's pid; removed at exit"),
    HVB_OPT("log", 0, "FILE", OPT_LOG,
            "bad input, connections that break, shutdown (default: stderr in "
            "the foreground, none detached)"),
    HVB_OPT_HELP(OPT_HELP),
    HVB_OPT_END,
};

const struct hvb_cmd_doc hvb_doc_xenstored = {
    .usage = "xenstored --socket PATH [--ro-socket PATH]\n"
             "                         [--plugin quota=NAME[:K=V...]]\n"
             "                         [--foreground] [--pid-file FILE] "
             "[--log FILE]",
    .text = "Serve the model's xenstore over the xenstore wire protocol on a\n"
            "Unix socket, for unmodified clients (XENSTORED_PATH=PATH\n"
            "xenstore-ls, pyxs, libxenstore).  Every client is dom0; the\n"
            "read-only socket answers EACCES to anything that writes.",
    .opts = defs,
    .notes = "SIGTERM/SIGINT: clean shutdown (sockets unlinked, pid file "
             "removed).\n"
             "CONTROL commands (xenstore-control): check, quota DOMID, stats, "
             "help.",
};

/*
 * Detach before anything is built (no thread of a library survives a
 * fork): the parent waits for the child's word on a pipe, "" when it
 * listens, else the one-line error, and exits with it.
 */
static int detach(int *ready_fd)
{
    char msg[600];
    ssize_t n, got = 0;
    int p[2];
    pid_t pid;

    if ( pipe(p) )
        return -errno;
    pid = fork();
    if ( pid < 0 )
        return -errno;
    if ( pid > 0 )
    {
        close(p[1]);
        while ( (n = read(p[0], msg + got, sizeof(msg) - 1 - got)) > 0 )
            got += n;
        if ( got == 0 )
            exit(hvb_failure("xenstored: the daemon died starting"));
        msg[got] = '\0';
        if ( msg[0] == '\0' )
            exit(HVB_EXIT_OK);
        fprintf(stderr, "%s\n", msg + 1);
        exit(msg[0] - '0');
    }
    close(p[0]);
    setsid();
    *ready_fd = p[1];
    return 0;
}

/* A start-up error: to stderr, or through the pipe to the parent. */
static int start_error(int ready, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int start_error(int ready, int code, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    int n;

    msg[0] = (char)('0' + code);
    n = snprintf(msg + 1, sizeof(msg) - 1, "hvbench: xenstored: ");
    va_start(ap, fmt);
    vsnprintf(msg + 1 + n, sizeof(msg) - 1 - n, fmt, ap);
    va_end(ap);
    if ( ready < 0 )
        fprintf(stderr, "%s\n", msg + 1);
    else if ( write(ready, msg, strlen(msg)) < 0 )
        code = HVB_EXIT_FAIL;
    return code;
}

static int serve(const struct xsd_opts *o, struct hv_config *cfg, bool fg,
                 const char *pid_file)
{
    struct sigaction sa = {.sa_handler = on_signal};
    struct xsd_server *s;
    struct hv *hv;
    char err[512];
    int rc, ready = -1, nul;
    FILE *pf;

    if ( !fg && detach(&ready) )
        return hvb_failure("xenstored: fork: %s", strerror(errno));
    rc = hv_create(cfg, &hv, err, sizeof(err));
    if ( rc )
        return start_error(ready, HVB_EXIT_USAGE, "%s", err);
    rc = xsd_server_create(hv_xs(hv), o, &s, err, sizeof(err));
    if ( rc )
    {
        hv_destroy(hv);
        return start_error(ready, HVB_EXIT_USAGE, "%s", err);
    }
    if ( pid_file )
    {
        pf = fopen(pid_file, "w");
        if ( pf == NULL || fprintf(pf, "%ld\n", (long)getpid()) < 0 ||
             fclose(pf) )
        {
            rc = errno;
            xsd_server_destroy(s);
            hv_destroy(hv);
            return start_error(ready, HVB_EXIT_USAGE, "pid file '%s': %s",
                               pid_file, strerror(rc));
        }
    }
    running = s;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if ( ready >= 0 )
    {
        nul = open("/dev/null", O_RDWR);
        if ( nul >= 0 )
        {
            dup2(nul, 0);
            dup2(nul, 1);
            if ( o->log != stderr )
                dup2(nul, 2);
            close(nul);
        }
        if ( write(ready, "", 1) != 1 )
            rc = -EIO;
        close(ready);
    }
    if ( rc == 0 )
        rc = xsd_server_run(s);
    running = NULL;
    xsd_server_destroy(s);
    hv_destroy(hv);
    if ( pid_file )
        unlink(pid_file);
    return rc ? HVB_EXIT_FAIL : HVB_EXIT_OK;
}

int hvb_cmd_xenstored(struct hvb_cmd_ctx *ctx)
{
    struct hvb_optparse p = {
        .argc = ctx->argc, .argv = ctx->argv, .i = 1, .cmd = "xenstored"};
    struct xsd_opts o = {0};
    struct hv_config cfg;
    const char *val, *pid_file = NULL, *log_file = NULL;
    bool fg = false, have_quota = false;
    char err[512];
    int id, rc;

    hv_config_init(&cfg);
    cfg.nr_cpus = 1;
    while ( (id = hvb_getopt(&p, defs, &val)) != HVB_OPT_DONE )
    {
        switch ( id )
        {
        case HVB_OPT_ERROR:
            return HVB_EXIT_USAGE;
        case HVB_OPT_POSITIONAL:
            return hvb_usage_error("xenstored takes no argument '%s' (see "
                                   "'hvbench xenstored --help')",
                                   val);
        case OPT_HELP:
            hvb_cmd_doc_help(stdout, &hvb_doc_xenstored);
            return HVB_EXIT_OK;
        case OPT_SOCKET:
            o.socket = val;
            break;
        case OPT_RO:
            o.ro_socket = val;
            break;
        case OPT_FG:
            fg = true;
            break;
        case OPT_PID:
            pid_file = val;
            break;
        case OPT_LOG:
            log_file = val;
            break;
        case OPT_PLUGIN:
            if ( strncmp(val, "quota=", 6) != 0 )
                return hvb_usage_error("xenstored: --plugin takes quota=NAME "
                                       "(the store's only slot), not '%s'",
                                       val);
            if ( have_quota )
                return hvb_usage_error("xenstored: --plugin quota= given "
                                       "twice");
            if ( hv_plugin_resolve("quota", val + 6, false,
                                   &cfg.plugins[HV_SLOT_QUOTA], err,
                                   sizeof(err)) )
                return hvb_usage_error("xenstored: %s", err);
            have_quota = true;
            break;
        }
    }
    if ( o.socket == NULL )
        return hvb_usage_error("xenstored needs --socket PATH (see 'hvbench "
                               "xenstored --help')");
    if ( o.ro_socket && strcmp(o.ro_socket, o.socket) == 0 )
        return hvb_usage_error("xenstored: --ro-socket must differ from "
                               "--socket");
    if ( log_file )
    {
        o.log = fopen(log_file, "a");
        if ( o.log == NULL )
            return hvb_usage_error("xenstored: log '%s': %s", log_file,
                                   strerror(errno));
    }
    else if ( fg )
        o.log = stderr;
    rc = serve(&o, &cfg, fg, pid_file);
    if ( have_quota )
        hv_plugin_inst_free(&cfg.plugins[HV_SLOT_QUOTA]);
    if ( o.log && o.log != stderr )
        fclose(o.log);
    return rc;
}
