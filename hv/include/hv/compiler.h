/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Compiler helpers shared by the model, the plugins and the harness.
 * Kept tiny on purpose: Xen's xen/compiler.h is the model.
 */
#ifndef HV_COMPILER_H
#define HV_COMPILER_H

#include <stdint.h>

#define HV_CACHELINE           64
#define __hv_cacheline_aligned __attribute__((aligned(HV_CACHELINE)))
#define likely(x)              __builtin_expect(!!(x), 1)
#define unlikely(x)            __builtin_expect(!!(x), 0)
#define HV_MUST_CHECK          __attribute__((warn_unused_result))
#define HV_UNUSED              __attribute__((unused))
#define HV_ARRAY_SIZE(a)       (sizeof(a) / sizeof((a)[0]))
#define HV_STRINGIFY_(x)       #x
#define HV_STRINGIFY(x)        HV_STRINGIFY_(x)
#define container_of(ptr, type, member) \
    ((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

/* Keep a value alive and opaque to the optimiser (Google Benchmark's
 * DoNotOptimize). */
#define hv_do_not_optimize(x) __asm__ volatile("" : "+r,m"(x) : : "memory")

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#endif
}

/*
 * HV_BUG_ON - an invariant of the model is broken (a programming error,
 * never bad input): print where and abort.  On in every build.
 */
void hv_bug(const char *file, int line, const char *cond)
    __attribute__((noreturn, cold));
#define HV_BUG_ON(c)                        \
    do                                      \
    {                                       \
        if ( unlikely(c) )                  \
            hv_bug(__FILE__, __LINE__, #c); \
    } while ( 0 )

/* Nanoseconds of CLOCK_MONOTONIC (hv/time.c). */
uint64_t hv_now_ns(void);

#endif /* HV_COMPILER_H */
