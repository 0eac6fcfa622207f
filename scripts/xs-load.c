/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xs-load: requests per second of a xenstore daemon on a Unix socket
 * (hvbench xenstored or the real oxenstored), from N client processes,
 * each on its own connection sending one request and waiting for its
 * reply (as libxenstore does), for T seconds after a common start.
 *
 *   xs-load --socket S --domains D      give D domains quota first: dom0
 *                                       writes /local/domain/<i>/data and
 *                                       makes domain i its owner
 *   xs-load --socket S --op read --clients 2 --seconds 3
 *   -> op read clients 2 seconds 3.00 requests 123456 rps 41152
 *
 * read: READ /xs-load/c<k> (written once); write: WRITE /xs-load/c<k>
 * "v" (each client its own node: no transaction, no conflict).  Exit 2
 * on bad arguments, 1 if a request fails.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xsd/client.h>
#include <xsd/wire.h>

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(const char *why)
{
    fprintf(stderr,
            "xs-load: %s\nusage: xs-load --socket PATH (--domains D | --op "
            "read|write [--clients N] [--seconds T])\n",
            why);
    return 2;
}

static int populate(const char *sock, unsigned long domains)
{
    struct xsd_client *c;
    char body[96];
    unsigned long i;
    int n, rc;

    rc = xsd_client_open(sock, &c);
    for ( i = 1; rc == 0 && i <= domains; i++ )
    {
        n = snprintf(body, sizeof(body), "/local/domain/%lu/data%cval", i, 0);
        rc =
            xsd_client_request(c, XSD_WRITE, 0, body, (size_t)n, NULL, 0, NULL);
        n = snprintf(body, sizeof(body), "/local/domain/%lu/data%cn%lu", i, 0,
                     i) +
            1;
        if ( rc == 0 )
            rc = xsd_client_request(c, XSD_SET_PERMS, 0, body, (size_t)n, NULL,
                                    0, NULL);
    }
    xsd_client_close(c);
    if ( rc )
        fprintf(stderr, "xs-load: populating: %s\n", strerror(-rc));
    return rc ? 1 : 0;
}

/* One client: wait for "go", run, write the count to @out. */
static int client(const char *sock, bool write_op, unsigned int k,
                  double seconds, int go, int out)
{
    char body[64], buf[XSD_PAYLOAD_MAX];
    struct xsd_client *c;
    unsigned long long n = 0;
    size_t len;
    double end;
    char g;
    int rc;

    len = (size_t)snprintf(body, sizeof(body), "/xs-load/c%u%cv", k, 0);
    rc = xsd_client_open(sock, &c);
    if ( rc == 0 )
        rc = xsd_client_request(c, XSD_WRITE, 0, body, len, NULL, 0, NULL);
    if ( read(go, &g, 1) != 1 )
        rc = -EIO;
    end = now() + seconds;
    while ( rc == 0 )
    {
        rc = write_op
                 ? xsd_client_request(c, XSD_WRITE, 0, body, len, NULL, 0, NULL)
                 : xsd_client_request(c, XSD_READ, 0, body, strlen(body) + 1,
                                      buf, sizeof(buf), NULL);
        n++;
        if ( (n & 63) == 0 && now() >= end )
            break;
    }
    xsd_client_close(c);
    if ( write(out, &n, sizeof(n)) != sizeof(n) || rc )
        return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *sock = NULL, *op = NULL;
    unsigned long clients = 1, domains = 0;
    double seconds = 3, t0, t1;
    unsigned long long total = 0, n;
    int go[2], res[2], i, status, failed = 0;
    char *end;

    for ( i = 1; i + 1 < argc; i += 2 )
    {
        if ( strcmp(argv[i], "--socket") == 0 )
            sock = argv[i + 1];
        else if ( strcmp(argv[i], "--op") == 0 )
            op = argv[i + 1];
        else if ( strcmp(argv[i], "--clients") == 0 )
            clients = strtoul(argv[i + 1], &end, 10);
        else if ( strcmp(argv[i], "--seconds") == 0 )
            seconds = strtod(argv[i + 1], &end);
        else if ( strcmp(argv[i], "--domains") == 0 )
            domains = strtoul(argv[i + 1], &end, 10);
        else
            return usage("unknown option");
    }
    if ( i != argc || sock == NULL )
        return usage("--socket PATH is needed, each option takes a value");
    if ( domains )
        return populate(sock, domains);
    if ( op == NULL || (strcmp(op, "read") && strcmp(op, "write")) )
        return usage("--op must be read or write");
    if ( clients < 1 || clients > 64 || !(seconds > 0 && seconds <= 600) )
        return usage("--clients 1..64, --seconds (0, 600]");
    if ( pipe(go) || pipe(res) )
        return 1;
    for ( i = 0; i < (int)clients; i++ )
        if ( fork() == 0 )
        {
            close(go[1]);
            _exit(client(sock, op[0] == 'w', (unsigned int)i, seconds, go[0],
                         res[1]));
        }
    close(go[0]);
    close(res[1]);
    usleep(200000); /* every client connected */
    t0 = now();
    for ( i = 0; i < (int)clients; i++ )
        if ( write(go[1], "g", 1) != 1 )
            return 1;
    while ( read(res[0], &n, sizeof(n)) == sizeof(n) )
        total += n;
    t1 = now();
    while ( wait(&status) > 0 )
        failed |= !WIFEXITED(status) || WEXITSTATUS(status);
    printf("op %s clients %lu seconds %.2f requests %llu rps %.0f\n", op,
           clients, t1 - t0, total, (double)total / (t1 - t0));
    if ( failed )
        fprintf(stderr, "xs-load: a client failed\n");
    return failed;
}
