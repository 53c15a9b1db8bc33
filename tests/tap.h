/* tap.h: a small TAP emitter for the C tests (header-only; one test program per file). */
#ifndef MB_TAP_H
#define MB_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_run_ = 0, tap_failed_ = 0, tap_planned_ = -1;

static inline void plan(int n) { tap_planned_ = n; printf("1..%d\n", n); fflush(stdout); }

static inline void diag(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("# ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
}

static inline int tap_report_(int pass, const char *name) {
    ++tap_run_;
    if (!pass) ++tap_failed_;
    printf("%sok %d - %s\n", pass ? "" : "not ", tap_run_, name);
    fflush(stdout);
    return pass;
}

static inline int ok(int pass, const char *fmt, ...) {
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return tap_report_(pass, name);
}

static inline int is_int(long got, long want, const char *fmt, ...) {
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (tap_report_(got == want, name)) return 1;
    diag("     got: %ld", got);
    diag("expected: %ld", want);
    return 0;
}

/* Passes when |got - want| <= max(abs_tol, rel_tol * |want|). NaN never passes. */
static inline int is_double(double got, double want, double rel_tol, double abs_tol, const char *fmt, ...) {
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    double tol = fmax(abs_tol, rel_tol * fabs(want));
    int pass = !isnan(got) && !isnan(want) && fabs(got - want) <= tol;
    if (tap_report_(pass, name)) return 1;
    diag("     got: %.17g", got);
    diag("expected: %.17g", want);
    diag("    diff: %.3g (tolerance %.3g)", fabs(got - want), tol);
    return 0;
}

/* Prints the plan if none was given and returns the exit status:
 * the number of failures, capped at 254 (255 is left for a bad plan). */
/* The largest |v[i]| of n: what a check of a residual compares with its tolerance. */
static inline double max_abs(const double *v, int n) {
    double m = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(v[i]));
    return m;
}

static inline int done_testing(void) {
    if (tap_planned_ < 0) printf("1..%d\n", tap_run_);
    else if (tap_planned_ != tap_run_) {
        diag("planned %d tests but ran %d", tap_planned_, tap_run_);
        if (!tap_failed_) return 255;
    }
    fflush(stdout);
    return tap_failed_ > 254 ? 254 : tap_failed_;
}

#endif
