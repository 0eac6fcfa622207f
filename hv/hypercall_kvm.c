/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kvm boundary's VM: a real-mode guest that does nothing but exit.
 *
 * Guest memory (64 KiB at guest-physical 0):
 *   0x1000  code:  L: 66 ff 07   inc dword [bx]   ; count this entry
 *                     ee         out dx, al       ; exit to the model
 *                     eb fa      jmp L
 *   0x2000  one 64-byte block per vCPU: {count, op, args[4]}; vCPU i
 *           starts with BX = 0x2000 + 64 i, DX = HV_KVM_PORT
 *
 * Each KVM_RUN enters the guest, which bumps its count and executes the
 * OUT: KVM completes nothing (an OUT needs no data back) and returns to
 * user space with KVM_EXIT_IO.  The next KVM_RUN resumes after the OUT,
 * jumps back, and exits again: exactly one VM entry and one VM exit per
 * crossing.  The model writes a call's op and arguments into the block
 * before entering and reads them back after the exit, as a hypervisor
 * reads a guest's hypercall arguments from its registers or memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hv/hypercall.h>

#include "hypercall_kvm.h"

#define GUEST_MEM   0x10000u
#define GUEST_CODE  0x1000u
#define GUEST_BLOCK 0x2000u
#define HV_KVM_PORT 0x10u

struct guest_block {
    uint32_t count; /* the guest's: entries seen */
    uint32_t pad;
    uint64_t op;
    uint64_t args[HV_HC_NR_ARGS];
    uint64_t pad2[2];
};
_Static_assert(sizeof(struct guest_block) == 64, "one block per 64 bytes");

struct hv_kvm_vcpu {
    int fd; /* -1 until created */
    struct kvm_run *run;
    uint32_t expect; /* the guest's count after the last crossing */
};

struct hv_kvm {
    int kvm_fd, vm_fd;
    unsigned char *mem;
    size_t run_size;
    unsigned int nr_vcpus;
    char device[128];
    struct hv_kvm_vcpu vcpu[];
};

static const unsigned char guest_code[] = {
    0x66, 0xff, 0x07, /* inc dword [bx] */
    0xee,             /* out dx, al */
    0xeb, 0xfa,       /* jmp -6 */
};

static struct guest_block *block(struct hv_kvm *k, unsigned int id)
{
    return (struct guest_block *)(k->mem + GUEST_BLOCK +
                                  (size_t)id * sizeof(struct guest_block));
}

void hv_kvm_close(struct hv_kvm *k)
{
    unsigned int i;

    if ( k == NULL )
        return;
    for ( i = 0; i < k->nr_vcpus; i++ )
        if ( k->vcpu[i].fd >= 0 )
        {
            munmap(k->vcpu[i].run, k->run_size);
            close(k->vcpu[i].fd);
        }
    if ( k->vm_fd >= 0 )
        close(k->vm_fd);
    if ( k->kvm_fd >= 0 )
        close(k->kvm_fd);
    if ( k->mem != NULL && k->mem != MAP_FAILED )
        munmap(k->mem, GUEST_MEM);
    free(k);
}

/* -errno of the last call, with @err "boundary=kvm: <dev>: <what>: ..." */
static int fail(struct hv_kvm *k, int e, const char *what, const char *why,
                char *err, size_t len)
{
    snprintf(err, len, "boundary=kvm: %s: %s: %s%s", k->device, what,
             strerror(e), why);
    return -e;
}

int hv_kvm_open(struct hv_kvm **out, unsigned int max_vcpus, char *err,
                size_t len)
{
    const char *dev = getenv(HV_KVM_DEVICE_ENV);
    struct kvm_userspace_memory_region region;
    struct hv_kvm *k;
    unsigned int i;
    int rc, n;

    *out = NULL;
    if ( (size_t)max_vcpus * sizeof(struct guest_block) >
         GUEST_MEM - GUEST_BLOCK )
    {
        snprintf(err, len, "boundary=kvm: %u vCPUs do not fit the guest",
                 max_vcpus);
        return -EINVAL;
    }
    k = calloc(1, sizeof(*k) + max_vcpus * sizeof(k->vcpu[0]));
    if ( k == NULL )
    {
        snprintf(err, len, "boundary=kvm: out of memory");
        return -ENOMEM;
    }
    k->kvm_fd = k->vm_fd = -1;
    k->nr_vcpus = max_vcpus;
    for ( i = 0; i < max_vcpus; i++ )
        k->vcpu[i].fd = -1;
    snprintf(k->device, sizeof(k->device), "%s",
             dev && *dev ? dev : HV_KVM_DEVICE_DEFAULT);

    k->kvm_fd = open(k->device, O_RDWR | O_CLOEXEC);
    if ( k->kvm_fd < 0 )
    {
        rc = errno;
        rc = fail(k, rc, "cannot open the KVM device",
                  rc == EACCES || rc == EPERM
                      ? " (the user needs read-write access: group kvm)"
                  : rc == ENOENT ? " (no KVM here: module not loaded, or "
                                   "no hardware virtualisation)"
                                 : "",
                  err, len);
        goto out;
    }
    n = ioctl(k->kvm_fd, KVM_GET_API_VERSION, 0);
    if ( n != KVM_API_VERSION )
    {
        rc = n < 0 ? errno : EINVAL;
        rc =
            fail(k, rc, "not a KVM device (KVM_GET_API_VERSION)", "", err, len);
        goto out;
    }
    n = ioctl(k->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
    if ( n <= 0 )
    {
        rc = fail(k, errno ? errno : EINVAL, "KVM_GET_VCPU_MMAP_SIZE", "", err,
                  len);
        goto out;
    }
    k->run_size = (size_t)n;
    k->vm_fd = ioctl(k->kvm_fd, KVM_CREATE_VM, 0UL);
    if ( k->vm_fd < 0 )
    {
        rc = fail(k, errno, "KVM_CREATE_VM", "", err, len);
        goto out;
    }
    k->mem = mmap(NULL, GUEST_MEM, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if ( k->mem == MAP_FAILED )
    {
        rc = fail(k, errno, "guest memory", "", err, len);
        goto out;
    }
    memcpy(k->mem + GUEST_CODE, guest_code, sizeof(guest_code));
    memset(&region, 0, sizeof(region));
    region.slot = 0;
    region.guest_phys_addr = 0;
    region.memory_size = GUEST_MEM;
    region.userspace_addr = (uint64_t)(uintptr_t)k->mem;
    if ( ioctl(k->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0 )
    {
        rc = fail(k, errno, "KVM_SET_USER_MEMORY_REGION", "", err, len);
        goto out;
    }
#ifdef KVM_SET_TSS_ADDR
    /* Real mode on Intel without unrestricted guest needs a TSS. */
    (void)ioctl(k->vm_fd, KVM_SET_TSS_ADDR, 0xfffbd000UL);
#endif
    *out = k;
    return 0;

out:
    hv_kvm_close(k);
    return rc;
}

static int vcpu_create(struct hv_kvm *k, unsigned int id, char *err, size_t len)
{
    struct hv_kvm_vcpu *v = &k->vcpu[id];
    struct kvm_sregs sregs;
    struct kvm_regs regs;
    void *run;
    int fd, rc;

    fd = ioctl(k->vm_fd, KVM_CREATE_VCPU, (unsigned long)id);
    if ( fd < 0 )
        return fail(k, errno, "KVM_CREATE_VCPU", "", err, len);
    run = mmap(NULL, k->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if ( run == MAP_FAILED )
    {
        rc = fail(k, errno, "mmap of kvm_run", "", err, len);
        close(fd);
        return rc;
    }
    if ( ioctl(fd, KVM_GET_SREGS, &sregs) < 0 )
        goto sregs_fail;
    /* Real mode, flat at 0: the guest addresses its blocks through DS. */
    sregs.cs.base = 0;
    sregs.cs.selector = 0;
    sregs.ds.base = 0;
    sregs.ds.selector = 0;
    if ( ioctl(fd, KVM_SET_SREGS, &sregs) < 0 )
        goto sregs_fail;
    memset(&regs, 0, sizeof(regs));
    regs.rip = GUEST_CODE;
    regs.rflags = 0x2;
    regs.rbx = GUEST_BLOCK + (uint64_t)id * sizeof(struct guest_block);
    regs.rdx = HV_KVM_PORT;
    if ( ioctl(fd, KVM_SET_REGS, &regs) < 0 )
    {
        rc = fail(k, errno, "KVM_SET_REGS", "", err, len);
        goto out;
    }
    block(k, id)->count = 0;
    v->expect = 0;
    v->run = run;
    v->fd = fd;
    return 0;

sregs_fail:
    rc = fail(k, errno, "KVM_GET/SET_SREGS", "", err, len);
out:
    munmap(run, k->run_size);
    close(fd);
    return rc;
}

int hv_kvm_cross(struct hv_kvm *k, unsigned int id, uint64_t op,
                 const uint64_t *args, unsigned int nargs)
{
    struct hv_kvm_vcpu *v = &k->vcpu[id];
    volatile struct guest_block *b = block(k, id);
    struct kvm_run *run = v->run;
    unsigned int i;

    b->op = op;
    for ( i = 0; i < nargs && i < HV_HC_NR_ARGS; i++ )
        b->args[i] = args[i];
    /*
     * A signal (a profiler's timer) may stop KVM_RUN before the OUT:
     * KVM returns EINTR at an instruction boundary and the next KVM_RUN
     * resumes the guest where it stopped, so the count still moves by one.
     */
    while ( unlikely(ioctl(v->fd, KVM_RUN, 0) < 0) )
        if ( errno != EINTR )
            return -errno;
    if ( unlikely(run->exit_reason != KVM_EXIT_IO ||
                  run->io.direction != KVM_EXIT_IO_OUT ||
                  run->io.port != HV_KVM_PORT) )
        return -EIO;
    /* The guest ran once: its count moved by exactly one. */
    if ( unlikely(b->count != v->expect + 1) )
        return -EIO;
    v->expect = b->count;
    /* The hypervisor side reads the call from guest memory. */
    if ( unlikely(b->op != op) )
        return -EIO;
    return 0;
}

int hv_kvm_vcpu_ready(struct hv_kvm *k, unsigned int id, char *err, size_t len)
{
    uint64_t args[HV_HC_NR_ARGS] = {0};
    int rc;

    if ( id >= k->nr_vcpus )
    {
        snprintf(err, len, "boundary=kvm: vCPU %u beyond the VM's %u", id,
                 k->nr_vcpus);
        return -EINVAL;
    }
    if ( k->vcpu[id].fd < 0 && (rc = vcpu_create(k, id, err, len)) != 0 )
        return rc;
    rc = hv_kvm_cross(k, id, 0, args, HV_HC_NR_ARGS);
    if ( rc )
    {
        struct kvm_run *run = k->vcpu[id].run;

        snprintf(err, len,
                 "boundary=kvm: %s: the guest did not exit through its OUT "
                 "(KVM_RUN: %s; exit_reason %u)",
                 k->device, rc == -EIO ? "wrong exit" : strerror(-rc),
                 run->exit_reason);
    }
    return rc;
}
