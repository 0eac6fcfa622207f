/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hypercall boundary (hv/hypercall.h): none and syscall always work;
 * kvm works where the KVM device does (skipped, saying why, where it
 * cannot be opened) and fails at hv_create() with its reason where the
 * device is missing ($HVB_KVM_DEVICE at a missing file) or is not a KVM
 * device (/dev/null); every hypercall crosses once (grant map and unmap,
 * the getdomaininfolist sysctl), and the crossing cost is measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <hv/hv.h>
#include <hv/hypercall.h>
#include <hv/xenctrl.h>

static int make(unsigned int boundary, struct hv **hv, char *err, size_t len)
{
    struct hv_config cfg;

    hv_config_init(&cfg);
    cfg.nr_cpus = 3;
    cfg.boundary = boundary;
    return hv_create(&cfg, hv, err, len);
}

/* One grant map + unmap hypercall and one sysctl cross three times. */
static void crosses_once_per_hypercall(struct hv *hv)
{
    struct hv_gnttab_map_op map = {.dom = 1, .ref = 0};
    struct hv_gnttab_unmap_op unmap;
    struct hv_domaininfo info[4];
    struct hv_cpu *cpu;
    struct hv_xc xc;

    assert_int_equal(hv_domain_create(hv, 0, 4, NULL), 0);
    assert_int_equal(hv_domain_create(hv, 1, 4, NULL), 0);
    cpu = hv_cpu_enter(hv, 1);
    assert_non_null(cpu);
    assert_int_equal(hv_gnttab_grant_access(cpu, 1, 0, 0, 0, false), 0);
    hv_perfc_reset(hv);
    assert_int_equal(hv_gnttab_map(cpu, &map, 1), 1);
    assert_int_equal(map.status, GNTST_okay);
    unmap.handle = map.handle;
    assert_int_equal(hv_gnttab_unmap(cpu, &unmap, 1), 1);
    hv_xc_open(&xc, cpu);
    assert_int_equal(hv_xc_domain_getinfolist(&xc, 0, 4, 0, info), 2);
    assert_int_equal(info[1].domain, 1);
    hv_xc_close(&xc);
    assert_int_equal(hv_perfc_sum(hv, HV_PERFC_hypercall), 3);
    hv_rcu_quiescent(cpu);
    hv_cpu_leave(cpu);
}

static void none_and_syscall(void **state)
{
    unsigned int b;

    (void)state;
    for ( b = HV_BOUNDARY_NONE; b <= HV_BOUNDARY_SYSCALL; b++ )
    {
        char err[256] = "";
        struct hv *hv;

        assert_int_equal(make(b, &hv, err, sizeof(err)), 0);
        assert_int_equal(hv_hypercall_boundary(hv), b);
        assert_true(hv_hypercall_crossing_ns(hv) > 0);
        crosses_once_per_hypercall(hv);
        hv_destroy(hv);
    }
    /* A real kernel entry costs more than a function call. */
    {
        double none, sys;
        char err[256];

        assert_int_equal(
            hv_boundary_measure(HV_BOUNDARY_NONE, &none, err, sizeof(err)), 0);
        assert_int_equal(
            hv_boundary_measure(HV_BOUNDARY_SYSCALL, &sys, err, sizeof(err)),
            0);
        assert_true(sys > none);
    }
}

static void bad_boundary(void **state)
{
    char err[256] = "";
    struct hv *hv;

    (void)state;
    assert_int_equal(make(HV_BOUNDARY_NR, &hv, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "none|syscall|kvm"));
}

static void kvm_missing_device(void **state)
{
    char err[256] = "";
    struct hv *hv = NULL;
    double ns;

    (void)state;
    setenv(HV_KVM_DEVICE_ENV, "/nonexistent/hvb-kvm", 1);
    assert_int_equal(make(HV_BOUNDARY_KVM, &hv, err, sizeof(err)), -ENOENT);
    assert_null(hv);
    assert_non_null(strstr(err, "/nonexistent/hvb-kvm"));
    assert_non_null(strstr(err, "No such file"));
    assert_int_equal(
        hv_boundary_measure(HV_BOUNDARY_KVM, &ns, err, sizeof(err)), -ENOENT);
    /* A device that is not KVM says so. */
    setenv(HV_KVM_DEVICE_ENV, "/dev/null", 1);
    assert_true(make(HV_BOUNDARY_KVM, &hv, err, sizeof(err)) < 0);
    assert_non_null(strstr(err, "not a KVM device"));
    unsetenv(HV_KVM_DEVICE_ENV);
}

static void kvm_works(void **state)
{
    char err[256] = "";
    struct hv *hv;
    double none;
    int fd;

    (void)state;
    unsetenv(HV_KVM_DEVICE_ENV);
    fd = open(HV_KVM_DEVICE_DEFAULT, O_RDWR);
    if ( fd < 0 )
    {
        print_message("skipped: %s: %s\n", HV_KVM_DEVICE_DEFAULT,
                      strerror(errno));
        skip();
    }
    close(fd);
    assert_int_equal(make(HV_BOUNDARY_KVM, &hv, err, sizeof(err)), 0);
    assert_int_equal(hv_hypercall_boundary(hv), HV_BOUNDARY_KVM);
    crosses_once_per_hypercall(hv);
    /* A VM exit costs more than a function call. */
    assert_int_equal(
        hv_boundary_measure(HV_BOUNDARY_NONE, &none, err, sizeof(err)), 0);
    assert_true(hv_hypercall_crossing_ns(hv) > 10 * none);
    hv_destroy(hv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(none_and_syscall),
        cmocka_unit_test(bad_boundary),
        cmocka_unit_test(kvm_missing_device),
        cmocka_unit_test(kvm_works),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
