/* rt_formulation_tree.c: zdd from M zdd = Q, residual and tangent; a non-PD mass matrix or a NaN is an error with a message. */
#include <string.h>

#include "formulation_tree.h"
#include "hand_models.h"
#include "tap.h"

int main(void) {
    char err[MB_ERRLEN] = "";
    const mb_model *dp = &hand_pendulum_model;
    const double z[2] = {0.4, -1.1}, zd[2] = {0.7, -1.3}, p[4] = {1.2, 0.8, 1.5, 0.7}, u[1] = {0.9};
    double acc[2], ref[2], r[2];

    mb_tree *tr = mb_tree_create(dp, MB_TREE_ACCEL | MB_TREE_TANGENT, err, sizeof err);
    ok(tr != NULL, "tree formulation created for the double pendulum (%s)", err);
    is_int(mb_tree_accel(tr, 0, z, zd, u, p, acc, err, sizeof err), MB_OK, "accel by Cholesky");
    mb_args a = {0, z, zd, NULL, u, p, NULL};
    dp->forward_dynamics(&a, ref, NULL); /* closed-form 2x2 inverse: an independent solve */
    ok(fabs(acc[0] - ref[0]) < 1e-13 && fabs(acc[1] - ref[1]) < 1e-13, "Cholesky zdd = closed-form M^-1 Q (%.3g %.3g)",
       acc[0] - ref[0], acc[1] - ref[1]);
    is_int(mb_tree_residual(tr, 0, z, zd, acc, u, p, r, err, sizeof err), MB_OK, "residual at the solution");
    ok(fabs(r[0]) < 1e-12 && fabs(r[1]) < 1e-12, "residual vanishes at zdd = M^-1 Q (%.2g %.2g)", r[0], r[1]);

    /* T = cz dr/dz + cv dr/dzd + ca M, assembled by hand from the model here. */
    double T[4], M[4], Jz[4], Jv[4];
    a.zdd = acc;
    dp->mass(&a, M, NULL);
    dp->inverse_dynamics_dz(&a, Jz, NULL);
    dp->inverse_dynamics_dzd(&a, Jv, NULL);
    is_int(mb_tree_tangent(tr, 0, z, zd, acc, u, p, 0.25, 0.5, 2.0, T, err, sizeof err), MB_OK, "tangent");
    double worst = 0;
    for (int k = 0; k < 4; ++k) worst = fmax(worst, fabs(T[k] - (0.25 * Jz[k] + 0.5 * Jv[k] + 2.0 * M[k])));
    ok(worst < 1e-14, "tangent = cz dr/dz + cv dr/dzd + ca M (%.2g)", worst);
    mb_tree_free(tr);

    tr = mb_tree_create(dp, MB_TREE_ACCEL | MB_TREE_FORWARD_DYNAMICS, err, sizeof err);
    is_int(mb_tree_accel(tr, 0, z, zd, u, p, acc, err, sizeof err), MB_OK, "accel through forward_dynamics");
    ok(acc[0] == ref[0] && acc[1] == ref[1], "forward_dynamics result passed through");
    mb_tree_free(tr);

    /* Residual without inverse_dynamics: assembled as M zdd - Q. */
    mb_model noid = hand_pendulum_model;
    noid.inverse_dynamics = NULL;
    tr = mb_tree_create(&noid, MB_TREE_TANGENT, err, sizeof err);
    double r2[2];
    mb_tree_residual(tr, 0, z, zd, ref, u, p, r2, err, sizeof err);
    ok(fabs(r2[0]) < 1e-12 && fabs(r2[1]) < 1e-12, "residual from mass and forces when inverse_dynamics is absent");
    mb_tree_free(tr);

    /* Non-positive-definite M. */
    const double bz[2] = {1, 0}, bzd[2] = {0, 0};
    tr = mb_tree_create(&hand_indefinite_model, MB_TREE_ACCEL, err, sizeof err);
    err[0] = 0;
    is_int(mb_tree_accel(tr, 0.25, bz, bzd, NULL, NULL, acc, err, sizeof err), MB_ERR_NOT_PD,
           "indefinite mass matrix: MB_ERR_NOT_PD");
    ok(strstr(err, "mass matrix of model indefinite is not positive definite at t = 0.25") != NULL,
       "message names model, problem and time: \"%s\"", err);
    mb_tree_free(tr);

    /* NaN from the model. */
    const double oz[1] = {1}, ozd[1] = {0};
    tr = mb_tree_create(&hand_nan_model, MB_TREE_ACCEL, err, sizeof err);
    is_int(mb_tree_accel(tr, 0.1, oz, ozd, NULL, hand_osc_model.p_default, acc, err, sizeof err), MB_OK,
           "finite before t = 0.5");
    err[0] = 0;
    is_int(mb_tree_accel(tr, 0.7, oz, ozd, NULL, hand_osc_model.p_default, acc, err, sizeof err), MB_ERR_NAN,
           "NaN force: MB_ERR_NAN");
    ok(strstr(err, "forces Q[0] (x) is") && strstr(err, "t = 0.7"), "message names function, entry, time: \"%s\"",
       err);
    mb_tree_free(tr);

    /* Missing functions are refused at create. */
    mb_model nofd = hand_osc_model;
    nofd.forward_dynamics = NULL;
    ok(mb_tree_create(&nofd, MB_TREE_ACCEL | MB_TREE_FORWARD_DYNAMICS, err, sizeof err) == NULL &&
           strstr(err, "no forward_dynamics"), "forward dynamics requested but absent: \"%s\"", err);
    mb_model notan = hand_osc_model;
    notan.inverse_dynamics_dz = NULL;
    ok(mb_tree_create(&notan, MB_TREE_TANGENT, err, sizeof err) == NULL && strstr(err, "inverse_dynamics_dz"),
       "tangent requested without dr/dz: \"%s\"", err);
    mb_model nomass = hand_osc_model;
    nomass.mass = NULL;
    ok(mb_tree_create(&nomass, MB_TREE_ACCEL, err, sizeof err) == NULL && strstr(err, "lacks mass or forces"),
       "no mass matrix: \"%s\"", err);
    return done_testing();
}
