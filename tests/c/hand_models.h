/* hand_models.h: mb_model instances written by hand (closed-form M, Q, r and its derivatives) for the runtime tests. */
#ifndef HAND_MODELS_H
#define HAND_MODELS_H

/* Include in exactly one translation unit: it defines the models. They stand in
 * for generated code while the generator is written, so they follow the ABI of
 * INTERFACES.md §3: column-major matrices, p[] in byte order of the names,
 * r = M zdd - Q, dr/dz and dr/dzd dense. */
#include <math.h>
#include <stddef.h>

#include "mb_model.h"

/* ---- 1-DOF oscillator: m zdd + c zd + k z = u, one point at (z, 0, 0). ----
 * p = {c, k, m} (byte order), u = {force}. */
static int osc_mass(const mb_args *a, mb_real *out, mb_real *work) { (void)work; out[0] = a->p[2]; return 0; }
static int osc_forces(const mb_args *a, mb_real *out, mb_real *work) {
    (void)work;
    out[0] = -a->p[0] * a->zd[0] - a->p[1] * a->z[0] + (a->u ? a->u[0] : 0);
    return 0;
}
static int osc_id(const mb_args *a, mb_real *out, mb_real *work) {
    (void)work;
    out[0] = a->p[2] * a->zdd[0] + a->p[0] * a->zd[0] + a->p[1] * a->z[0] - (a->u ? a->u[0] : 0);
    return 0;
}
static int osc_id_dz(const mb_args *a, mb_real *out, mb_real *work) { (void)work; out[0] = a->p[1]; return 0; }
static int osc_id_dzd(const mb_args *a, mb_real *out, mb_real *work) { (void)work; out[0] = a->p[0]; return 0; }
static int osc_fd(const mb_args *a, mb_real *out, mb_real *work) {
    (void)work;
    out[0] = (-a->p[0] * a->zd[0] - a->p[1] * a->z[0] + (a->u ? a->u[0] : 0)) / a->p[2];
    return 0;
}
static int osc_energy(const mb_args *a, mb_real *out, mb_real *work) {
    (void)work;
    out[0] = 0.5 * a->p[2] * a->zd[0] * a->zd[0];
    out[1] = 0.5 * a->p[1] * a->z[0] * a->z[0];
    return 0;
}
static int osc_points(const mb_args *a, mb_real *out, mb_real *work) {
    (void)work;
    out[0] = a->z[0];
    out[1] = 0;
    out[2] = 0;
    return 0;
}
static const char *const osc_z_names[] = {"x"};
static const char *const osc_p_names[] = {"c", "k", "m"};
static const char *const osc_u_names[] = {"force"};
static const char *const osc_body_names[] = {"block"};
static const char *const osc_point_names[] = {"mass"};
static const double osc_p_default[] = {0.0, 4.0, 1.0}; /* undamped, omega = 2 */
static const double osc_z0[] = {1.0}, osc_zd0[] = {0.0};

const mb_model hand_osc_model = {
    .name = "oscillator", .nz = 1, .nc = 0, .np = 3, .nu = 1, .nb = 1, .npt = 1,
    .z_names = osc_z_names, .p_names = osc_p_names, .u_names = osc_u_names,
    .body_names = osc_body_names, .point_names = osc_point_names,
    .p_default = osc_p_default, .z0 = osc_z0, .zd0 = osc_zd0,
    .simulate = {.t_end = 5, .step = 1e-3, .tolerance = 1e-6, .integrator = "rk4", .formulation = "tree"},
    .mass = osc_mass, .forces = osc_forces, .inverse_dynamics = osc_id,
    .inverse_dynamics_dz = osc_id_dz, .inverse_dynamics_dzd = osc_id_dzd, .forward_dynamics = osc_fd,
    .energy = osc_energy, .points = osc_points,
};

/* Closed form of the free (u = 0) under-damped oscillator (c² < 4 k m). */
static inline void hand_osc_exact(double c, double k, double m, double z0, double zd0, double t, double *z,
                           double *zd) {
    double s = c / (2 * m), wd = sqrt(k / m - s * s);
    double A = z0, B = (zd0 + s * z0) / wd, e = exp(-s * t), cs = cos(wd * t), sn = sin(wd * t);
    *z = e * (A * cs + B * sn);
    *zd = e * ((-s * A + wd * B) * cs + (-s * B - wd * A) * sn);
}

/* ---- Planar double pendulum, point masses on massless links (seeds/004.md §8.2). ----
 * Coordinates are RELATIVE angles: z[0] = theta1 of the upper link from hanging
 * straight down, z[1] = theta2 of the lower link relative to the upper one (so
 * the lower link's absolute angle is theta1 + theta2). Gravity g = 9.81 along -y.
 * p = {L1, L2, mP, mQ} (byte order: upper case first), u = {tau} on the shoulder.
 *   T = 1/2 (mP+mQ) L1² t1'² + 1/2 mQ L2² (t1'+t2')² + mQ L1 L2 cos t2 t1' (t1'+t2')
 *   V = -(mP+mQ) g L1 cos t1 - mQ g L2 cos(t1+t2)
 * With a = (mP+mQ) L1², b = mQ L1 L2 cos t2, d = mQ L2², e = mQ L1 L2 sin t2:
 *   M = [[a + 2b + d, b + d], [b + d, d]]
 *   r1 = M1. zdd - e t2'(2 t1' + t2') + G1 - tau,   r2 = M2. zdd + e t1'² + G2
 *   G1 = (mP+mQ) g L1 sin t1 + mQ g L2 sin(t1+t2),  G2 = mQ g L2 sin(t1+t2)
 * and Q = M zdd - r evaluated at zdd = 0. The derivatives use db/dt2 = -e, de/dt2 = b. */
#define HAND_G 9.81
typedef struct {
    double a, b, d, e, g1, g2, gc1, gc12;
} dp_terms;
static dp_terms dp_eval(const mb_args *x) {
    const mb_real *p = x->p, *z = x->z;
    double L1 = p[0], L2 = p[1], mP = p[2], mQ = p[3];
    dp_terms k;
    k.a = (mP + mQ) * L1 * L1;
    k.b = mQ * L1 * L2 * cos(z[1]);
    k.d = mQ * L2 * L2;
    k.e = mQ * L1 * L2 * sin(z[1]);
    k.g2 = mQ * HAND_G * L2 * sin(z[0] + z[1]);
    k.g1 = (mP + mQ) * HAND_G * L1 * sin(z[0]) + k.g2;
    k.gc12 = mQ * HAND_G * L2 * cos(z[0] + z[1]);
    k.gc1 = (mP + mQ) * HAND_G * L1 * cos(z[0]) + k.gc12;
    return k;
}
static int dp_mass(const mb_args *x, mb_real *M, mb_real *work) {
    (void)work;
    dp_terms k = dp_eval(x);
    M[0] = k.a + 2 * k.b + k.d;
    M[1] = M[2] = k.b + k.d;
    M[3] = k.d;
    return 0;
}
/* Q = -(velocity products) - dV/dz + [tau, 0]. */
static int dp_forces(const mb_args *x, mb_real *Q, mb_real *work) {
    (void)work;
    dp_terms k = dp_eval(x);
    const mb_real *v = x->zd;
    double tau = x->u ? x->u[0] : 0;
    Q[0] = k.e * v[1] * (2 * v[0] + v[1]) - k.g1 + tau;
    Q[1] = -k.e * v[0] * v[0] - k.g2;
    return 0;
}
static int dp_id(const mb_args *x, mb_real *r, mb_real *work) {
    (void)work;
    dp_terms k = dp_eval(x);
    const mb_real *v = x->zd, *w = x->zdd;
    double tau = x->u ? x->u[0] : 0;
    r[0] = (k.a + 2 * k.b + k.d) * w[0] + (k.b + k.d) * w[1] - k.e * v[1] * (2 * v[0] + v[1]) + k.g1 - tau;
    r[1] = (k.b + k.d) * w[0] + k.d * w[1] + k.e * v[0] * v[0] + k.g2;
    return 0;
}
static int dp_id_dz(const mb_args *x, mb_real *J, mb_real *work) {
    (void)work;
    dp_terms k = dp_eval(x);
    const mb_real *v = x->zd, *w = x->zdd;
    J[0] = k.gc1;                                                                  /* dr1/dt1 */
    J[1] = k.gc12;                                                                 /* dr2/dt1 */
    J[2] = -2 * k.e * w[0] - k.e * w[1] - k.b * v[1] * (2 * v[0] + v[1]) + k.gc12; /* dr1/dt2 */
    J[3] = -k.e * w[0] + k.b * v[0] * v[0] + k.gc12;                               /* dr2/dt2 */
    return 0;
}
static int dp_id_dzd(const mb_args *x, mb_real *J, mb_real *work) {
    (void)work;
    dp_terms k = dp_eval(x);
    const mb_real *v = x->zd;
    J[0] = -2 * k.e * v[1];            /* dr1/dt1' */
    J[1] = 2 * k.e * v[0];             /* dr2/dt1' */
    J[2] = -2 * k.e * (v[0] + v[1]);   /* dr1/dt2' */
    J[3] = 0;                          /* dr2/dt2' */
    return 0;
}
/* Forward dynamics by the closed-form 2x2 inverse (stands in for the O(n) ABA). */
static int dp_fd(const mb_args *x, mb_real *zdd, mb_real *work) {
    (void)work;
    mb_real M[4], Q[2];
    dp_mass(x, M, work);
    dp_forces(x, Q, work);
    double det = M[0] * M[3] - M[1] * M[2];
    zdd[0] = (M[3] * Q[0] - M[2] * Q[1]) / det;
    zdd[1] = (-M[1] * Q[0] + M[0] * Q[1]) / det;
    return 0;
}
static int dp_energy(const mb_args *x, mb_real *E, mb_real *work) {
    (void)work;
    const mb_real *p = x->p, *z = x->z, *v = x->zd;
    double L1 = p[0], L2 = p[1], mP = p[2], mQ = p[3], w = v[0] + v[1];
    E[0] = 0.5 * (mP + mQ) * L1 * L1 * v[0] * v[0] + 0.5 * mQ * L2 * L2 * w * w +
           mQ * L1 * L2 * cos(z[1]) * v[0] * w;
    E[1] = -(mP + mQ) * HAND_G * L1 * cos(z[0]) - mQ * HAND_G * L2 * cos(z[0] + z[1]);
    return 0;
}
static int dp_points(const mb_args *x, mb_real *P, mb_real *work) {
    (void)work;
    const mb_real *p = x->p, *z = x->z;
    P[0] = p[0] * sin(z[0]);
    P[1] = -p[0] * cos(z[0]);
    P[2] = 0;
    P[3] = P[0] + p[1] * sin(z[0] + z[1]);
    P[4] = P[1] - p[1] * cos(z[0] + z[1]);
    P[5] = 0;
    return 0;
}
static const char *const dp_z_names[] = {"shoulder", "elbow"};
static const char *const dp_p_names[] = {"L1", "L2", "mP", "mQ"};
static const char *const dp_u_names[] = {"tau"};
static const char *const dp_body_names[] = {"upper", "lower"};
static const char *const dp_point_names[] = {"P", "Q"};
static const double dp_p_default[] = {1.0, 1.0, 1.0, 1.0};
static const double dp_z0[] = {0.5235987755982988, 0.0}, dp_zd0[] = {0.0, 0.0};

const mb_model hand_pendulum_model = {
    .name = "double_pendulum", .nz = 2, .nc = 0, .np = 4, .nu = 1, .nb = 2, .npt = 2,
    .z_names = dp_z_names, .p_names = dp_p_names, .u_names = dp_u_names,
    .body_names = dp_body_names, .point_names = dp_point_names,
    .p_default = dp_p_default, .z0 = dp_z0, .zd0 = dp_zd0,
    .simulate = {.t_end = 5, .step = 1e-3, .tolerance = 1e-8, .integrator = "rk4", .formulation = "tree"},
    .mass = dp_mass, .forces = dp_forces, .inverse_dynamics = dp_id,
    .inverse_dynamics_dz = dp_id_dz, .inverse_dynamics_dzd = dp_id_dzd, .forward_dynamics = dp_fd,
    .energy = dp_energy, .points = dp_points,
};

/* ---- Broken models that must be reported, never integrated. ---- */
/* An indefinite "mass matrix" [[1, 2], [2, 1]] (eigenvalues 3 and -1). */
static int bad_mass(const mb_args *a, mb_real *M, mb_real *work) {
    (void)work;
    (void)a;
    M[0] = 1;
    M[1] = M[2] = 2;
    M[3] = 1;
    return 0;
}
static int bad_forces(const mb_args *a, mb_real *Q, mb_real *work) {
    (void)work;
    Q[0] = -a->z[0];
    Q[1] = -a->z[1];
    return 0;
}
static const char *const bad_z_names[] = {"a", "b"};
static const double bad_z0[] = {1, 0}, bad_zd0[] = {0, 0};
const mb_model hand_indefinite_model = {
    .name = "indefinite", .nz = 2, .z_names = bad_z_names, .z0 = bad_z0, .zd0 = bad_zd0,
    .simulate = {.t_end = 1, .step = 1e-2, .integrator = "rk4"},
    .mass = bad_mass, .forces = bad_forces,
};

/* An oscillator whose force turns NaN after t = 0.5 (a model bug, e.g. sqrt of a negative). */
static int nan_forces(const mb_args *a, mb_real *Q, mb_real *work) {
    (void)work;
    osc_forces(a, Q, NULL);
    if (a->t > 0.5) Q[0] = sqrt(-1.0 - a->t);
    return 0;
}
const mb_model hand_nan_model = {
    .name = "nan_oscillator", .nz = 1, .np = 3, .z_names = osc_z_names, .p_names = osc_p_names,
    .p_default = osc_p_default, .z0 = osc_z0, .zd0 = osc_zd0,
    .simulate = {.t_end = 1, .step = 1e-2, .integrator = "rk4"},
    .mass = osc_mass, .forces = nan_forces,
};

#endif
