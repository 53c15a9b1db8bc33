// adolc_al3_tape.cpp: tapes one generated inverse dynamics at zdd = 0 (r = -Q, the approximate tangent's residual)
// for the whole-run providers of adolc_al3_jac.cpp, with t and the inputs u as independents besides z and zd.
// The SAME generated C file compiled as C++ with mb_real = adouble, as in adolc_tape.cpp (which tapes at a fixed
// zdd with t and u held at zero, enough for one Jacobian but not for a run, where both change between calls).
// Compiled without optimization: only the tape's evaluations are timed. Built with -DAD_MODEL_C (the file),
// -DAD_FN (the function), -DAD_NWORK and the model table renamed (tests/lib/al3_providers_build.lua).
#include <adolc/adolc.h>
#include <vector>

#include "adolc_real.h"

// Independents in the order x = [z (n), zd (n), t, u (nu)]; p is a constant of the tape (the provider refuses
// another p), zdd the zero vector. Writes r(x) into y. Declared in adolc_al3_jac.cpp: this file's mb_args is
// the adouble one.
extern "C" void ad_al3_tape(short tag, int n, int nu, int np, const double *x, const double *p, double *y) {
    std::vector<adouble> az(n), azd(n), azdd(n), ar(n), ap(np + 1), au(nu + 1);
    adouble at;
    trace_on(tag);
    for (int i = 0; i < n; ++i) az[i] <<= x[i];
    for (int i = 0; i < n; ++i) azd[i] <<= x[n + i];
    at <<= x[2 * n];
    for (int i = 0; i < nu; ++i) au[i] <<= x[2 * n + 1 + i];
    for (int i = 0; i < n; ++i) azdd[i] = 0.0;
    for (int i = 0; i < np; ++i) ap[i] = p[i];
    mb_args a = { at, az.data(), azd.data(), azdd.data(), au.data(), np > 0 ? ap.data() : 0, 0 };
    std::vector<adouble> work(AD_NWORK + 1);
    AD_FN(&a, ar.data(), work.data());
    for (int i = 0; i < n; ++i) ar[i] >>= y[i];
    trace_off();
}
