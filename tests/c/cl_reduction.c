/* cl_reduction.c: Matrix R's generated reduction (fivebar_point, fivebar) against the runtime's loops at random states. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fivebar.c"
#include "fivebar_point.c"
#include "formulation_matrix_r.h"
#include "lib/relerr.h"
#include "tap.h"

static unsigned long long seed = 77;
static double rnd(void) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(seed >> 11) / 9007199254740992.0 - 0.5;
}

/* zdd and the reduced factor L at states near the model's start, by the generated code and by the loops. */
static void compare(const mb_model *m, const int *moved, int nmoved) {
    char err[512] = "";
    int n = m->nz, d = m->n_independent;
    mb_mr *a = mb_mr_create(m, NULL, err, sizeof err), *b = mb_mr_create(m, NULL, err, sizeof err);
    if (!ok(a && b, "%s: two Matrix R workspaces (%s)", m->name, err)) return;
    mb_mr_set_generated(b, 0);
    double *z = calloc((size_t)n, sizeof(double)), *zd = calloc((size_t)n, sizeof(double));
    double *z2 = calloc((size_t)n, sizeof(double)), *zd2 = calloc((size_t)n, sizeof(double));
    double *za = calloc((size_t)n, sizeof(double)), *zb = calloc((size_t)n, sizeof(double));
    double ez = 0, el = 0;
    int fine = 1;
    for (int trial = 0; trial < 20 && fine; ++trial) {
        memcpy(z, m->z0, (size_t)n * sizeof(double));
        for (int k = 0; k < nmoved; ++k) z[moved[k]] += 0.05 * rnd();
        for (int i = 0; i < n; ++i) zd[i] = 2 * rnd();
        memcpy(z2, z, (size_t)n * sizeof(double));
        memcpy(zd2, zd, (size_t)n * sizeof(double));
        fine = mb_mr_project(a, 0, z, zd, m->p_default, err, sizeof err) == MB_OK &&
               mb_mr_project(b, 0, z2, zd2, m->p_default, err, sizeof err) == MB_OK &&
               mb_mr_accel(a, 0, z, zd, NULL, m->p_default, za, err, sizeof err) == MB_OK &&
               mb_mr_accel(b, 0, z2, zd2, NULL, m->p_default, zb, err, sizeof err) == MB_OK;
        if (!fine) break;
        ez = fmax(ez, relerr(za, zb, n));
        const double *Ma, *Ra, *La, *Mb_, *Rb, *Lb;
        mb_mr_reduced(a, &Ma, &Ra, &La);
        mb_mr_reduced(b, &Mb_, &Rb, &Lb);
        for (int j = 0; j < d; ++j)   /* the lower triangles: the factor both leave */
            for (int i = j; i < d; ++i) {
                double s = fabs(Lb[j + (size_t)j * d]) * fabs(Lb[j + (size_t)j * d]);
                el = fmax(el, fabs(La[i + (size_t)j * d] - Lb[i + (size_t)j * d]) / sqrt(s > 0 ? s : 1));
            }
    }
    ok(fine, "%s: 20 states projected and accelerated both ways (%s)", m->name, err);
    long na = 0, nb = 0, ga = mb_mr_generated_evals(a, &na), gb = mb_mr_generated_evals(b, &nb);
    ok(ga == na && na == 20 && gb == 0 && nb == 20, "%s: every evaluation of one in generated code (%ld of %ld), "
       "none of the other (%ld of %ld)", m->name, ga, na, gb, nb);
    ok(ez < 1e-13, "%s: zdd the same to %.2g (relative)", m->name, ez);
    ok(el < 1e-13, "%s: the Cholesky factor of R'M R the same to %.2g", m->name, el);
    free(z), free(zd), free(z2), free(zd2), free(za), free(zb);
    mb_mr_free(a);
    mb_mr_free(b);
}

int main(void) {
    ok(fivebar_point_model.matrix_r && fivebar_model.matrix_r, "both models have a generated reduction");
    const int mp[2] = {4, 5}, mf[2] = {0, 3};
    compare(&fivebar_point_model, mp, 2);
    compare(&fivebar_model, mf, 2);

    /* A mass matrix that is not positive definite: the kernel refuses it rather than returning NaN. */
    const mb_model *m = &fivebar_model;
    double M[16] = {0}, Q[4] = {1, 1, 1, 1}, x[4] = {0}, R[8] = {0}, L[4], zdd[4];
    R[0] = R[2 + 4] = 1;
    is_int(m->matrix_r->solve(M, Q, x, R, L, zdd), MB_FN_SINGULAR, "M = 0: MB_FN_SINGULAR");
    for (int i = 0; i < 4; ++i) M[i + 4 * i] = i + 1;
    M[0] = NAN;
    is_int(m->matrix_r->solve(M, Q, x, R, L, zdd), MB_FN_SINGULAR, "a NaN pivot: MB_FN_SINGULAR");
    M[0] = 1;
    is_int(m->matrix_r->solve(M, Q, x, R, L, zdd), MB_FN_OK, "M = diag(1, 2, 3, 4), R = the identity columns: solved");
    ok(fabs(zdd[0] - 1) < 1e-15 && fabs(zdd[2] - 1.0 / 3) < 1e-15 && zdd[1] == 0 && zdd[3] == 0,
       "zdd_i = Q_i / M_ii, the dependent ones x (%g, %g, %g, %g)", zdd[0], zdd[1], zdd[2], zdd[3]);
    return done_testing();
}
