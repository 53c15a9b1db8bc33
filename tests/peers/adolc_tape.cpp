// adolc_tape.cpp: tapes one generated inverse dynamics, the SAME generated C file compiled as C++ with mb_real =
// adouble, as ADOL-C tape 1 for adolc_jac.cpp. Its own file so that it can be compiled without optimization: only
// the tape's evaluations are timed, and g++ takes minutes on a big model's adouble code at -O2.
// Built with -DAD_MODEL_C (the file), -DAD_FN (the function) and the model table renamed.
#include <adolc/adolc.h>
#include <vector>

#include "adolc_real.h"

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
