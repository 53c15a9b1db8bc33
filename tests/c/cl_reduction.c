/* cl_reduction.c: Matrix R's generated code (the dependent blocks' inversions, the reduction; fivebar_point, fivebar)
 * against the runtime's loops at random states, and the runtime's fallback where a static pivot fails its test. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fivebar.c"
#include "fivebar_point.c"
#include "formulation_matrix_r.h"
#include "kin_blocks.h"
#include "lib/relerr.h"
#include "tap.h"

static unsigned long long seed = 77;
static double rnd(void) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(seed >> 11) / 9007199254740992.0 - 0.5;
}

/* zdd, R and the reduced factor L at states near the model's start, by the generated code and by the runtime's
 * (its own inversions of the dependent blocks, its loops for R'M R). */
static void compare(const mb_model *m, const int *moved, int nmoved) {
    char err[512] = "";
    int n = m->nz, d = m->n_independent;
    mb_kin_options own;
    mb_kin_options_default(&own);
    own.generated = 0;
    mb_mr *a = mb_mr_create(m, NULL, err, sizeof err), *b = mb_mr_create(m, &own, err, sizeof err);
    if (!ok(a && b, "%s: two Matrix R workspaces (%s)", m->name, err)) return;
    mb_mr_set_generated(b, 0);
    double *z = calloc((size_t)n, sizeof(double)), *zd = calloc((size_t)n, sizeof(double));
    double *z2 = calloc((size_t)n, sizeof(double)), *zd2 = calloc((size_t)n, sizeof(double));
    double *za = calloc((size_t)n, sizeof(double)), *zb = calloc((size_t)n, sizeof(double));
    double ez = 0, el = 0, er = 0;
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
        er = fmax(er, relerr(Ra, Rb, n * d));
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
    mb_kin *ka = mb_mr_kin(a), *kb = mb_mr_kin(b);
    ok(mb_kin_generated_factorizations(ka) == mb_kin_factorizations(ka) && mb_kin_factorizations(ka) > 0 &&
       mb_kin_generated_factorizations(kb) == 0, "%s: the dependent blocks inverted by the generated code in every "
       "factorization of one (%ld of %ld), none of the other", m->name, mb_kin_generated_factorizations(ka),
       mb_kin_factorizations(ka));
    ok(er < 1e-13, "%s: R the same to %.2g (relative)", m->name, er);
    ok(ez < 1e-13, "%s: zdd the same to %.2g (relative)", m->name, ez);
    ok(el < 1e-13, "%s: the Cholesky factor of R'M R the same to %.2g", m->name, el);
    free(z), free(zd), free(z2), free(zd2), free(za), free(zb);
    mb_mr_free(a);
    mb_mr_free(b);
}

/* The fivebar's dependent block (equations J2.1, J2.2 for coordinates J1, J3) through kin_blocks with the generated
 * inversion: where its static first pivot J[0 + 2 * 1] falls below a tenth of the other candidate J[1 + 2 * 1] the
 * generated code refuses and the runtime inverts this point itself, with the same solution. */
static void fallback(void) {
    const mb_model *m = &fivebar_model;
    const mb_dependent_blocks *g = m->matrix_r->blocks;
    char err[512] = "";
    const int dep[2] = {1, 3}, ind[2] = {0, 2}, other[2] = {0, 2};
    kin_blocks *kb = kin_blocks_create(m->constraints_dz_pattern, 2, 4, dep, 2, ind, 2, 1, err, sizeof err);
    kin_blocks *ko = kin_blocks_create(m->constraints_dz_pattern, 2, 4, dep, 2, other, 2, 0, err, sizeof err);
    if (!ok(kb && ko && g, "fivebar: blocks made (%s)", err)) return;
    ok(kin_blocks_use_generated(kb, g), "fivebar: the generated inversion fits the declared choice's block");
    ok(!kin_blocks_use_generated(ko, g), "fivebar: and not blocks factored by QR");
    for (int pass = 0; pass < 2; ++pass) {
        /* J: 2 x 4; the dependent block [[p, 0.3], [1, 0.8]] with p = 0.9 (taken) or 0.05 (refused) */
        double p = pass ? 0.05 : 0.9, J[8] = {0.2, -0.4, p, 1, 0.7, 0.1, 0.3, 0.8}, ratio = 0;
        double b[2] = {1, -2}, bo[2] = {1, -2}, det = p * 0.8 - 0.3;
        int rc = kin_blocks_factor(kb, J, 1e-9, 1e-2, &ratio, err, sizeof err);
        if (!ok(rc == MB_OK, "fivebar, pivot %g: factored (%s)", p, err)) continue;
        is_int(kin_blocks_generated(kb) != NULL, !pass, pass ? "a pivot a twentieth of its column's other entry: the runtime's"
               : "a pivot near its column's largest: the generated inversion's");
        kin_blocks_solve(kb, 1, b, 2, err, sizeof err);
        double x0 = (0.8 * bo[0] - 0.3 * bo[1]) / det, x1 = (p * bo[1] - 1 * bo[0]) / det;
        ok(fabs(b[0] - x0) < 1e-14 * fabs(x0) + 1e-15 && fabs(b[1] - x1) < 1e-14 * fabs(x1) + 1e-15,
           "fivebar, pivot %g: the solution by Cramer's rule (%.17g, %.17g against %.17g, %.17g)", p, b[0], b[1], x0, x1);
    }
    kin_blocks_free(kb);
    kin_blocks_free(ko);
}

int main(void) {
    ok(fivebar_point_model.matrix_r && fivebar_model.matrix_r, "both models have a generated reduction");
    const int mp[2] = {4, 5}, mf[2] = {0, 3};
    compare(&fivebar_point_model, mp, 2);
    compare(&fivebar_model, mf, 2);
    fallback();

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
