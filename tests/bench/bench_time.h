/* bench_time.h: the benchmarks' clock: median ns per call over 15 batches of at least ~2 ms each; under
 * valgrind --tool=callgrind, instead, the instructions of BENCH_COUNT_REPS calls (after one warm-up call) are
 * dumped as "RESULT/REPS" (tests/bench/callgrind.lua reads them) and result is 0. */
#ifndef BENCH_TIME_H
#define BENCH_TIME_H
#include <stdlib.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_COUNTING() RUNNING_ON_VALGRIND
#endif
#endif
#ifndef BENCH_COUNTING
#define BENCH_COUNTING() 0
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(label)
#endif
#define BENCH_COUNT_REPS 5
#define BENCH_STR_(x) #x
#define BENCH_STR(x) BENCH_STR_(x)

static double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile double sink;

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define TIME(result, body) do {                                             \
        if (BENCH_COUNTING()) {                                             \
            { body; } CALLGRIND_ZERO_STATS;                                 \
            for (int c_ = 0; c_ < BENCH_COUNT_REPS; ++c_) { body; }         \
            CALLGRIND_DUMP_STATS_AT(#result "/" BENCH_STR(BENCH_COUNT_REPS)); \
            result = 0; break;                                              \
        }                                                                   \
        double ts_[15]; long reps_ = 1;                                     \
        for (;;) { double t0_ = bench_now(); for (long r_ = 0; r_ < reps_; ++r_) { body; } \
                   if (bench_now() - t0_ > 2e6) break;                      \
                   reps_ *= 2; }                                            \
        for (int b_ = 0; b_ < 15; ++b_) { double t0_ = bench_now();         \
            for (long r_ = 0; r_ < reps_; ++r_) { body; }                   \
            ts_[b_] = (bench_now() - t0_) / reps_; }                        \
        qsort(ts_, 15, sizeof ts_[0], bench_cmp); result = ts_[7]; } while (0)
#endif
