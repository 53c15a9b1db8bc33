// adolc_tape.cpp: tapes one generated inverse dynamics, the SAME generated C file compiled as C++ with mb_real =
// adouble, as ADOL-C tape 1 for adolc_jac.cpp. Its own file so that it can be compiled without optimization: only
// the tape's evaluations are timed, and g++ takes minutes on a big model's adouble code at -O2.
// Built with -DAD_MODEL_C (the file), -DAD_FN (the function) and the model table renamed.
#include <adolc/adolc.h>
#include <vector>

#define MB_REAL adouble
// The piecewise functions as ADOL-C tapes them (its fmax/fmin and condassign record the switch; a C ternary
// on adoubles does not compile), and atan2 with a constant argument (ADOL-C has only the adouble pair).
static inline adouble mb_ad_atan2(const adouble &y, const adouble &x) { return atan2(y, x); }
static inline adouble mb_ad_select(const adouble &c, const adouble &a, const adouble &b) {
    adouble r;
    condassign(r, c, a, b);
    return r;
}
#define MB_ATAN2(y, x) mb_ad_atan2(adouble(y), adouble(x))
#define MB_MAX(a, b) fmax(adouble(a), adouble(b))
#define MB_MIN(a, b) fmin(adouble(a), adouble(b))
#define MB_SELECT(c, a, b) mb_ad_select(adouble(c), adouble(a), adouble(b))
#include AD_MODEL_C

extern "C" {
int ref_np(void);
int ref_nu(void);
}

void ad_tape(int n, const double *x, const double *zdd, const double *p, double *y) {
    std::vector<adouble> az(n), azd(n), azdd(n), ar(n), ap(ref_np() + 1), au(ref_nu() + 1);
    trace_on(1);
    for (int i = 0; i < n; ++i) az[i] <<= x[i];          // independents in the order of x: z, then zd
    for (int i = 0; i < n; ++i) azd[i] <<= x[n + i];
    for (int i = 0; i < n; ++i) azdd[i] = zdd[i];
    for (int i = 0; i < ref_np(); ++i) ap[i] = p[i];
    for (int i = 0; i <= ref_nu(); ++i) au[i] = 0.0;     // inputs held at zero, as in adolc_ref.c
    mb_args a = { adouble(0.0), az.data(), azd.data(), azdd.data(), au.data(), p ? ap.data() : 0, 0 };
    std::vector<adouble> work(AD_NWORK + 1);
    AD_FN(&a, ar.data(), work.data());
    for (int i = 0; i < n; ++i) ar[i] >>= y[i];
    trace_off();
}
