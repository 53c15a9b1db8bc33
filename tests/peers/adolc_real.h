// adolc_real.h: a generated model's C compiled as C++ with mb_real = adouble, for the ADOL-C tapes (adolc_tape.cpp,
// adolc_al3_tape.cpp): include it, with -DAD_MODEL_C naming the generated file, instead of that file.
#ifndef MB_ADOLC_REAL_H
#define MB_ADOLC_REAL_H
#include <adolc/adolc.h>

#define MB_REAL adouble
// The piecewise functions as ADOL-C tapes them (its fmax/fmin and condassign record the switch, so one tape serves
// every state; a C ternary on adoubles does not compile), and atan2 with a constant argument (ADOL-C has only the
// adouble pair).
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
#endif
