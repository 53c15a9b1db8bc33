/* clock.c: the core's actual clock, measured: a chain of 100 dependent integer additions takes 100 cycles on
 * every x86-64 core (latency 1), so GHz = 100 / (ns per chain). The fastest of 31 batches of ~1 ms (another
 * process on the core only adds time) and their median; prints "ghz_max X" and "ghz_median Y" (nothing off x86-64). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "bench_time.h"

#define CHAIN() __asm__ volatile(".rept 100\n\tadd $1, %0\n\t.endr" : "+r"(x))

int main(void)
{
#if defined(__x86_64__)
    unsigned long x = 0;
    long reps = 1;
    double t[31];
    for (;;) {
        double t0 = bench_now();
        for (long r = 0; r < reps; ++r) CHAIN();
        if (bench_now() - t0 > 1e6) break;
        reps *= 2;
    }
    for (int b = 0; b < 31; ++b) {
        double t0 = bench_now();
        for (long r = 0; r < reps; ++r) CHAIN();
        t[b] = (bench_now() - t0) / reps;
    }
    qsort(t, 31, sizeof t[0], bench_cmp);
    printf("ghz_max %.4f\nghz_median %.4f\n", 100.0 / t[0], 100.0 / t[15]);
    sink = (double)x;
#endif
    return 0;
}
