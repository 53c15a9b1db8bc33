/* cl_kinematics.c: hand-written closed-loop models: Jacobians by finite differences, assembly, velocity/acceleration problems, R, errors. */
#include <string.h>

#include "cl_models.h"
#include "kinematics.h"
#include "tap.h"

/* Phi_z and the bias against central differences of Phi along z and along a trajectory. */
static void check_jacobians(const mb_model *m, double t, const double *z, const double *zd, const double *zdd) {
    int nc = m->nc;
    double J[12], Jfd[12], ph[4], pl[4], zp[3], err = 0;
    const double *p = m->p_default;
    mb_args a = {t, z, zd, zdd, NULL, p, NULL};
    m->constraints_dz(&a, J, NULL);
    for (int j = 0; j < 3; ++j) {
        double h = 1e-6;
        memcpy(zp, z, sizeof zp);
        zp[j] += h;
        mb_args b = {t, zp, NULL, NULL, NULL, p, NULL};
        m->constraints(&b, ph, NULL);
        zp[j] -= 2 * h;
        m->constraints(&b, pl, NULL);
        for (int i = 0; i < nc; ++i) Jfd[i + nc * j] = (ph[i] - pl[i]) / (2 * h);
    }
    for (int i = 0; i < 3 * nc; ++i) err = fmax(err, fabs(J[i] - Jfd[i]));
    ok(err < 1e-8, "%s: Phi_z against central differences (max error %.2g)", m->name, err);
    /* Second time derivative of Phi along z(s) = z + zd s + zdd s²/2 equals Phi_z zdd + bias. */
    double h = 1e-4, p0[4], pp[4], pm[4], bias[4], Jz[4] = {0};
    for (int k = 0; k < 3; ++k) zp[k] = z[k];
    mb_args c0 = {t, zp, NULL, NULL, NULL, p, NULL};
    m->constraints(&c0, p0, NULL);
    for (int k = 0; k < 3; ++k) zp[k] = z[k] + zd[k] * h + zdd[k] * h * h / 2;
    mb_args c1 = {t + h, zp, NULL, NULL, NULL, p, NULL};
    m->constraints(&c1, pp, NULL);
    for (int k = 0; k < 3; ++k) zp[k] = z[k] - zd[k] * h + zdd[k] * h * h / 2;
    mb_args c2 = {t - h, zp, NULL, NULL, NULL, p, NULL};
    m->constraints(&c2, pm, NULL);
    m->constraint_bias(&a, bias, NULL);
    for (int i = 0; i < nc; ++i)
        for (int j = 0; j < 3; ++j) Jz[i] += J[i + nc * j] * zdd[j];
    err = 0;
    for (int i = 0; i < nc; ++i) err = fmax(err, fabs((pp[i] - 2 * p0[i] + pm[i]) / (h * h) - Jz[i] - bias[i]));
    ok(err < 1e-5, "%s: Phi_z zdd + bias = d²Phi/dt² by differences (max error %.2g)", m->name, err);
}

int main(void) {
    char err[MB_ERRLEN] = "";
    double zd[3] = {1.3, -0.4, 0.7}, zdd[3] = {-2, 0.5, 3};
    check_jacobians(&cl_fourbar_model, 0, fb_z0, zd, zdd);
    check_jacobians(&cl_fourbar_redundant_model, 0, fb_z0, zd, zdd);
    check_jacobians(&cl_slider_crank_model, 0, sc_z0, zd, zdd);
    check_jacobians(&cl_slider_crank_driven_model, 0.7, sc_z0, zd, zdd);

    /* Position problem from a perturbed guess, the crank held. */
    mb_kin *k = mb_kin_create(&cl_fourbar_model, NULL, err, sizeof err);
    ok(k != NULL, "kinematics for the four-bar: %s", err);
    double z[3], p[1] = {0.4}, v[3], dz[3] = {0.2, -0.15, 0.1};
    int it = 0;
    is_int(mb_kin_factor(k, 0, fb_z0, p, err, sizeof err), MB_OK, "factor at the assembled start");
    /* Never two factorizations at one point (t, z, p); any change of one of them factors again. */
    long f0 = mb_kin_factorizations(k);
    mb_kin_factor(k, 0, fb_z0, p, err, sizeof err);
    is_int(mb_kin_factorizations(k), f0, "a second factorization at the same point is not done");
    double pz[3] = {fb_z0[0], fb_z0[1], fb_z0[2] + 1e-9}, p2[1] = {0.4 + 1e-12};
    mb_kin_factor(k, 0, pz, p, err, sizeof err);
    mb_kin_factor(k, 1e-9, pz, p, err, sizeof err);
    mb_kin_factor(k, 1e-9, pz, p2, err, sizeof err);
    is_int(mb_kin_factorizations(k), f0 + 3, "another z, t or p factors again");
    mb_kin_factor(k, 0, fb_z0, p, err, sizeof err);
    for (int i = 0; i < 3; ++i) z[i] = fb_z0[i] + (i == mb_kin_independent(k)[0] ? 0 : dz[i]);
    is_int(mb_kin_dof(k), 1, "one degree of freedom found from the rank of Phi_z");
    is_int(mb_kin_rank(k), 2, "rank 2");
    is_int(mb_kin_position(k, 0, z, p, &it, err, sizeof err), MB_OK, "four-bar assembles from a perturbed guess");
    mb_kin_violation(k, 0, z, NULL, NULL, p, v, err, sizeof err);
    ok(v[0] <= 1e-12, "assembled to 1e-12: max|Phi| = %.2g after %d Newton iterations", v[0], it);
    int ind = mb_kin_independent(k)[0];
    is_double(z[ind], fb_z0[ind], 0, 0, "the independent coordinate (%s) was held", fb_z_names[ind]);
    double d = 0;
    for (int i = 0; i < 3; ++i) d = fmax(d, fabs(z[i] - fb_z0[i]));
    ok(d < 1e-10, "same branch as the closed form (max difference %.2g)", d);

    /* Velocity and acceleration problems, and R. */
    double zv[3] = {0, 0, 0}, za[3] = {0, 0, 0}, R[3];
    zv[ind] = 2.0;
    za[ind] = -1.0;
    is_int(mb_kin_velocity(k, 0, z, zv, p, err, sizeof err), MB_OK, "velocity problem");
    is_int(mb_kin_acceleration(k, 0, z, zv, za, p, err, sizeof err), MB_OK, "acceleration problem");
    mb_kin_violation(k, 0, z, zv, za, p, v, err, sizeof err);
    ok(v[1] < 1e-13 && v[2] < 1e-12, "velocity (%.2g) and acceleration (%.2g) constraints hold", v[1], v[2]);
    is_int(mb_kin_R(k, R, err, sizeof err), MB_OK, "R");
    double J[6], PR[2] = {0, 0};
    mb_args a = {0, z, NULL, NULL, NULL, p, NULL};
    cl_fourbar_model.constraints_dz(&a, J, NULL);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) PR[i] += J[i + 2 * j] * R[j];
    ok(max_abs(PR, 2) < 1e-13 && R[ind] == 1, "Phi_z R = 0 (%.2g) and B R = I", max_abs(PR, 2));
    d = 0;
    for (int i = 0; i < 3; ++i) d = fmax(d, fabs(R[i] * 2.0 - zv[i]));
    ok(d < 1e-12, "zd = R zd_i for scleronomic constraints");

    /* A mechanism that cannot close: ground link longer than the other three together. */
    double pbad[1] = {1.0}, zb[3];
    memcpy(zb, fb_z0, sizeof zb);
    int rc = mb_kin_position(k, 0, zb, pbad, &it, err, sizeof err);
    is_int(rc, MB_ERR_NEWTON, "non-assembling four-bar: MB_ERR_NEWTON");
    ok(strstr(err, "does not assemble") && strstr(err, "constraint equations 0 (|Phi| ="),
       "message names the violated equations: \"%s\"", err);
    ok(isfinite(zb[0]) && isfinite(zb[1]) && isfinite(zb[2]), "no NaN left in z");
    mb_kin_free(k);

    /* Redundant constraints: rank 2 of 3 equations, least squares. */
    k = mb_kin_create(&cl_fourbar_redundant_model, NULL, err, sizeof err);
    double zr[3] = {fb_z0[0], fb_z0[1] + 0.1, fb_z0[2] + 0.1};
    is_int(mb_kin_position(k, 0, zr, p, &it, err, sizeof err), MB_OK, "redundant four-bar assembles: %s", err);
    is_int(mb_kin_rank(k), 2, "rank detection: 3 equations, rank 2");
    is_int(mb_kin_dof(k), 1, "still one degree of freedom");
    mb_kin_violation(k, 0, zr, NULL, NULL, p, v, err, sizeof err);
    ok(v[0] <= 1e-12, "assembled to %.2g in %d iterations", v[0], it);
    mb_kin_free(k);

    /* The driven slider-crank has no degree of freedom: the drive fixes the crank. */
    k = mb_kin_create(&cl_slider_crank_driven_model, NULL, err, sizeof err);
    double zs[3];
    memcpy(zs, sc_z0, sizeof zs);
    double t = 0.3;
    is_int(mb_kin_position(k, t, zs, NULL, &it, err, sizeof err), MB_OK, "driven slider-crank assembles at t = 0.3");
    is_int(mb_kin_dof(k), 0, "zero degrees of freedom");
    is_double(zs[0], SC_W * t + SC_A * sin(t), 1e-13, 0, "crank angle = drive");
    is_double(zs[2], sc_slider_exact(zs[0]), 1e-13, 0, "slider at the closed-form position");
    mb_kin_free(k);

    /* The user's choice (rocker) at a configuration where crank and coupler align. */
    mb_kin_options ko;
    mb_kin_options_default(&ko);
    ko.reselect = 0;
    k = mb_kin_create(&cl_fourbar_rocker_model, &ko, err, sizeof err);
    /* |B| = Lc + Lp = 0.45 with B = O4 + Lr (cos z2, sin z2): the crank and coupler are stretched. */
    double cz2 = (0.45 * 0.45 - 0.16 - 0.0625) / (2 * 0.4 * 0.25), z2 = acos(cz2);
    double bx = 0.4 + 0.25 * cos(z2), by = 0.25 * sin(z2), zsing[3] = {atan2(by, bx), 0, z2};
    is_int(mb_kin_factor(k, 0, fb_z0, p, err, sizeof err), MB_OK, "rocker choice is regular at the start");
    rc = mb_kin_factor(k, 0, zsing, p, err, sizeof err);
    is_int(rc, MB_ERR_SINGULAR, "rocker choice at the stretched configuration: MB_ERR_SINGULAR");
    ok(strstr(err, "no longer determine") != NULL, "message: \"%s\"", err);
    mb_kin_free(k);
    ko.reselect = 1;
    k = mb_kin_create(&cl_fourbar_rocker_model, &ko, err, sizeof err);
    is_int(mb_kin_factor(k, 0, fb_z0, p, err, sizeof err), MB_OK, "again with re-selection on");
    is_int(mb_kin_factor(k, 0, zsing, p, err, sizeof err), MB_OK, "re-selects instead of failing");
    ok(mb_kin_reselections(k) == 1 && mb_kin_independent(k)[0] != 2, "now independent: %s",
       fb_z_names[mb_kin_independent(k)[0]]);
    mb_kin_free(k);
    return done_testing();
}
