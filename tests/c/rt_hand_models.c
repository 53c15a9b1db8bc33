/* rt_hand_models.c: the hand-derived M, Q, r, dr/dz, dr/dzd of the test models agree with finite differences and their energy. */
#include <string.h>

#include "hand_models.h"
#include "tap.h"

/* Central differences of r (a column per coordinate), step 1e-6: error ~1e-10. */
static double fd_check(const mb_model *m, const mb_args *a0, int wrt_zd, double *worst_abs) {
    int n = m->nz;
    double J[16], Jfd[16], z[4], zd[4], rp[4], rm[4];
    (wrt_zd ? m->inverse_dynamics_dzd : m->inverse_dynamics_dz)(a0, J, NULL);
    for (int j = 0; j < n; ++j) {
        const double h = 1e-6;
        mb_args a = *a0;
        memcpy(z, a0->z, n * sizeof *z);
        memcpy(zd, a0->zd, n * sizeof *zd);
        a.z = z;
        a.zd = zd;
        double *v = wrt_zd ? zd : z;
        v[j] += h;
        m->inverse_dynamics(&a, rp, NULL);
        v[j] -= 2 * h;
        m->inverse_dynamics(&a, rm, NULL);
        for (int i = 0; i < n; ++i) Jfd[i + j * n] = (rp[i] - rm[i]) / (2 * h);
    }
    double worst = 0, scale = 1;
    for (int k = 0; k < n * n; ++k) {
        worst = fmax(worst, fabs(J[k] - Jfd[k]));
        scale = fmax(scale, fabs(J[k]));
    }
    *worst_abs = worst;
    return worst / scale;
}

/* Checks one state of a model: r = M zdd - Q; the Jacobians against FD; M
 * against the Hessian of the kinetic energy in zd; the conservative part of Q
 * at zd = 0 against -dV/dz; forward dynamics against M^-1 Q. */
static void check_model(const mb_model *m, const double *z, const double *zd, const double *zdd, const double *p,
                        double tau) {
    int n = m->nz;
    double u[1] = {tau};
    mb_args a = {0.3, z, zd, zdd, u, p, NULL};
    double M[16], Q[4], r[4], e;
    m->mass(&a, M, NULL);
    m->forces(&a, Q, NULL);
    m->inverse_dynamics(&a, r, NULL);
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        double s = -Q[i];
        for (int j = 0; j < n; ++j) s += M[i + j * n] * zdd[j];
        worst = fmax(worst, fabs(s - r[i]));
    }
    ok(worst < 1e-13, "%s: inverse_dynamics = M zdd - Q (%.2g)", m->name, worst);
    double rel = fd_check(m, &a, 0, &e);
    ok(rel < 1e-8, "%s: inverse_dynamics_dz matches central differences (abs %.2g)", m->name, e);
    rel = fd_check(m, &a, 1, &e);
    ok(rel < 1e-8, "%s: inverse_dynamics_dzd matches central differences (abs %.2g)", m->name, e);

    /* M_ij = d²T/dzd_i dzd_j: T is quadratic in zd, so second differences are exact up to roundoff. */
    worst = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double v[4], E[2], f[4];
            const double h = 1e-3;
            mb_args b = a;
            b.zd = v;
            int si[4] = {1, 1, -1, -1}, sj[4] = {1, -1, 1, -1};
            for (int k = 0; k < 4; ++k) {
                memcpy(v, zd, n * sizeof *v);
                v[i] += si[k] * h;
                v[j] += sj[k] * h;
                m->energy(&b, E, NULL);
                f[k] = E[0];
            }
            double hess = (f[0] - f[1] - f[2] + f[3]) / (4 * h * h);
            worst = fmax(worst, fabs(hess - M[i + j * n]));
        }
    ok(worst < 1e-6, "%s: M is the Hessian of the kinetic energy (%.2g)", m->name, worst);

    /* At zd = 0 and u = 0 the forces are only conservative: Q = -dV/dz. */
    double zero[4] = {0}, u0[1] = {0}, Q0[4];
    mb_args c = {0.3, z, zero, zdd, u0, p, NULL};
    m->forces(&c, Q0, NULL);
    worst = 0;
    for (int j = 0; j < n; ++j) {
        double zz[4], Ep[2], Em[2];
        const double h = 1e-6;
        mb_args d = c;
        d.z = zz;
        memcpy(zz, z, n * sizeof *zz);
        zz[j] += h;
        m->energy(&d, Ep, NULL);
        zz[j] -= 2 * h;
        m->energy(&d, Em, NULL);
        worst = fmax(worst, fabs(-(Ep[1] - Em[1]) / (2 * h) - Q0[j]));
    }
    ok(worst < 1e-7, "%s: Q(zd = 0) = -dV/dz (%.2g)", m->name, worst);

    double acc[4];
    m->forward_dynamics(&a, acc, NULL);
    worst = 0;
    for (int i = 0; i < n; ++i) {
        double s = -Q[i];
        for (int j = 0; j < n; ++j) s += M[i + j * n] * acc[j];
        worst = fmax(worst, fabs(s));
    }
    ok(worst < 1e-12, "%s: forward_dynamics solves M zdd = Q (%.2g)", m->name, worst);
}

int main(void) {
    const double pz[2] = {0.4, -1.1}, pzd[2] = {0.7, -1.3}, pzdd[2] = {2.1, -0.5}, pp[4] = {1.2, 0.8, 1.5, 0.7};
    check_model(&hand_pendulum_model, pz, pzd, pzdd, pp, 0.9);
    const double pz2[2] = {-2.0, 2.5}, pzd2[2] = {-3.0, 2.0};
    check_model(&hand_pendulum_model, pz2, pzd2, pzdd, hand_pendulum_model.p_default, 0);
    const double oz[1] = {0.3}, ozd[1] = {-0.8}, ozdd[1] = {1.7}, op[3] = {0.5, 3.0, 2.0};
    check_model(&hand_osc_model, oz, ozd, ozdd, op, 0.2);

    /* Power balance: along the motion dE/dt = zd . Q_nc, here tau zd_1; checked
     * with the exact time derivative dE/dt = dE/dz zd + dE/dzd zdd (by FD). */
    double u[1] = {0.9}, acc[2], E[2];
    mb_args a = {0, pz, pzd, NULL, u, pp, NULL};
    hand_pendulum_model.forward_dynamics(&a, acc, NULL);
    const double h = 1e-6;
    double zp[2], zdp[2], zm[2], zdm[2];
    for (int i = 0; i < 2; ++i) {
        zp[i] = pz[i] + h * pzd[i];
        zm[i] = pz[i] - h * pzd[i];
        zdp[i] = pzd[i] + h * acc[i];
        zdm[i] = pzd[i] - h * acc[i];
    }
    mb_args ap = {0, zp, zdp, NULL, u, pp, NULL}, am = {0, zm, zdm, NULL, u, pp, NULL};
    hand_pendulum_model.energy(&ap, E, NULL);
    double Ep = E[0] + E[1];
    hand_pendulum_model.energy(&am, E, NULL);
    double Em = E[0] + E[1];
    is_double((Ep - Em) / (2 * h), u[0] * pzd[0], 1e-7, 1e-9, "double pendulum: dE/dt = tau * shoulder rate");
    return done_testing();
}
