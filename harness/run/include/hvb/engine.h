/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The measurement engine: a C face on Google Benchmark (harness/run/gbench/
 * shim.cc, the only C++ in the harness).  The caller hands in one
 * benchmark per cell; the engine registers them at run time, runs them
 * with repetitions (randomly interleaved if asked), real time, and
 * Google Benchmark's calibration, and hands back one sample per
 * repetition plus the library's context, as plain C data.
 *
 * A body runs on every measured thread of every Google Benchmark run
 * (calibration runs included).  It must call hvb_engine_keep_running()
 * until it returns false, or hvb_engine_fail(); the engine drains the
 * loop for a body that returns early, so the library's start/stop
 * barriers never hang, and reports that run as an error.
 */
#ifndef HVB_ENGINE_H
#define HVB_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One measured thread of one Google Benchmark run. */
struct hvb_engine_thread {
    void *gb;           /* benchmark::State, opaque to C */
    unsigned int index; /* 0 .. nthreads-1 */
    unsigned int nthreads;
    bool finished; /* keep_running said stop (or failed) */
    bool failed;   /* hvb_engine_fail() was called */
    uint64_t ops;  /* operations accounted by hvb_engine_keep_running() */
};

struct hvb_engine_bench {
    /*
     * Our name, ending in "/threads:N" (N == threads).  It is registered
     * without that suffix: Google Benchmark appends it itself.
     */
    const char *name;
    unsigned int threads;
    bool one_shot; /* Iterations(1) instead of calibration */
    /*
     * Operations per thread for every repetition (Iterations(n)), or 0 to
     * calibrate to the minimum time.  Paired rounds use a count shared by
     * every cell of a group (harness/session/run_session.c).
     */
    int64_t iterations;
    void (*body)(void *arg, struct hvb_engine_thread *et);
    void *arg;
};

struct hvb_engine_opts {
    unsigned int repetitions; /* >= 1 */
    double min_time_s;        /* > 0; ignored for one-shot benches */
    bool interleave;          /* random interleaving of repetitions */
    const char *argv0;        /* the context's executable; must outlive
                                   the process's last run */
    /* Called once the library's context is known, before the first run. */
    void (*on_context)(void *ctx, const char *context_json);
    /* Called when every repetition of bench @bench is done. */
    void (*on_done)(void *ctx, size_t bench);
    void *hook_ctx;
};

/* Counter flags, the same bits as HVB_CTR_* of workload.h. */
#define HVB_ENGINE_CTR_PER_OP 0x1u
#define HVB_ENGINE_CTR_RATE   0x2u

struct hvb_engine_counter {
    char *name;
    double value;       /* already divided as its flags say */
    unsigned int flags; /* HVB_ENGINE_CTR_* */
};

/* One repetition of one bench (Google Benchmark's "iteration" run). */
struct hvb_engine_sample {
    size_t bench; /* index into the benches passed in */
    int64_t repetition_index;
    int64_t repetitions;
    int64_t iterations; /* operations, summed over threads */
    int64_t threads;
    double real_ns; /* wall time per operation */
    double cpu_ns;  /* CPU time (all threads) per operation */
    bool error;
    char *error_message; /* NULL unless error */
    struct hvb_engine_counter *counters;
    size_t nr_counters;
};

struct hvb_engine_result {
    /*
     * Google Benchmark's own context object, as JSON text ("date",
     * "host_name", "executable", "num_cpus", "mhz_per_cpu",
     * "cpu_scaling_enabled", "caches", "load_avg", "library_build_type").
     */
    char *context_json;
    struct hvb_engine_sample *samples; /* in the order reported */
    size_t nr_samples;
};

/*
 * hvb_engine_run - register @n benches, run them, collect the samples.
 * Nothing is written to stdout.  Return 0, or -errno with @err set
 * (-EINVAL for bad options, -ENOMEM).  Errors inside a bench are not
 * errors of the call: they come back as samples with error set.
 *
 * Google Benchmark keeps its flags and registered benchmarks in globals;
 * this call sets the flags it relies on and clears the registry after
 * the run, so it is not reentrant and must not run in two threads.
 */
int hvb_engine_run(const struct hvb_engine_bench *b, size_t n,
                   const struct hvb_engine_opts *o,
                   struct hvb_engine_result *res, char *err, size_t len);
void hvb_engine_result_free(struct hvb_engine_result *res);

/*
 * hvb_engine_keep_running - account @n operations for this thread and say
 * whether to run another batch (State::KeepRunningBatch).  Returns false
 * for good once it has returned false or the thread failed.
 */
bool hvb_engine_keep_running(struct hvb_engine_thread *et, uint64_t n);

/* Fail this run with @msg (State::SkipWithError); the first message wins. */
void hvb_engine_fail(struct hvb_engine_thread *et, const char *msg);

/*
 * Report counter @name for this thread's part of the run.  Values of
 * all threads are summed, then divided as @flags say.  A name must keep
 * the same flags for all runs of a bench.
 */
void hvb_engine_add_counter(struct hvb_engine_thread *et, const char *name,
                            double value, unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* HVB_ENGINE_H */
