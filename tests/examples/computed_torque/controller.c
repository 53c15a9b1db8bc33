/* controller.c: a computed-torque controller built on generated/chain.c, compiled in single precision.
 *
 * This is the embedding README.md describes: generated/chain.c, generated/chain.h and runtime/mb_model.h
 * dropped into a controller and built with -DMB_REAL=float; nothing else from mbgen is linked. */
#include <math.h>
#include "chain.h"
#include "controller.h"

/* The generated functions' workspace: caller-owned, sized at compile time (chain_NWORK is the largest of all
 * the model's functions; a controller could use chain_mass_NWORK and chain_inverse_dynamics_NWORK). */
static mb_real work[chain_NWORK > 0 ? chain_NWORK : 1];

/* Reference: each joint swings about its initial angle with its own phase. */
void ctl_reference(double t, int i, double *q, double *qd, double *qdd)
{
    const double amp = 0.3, w = 2.0 * 3.14159265358979323846 * 0.5, ph = 0.7 * i;
    double q0 = chain_model.z0 ? chain_model.z0[i] : 0.0;
    *q = q0 + amp * sin(w * t + ph);
    *qd = amp * w * cos(w * t + ph);
    *qdd = -amp * w * w * sin(w * t + ph);
}

/* tau = M(z) v + b(z, zd), v = qdd_ref + kd (qd_ref - zd) + kp (q_ref - z), b = r(z, zd, zdd = 0).
 * With feedforward = 0: independent-joint PD, tau_i = M_ii(z) v_i, the usual baseline without a model of
 * the coupling, the velocity terms and gravity. */
void ctl_torque(double t, const double *z, const double *zd, int feedforward, double kp, double kd, double *tau)
{
    mb_real zf[chain_NZ], zdf[chain_NZ], zero[chain_NZ], v[chain_NZ], b[chain_NZ], M[chain_NZ * chain_NZ];
    for (int i = 0; i < chain_NZ; ++i) {
        double q, qd, qdd;
        ctl_reference(t, i, &q, &qd, &qdd);
        zf[i] = (mb_real)z[i];
        zdf[i] = (mb_real)zd[i];
        zero[i] = 0;
        v[i] = (mb_real)(qdd + kd * (qd - zd[i]) + kp * (q - z[i]));
    }
    mb_args a = { (mb_real)t, zf, zdf, zero, 0, 0, 0 };
    chain_mass(&a, M, work);
    if (!feedforward) {
        for (int i = 0; i < chain_NZ; ++i) tau[i] = M[i + i * chain_NZ] * v[i];
        return;
    }
    chain_inverse_dynamics(&a, b, work);
    for (int i = 0; i < chain_NZ; ++i) {
        mb_real s = b[i];
        for (int j = 0; j < chain_NZ; ++j) s += M[i + j * chain_NZ] * v[j];
        tau[i] = s;
    }
}

/* The single-precision model against the plant's double precision, for the test. */
void ctl_inverse_dynamics(double t, const double *z, const double *zd, const double *zdd, double *r)
{
    mb_real zf[chain_NZ], zdf[chain_NZ], zddf[chain_NZ], rf[chain_NZ];
    for (int i = 0; i < chain_NZ; ++i) {
        zf[i] = (mb_real)z[i];
        zdf[i] = (mb_real)zd[i];
        zddf[i] = (mb_real)zdd[i];
    }
    mb_args a = { (mb_real)t, zf, zdf, zddf, 0, 0, 0 };
    chain_inverse_dynamics(&a, rf, work);
    for (int i = 0; i < chain_NZ; ++i) r[i] = rf[i];
}

int ctl_size(void) { return chain_NZ; }
