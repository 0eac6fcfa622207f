/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Google Benchmark shim: the only C++ of the harness (see
 * hvb/engine.h).  Benchmarks are registered at run time, one per cell,
 * measured in real time with KeepRunningBatch(); a reporter collects
 * every repetition into C structs.  Aggregates are computed on the C
 * side, so what Google Benchmark computes itself is ignored.
 *
 * Google Benchmark keeps global state that we cannot avoid: its flags
 * (set here through benchmark::Initialize() with a synthetic argv, so
 * that BENCHMARK_* environment variables cannot change what we run or
 * make it print to stdout) and its registry of benchmark families
 * (cleared after every run).
 *
 * Debian's library is built without NDEBUG, so its BM_CHECKs abort the
 * process: a thread must never return before KeepRunningBatch() said
 * stop (we drain the loop for it), and a counter must keep its flags
 * (the C side enforces that per cell).
 *
 * Every run happens on a thread of its own (measure_main), not on the
 * caller's.  Why: an instruction count is only deterministic if the data
 * the measured code touches sits at the same addresses, and libc's string
 * functions take other paths near a page end (__strncmp_avx2 checks
 * whether 4 vectors still fit in the page).  On the caller's thread
 * thread 0's stack starts below argv, the environment and the auxv, and
 * its mallocs share the main arena with everything the harness allocated
 * before (load averages, JSON of varying length).  Worked example, xs-read
 * under callgrind, one build: an environment 1, 33, 100 and 3000 bytes
 * long gave 2793, 2750, 2747 and 2744 Ir/op, and the same binary copied
 * to a path of another length gated +1.06% against itself.  A new
 * thread's stack is a fresh mapping whose top is page-aligned, and glibc
 * gives a new thread an arena of its own, so neither depends on the
 * environment or on the harness's history; this is Mytkowicz et al.,
 * "Producing wrong data without doing anything obviously wrong!" (2009),
 * removed where it can be rather than averaged over.
 *
 * The thread is made once per process and kept (measurer_main): runs are
 * handed to it and waited for.  A thread per run cost a clone, a stack
 * madvise with its TLB-flush IPIs and the inheritance of the probe's
 * perf events, about 45% of an empty worker sample (410 us, AMD VM).
 * Each run starts at the same depth of the same stack, so the addresses
 * stay the same from run to run and from process to process.  A fork
 * without exec (pthread_atfork) makes the child start its own.
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <pthread.h>
#include <sched.h>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include <hvb/engine.h>

namespace {

/* "x/threads:N" -> "x": Google Benchmark appends "/threads:N" itself. */
std::string registered_name(const struct hvb_engine_bench &b)
{
    std::string name(b.name);
    std::string suffix = "/threads:" + std::to_string(b.threads);

    if ( name.size() > suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 )
        name.erase(name.size() - suffix.size());
    return name;
}

char *dup_cstr(const std::string &s)
{
    char *p = static_cast<char *>(std::malloc(s.size() + 1));

    if ( p == nullptr )
        throw std::bad_alloc();
    std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

void free_sample(struct hvb_engine_sample *s)
{
    for ( size_t i = 0; i < s->nr_counters; i++ )
        std::free(s->counters[i].name);
    std::free(s->counters);
    std::free(s->error_message);
    std::memset(s, 0, sizeof(*s));
}

unsigned int flags_from_gbench(benchmark::Counter::Flags f)
{
    unsigned int flags = 0;

    if ( f & benchmark::Counter::kAvgIterations )
        flags |= HVB_ENGINE_CTR_PER_OP;
    if ( f & benchmark::Counter::kIsRate )
        flags |= HVB_ENGINE_CTR_RATE;
    return flags;
}

benchmark::Counter::Flags flags_to_gbench(unsigned int flags)
{
    int f = benchmark::Counter::kDefaults;

    if ( flags & HVB_ENGINE_CTR_PER_OP )
        f |= benchmark::Counter::kAvgIterations;
    if ( flags & HVB_ENGINE_CTR_RATE )
        f |= benchmark::Counter::kIsRate;
    return static_cast<benchmark::Counter::Flags>(f);
}

/* Collects every repetition; prints nothing. */
class Collector : public benchmark::BenchmarkReporter {
  public:
    Collector(const struct hvb_engine_opts &opts,
              const std::map<std::pair<std::string, int64_t>, size_t> &index)
        : opts_(opts), index_(index)
    {
    }

    ~Collector() override
    {
        for ( auto &s : samples_ )
            free_sample(&s);
    }

    /*
     * Keep the library's own context, as its JSON reporter writes it: the
     * only way to learn e.g. whether the library was built as debug.
     */
    bool ReportContext(const Context &context) override
    {
        std::ostringstream ss;
        benchmark::JSONReporter json;

        json.SetOutputStream(&ss);
        json.SetErrorStream(&ss);
        json.ReportContext(context);
        context_ = ss.str() + "]}\n";
        if ( opts_.on_context != nullptr )
            opts_.on_context(opts_.hook_ctx, context_.c_str());
        return true;
    }

    void ReportRuns(const std::vector<Run> &runs) override
    {
        size_t bench = SIZE_MAX;

        for ( const Run &r : runs )
        {
            if ( r.run_type != Run::RT_Iteration )
                continue; /* aggregates are ours to compute */

            auto it = index_.find(
                std::make_pair(r.run_name.function_name, r.threads));
            if ( it == index_.end() )
            {
                unknown_++;
                continue;
            }
            bench = it->second;

            struct hvb_engine_sample s;
            std::memset(&s, 0, sizeof(s));
            samples_.push_back(s);
            struct hvb_engine_sample &d = samples_.back();

            d.bench = bench;
            d.repetition_index = r.repetition_index;
            d.repetitions = r.repetitions;
            d.iterations = r.iterations;
            d.threads = r.threads;
            d.error = r.error_occurred;
            if ( r.error_occurred )
            {
                d.error_message = dup_cstr(r.error_message);
                continue;
            }
            /* GetAdjusted*Time() is per iteration in the bench's unit. */
            d.real_ns = r.GetAdjustedRealTime();
            d.cpu_ns = r.GetAdjustedCPUTime();
            if ( r.counters.empty() )
                continue;
            d.counters = static_cast<struct hvb_engine_counter *>(
                std::calloc(r.counters.size(), sizeof(*d.counters)));
            if ( d.counters == nullptr )
                throw std::bad_alloc();
            for ( const auto &c : r.counters )
            {
                struct hvb_engine_counter &dc = d.counters[d.nr_counters];

                dc.name = dup_cstr(c.first);
                dc.value = c.second.value;
                dc.flags = flags_from_gbench(c.second.flags);
                d.nr_counters++;
            }
        }
        if ( bench != SIZE_MAX && opts_.on_done != nullptr )
            opts_.on_done(opts_.hook_ctx, bench);
    }

    /* Move the samples out as one malloc'd array. */
    int take(struct hvb_engine_result *res)
    {
        res->context_json = dup_cstr(context_);
        if ( samples_.empty() )
            return 0;
        res->samples = static_cast<struct hvb_engine_sample *>(
            std::calloc(samples_.size(), sizeof(*res->samples)));
        if ( res->samples == nullptr )
            return -ENOMEM;
        std::memcpy(res->samples, samples_.data(),
                    samples_.size() * sizeof(*res->samples));
        res->nr_samples = samples_.size();
        samples_.clear();
        return 0;
    }

    size_t unknown() const
    {
        return unknown_;
    }

  private:
    const struct hvb_engine_opts &opts_;
    const std::map<std::pair<std::string, int64_t>, size_t> &index_;
    std::vector<struct hvb_engine_sample> samples_;
    std::string context_;
    size_t unknown_ = 0;
};

/* Finish the thread's loop so the library's barriers and checks hold. */
void drain(benchmark::State &st, struct hvb_engine_thread &et)
{
    if ( et.finished )
        return;
    if ( !st.error_occurred() )
        st.SkipWithError(
            "workload thread returned before hvb_keep_running_batch() returned false");
    et.failed = true;
    while ( st.KeepRunningBatch(1) )
        ;
    et.finished = true;
}

void run_body(const struct hvb_engine_bench &b, benchmark::State &st)
{
    struct hvb_engine_thread et;

    et.gb = &st;
    et.index = static_cast<unsigned int>(st.thread_index());
    et.nthreads = static_cast<unsigned int>(st.threads());
    et.finished = false;
    et.failed = false;
    et.ops = 0;
    b.body(b.arg, &et);
    drain(st, et);
}

/*
 * Flags through a synthetic argv: every flag that could make the library
 * print, write a file or run something else is pinned.
 */
void init_flags(const struct hvb_engine_opts &o)
{
    std::vector<std::string> args = {
        o.argv0 != nullptr ? o.argv0 : "hvbench",
        std::string("--benchmark_enable_random_interleaving=") +
            (o.interleave ? "true" : "false"),
        "--benchmark_repetitions=1",
        "--benchmark_filter=.",
        "--benchmark_list_tests=false",
        "--benchmark_format=console",
        "--benchmark_out_format=json",
        "--benchmark_out=",
        "--benchmark_color=false",
        "--benchmark_counters_tabular=false",
        "--benchmark_report_aggregates_only=false",
        "--benchmark_display_aggregates_only=false",
        "--benchmark_perf_counters=",
        "--benchmark_time_unit=ns",
        "--benchmark_min_warmup_time=0",
        "--v=0",
    };
    std::vector<char *> argv;

    for ( auto &a : args )
        argv.push_back(&a[0]);
    argv.push_back(nullptr);

    int argc = static_cast<int>(args.size());

    benchmark::Initialize(&argc, argv.data());
    /* Initialize() keeps a pointer to argv[0]: point it at one that lasts. */
    benchmark::BenchmarkReporter::Context::executable_name =
        o.argv0 != nullptr ? o.argv0 : "hvbench";
}

int run(const struct hvb_engine_bench *benches, size_t n,
        const struct hvb_engine_opts &o, struct hvb_engine_result *res,
        char *err, size_t len)
{
    std::map<std::pair<std::string, int64_t>, size_t> index;

    init_flags(o);
    benchmark::ClearRegisteredBenchmarks();
    for ( size_t i = 0; i < n; i++ )
    {
        const struct hvb_engine_bench *b = &benches[i];
        std::string name = registered_name(*b);
        auto key = std::make_pair(name, static_cast<int64_t>(b->threads));

        if ( !index.emplace(key, i).second )
        {
            std::snprintf(err, len, "two benchmarks named '%s'", b->name);
            benchmark::ClearRegisteredBenchmarks();
            return -EINVAL;
        }

        benchmark::internal::Benchmark *gb = benchmark::RegisterBenchmark(
            name.c_str(), [b](benchmark::State &st) { run_body(*b, st); });

        gb->Unit(benchmark::kNanosecond)
            ->UseRealTime()
            ->Threads(static_cast<int>(b->threads))
            ->Repetitions(static_cast<int>(o.repetitions));
        if ( b->one_shot )
            gb->Iterations(1);
        else if ( b->iterations > 0 )
            gb->Iterations(b->iterations);
        else
            gb->MinTime(o.min_time_s);
    }

    Collector collector(o, index);

    benchmark::RunSpecifiedBenchmarks(&collector, std::string("all"));
    benchmark::ClearRegisteredBenchmarks();
    if ( collector.unknown() )
        std::fprintf(
            stderr,
            "hvbench: warning: %zu run(s) reported for unknown benchmarks were ignored\n",
            collector.unknown());
    int rc = collector.take(res);
    if ( rc )
        std::snprintf(err, len, "out of memory collecting results");
    return rc;
}

/* One hvb_engine_run() call, handed to the measurement thread. */
struct measure {
    const struct hvb_engine_bench *b;
    size_t n;
    const struct hvb_engine_opts *o;
    struct hvb_engine_result *res;
    char *err;
    size_t len;
    int rc;
};

void measure_one(struct measure *m)
{
    try
    {
        m->rc = run(m->b, m->n, *m->o, m->res, m->err, m->len);
    } catch ( const std::bad_alloc & )
    {
        benchmark::ClearRegisteredBenchmarks();
        hvb_engine_result_free(m->res);
        std::snprintf(m->err, m->len, "out of memory");
        m->rc = -ENOMEM;
    }
}

/*
 * The measurement thread and its mailbox.  run_lock orders callers (one
 * run at a time); box_lock guards job and done.
 */
pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t box_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t box_cond = PTHREAD_COND_INITIALIZER;
struct measure *job;
bool done, started;
pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

void *measurer_main(void *)
{
    cpu_set_t cpus;
    bool have_cpus =
        pthread_getaffinity_np(pthread_self(), sizeof(cpus), &cpus) == 0;

    pthread_mutex_lock(&box_lock);
    for ( ;; )
    {
        while ( job == nullptr )
            pthread_cond_wait(&box_cond, &box_lock);
        struct measure *m = job;

        pthread_mutex_unlock(&box_lock);
        measure_one(m);
        /* A cell's placement pinned thread 0: unpin it, as a new thread. */
        if ( have_cpus )
            (void)pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
        pthread_mutex_lock(&box_lock);
        job = nullptr;
        done = true;
        pthread_cond_broadcast(&box_cond);
    }
    return nullptr;
}

/* The child of a fork has no measurement thread: it starts its own. */
void forked_child()
{
    pthread_mutex_init(&run_lock, nullptr);
    pthread_mutex_init(&box_lock, nullptr);
    pthread_cond_init(&box_cond, nullptr);
    job = nullptr;
    started = false;
}

void register_atfork()
{
    pthread_atfork(nullptr, nullptr, forked_child);
}

/* Run @m on the measurement thread, started on first use. */
int measure_on_thread(struct measure *m, char *err, size_t len)
{
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&run_lock);
    if ( !started )
    {
        pthread_t t;
        int rc = pthread_create(&t, nullptr, measurer_main, nullptr);

        if ( rc )
        {
            pthread_mutex_unlock(&run_lock);
            std::snprintf(err, len, "cannot start the measurement thread: %s",
                          std::strerror(rc));
            return -rc;
        }
        pthread_detach(t);
        started = true;
    }
    pthread_mutex_lock(&box_lock);
    job = m;
    done = false;
    pthread_cond_broadcast(&box_cond);
    while ( !done )
        pthread_cond_wait(&box_cond, &box_lock);
    pthread_mutex_unlock(&box_lock);
    pthread_mutex_unlock(&run_lock);
    return m->rc;
}

} /* namespace */

extern "C" int hvb_engine_run(const struct hvb_engine_bench *b, size_t n,
                              const struct hvb_engine_opts *o,
                              struct hvb_engine_result *res, char *err,
                              size_t len)
{
    std::memset(res, 0, sizeof(*res));
    if ( o->repetitions < 1 || o->repetitions > 1000000 ||
         !(o->min_time_s > 0) )
    {
        std::snprintf(err, len,
                      "bad engine options (repetitions %u, min time %g s)",
                      o->repetitions, o->min_time_s);
        return -EINVAL;
    }
    for ( size_t i = 0; i < n; i++ )
        if ( b[i].threads < 1 || b[i].body == nullptr || b[i].name == nullptr )
        {
            std::snprintf(err, len, "bad benchmark #%zu", i);
            return -EINVAL;
        }
    struct measure m = {b, n, o, res, err, len, -EINVAL};

    return measure_on_thread(&m, err, len);
}

extern "C" void hvb_engine_result_free(struct hvb_engine_result *res)
{
    for ( size_t i = 0; i < res->nr_samples; i++ )
        free_sample(&res->samples[i]);
    std::free(res->samples);
    std::free(res->context_json);
    std::memset(res, 0, sizeof(*res));
}

extern "C" bool hvb_engine_keep_running(struct hvb_engine_thread *et,
                                        uint64_t n)
{
    benchmark::State *st = static_cast<benchmark::State *>(et->gb);

    if ( BENCHMARK_BUILTIN_EXPECT(et->finished, false) )
        return false;
    if ( BENCHMARK_BUILTIN_EXPECT(n == 0 || n > INT64_MAX, false) )
    {
        hvb_engine_fail(
            et,
            "hvb_keep_running_batch() called with a batch of 0 or more than INT64_MAX operations");
        return false;
    }
    if ( BENCHMARK_BUILTIN_EXPECT(
             st->KeepRunningBatch(static_cast<benchmark::IterationCount>(n)),
             true) )
    {
        et->ops += n;
        return true;
    }
    et->finished = true;
    return false;
}

extern "C" void hvb_engine_fail(struct hvb_engine_thread *et, const char *msg)
{
    benchmark::State *st = static_cast<benchmark::State *>(et->gb);

    if ( !st->error_occurred() )
        st->SkipWithError(msg != nullptr && *msg ? msg : "failed");
    et->failed = true;
    drain(*st, *et);
}

extern "C" void hvb_engine_add_counter(struct hvb_engine_thread *et,
                                       const char *name, double value,
                                       unsigned int flags)
{
    benchmark::State *st = static_cast<benchmark::State *>(et->gb);

    try
    {
        benchmark::Counter &c = st->counters[name];

        c.value += value;
        c.flags = flags_to_gbench(flags);
    } catch ( const std::bad_alloc & )
    {
        /* A counter lost for want of memory: say so, keep measuring. */
        std::fprintf(
            stderr, "hvbench: warning: counter %s lost: out of memory\n", name);
    }
}
