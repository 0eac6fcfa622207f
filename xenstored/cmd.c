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
#include <hv/thread.h>
#include <hv/xenstore.h>
#include <hvb/cmdline.h>
#include <xsd/xenstored.h>

static struct xsd_server *running;

static void on_signal(int sig)
{
    (void)sig;
    if ( running )
        xsd_server_stop(running);
}

/* One "xenstored" command line being read: what the options set. */
struct xsd_cmd {
    struct xsd_opts o;
    struct hv_config cfg;
    const char *pid_file, *log_file;
    bool fg, have_quota;
};

static bool opt_plugin(void *st, const char *opt, const char *val);

#define R struct xsd_cmd
static const struct hvb_optdef defs[] = {
    HVB_OPT_STR("socket", 0, "PATH", R, o.socket, "the read-write socket"),
    HVB_OPT_STR("ro-socket", 0, "PATH", R, o.ro_socket,
                "a read-only socket too"),
    HVB_OPT_CALL("plugin", 0, "quota=NAME[:K=V...]", opt_plugin,
                 "the quota strategy (default: the slot's)"),
    HVB_OPT_SET("foreground", 0, R, fg,
                "stay attached (default: detach once listening)"),
    HVB_OPT_STR("pid-file", 0, "FILE", R, pid_file,
                "write the daemon's pid; removed at exit"),
    HVB_OPT_STR("log", 0, "FILE", R, log_file,
                "bad input, connections that break, shutdown (default: stderr "
                "in the foreground, none detached)"),
    HVB_OPT_HELP,
    HVB_OPT_END,
};
#undef R

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
    {
        hv_thread_role("xenstored");
        rc = xsd_server_run(s);
    }
    running = NULL;
    xsd_server_destroy(s);
    hv_destroy(hv);
    if ( pid_file )
        unlink(pid_file);
    return rc ? HVB_EXIT_FAIL : HVB_EXIT_OK;
}

static bool opt_plugin(void *st, const char *opt, const char *val)
{
    struct xsd_cmd *x = st;
    char err[512];

    (void)opt;
    if ( strncmp(val, "quota=", 6) != 0 )
    {
        hvb_usage_error("xenstored: --plugin takes quota=NAME (the store's "
                        "only slot), not '%s'",
                        val);
        return false;
    }
    if ( x->have_quota )
    {
        hvb_usage_error("xenstored: --plugin quota= given twice");
        return false;
    }
    if ( hv_plugin_resolve("quota", val + 6, false,
                           &x->cfg.plugins[HV_SLOT_QUOTA], err, sizeof(err)) )
    {
        hvb_usage_error("xenstored: %s", err);
        return false;
    }
    x->have_quota = true;
    return true;
}

/*
 * Read the command line into @x: -1 to carry on, or the exit status to
 * return (--help: 0, having printed it).
 */
static int xsd_parse(struct xsd_cmd *x, int argc, char **argv)
{
    struct hvb_optparse p = {.argc = argc,
                             .argv = argv,
                             .i = 1,
                             .cmd = "xenstored",
                             .doc = &hvb_doc_xenstored};
    const char *val;

    /* Every row is typed: it returns at the end, or at what no row is. */
    switch ( hvb_opt_parse(&p, defs, x, &val) )
    {
    case HVB_OPT_ERROR:
        return HVB_EXIT_USAGE;
    case HVB_OPT_HELP_SHOWN:
        return HVB_EXIT_OK;
    case HVB_OPT_POSITIONAL:
        return hvb_usage_error("xenstored takes no argument '%s' (see "
                               "'hvbench xenstored --help')",
                               val);
    }
    if ( x->o.socket == NULL )
        return hvb_usage_error("xenstored needs --socket PATH (see 'hvbench "
                               "xenstored --help')");
    if ( x->o.ro_socket && strcmp(x->o.ro_socket, x->o.socket) == 0 )
        return hvb_usage_error("xenstored: --ro-socket must differ from "
                               "--socket");
    if ( x->log_file )
    {
        x->o.log = fopen(x->log_file, "a");
        if ( x->o.log == NULL )
            return hvb_usage_error("xenstored: log '%s': %s", x->log_file,
                                   strerror(errno));
    }
    else if ( x->fg )
        x->o.log = stderr;
    return -1;
}

int hvb_cmd_xenstored(struct hvb_cmd_ctx *ctx)
{
    struct xsd_cmd x = {.o = {0}};
    int rc;

    hv_config_init(&x.cfg);
    x.cfg.nr_cpus = 1;
    rc = xsd_parse(&x, ctx->argc, ctx->argv);
    if ( rc < 0 )
        rc = serve(&x.o, &x.cfg, x.fg, x.pid_file);
    if ( x.have_quota )
        hv_plugin_inst_free(&x.cfg.plugins[HV_SLOT_QUOTA]);
    if ( x.o.log && x.o.log != stderr )
        fclose(x.o.log);
    return rc;
}
