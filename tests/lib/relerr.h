/* relerr.h: the error measure of the comparison programs: max |a - b| over max |b| (a NaN counts as infinitely
 * wrong; an all-zero b compares absolutely). */
#ifndef MB_TESTS_RELERR_H
#define MB_TESTS_RELERR_H
#include <math.h>

static inline double relerr(const double *a, const double *b, int n)
{
    double e = 0, s = 0;
    for (int i = 0; i < n; ++i) {
        double d = fabs(a[i] - b[i]);
        if (d > e || d != d) e = d != d ? INFINITY : d;
        if (fabs(b[i]) > s) s = fabs(b[i]);
    }
    return e / (s > 1e-300 ? s : 1.0);
}

/* max |a - b|, for the runtime's own tests (NaN: NaN). */
static inline double maxdiff(int n, const double *a, const double *b)
{
    double d = 0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

#endif
