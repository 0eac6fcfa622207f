/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A C client built against Debian's libxenstore (libxen-dev) drives
 * hvbench xenstored (a server thread of this test): reads, writes,
 * directories (a large one through libxenstore's DIRECTORY_PART
 * fallback), permissions, transactions with EAGAIN, watches through
 * libxenstore's reader thread, domain introduction and release, CONTROL.
 * Also: the daemon's wire constants are xs_wire.h's.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <xen/io/xs_wire.h>
#include <xenstore.h>

#include <hv/hv.h>
#include <xsd/wire.h>
#include <xsd/xenstored.h>

#include "testlib.h"

static struct hv *hv;
static struct xsd_server *srv;
static pthread_t th;
static char dir[64], sock[96];

static void *serve(void *arg)
{
    xsd_server_run(arg);
    return NULL;
}

static int setup(void **state)
{
    struct xsd_opts o = {0};
    char err[256];

    strcpy(dir, "/tmp/hvb-xsd-libxs.XXXXXX");
    if ( mkdtemp(dir) == NULL )
        return -1;
    snprintf(sock, sizeof(sock), "%s/sock", dir);
    hv = tl_hv_create_slot("quota", "persistent");
    o.socket = sock;
    if ( hv == NULL || xsd_server_create(hv_xs(hv), &o, &srv, err, 256) )
        return -1;
    setenv("XENSTORED_PATH", sock, 1);
    return pthread_create(&th, NULL, serve, srv);
}

static int teardown(void **state)
{
    xsd_server_stop(srv);
    pthread_join(th, NULL);
    xsd_server_destroy(srv);
    hv_destroy(hv);
    rmdir(dir);
    return 0;
}

static void test_wire_constants(void **state)
{
    unsigned int i;

    assert_int_equal(XSD_DIRECTORY_PART, XS_DIRECTORY_PART);
    assert_int_equal(XSD_RESET_WATCHES, XS_RESET_WATCHES);
    assert_int_equal(XSD_TYPE_COUNT, XS_TYPE_COUNT);
    assert_int_equal(XSD_WATCH_EVENT, XS_WATCH_EVENT);
    assert_int_equal(XSD_ERROR, XS_ERROR);
    assert_int_equal(XSD_HDR_LEN, sizeof(struct xsd_sockmsg));
    assert_int_equal(XSD_PAYLOAD_MAX, XENSTORE_PAYLOAD_MAX);
    for ( i = 0; i < sizeof(xsd_errors) / sizeof(xsd_errors[0]); i++ )
        assert_string_equal(xsd_errno_name(xsd_errors[i].errnum),
                            xsd_errors[i].errstring);
}

static void test_basic(void **state)
{
    struct xs_handle *h = xs_open(0);
    struct xs_permissions p[2] = {{5, XS_PERM_NONE}, {7, XS_PERM_READ}}, *gp;
    unsigned int n, len;
    char **names, *v;

    assert_non_null(h);
    assert_true(xs_write(h, XBT_NULL, "/c/a", "hello", 5));
    v = xs_read(h, XBT_NULL, "/c/a", &len);
    assert_non_null(v);
    assert_int_equal(len, 5);
    assert_string_equal(v, "hello");
    free(v);
    assert_true(xs_mkdir(h, XBT_NULL, "/c/m"));
    names = xs_directory(h, XBT_NULL, "/c", &n);
    assert_non_null(names);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "a");
    assert_string_equal(names[1], "m");
    free(names);
    assert_true(xs_set_permissions(h, XBT_NULL, "/c/a", p, 2));
    gp = xs_get_permissions(h, XBT_NULL, "/c/a", &n);
    assert_non_null(gp);
    assert_int_equal(n, 2);
    assert_int_equal(gp[0].id, 5);
    assert_int_equal(gp[1].id, 7);
    assert_int_equal(gp[1].perms, XS_PERM_READ);
    free(gp);
    assert_true(xs_rm(h, XBT_NULL, "/c/m"));
    assert_null(xs_read(h, XBT_NULL, "/c/m", &len));
    assert_int_equal(errno, ENOENT);
    assert_false(xs_write(h, XBT_NULL, "/c//x", "v", 1));
    assert_int_equal(errno, EINVAL);
    /* the handle still works after an error */
    v = xs_read(h, XBT_NULL, "/c/a", &len);
    assert_non_null(v);
    free(v);
    xs_close(h);
}

/* 500 children of 12 bytes: DIRECTORY is E2BIG, DIRECTORY_PART serves. */
static void test_big_directory(void **state)
{
    struct xs_handle *h = xs_open(0);
    char path[64], want[32];
    unsigned int n, i;
    char **names;

    assert_non_null(h);
    for ( i = 0; i < 500; i++ )
    {
        snprintf(path, sizeof(path), "/big/entry-%05u", i);
        assert_true(xs_write(h, XBT_NULL, path, "", 0));
    }
    names = xs_directory(h, XBT_NULL, "/big", &n);
    assert_non_null(names);
    assert_int_equal(n, 500);
    for ( i = 0; i < 500; i++ )
    {
        snprintf(want, sizeof(want), "entry-%05u", i);
        assert_string_equal(names[i], want);
    }
    free(names);
    xs_close(h);
}

static void test_transactions(void **state)
{
    struct xs_handle *a = xs_open(0), *b = xs_open(0);
    xs_transaction_t t;
    unsigned int len;
    char *v;

    assert_true(xs_write(a, XBT_NULL, "/t/x", "0", 1));
    t = xs_transaction_start(a);
    assert_true(t != XBT_NULL);
    v = xs_read(a, t, "/t/x", &len);
    free(v);
    assert_true(xs_write(a, t, "/t/x", "1", 1));
    v = xs_read(b, XBT_NULL, "/t/x", &len);
    assert_string_equal(v, "0"); /* isolated */
    free(v);
    assert_true(xs_transaction_end(a, t, false));
    v = xs_read(b, XBT_NULL, "/t/x", &len);
    assert_string_equal(v, "1");
    free(v);
    /* conflict: read in the transaction, changed outside */
    t = xs_transaction_start(a);
    v = xs_read(a, t, "/t/x", &len);
    free(v);
    assert_true(xs_write(b, XBT_NULL, "/t/x", "2", 1));
    assert_true(xs_write(a, t, "/t/x", "3", 1));
    assert_false(xs_transaction_end(a, t, false));
    assert_int_equal(errno, EAGAIN);
    v = xs_read(b, XBT_NULL, "/t/x", &len);
    assert_string_equal(v, "2");
    free(v);
    /* abort */
    t = xs_transaction_start(a);
    assert_true(xs_write(a, t, "/t/y", "1", 1));
    assert_true(xs_transaction_end(a, t, true));
    assert_null(xs_read(b, XBT_NULL, "/t/y", &len));
    xs_close(a);
    xs_close(b);
}

static void test_watch(void **state)
{
    struct xs_handle *w = xs_open(0), *h = xs_open(0);
    unsigned int n;
    char **ev;

    assert_true(xs_watch(w, "/wt", "tok"));
    ev = xs_read_watch(w, &n);
    assert_non_null(ev);
    assert_string_equal(ev[XS_WATCH_PATH], "/wt");
    assert_string_equal(ev[XS_WATCH_TOKEN], "tok");
    free(ev);
    assert_true(xs_write(h, XBT_NULL, "/wt/a/b", "v", 1));
    ev = xs_read_watch(w, &n);
    assert_non_null(ev);
    assert_string_equal(ev[XS_WATCH_PATH], "/wt/a/b");
    free(ev);
    assert_true(xs_watch(w, "@releaseDomain", "rel"));
    ev = xs_read_watch(w, &n);
    free(ev);
    assert_true(xs_unwatch(w, "/wt", "tok"));
    assert_false(xs_unwatch(w, "/wt", "tok"));
    assert_int_equal(errno, ENOENT);

    /* domains, as a toolstack does it */
    assert_false(xs_is_domain_introduced(h, 9));
    assert_true(xs_introduce_domain(h, 9, 100, 3));
    assert_true(xs_is_domain_introduced(h, 9));
    assert_string_equal(xs_get_domain_path(h, 9), "/local/domain/9");
    assert_true(xs_write(h, XBT_NULL, "/local/domain/9/name", "vm9", 3));
    assert_true(xs_release_domain(h, 9));
    ev = xs_read_watch(w, &n);
    assert_non_null(ev);
    assert_string_equal(ev[XS_WATCH_PATH], "@releaseDomain");
    assert_string_equal(ev[XS_WATCH_TOKEN], "rel");
    free(ev);
    assert_false(xs_is_domain_introduced(h, 9));
    assert_null(xs_read(h, XBT_NULL, "/local/domain/9/name", &n));
    assert_non_null(xs_control_command(h, "check", NULL, 0));
    xs_close(w);
    xs_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wire_constants),
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_big_directory),
        cmocka_unit_test(test_transactions),
        cmocka_unit_test(test_watch),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
