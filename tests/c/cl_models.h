/* cl_models.h: closed-loop mb_model instances written by hand (planar four-bar, slider-crank) for the runtime tests. */
#ifndef CL_MODELS_H
#define CL_MODELS_H

/* Include in one translation unit. Every model has 3 relative coordinates and
 * planar bodies; the kinematics (COM, its Jacobian Jg and velocity product
 * gam = dJg/dt zd, the angle's constant Jacobian) and the constraints (Phi,
 * Phi_z, Phi_t, bias) are written in closed form over double _Complex. The
 * dynamics follow from them generically (M = sum m Jg'Jg + I Jphi'Jphi,
 * Q = sum Jg'(m g - m gam)); the derivatives the ABI wants beyond Phi_z
 * (dr/dz, dr/dzd, bias_dz, bias_dzd, d(Phi_z' w)/dz) are complex-step
 * derivatives of those closed forms, exact to roundoff. The tests check Phi_z
 * and the bias against finite differences of Phi. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "mb_model.h"

typedef double _Complex cx;
#define CL_G 9.81
#define CL_NZ 3
#define CL_NCMAX 4
#define CL_CS 1e-30

typedef struct {
    double m, J;  /* mass, inertia about the COM */
    cx g[2], Jg[2][CL_NZ], gam[2];
    double Jphi[CL_NZ];
} cl_body;

typedef struct {
    int nc;
    void (*bodies)(const double *p, const cx *z, const cx *zd, cl_body b[3]);
    void (*phi)(const double *p, double t, const cx *z, cx *out);
    void (*phiz)(const double *p, double t, const cx *z, cx *out); /* nc x 3, column-major */
    void (*phit)(const double *p, double t, const cx *z, cx *out);
    void (*bias)(const double *p, double t, const cx *z, const cx *zd, cx *out);
} cl_desc;

static void cl_tocx(const mb_real *x, cx *y) {
    for (int i = 0; i < CL_NZ; ++i) y[i] = x ? x[i] : 0;
}

/* r = M zdd - Q (zdd NULL: -Q), and M when Mout is not NULL. */
static void cl_dyn(const cl_desc *d, const double *p, const cx *z, const cx *zd, const cx *zdd, cx *r, cx *Mout) {
    cl_body b[3];
    cx M[CL_NZ * CL_NZ] = {0}, Q[CL_NZ] = {0};
    d->bodies(p, z, zd, b);
    for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < CL_NZ; ++i) {
            for (int j = 0; j < CL_NZ; ++j)
                M[i + CL_NZ * j] += b[k].m * (b[k].Jg[0][i] * b[k].Jg[0][j] + b[k].Jg[1][i] * b[k].Jg[1][j]) +
                                    b[k].J * b[k].Jphi[i] * b[k].Jphi[j];
            Q[i] += b[k].Jg[0][i] * (-b[k].m * b[k].gam[0]) + b[k].Jg[1][i] * (-b[k].m * CL_G - b[k].m * b[k].gam[1]);
        }
    }
    for (int i = 0; i < CL_NZ; ++i) {
        cx s = -Q[i];
        for (int j = 0; zdd && j < CL_NZ; ++j) s += M[i + CL_NZ * j] * zdd[j];
        r[i] = s;
    }
    if (Mout) memcpy(Mout, M, sizeof M);
}

static void cl_mass(const cl_desc *d, const mb_args *a, mb_real *out) {
    cx z[CL_NZ], zd[CL_NZ] = {0}, r[CL_NZ], M[CL_NZ * CL_NZ];
    cl_tocx(a->z, z);
    cl_dyn(d, a->p, z, zd, NULL, r, M);
    for (int i = 0; i < CL_NZ * CL_NZ; ++i) out[i] = creal(M[i]);
}
static void cl_forces(const cl_desc *d, const mb_args *a, mb_real *out) {
    cx z[CL_NZ], zd[CL_NZ], r[CL_NZ];
    cl_tocx(a->z, z);
    cl_tocx(a->zd, zd);
    cl_dyn(d, a->p, z, zd, NULL, r, NULL);
    for (int i = 0; i < CL_NZ; ++i) out[i] = -creal(r[i]);
}
static void cl_id(const cl_desc *d, const mb_args *a, mb_real *out) {
    cx z[CL_NZ], zd[CL_NZ], zdd[CL_NZ], r[CL_NZ];
    cl_tocx(a->z, z);
    cl_tocx(a->zd, zd);
    cl_tocx(a->zdd, zdd);
    cl_dyn(d, a->p, z, zd, zdd, r, NULL);
    for (int i = 0; i < CL_NZ; ++i) out[i] = creal(r[i]);
}
/* which = 0: d/dz, 1: d/dzd. */
static void cl_id_d(const cl_desc *d, const mb_args *a, mb_real *out, int which) {
    for (int j = 0; j < CL_NZ; ++j) {
        cx z[CL_NZ], zd[CL_NZ], zdd[CL_NZ], r[CL_NZ];
        cl_tocx(a->z, z);
        cl_tocx(a->zd, zd);
        cl_tocx(a->zdd, zdd);
        (which ? zd : z)[j] += I * CL_CS;
        cl_dyn(d, a->p, z, zd, zdd, r, NULL);
        for (int i = 0; i < CL_NZ; ++i) out[i + CL_NZ * j] = cimag(r[i]) / CL_CS;
    }
}
static void cl_energy(const cl_desc *d, const mb_args *a, mb_real *out) {
    cx z[CL_NZ], zd[CL_NZ];
    cl_body b[3];
    cl_tocx(a->z, z);
    cl_tocx(a->zd, zd);
    d->bodies(a->p, z, zd, b);
    double T = 0, V = 0;
    for (int k = 0; k < 3; ++k) {
        double v[2] = {0, 0}, w = 0;
        for (int j = 0; j < CL_NZ; ++j) {
            v[0] += creal(b[k].Jg[0][j]) * a->zd[j];
            v[1] += creal(b[k].Jg[1][j]) * a->zd[j];
            w += b[k].Jphi[j] * a->zd[j];
        }
        T += 0.5 * b[k].m * (v[0] * v[0] + v[1] * v[1]) + 0.5 * b[k].J * w * w;
        V += b[k].m * CL_G * creal(b[k].g[1]);
    }
    out[0] = T;
    out[1] = V;
}
static void cl_phi(const cl_desc *d, const mb_args *a, mb_real *out) {
    cx z[CL_NZ], o[CL_NCMAX];
    cl_tocx(a->z, z);
    d->phi(a->p, a->t, z, o);
    for (int i = 0; i < d->nc; ++i) out[i] = creal(o[i]);
}
static void cl_phiz(const cl_desc *d, const mb_args *a, mb_real *out) {
    cx z[CL_NZ], o[CL_NCMAX * CL_NZ];
    cl_tocx(a->z, z);
    d->phiz(a->p, a->t, z, o);
    for (int i = 0; i < d->nc * CL_NZ; ++i) out[i] = creal(o[i]);
}
static void cl_phit(const cl_desc *d, const mb_args *a, mb_real *out) {
    cx z[CL_NZ], o[CL_NCMAX];
    cl_tocx(a->z, z);
    d->phit(a->p, a->t, z, o);
    for (int i = 0; i < d->nc; ++i) out[i] = creal(o[i]);
}
static void cl_bias(const cl_desc *d, const mb_args *a, mb_real *out) {
    cx z[CL_NZ], zd[CL_NZ], o[CL_NCMAX];
    cl_tocx(a->z, z);
    cl_tocx(a->zd, zd);
    d->bias(a->p, a->t, z, zd, o);
    for (int i = 0; i < d->nc; ++i) out[i] = creal(o[i]);
}
static void cl_bias_d(const cl_desc *d, const mb_args *a, mb_real *out, int which) {
    for (int j = 0; j < CL_NZ; ++j) {
        cx z[CL_NZ], zd[CL_NZ], o[CL_NCMAX];
        cl_tocx(a->z, z);
        cl_tocx(a->zd, zd);
        (which ? zd : z)[j] += I * CL_CS;
        d->bias(a->p, a->t, z, zd, o);
        for (int i = 0; i < d->nc; ++i) out[i + d->nc * j] = cimag(o[i]) / CL_CS;
    }
}
/* d(Phi_z' w)/dz: column j is the complex-step derivative of Phi_z' w along z_j. */
static void cl_tw(const cl_desc *d, const mb_args *a, mb_real *out) {
    for (int j = 0; j < CL_NZ; ++j) {
        cx z[CL_NZ], J[CL_NCMAX * CL_NZ];
        cl_tocx(a->z, z);
        z[j] += I * CL_CS;
        d->phiz(a->p, a->t, z, J);
        for (int c = 0; c < CL_NZ; ++c) {
            cx s = 0;
            for (int i = 0; i < d->nc; ++i) s += J[i + d->nc * c] * a->w[i];
            out[c + CL_NZ * j] = cimag(s) / CL_CS;
        }
    }
}

/* The mb_fn wrappers of one descriptor. */
#define CL_WRAP(X)                                                                                                                 \
    static int X##_w_mass(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_mass(&X##_desc, a, o); return 0; }               \
    static int X##_w_forces(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_forces(&X##_desc, a, o); return 0; }           \
    static int X##_w_id(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_id(&X##_desc, a, o); return 0; }                   \
    static int X##_w_id_dz(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_id_d(&X##_desc, a, o, 0); return 0; }           \
    static int X##_w_id_dzd(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_id_d(&X##_desc, a, o, 1); return 0; }          \
    static int X##_w_energy(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_energy(&X##_desc, a, o); return 0; }           \
    static int X##_w_phi(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_phi(&X##_desc, a, o); return 0; }                 \
    static int X##_w_phiz(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_phiz(&X##_desc, a, o); return 0; }               \
    static int X##_w_phit(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_phit(&X##_desc, a, o); return 0; }               \
    static int X##_w_bias(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_bias(&X##_desc, a, o); return 0; }               \
    static int X##_w_bias_dz(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_bias_d(&X##_desc, a, o, 0); return 0; }       \
    static int X##_w_bias_dzd(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_bias_d(&X##_desc, a, o, 1); return 0; }      \
    static int X##_w_tw(const mb_args *a, mb_real *o, mb_real *w) { (void)w; cl_tw(&X##_desc, a, o); return 0; }

#define CL_FUNCS(X)                                                                                 \
    .mass = X##_w_mass, .forces = X##_w_forces, .inverse_dynamics = X##_w_id, .inverse_dynamics_dz = X##_w_id_dz, \
    .inverse_dynamics_dzd = X##_w_id_dzd, .energy = X##_w_energy, .constraints = X##_w_phi,              \
    .constraints_dz = X##_w_phiz, .constraints_dt = X##_w_phit, .constraint_bias = X##_w_bias,           \
    .constraint_bias_dz = X##_w_bias_dz, .constraint_bias_dzd = X##_w_bias_dzd, .constraints_dz_tw_dz = X##_w_tw

/* ---- Planar four-bar (models/fourbar_planar.lua): crank z0 on O2 = 0, coupler z1 relative to the
 * crank at its tip, rocker z2 on O4 = (Lg, 0); uniform bars of 2 kg/m; the coupler tip is pinned to
 * the rocker tip (2 equations). p = {Lg} so a test can make it impossible to assemble. ---- */
#define FB_LC 0.1
#define FB_LP 0.35
#define FB_LR 0.25
#define FB_RHO 2.0
static void fb_bar(cl_body *b, double L) {
    b->m = FB_RHO * L;
    b->J = b->m * L * L / 12;
}
static void fb_bodies(const double *p, const cx *z, const cx *zd, cl_body b[3]) {
    (void)p;
    memset(b, 0, 3 * sizeof *b);
    cx c1 = ccos(z[0]), s1 = csin(z[0]), c12 = ccos(z[0] + z[1]), s12 = csin(z[0] + z[1]);
    cx c3 = ccos(z[2]), s3 = csin(z[2]), w1 = zd[0], w12 = zd[0] + zd[1], w3 = zd[2];
    double hc = FB_LC / 2, hp = FB_LP / 2, hr = FB_LR / 2, Lg = p ? p[0] : 0.4;
    fb_bar(&b[0], FB_LC);
    b[0].g[0] = hc * c1, b[0].g[1] = hc * s1;
    b[0].Jg[0][0] = -hc * s1, b[0].Jg[1][0] = hc * c1;
    b[0].gam[0] = -hc * c1 * w1 * w1, b[0].gam[1] = -hc * s1 * w1 * w1;
    b[0].Jphi[0] = 1;
    fb_bar(&b[1], FB_LP);
    b[1].g[0] = FB_LC * c1 + hp * c12, b[1].g[1] = FB_LC * s1 + hp * s12;
    b[1].Jg[0][0] = -FB_LC * s1 - hp * s12, b[1].Jg[1][0] = FB_LC * c1 + hp * c12;
    b[1].Jg[0][1] = -hp * s12, b[1].Jg[1][1] = hp * c12;
    b[1].gam[0] = -FB_LC * c1 * w1 * w1 - hp * c12 * w12 * w12;
    b[1].gam[1] = -FB_LC * s1 * w1 * w1 - hp * s12 * w12 * w12;
    b[1].Jphi[0] = b[1].Jphi[1] = 1;
    fb_bar(&b[2], FB_LR);
    b[2].g[0] = Lg + hr * c3, b[2].g[1] = hr * s3;
    b[2].Jg[0][2] = -hr * s3, b[2].Jg[1][2] = hr * c3;
    b[2].gam[0] = -hr * c3 * w3 * w3, b[2].gam[1] = -hr * s3 * w3 * w3;
    b[2].Jphi[2] = 1;
}
static void fb_phi(const double *p, double t, const cx *z, cx *o) {
    (void)t;
    o[0] = FB_LC * ccos(z[0]) + FB_LP * ccos(z[0] + z[1]) - p[0] - FB_LR * ccos(z[2]);
    o[1] = FB_LC * csin(z[0]) + FB_LP * csin(z[0] + z[1]) - FB_LR * csin(z[2]);
}
static void fb_phiz(const double *p, double t, const cx *z, cx *o) {
    (void)p, (void)t;
    cx s1 = csin(z[0]), c1 = ccos(z[0]), s12 = csin(z[0] + z[1]), c12 = ccos(z[0] + z[1]);
    o[0] = -FB_LC * s1 - FB_LP * s12, o[1] = FB_LC * c1 + FB_LP * c12;
    o[2] = -FB_LP * s12, o[3] = FB_LP * c12;
    o[4] = FB_LR * csin(z[2]), o[5] = -FB_LR * ccos(z[2]);
}
static void fb_phit(const double *p, double t, const cx *z, cx *o) {
    (void)p, (void)t, (void)z;
    o[0] = o[1] = 0;
}
static void fb_bias(const double *p, double t, const cx *z, const cx *zd, cx *o) {
    (void)p, (void)t;
    cx w1 = zd[0], w12 = zd[0] + zd[1], w3 = zd[2];
    o[0] = -FB_LC * ccos(z[0]) * w1 * w1 - FB_LP * ccos(z[0] + z[1]) * w12 * w12 + FB_LR * ccos(z[2]) * w3 * w3;
    o[1] = -FB_LC * csin(z[0]) * w1 * w1 - FB_LP * csin(z[0] + z[1]) * w12 * w12 + FB_LR * csin(z[2]) * w3 * w3;
}
static const cl_desc fb_desc = {2, fb_bodies, fb_phi, fb_phiz, fb_phit, fb_bias};
CL_WRAP(fb)

/* The same four-bar with a redundant third equation (twice the first): rank 2 of 3. */
static void fbr_phi(const double *p, double t, const cx *z, cx *o) {
    fb_phi(p, t, z, o);
    o[2] = 2 * o[0];
}
static void fbr_phiz(const double *p, double t, const cx *z, cx *o) {
    cx J[6];
    fb_phiz(p, t, z, J);
    for (int c = 0; c < 3; ++c) o[3 * c] = J[2 * c], o[3 * c + 1] = J[2 * c + 1], o[3 * c + 2] = 2 * J[2 * c];
}
static void fbr_phit(const double *p, double t, const cx *z, cx *o) {
    (void)p, (void)t, (void)z;
    o[0] = o[1] = o[2] = 0;
}
static void fbr_bias(const double *p, double t, const cx *z, const cx *zd, cx *o) {
    fb_bias(p, t, z, zd, o);
    o[2] = 2 * o[0];
}
static const cl_desc fbr_desc = {3, fb_bodies, fbr_phi, fbr_phiz, fbr_phit, fbr_bias};
CL_WRAP(fbr)

static const char *const fb_z_names[] = {"O2", "A", "O4"};
static const char *const fb_p_names[] = {"Lg"};
static const double fb_p_default[] = {0.4};
/* Exact assembly at crank = 60 deg (as models/fourbar_planar.lua computes it). */
static const double fb_z0[] = {1.0471975511965976, -0.5712818570370936, 1.727007872291653};
static const double fb_zd0[] = {0, 0, 0};
/* Spun fast enough to turn over: the rocker passes its extreme positions. */
static const double fb_zd0_spin[] = {25, 0, 0};
static const int fb_ind_rocker[] = {2};

#define FB_COMMON                                                                                   \
    .nz = 3, .np = 1, .nu = 0, .nb = 3, .npt = 0, .z_names = fb_z_names, .p_names = fb_p_names,      \
    .p_default = fb_p_default, .z0 = fb_z0

const mb_model cl_fourbar_model = {
    .name = "fourbar_hand", .nc = 2, FB_COMMON, .zd0 = fb_zd0,
    .simulate = {.t_end = 2, .step = 1e-3, .tolerance = 1e-8, .integrator = "rk4"},
    CL_FUNCS(fb),
};
const mb_model cl_fourbar_spin_model = {
    .name = "fourbar_spin", .nc = 2, FB_COMMON, .zd0 = fb_zd0_spin,
    .simulate = {.t_end = 1, .step = 1e-3, .tolerance = 1e-8, .integrator = "rk4"},
    CL_FUNCS(fb),
};
/* Rocker chosen by the user as the degree of freedom: singular where crank and coupler align. */
const mb_model cl_fourbar_rocker_model = {
    .name = "fourbar_rocker", .nc = 2, FB_COMMON, .zd0 = fb_zd0_spin,
    .independent = fb_ind_rocker, .n_independent = 1,
    .simulate = {.t_end = 1, .step = 1e-3, .tolerance = 1e-8, .integrator = "rk4"},
    CL_FUNCS(fb),
};
const mb_model cl_fourbar_redundant_model = {
    .name = "fourbar_redundant", .nc = 3, FB_COMMON, .zd0 = fb_zd0,
    .simulate = {.t_end = 2, .step = 1e-3, .tolerance = 1e-8, .integrator = "rk4"},
    CL_FUNCS(fbr),
};

/* ---- Slider-crank (models/slider_crank.lua without spring and motor): crank z0 on the origin
 * (r = 0.1), rod z1 relative to the crank at its tip (l = 0.4), slider z2 along ground x; the rod
 * tip is pinned to the slider (2 equations). The driven variant adds z0 = w t + A sin t. ---- */
#define SC_R 0.1
#define SC_L 0.4
#define SC_W 4.0
#define SC_A 0.5
static void sc_bodies(const double *p, const cx *z, const cx *zd, cl_body b[3]) {
    (void)p;
    memset(b, 0, 3 * sizeof *b);
    cx c1 = ccos(z[0]), s1 = csin(z[0]), c12 = ccos(z[0] + z[1]), s12 = csin(z[0] + z[1]);
    cx w1 = zd[0], w12 = zd[0] + zd[1];
    double hc = 0.05, hr = 0.2;
    b[0].m = 0.5, b[0].J = 0.0006;
    b[0].g[0] = hc * c1, b[0].g[1] = hc * s1;
    b[0].Jg[0][0] = -hc * s1, b[0].Jg[1][0] = hc * c1;
    b[0].gam[0] = -hc * c1 * w1 * w1, b[0].gam[1] = -hc * s1 * w1 * w1;
    b[0].Jphi[0] = 1;
    b[1].m = 0.8, b[1].J = 0.0107;
    b[1].g[0] = SC_R * c1 + hr * c12, b[1].g[1] = SC_R * s1 + hr * s12;
    b[1].Jg[0][0] = -SC_R * s1 - hr * s12, b[1].Jg[1][0] = SC_R * c1 + hr * c12;
    b[1].Jg[0][1] = -hr * s12, b[1].Jg[1][1] = hr * c12;
    b[1].gam[0] = -SC_R * c1 * w1 * w1 - hr * c12 * w12 * w12;
    b[1].gam[1] = -SC_R * s1 * w1 * w1 - hr * s12 * w12 * w12;
    b[1].Jphi[0] = b[1].Jphi[1] = 1;
    b[2].m = 1.2, b[2].J = 0.001;
    b[2].g[0] = z[2];
    b[2].Jg[0][2] = 1;
}
static void sc_phi(const double *p, double t, const cx *z, cx *o) {
    (void)p, (void)t;
    o[0] = SC_R * ccos(z[0]) + SC_L * ccos(z[0] + z[1]) - z[2];
    o[1] = SC_R * csin(z[0]) + SC_L * csin(z[0] + z[1]);
}
static void sc_phiz(const double *p, double t, const cx *z, cx *o) {
    (void)p, (void)t;
    cx s1 = csin(z[0]), c1 = ccos(z[0]), s12 = csin(z[0] + z[1]), c12 = ccos(z[0] + z[1]);
    o[0] = -SC_R * s1 - SC_L * s12, o[1] = SC_R * c1 + SC_L * c12;
    o[2] = -SC_L * s12, o[3] = SC_L * c12;
    o[4] = -1, o[5] = 0;
}
static void sc_phit(const double *p, double t, const cx *z, cx *o) {
    (void)p, (void)t, (void)z;
    o[0] = o[1] = 0;
}
static void sc_bias(const double *p, double t, const cx *z, const cx *zd, cx *o) {
    (void)p, (void)t;
    cx w1 = zd[0], w12 = zd[0] + zd[1];
    o[0] = -SC_R * ccos(z[0]) * w1 * w1 - SC_L * ccos(z[0] + z[1]) * w12 * w12;
    o[1] = -SC_R * csin(z[0]) * w1 * w1 - SC_L * csin(z[0] + z[1]) * w12 * w12;
}
static const cl_desc sc_desc = {2, sc_bodies, sc_phi, sc_phiz, sc_phit, sc_bias};
CL_WRAP(sc)

static void scd_phi(const double *p, double t, const cx *z, cx *o) {
    sc_phi(p, t, z, o);
    o[2] = z[0] - (SC_W * t + SC_A * sin(t));
}
static void scd_phiz(const double *p, double t, const cx *z, cx *o) {
    cx J[6];
    sc_phiz(p, t, z, J);
    for (int c = 0; c < 3; ++c) o[3 * c] = J[2 * c], o[3 * c + 1] = J[2 * c + 1], o[3 * c + 2] = c == 0;
}
static void scd_phit(const double *p, double t, const cx *z, cx *o) {
    (void)p, (void)z;
    o[0] = o[1] = 0;
    o[2] = -(SC_W + SC_A * cos(t));
}
static void scd_bias(const double *p, double t, const cx *z, const cx *zd, cx *o) {
    sc_bias(p, t, z, zd, o);
    o[2] = SC_A * sin(t); /* d(Phi_t)/dt */
}
static const cl_desc scd_desc = {3, sc_bodies, scd_phi, scd_phiz, scd_phit, scd_bias};
CL_WRAP(scd)

/* The slider position of the crank angle, in closed form (no offset). */
static inline double sc_slider_exact(double th) {
    double s = SC_R * sin(th);
    return SC_R * cos(th) + sqrt(SC_L * SC_L - s * s);
}

static const char *const sc_z_names[] = {"crank_pin", "rod_pin", "guide"};
static const double sc_z0[] = {0.5235987755982988, -0.6489266067663642, 0.48346523703813254};
static const double sc_zd0[] = {3, 0, 0};
static const double scd_zd0[] = {SC_W + SC_A, 0, 0};

const mb_model cl_slider_crank_model = {
    .name = "slider_crank_hand", .nz = 3, .nc = 2, .np = 0, .nu = 0, .nb = 3, .z_names = sc_z_names,
    .z0 = sc_z0, .zd0 = sc_zd0,
    .simulate = {.t_end = 2, .step = 1e-3, .tolerance = 1e-8, .integrator = "rk4"},
    CL_FUNCS(sc),
};
const mb_model cl_slider_crank_driven_model = {
    .name = "slider_crank_driven", .nz = 3, .nc = 3, .np = 0, .nu = 0, .nb = 3, .z_names = sc_z_names,
    .z0 = sc_z0, .zd0 = scd_zd0,
    .simulate = {.t_end = 2, .step = 1e-3, .tolerance = 1e-8, .integrator = "rk4"},
    CL_FUNCS(scd),
};

#endif
