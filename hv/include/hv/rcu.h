/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A minimal quiescent-state-based RCU for the model, shaped like Xen's
 * (xen/common/rcupdate.c): read-side sections cost nothing but a per-CPU
 * nesting count, a CPU reports a quiescent state when it "leaves the
 * hypervisor" (the end of each operation batch), and call_rcu() callbacks
 * run once every online CPU has reported one after the callback was queued.
 *
 * Ordering uses C11 acquire/release atomics only (no bare fences), so
 * ThreadSanitizer can follow it:
 *
 *   writer                          reader CPU c
 *   unlink(p)  (release store)      ... uses p ...
 *   t = ++gp_seq (acq_rel)          g = gp_seq (acquire)
 *   wait: qs[c] >= t (acquire)  <-- qs[c] = g (release)
 *   free(p)
 *
 * If the writer reads qs[c] >= t, c read the incremented gp_seq, so every
 * use of p that c made before its quiescent state happens-before the free,
 * and every later read by c sees the unlink.  CPUs going on and off line
 * take the registry mutex that the grace-period scan also takes, so a scan
 * that saw a CPU off line happens-before that CPU's first read.
 *
 * Worked example (2 CPUs, one callback):
 *   gp_seq = 4; qs[0] = 4; qs[1] = 4
 *   writer unlinks d and calls hv_call_rcu(d): gp_seq = 5, d.target = 5
 *   CPU0 ends its batch: qs[0] = 5.  Scan: min(qs) = 4 < 5, d stays.
 *   CPU1 ends its batch: qs[1] = 5.  Scan: min(qs) = 5 >= 5, d is freed.
 *   A CPU off line (qs = HV_RCU_OFFLINE) never holds a grace period back.
 */
#ifndef HV_RCU_H
#define HV_RCU_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hv/compiler.h>
#include <hv/cpu.h>

struct hv;

struct hv_rcu_head {
    struct hv_rcu_head *next;
    uint64_t target; /* gp_seq that frees it */
    void (*func)(struct hv_rcu_head *head);
};

/* Dereference / publish an RCU-protected pointer (an _Atomic pointer). */
#define hv_rcu_dereference(p) atomic_load_explicit(&(p), memory_order_acquire)
#define hv_rcu_assign_pointer(p, v) \
    atomic_store_explicit(&(p), (v), memory_order_release)

/*
 * hv_rcu_read_lock - enter a read-side section on @cpu.
 * Costs a per-CPU counter increment: the guarantee comes from the CPU not
 * reporting a quiescent state until hv_rcu_quiescent().  Inline, as Xen's
 * rcu_read_lock() and liburcu's with _LGPL_SOURCE are: out of line, the
 * call cost more than the increment on the RCU strategies' lookup path.
 */
static inline void hv_rcu_read_lock(struct hv_cpu *cpu)
{
    cpu->rcu_nesting++;
}

static inline void hv_rcu_read_unlock(struct hv_cpu *cpu)
{
    HV_BUG_ON(cpu->rcu_nesting == 0);
    cpu->rcu_nesting--;
}

/*
 * hv_rcu_quiescent - @cpu holds no RCU-protected reference.
 * Called at the end of every operation batch, where Xen leaves the
 * hypervisor.  Every 64th call it also runs callbacks that are ready.
 */
void hv_rcu_quiescent(struct hv_cpu *cpu);

/*
 * hv_call_rcu - run @func(@head) after a grace period.  May be called from
 * any thread, online or not.  Never blocks on readers.
 */
void hv_call_rcu(struct hv *hv, struct hv_rcu_head *head,
                 void (*func)(struct hv_rcu_head *head));

/* Run every callback whose grace period has ended.  Returns how many ran. */
unsigned int hv_rcu_poll(struct hv *hv);

/*
 * hv_rcu_barrier - wait until every queued callback (and those they queue)
 * has run.  The caller must not be an online CPU.
 */
void hv_rcu_barrier(struct hv *hv);

/* Callbacks queued and not yet run. */
unsigned long hv_rcu_pending(const struct hv *hv);

#endif /* HV_RCU_H */
