/* adolc_ref.c: the double-precision side of adolc_jac.cpp: one generated model's residual and its analytic
 * Jacobian [dr/dz, dr/dzd] behind plain functions (the C++ side includes the same file with mb_real = adouble).
 * Inputs u, where the model has them (the vehicles), are held at zero. */
#include <stdlib.h>

#include "mb_model.h"

extern const mb_model MB_MODEL;

int ref_n(void) { return MB_MODEL.nz; }
int ref_np(void) { return MB_MODEL.np; }
int ref_nu(void) { return MB_MODEL.nu; }
const double *ref_p(void) { return MB_MODEL.p_default; }

static const double *zero_u(void) {
    static double *u;
    if (!u) u = calloc((size_t)MB_MODEL.nu + 1, sizeof *u);
    return u;
}

static double *work(void) {
    static double *w;
    if (!w) w = calloc((size_t)MB_MODEL.nwork + 1, sizeof *w);
    return w;
}

void ref_residual(const double *z, const double *zd, const double *zdd, double *r) {
    mb_args a = { 0.0, z, zd, zdd, zero_u(), MB_MODEL.p_default, 0 };
    MB_MODEL.inverse_dynamics(&a, r, work());
}

/* J: n x 2n column-major, [dr/dz, dr/dzd]. */
void ref_jacobian(const double *z, const double *zd, const double *zdd, double *J) {
    mb_args a = { 0.0, z, zd, zdd, zero_u(), MB_MODEL.p_default, 0 };
    MB_MODEL.inverse_dynamics_dz(&a, J, work());
    MB_MODEL.inverse_dynamics_dzd(&a, J + MB_MODEL.nz * MB_MODEL.nz, work());
}

/* 1 when entry (i, j) of [dr/dz, dr/dzd] is in the generation-time pattern of inverse_dynamics_dz (j < n) or _dzd. */
int ref_pattern_has(int i, int j) {
    int n = MB_MODEL.nz;
    const mb_pattern *p = j < n ? MB_MODEL.inverse_dynamics_dz_pattern : MB_MODEL.inverse_dynamics_dzd_pattern;
    if (!p) return 1;
    for (int k = p->colptr[j % n]; k < p->colptr[j % n + 1]; ++k)
        if (p->rowind[k] == i) return 1;
    return 0;
}
