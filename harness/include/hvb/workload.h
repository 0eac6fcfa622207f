/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workloads.  One file per workload (workloads/micro/<name>.c,
 * workloads/macro/<name>.c), declared through this header and registered
 * with HVB_REGISTER_WORKLOAD() at the end of the file:
 *
 *   static void lookup_thread(struct hvb_thread *t)
 *   {
 *       while ( hvb_keep_running_batch(t, BATCH) )
 *       {
 *           for ( i = 0; i < BATCH; i++ ) ... one op ...
 *           hv_rcu_quiescent(t->cpu);       // leave the hypervisor
 *       }
 *   }
 *   HVB_REGISTER_WORKLOAD(lookup) = { .name = "lookup", ... };
 *
 * A "cell" is one point of a run's matrix: workload x plugin set x params
 * x threads.  prepare() builds its model state once (the harness creates
 * the struct hv from the cell's plugin set first); thread() runs on every
 * measured thread for every Google Benchmark run of the cell; background()
 * (optional) runs beside them, unmeasured, until hvb_bg_should_stop();
 * cleanup() frees what prepare() made.
 */
#ifndef HVB_WORKLOAD_H
#define HVB_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/compiler.h>
#include <hv/hv.h>
#include <hv/opt.h>

enum hvb_kind {
    HVB_MICRO,
    HVB_MACRO,
};

/*
 * Parameters: a workload declares a plain struct of its parameters and a
 * table of rows (the option engine's, hv/opt.h) naming each field; the
 * harness parses --param values into one such struct per cell, and the
 * workload reads typed fields (a misspelt name is a compile error):
 *
 *   struct lookup_params { uint64_t domains; unsigned int distribution; };
 *   static const struct hv_opt lookup_param_table[] = {
 *       HVB_PARAM_UINT_ROW(struct lookup_params, domains, "100", 1, 32751,
 *                          "domains in the table"),
 *       HVB_PARAM_ENUM_ROW(struct lookup_params, distribution, "hot",
 *                          "hot|uniform", "which ids are looked up"),
 *       HVB_PARAM_TABLE_END,
 *   };
 *   ... .params = lookup_param_table,
 *       .params_size = sizeof(struct lookup_params), ...
 *   const struct lookup_params *p = c->params;   (in a hook)
 *
 * Field types: UINT uint64_t (decimal, k/M/G suffixes, in [min, max]);
 * ENUM unsigned int, the index of the value in "a|b|c"; STR
 * char[HV_OPT_TEXT_MAX], a short word of [A-Za-z0-9.:+_-] the workload
 * parses itself in check() (a NUMA topology "2x1G+0"), its syntax in
 * one line for `hvbench list` and errors.  A row is named as its field;
 * rows shared by several workloads (workloads/lib) use HV_OPT_*_ROW
 * with a name and a field of a nested struct.
 */
/* clang-format off */
#define HVB_PARAM_UINT_ROW(st, f, def_, min_, max_, help_)                     \
    HV_OPT_U64_ROW(st, f, #f, def_, min_, max_, help_)
#define HVB_PARAM_ENUM_ROW(st, f, def_, choices_, help_)                       \
    HV_OPT_ENUM_ROW(st, f, #f, def_, choices_, help_)
#define HVB_PARAM_STR_ROW(st, f, def_, syntax_, help_)                         \
    HV_OPT_STR_ROW(st, f, #f, def_, syntax_, help_)
#define HVB_PARAM_TABLE_END HV_OPT_TABLE_END
/* clang-format on */

struct hvb_cell;
struct hvb_thread;

/* Workload flags. */
#define HVB_WF_ONE_SHOT (1u << 0) /* macro: one iteration per repetition */

struct hvb_workload {
    const char *name;
    enum hvb_kind kind;
    const char *summary;
    const char *const *slots;    /* slots it exercises, NULL-ended */
    const struct hv_opt *params; /* HVB_PARAM_TABLE_END-ended */
    size_t params_size;          /* sizeof the struct @params describes */
    unsigned int flags;
    /*
     * Validate the cell (cross-parameter rules, plugin restrictions);
     * 0 or -EINVAL with hvb_cell_error().  Runs before anything is built.
     */
    int (*check)(struct hvb_cell *c);
    /* Optional: adjust the model's config before the harness builds it. */
    void (*configure)(const struct hvb_cell *c, struct hv_config *cfg);
    int (*prepare)(struct hvb_cell *c);
    void (*thread)(struct hvb_thread *t);
    void (*background)(struct hvb_thread *t);
    void (*cleanup)(struct hvb_cell *c);
    /*
     * Optional: the host memory (bytes) the cell holds at its peak, from
     * its params: the model memory it touches, the model's tables, what
     * prepare() builds.  An estimate, erring high; the harness refuses a
     * run whose cells need more than the machine has available.
     */
    uint64_t (*mem_need)(const struct hvb_cell *c);
    /* Optional: add workload counters after a run (hvb_counter_set). */
    void (*report)(struct hvb_cell *c);
    /*
     * The smoke test's params, as --param takes them: "K=V[,V...] ...",
     * small enough that one short round of every cell (every plugin of
     * every slot x these values x 1 and 2 threads) takes well under a
     * second; "" for the defaults.  "threads=1" replaces the thread
     * counts (a workload of one measured thread).  Required: the smoke
     * test (tests/registry/smoke.py) fails a workload without it.
     */
    const char *smoke;
};

#define HVB_REGISTER_WORKLOAD(var)                                      \
    static const struct hvb_workload var;                               \
    static const struct hvb_workload *const hvb_workload_entry_##var    \
        __attribute__((used, retain, section("hvb_workloads"))) = &var; \
    static const struct hvb_workload var

/* One cell of the matrix, as a workload sees it. */
struct hvb_cell {
    const struct hvb_workload *w;
    struct hv *hv; /* built by the harness before prepare */
    unsigned int threads;
    const void *params; /* the workload's param struct, parsed */
    void *priv;         /* the workload's state */
    char error[256];
};

/* One thread of a run. */
struct hvb_thread {
    struct hvb_cell *cell;
    struct hv_cpu *cpu; /* this thread's model CPU */
    unsigned int index; /* 0 .. threads-1 */
    unsigned int nthreads;
    uint64_t rng; /* per-thread xorshift state */
    void *state;  /* engine state (opaque) */
    void *priv;   /* free for the workload */
};

void hvb_cell_error(struct hvb_cell *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The resolved plugin of @slot in this cell, or NULL. */
const struct hv_plugin_inst *hvb_cell_plugin(const struct hvb_cell *c,
                                             const char *slot);

/*
 * hvb_keep_running_batch - account @n operations and say whether to run
 * another batch.  The first call starts the clock for this thread (after
 * every thread is ready); measure whole batches only.
 */
bool hvb_keep_running_batch(struct hvb_thread *t, uint64_t n);

/* Background threads: poll this; sleep in short steps. */
bool hvb_bg_should_stop(const struct hvb_thread *t);

/*
 * Counters reported with the run.  Values set by several threads are
 * summed; the harness divides "per op" counters by the operation count.
 */
#define HVB_CTR_PER_OP 0x1u /* divide by total operations */
#define HVB_CTR_RATE   0x2u /* divide by seconds */
void hvb_counter_add(struct hvb_thread *t, const char *name, double v,
                     unsigned int flags);

/*
 * hvb_counter_set - from a workload's report() hook: add counter @name to
 * this run (summed with the threads' counters, divided as @flags say).
 * Ignored, with one warning, outside report().
 */
void hvb_counter_set(struct hvb_cell *c, const char *name, double v,
                     unsigned int flags);

/* xorshift64*: a cheap per-thread generator. */
static inline uint64_t hvb_rand(struct hvb_thread *t)
{
    uint64_t x = t->rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    t->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, n) without division bias worth caring about here. */
static inline uint64_t hvb_rand_below(struct hvb_thread *t, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)hvb_rand(t) * n) >> 64);
}

#endif /* HVB_WORKLOAD_H */
