/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hypercall boundary (hv/hypercall.h): the entry every hypercall of
 * the model crosses, its set-up per machine and per model CPU, and the
 * measured cost of one crossing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <hv/hypercall.h>

#include "hypercall_kvm.h"
#include "private.h"

#define MEASURE_BATCHES 9
#define MEASURE_BATCH   64

static const char *const boundary_names[HV_BOUNDARY_NR] = {
    [HV_BOUNDARY_NONE] = "none",
    [HV_BOUNDARY_SYSCALL] = "syscall",
    [HV_BOUNDARY_KVM] = "kvm",
};

const char *hv_boundary_name(enum hv_boundary b)
{
    return b < HV_BOUNDARY_NR ? boundary_names[b] : "?";
}

/* A real kernel entry and exit: getppid is never cached by glibc. */
static inline void cross_syscall(void)
{
    long r = syscall(SYS_getppid);

    hv_do_not_optimize(r);
}

void hv_hypercall(struct hv_cpu *cpu, enum hv_hypercall_op op,
                  const uint64_t *args)
{
    struct hv *hv = cpu->hv;

    hv_perfc_incr(cpu, hypercall);
    switch ( hv->cfg.boundary )
    {
    case HV_BOUNDARY_NONE:
        break;
    case HV_BOUNDARY_SYSCALL:
        cross_syscall();
        break;
    case HV_BOUNDARY_KVM:
        HV_BUG_ON(hv_kvm_cross(hv->kvm, cpu->id, op, args, HV_HC_NR_ARGS));
        break;
    }
}

double hv_hypercall_crossing_ns(const struct hv *hv)
{
    return hv->crossing_ns;
}

enum hv_boundary hv_hypercall_boundary(const struct hv *hv)
{
    return (enum hv_boundary)hv->cfg.boundary;
}

/* An out-of-line empty call: what boundary=none costs. */
static void __attribute__((noinline)) cross_none(void)
{
    __asm__ volatile("" ::: "memory");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Median over batches of one crossing of @b (vCPU @id of @k for kvm). */
static int measure(enum hv_boundary b, struct hv_kvm *k, unsigned int id,
                   double *ns)
{
    uint64_t args[HV_HC_NR_ARGS] = {0};
    double per[MEASURE_BATCHES];
    unsigned int r, i;

    for ( r = 0; r < MEASURE_BATCHES; r++ )
    {
        uint64_t t0 = hv_now_ns();

        for ( i = 0; i < MEASURE_BATCH; i++ )
            switch ( b )
            {
            case HV_BOUNDARY_NONE:
                cross_none();
                break;
            case HV_BOUNDARY_SYSCALL:
                cross_syscall();
                break;
            default:
                if ( hv_kvm_cross(k, id, 0, args, HV_HC_NR_ARGS) )
                    return -EIO;
                break;
            }
        per[r] = (double)(hv_now_ns() - t0) / MEASURE_BATCH;
    }
    qsort(per, MEASURE_BATCHES, sizeof(per[0]), cmp_double);
    *ns = per[MEASURE_BATCHES / 2];
    return 0;
}

int hv_hypercall_init(struct hv *hv, char *err, size_t len)
{
    unsigned int calib;
    int rc;

    if ( hv->cfg.boundary >= HV_BOUNDARY_NR )
    {
        snprintf(err, len, "boundary must be one of %s", HV_BOUNDARY_CHOICES);
        return -EINVAL;
    }
    if ( hv->cfg.boundary != HV_BOUNDARY_KVM )
        return measure(hv->cfg.boundary, NULL, 0, &hv->crossing_ns);
    /* One vCPU per model CPU, plus one for the measurement here. */
    calib = hv->cfg.nr_cpus;
    rc = hv_kvm_open(&hv->kvm, calib + 1, err, len);
    if ( rc == 0 )
        rc = hv_kvm_vcpu_ready(hv->kvm, calib, err, len);
    if ( rc == 0 && (rc = measure(HV_BOUNDARY_KVM, hv->kvm, calib,
                                  &hv->crossing_ns)) != 0 )
        snprintf(err, len, "boundary=kvm: a crossing failed while measuring");
    if ( rc )
        hv_hypercall_fini(hv);
    return rc;
}

void hv_hypercall_fini(struct hv *hv)
{
    hv_kvm_close(hv->kvm);
    hv->kvm = NULL;
}

int hv_hypercall_cpu_online(struct hv_cpu *cpu)
{
    char err[256];
    int rc;

    if ( cpu->hv->kvm == NULL )
        return 0;
    rc = hv_kvm_vcpu_ready(cpu->hv->kvm, cpu->id, err, sizeof(err));
    if ( rc )
        fprintf(stderr, "hv: CPU %u: %s\n", cpu->id, err);
    return rc;
}

int hv_boundary_measure(enum hv_boundary b, double *ns, char *err, size_t len)
{
    struct hv_kvm *k = NULL;
    int rc;

    if ( b >= HV_BOUNDARY_NR )
    {
        snprintf(err, len, "boundary must be one of %s", HV_BOUNDARY_CHOICES);
        return -EINVAL;
    }
    if ( b != HV_BOUNDARY_KVM )
        return measure(b, NULL, 0, ns);
    rc = hv_kvm_open(&k, 1, err, len);
    if ( rc == 0 )
        rc = hv_kvm_vcpu_ready(k, 0, err, len);
    if ( rc == 0 && (rc = measure(b, k, 0, ns)) != 0 )
        snprintf(err, len, "boundary=kvm: a crossing failed while measuring");
    hv_kvm_close(k);
    return rc;
}
