/* ref_tree.h: independent test oracle: textbook Featherstone dynamics (RNEA, CRBA, ABA) of an mbgen tree. */
#ifndef REF_TREE_H
#define REF_TREE_H

/*
 * Header-only on purpose: the Makefile turns every C file in tests/c/ into a test program, and it rebuilds
 * the tests when any header in tests/c/ changes, so a header is both safe and tracked. Every function is
 * `static inline` so a test that uses only part of it compiles cleanly under -Wall -Wextra -Werror.
 *
 * It shares no formulas with the generator (origin-referenced, semi-recursive, linear-first spatial
 * vectors). Here everything follows Featherstone, "Rigid Body Dynamics Algorithms" (2008):
 *   - quantities of body i are in body i's own frame;
 *   - spatial vectors are ANGULAR FIRST: motion [w; v] (v = velocity of the body-frame origin),
 *     force [n; f] (n = moment about the body-frame origin);
 *   - X_i (6x6) maps motion vectors from parent coordinates to body i coordinates, X_i^T maps forces
 *     from body i back to the parent;
 *   - gravity enters as the fictitious base acceleration a_0 = [0; -g].
 *
 * Model semantics (generator/README.md, design/INTERFACES.md §1), body i with parent p (-1 = ground,
 * whose frame is the world frame):
 *   joint frame = frame p moved by origin[i] (in frame p) and rotation[i] (joint axes in frame p,
 *                 as the columns of a row-major 3x3);
 *   body frame  = joint frame rotated by z about axis (revolute) or translated by z along axis
 *                 (prismatic), axis a unit vector in the joint frame; at z = 0 the two coincide.
 * So in parent coordinates the body axes are rotation * Rot(axis, z) and its origin is
 * origin (+ rotation * axis * z for a prismatic joint). Because the joint rotates about or slides along
 * its own axis, the axis has the same coordinates in the joint and body frames: S_i = [axis; 0]
 * (revolute) or [0; axis] (prismatic) is constant in body coordinates.
 *
 * Signs follow mbgen: r = M zdd - Q, Q = -ID(z, zd, 0) (gravity and velocity products), so with no
 * applied forces r = ID(z, zd, zdd); forward dynamics solves M zdd = Q + tau.
 * Matrices given to or returned by the API: 3x3 row-major; M is n x n with both triangles (being
 * symmetric, row- and column-major are the same).
 * No allocation: work arrays live on the stack, sized by REF_MAX.
 *
 * Use: a test in tests/c/ does #include "ref_tree.h"; an mbgen tree becomes a
 * `static const struct ref_tree NAME = {...}` through tests/lib/ref_export.lua; random trees come from
 * ref_random_tree(&t, n, seed, REF_CHAIN or REF_BRANCHED). Checked by tests/c/ref_selftest.c.
 */

#include <math.h>
#include <stdint.h>
#include <string.h>

#define REF_MAX 128

enum { REF_REVOLUTE = 0, REF_PRISMATIC = 1 };
enum { REF_CHAIN = 0, REF_BRANCHED = 1 };

struct ref_tree {
    int n;                        /* number of bodies = number of coordinates */
    int parent[REF_MAX];          /* 0-based parent body, -1 = ground; parent[i] < i */
    int kind[REF_MAX];            /* REF_REVOLUTE or REF_PRISMATIC */
    double origin[REF_MAX][3];    /* joint frame position in the parent frame */
    double rotation[REF_MAX][9];  /* row-major 3x3: columns = joint frame axes in the parent frame */
    double axis[REF_MAX][3];      /* unit, in the joint frame */
    double mass[REF_MAX];
    double com[REF_MAX][3];       /* in the body frame */
    double inertia[REF_MAX][9];   /* about the COM, body axes, row-major tensor (off-diagonal = -∫xy dm) */
    double gravity[3];            /* in the world (ground) frame */
};

/* ---- 3-vectors and 3x3 matrices (row-major) ---- */

static inline void ref_cross(const double a[3], const double b[3], double out[3]) {
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x; out[1] = y; out[2] = z;
}

static inline double ref_dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void ref_m3v(const double A[9], const double v[3], double out[3]) {
    double x = A[0] * v[0] + A[1] * v[1] + A[2] * v[2];
    double y = A[3] * v[0] + A[4] * v[1] + A[5] * v[2];
    double z = A[6] * v[0] + A[7] * v[1] + A[8] * v[2];
    out[0] = x; out[1] = y; out[2] = z;
}

static inline void ref_m3m(const double A[9], const double B[9], double out[9]) {
    double C[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    memcpy(out, C, sizeof C);
}

static inline void ref_m3t(const double A[9], double out[9]) {
    double C[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) C[3 * i + j] = A[3 * j + i];
    memcpy(out, C, sizeof C);
}

static inline void ref_skew(const double v[3], double S[9]) {
    S[0] = 0;     S[1] = -v[2]; S[2] = v[1];
    S[3] = v[2];  S[4] = 0;     S[5] = -v[0];
    S[6] = -v[1]; S[7] = v[0];  S[8] = 0;
}

/* Rotation by angle q about the unit axis a (Rodrigues): its columns are the rotated frame's axes. */
static inline void ref_rot_axis(const double a[3], double q, double R[9]) {
    double c = cos(q), s = sin(q), C = 1 - c;
    double x = a[0], y = a[1], z = a[2];
    R[0] = c + x * x * C;     R[1] = x * y * C - z * s; R[2] = x * z * C + y * s;
    R[3] = y * x * C + z * s; R[4] = c + y * y * C;     R[5] = y * z * C - x * s;
    R[6] = z * x * C - y * s; R[7] = z * y * C + x * s; R[8] = c + z * z * C;
}

/* ---- 6-vectors and 6x6 matrices (row-major), angular first ---- */

static inline void ref_m6v(const double A[36], const double v[6], double out[6]) {
    double r[6];
    for (int i = 0; i < 6; ++i) {
        double s = 0;
        for (int k = 0; k < 6; ++k) s += A[6 * i + k] * v[k];
        r[i] = s;
    }
    memcpy(out, r, sizeof r);
}

static inline void ref_m6tv(const double A[36], const double v[6], double out[6]) {
    double r[6];
    for (int i = 0; i < 6; ++i) {
        double s = 0;
        for (int k = 0; k < 6; ++k) s += A[6 * k + i] * v[k];
        r[i] = s;
    }
    memcpy(out, r, sizeof r);
}

static inline double ref_dot6(const double a[6], const double b[6]) {
    double s = 0;
    for (int i = 0; i < 6; ++i) s += a[i] * b[i];
    return s;
}

/* out += X^T A X: moves an inertia from child to parent coordinates. */
static inline void ref_add_congruence(const double X[36], const double A[36], double out[36]) {
    double AX[36];
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double s = 0;
            for (int k = 0; k < 6; ++k) s += A[6 * i + k] * X[6 * k + j];
            AX[6 * i + j] = s;
        }
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double s = 0;
            for (int k = 0; k < 6; ++k) s += X[6 * k + i] * AX[6 * k + j];
            out[6 * i + j] += s;
        }
}

/* Motion cross product v x m (Featherstone crm). */
static inline void ref_crm(const double v[6], const double m[6], double out[6]) {
    double a[3], b[3], c[3];
    ref_cross(v, m, a);                /* w x m_w */
    ref_cross(v, m + 3, b);            /* w x m_v */
    ref_cross(v + 3, m, c);            /* v x m_w */
    out[0] = a[0]; out[1] = a[1]; out[2] = a[2];
    out[3] = b[0] + c[0]; out[4] = b[1] + c[1]; out[5] = b[2] + c[2];
}

/* Force cross product v x* f (Featherstone crf). */
static inline void ref_crf(const double v[6], const double f[6], double out[6]) {
    double a[3], b[3], c[3];
    ref_cross(v, f, a);                /* w x n */
    ref_cross(v + 3, f + 3, b);        /* v x f */
    ref_cross(v, f + 3, c);            /* w x f */
    out[0] = a[0] + b[0]; out[1] = a[1] + b[1]; out[2] = a[2] + b[2];
    out[3] = c[0]; out[4] = c[1]; out[5] = c[2];
}

/* ---- the tree's pieces ---- */

/* Body i's axes (columns) in its parent's coordinates, and its origin there. */
static inline void ref_joint_pose(const struct ref_tree *t, int i, double q, double R[9], double r[3]) {
    r[0] = t->origin[i][0]; r[1] = t->origin[i][1]; r[2] = t->origin[i][2];
    if (t->kind[i] == REF_REVOLUTE) {
        double J[9];
        ref_rot_axis(t->axis[i], q, J);
        ref_m3m(t->rotation[i], J, R);
    } else {
        double d[3];
        memcpy(R, t->rotation[i], 9 * sizeof(double));
        ref_m3v(t->rotation[i], t->axis[i], d);
        r[0] += q * d[0]; r[1] += q * d[1]; r[2] += q * d[2];
    }
}

/* X = [E 0; -E rx E] with E = R^T: parent-coordinate motion -> body-i coordinates (Featherstone plux). */
static inline void ref_joint_xform(const struct ref_tree *t, int i, double q, double X[36]) {
    double R[9], r[3], E[9], rx[9], Erx[9];
    ref_joint_pose(t, i, q, R, r);
    ref_m3t(R, E);
    ref_skew(r, rx);
    ref_m3m(E, rx, Erx);
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            X[6 * a + b] = E[3 * a + b];
            X[6 * a + b + 3] = 0;
            X[6 * (a + 3) + b] = -Erx[3 * a + b];
            X[6 * (a + 3) + b + 3] = E[3 * a + b];
        }
}

/* Motion subspace of joint i in body coordinates. */
static inline void ref_motion_subspace(const struct ref_tree *t, int i, double S[6]) {
    int off = t->kind[i] == REF_REVOLUTE ? 0 : 3;
    memset(S, 0, 6 * sizeof(double));
    S[off] = t->axis[i][0]; S[off + 1] = t->axis[i][1]; S[off + 2] = t->axis[i][2];
}

/* Spatial inertia about the body origin: [Ic - m cx cx, m cx; -m cx, m 1] (Featherstone mcI). */
static inline void ref_body_inertia(const struct ref_tree *t, int i, double I[36]) {
    double m = t->mass[i], cx[9], cxcx[9];
    ref_skew(t->com[i], cx);
    ref_m3m(cx, cx, cxcx);
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            I[6 * a + b] = t->inertia[i][3 * a + b] - m * cxcx[3 * a + b];
            I[6 * a + b + 3] = m * cx[3 * a + b];
            I[6 * (a + 3) + b] = -m * cx[3 * a + b];
            I[6 * (a + 3) + b + 3] = a == b ? m : 0;
        }
}

/* ---- kinematics ---- */

/* World rotation (columns = body axes in world, row-major) and world origin of every body. */
static inline void ref_fk(const struct ref_tree *t, const double *z, double R[][9], double p[][3]) {
    for (int i = 0; i < t->n; ++i) {
        double Rj[9], rj[3];
        int par = t->parent[i];
        ref_joint_pose(t, i, z[i], Rj, rj);
        if (par < 0) {
            memcpy(R[i], Rj, sizeof Rj);
            memcpy(p[i], rj, sizeof rj);
        } else {
            double d[3];
            ref_m3m(R[par], Rj, R[i]);
            ref_m3v(R[par], rj, d);
            p[i][0] = p[par][0] + d[0]; p[i][1] = p[par][1] + d[1]; p[i][2] = p[par][2] + d[2];
        }
    }
}

/* World position of a point given in body coordinates (body -1 = ground). */
static inline void ref_point(const struct ref_tree *t, const double *z, int body, const double at[3],
                             double out[3]) {
    double R[REF_MAX][9], p[REF_MAX][3], d[3];
    if (body < 0) { memcpy(out, at, 3 * sizeof(double)); return; }
    ref_fk(t, z, R, p);
    ref_m3v(R[body], at, d);
    out[0] = p[body][0] + d[0]; out[1] = p[body][1] + d[1]; out[2] = p[body][2] + d[2];
}

/* Spatial velocities [w; v] of the bodies in body coordinates. */
static inline void ref_velocities(const struct ref_tree *t, const double *z, const double *zd, double v[][6]) {
    for (int i = 0; i < t->n; ++i) {
        double X[36], S[6];
        int par = t->parent[i];
        ref_joint_xform(t, i, z[i], X);
        ref_motion_subspace(t, i, S);
        if (par < 0) memset(v[i], 0, 6 * sizeof(double));
        else ref_m6v(X, v[par], v[i]);
        for (int k = 0; k < 6; ++k) v[i][k] += S[k] * zd[i];
    }
}

/* ---- dynamics ---- */

/* Recursive Newton-Euler: tau = ID(z, zd, zdd) = M zdd - Q (Featherstone Table 5.1). */
static inline void ref_inverse_dynamics(const struct ref_tree *t, const double *z, const double *zd,
                                        const double *zdd, double *tau) {
    double X[REF_MAX][36], S[REF_MAX][6], v[REF_MAX][6], a[REF_MAX][6], f[REF_MAX][6];
    const double a0[6] = { 0, 0, 0, -t->gravity[0], -t->gravity[1], -t->gravity[2] };
    for (int i = 0; i < t->n; ++i) {
        double I[36], vJ[6], h[6], c[6], Ia[6];
        int par = t->parent[i];
        ref_joint_xform(t, i, z[i], X[i]);
        ref_motion_subspace(t, i, S[i]);
        for (int k = 0; k < 6; ++k) vJ[k] = S[i][k] * zd[i];
        if (par < 0) {
            memset(v[i], 0, sizeof v[i]);
            ref_m6v(X[i], a0, a[i]);
        } else {
            ref_m6v(X[i], v[par], v[i]);
            ref_m6v(X[i], a[par], a[i]);
        }
        for (int k = 0; k < 6; ++k) v[i][k] += vJ[k];
        ref_crm(v[i], vJ, c);  /* S is constant in body coordinates, so the only bias is v x vJ */
        for (int k = 0; k < 6; ++k) a[i][k] += S[i][k] * zdd[i] + c[k];
        ref_body_inertia(t, i, I);
        ref_m6v(I, a[i], Ia);
        ref_m6v(I, v[i], h);
        ref_crf(v[i], h, f[i]);
        for (int k = 0; k < 6; ++k) f[i][k] += Ia[k];
    }
    for (int i = t->n - 1; i >= 0; --i) {
        int par = t->parent[i];
        tau[i] = ref_dot6(S[i], f[i]);
        if (par >= 0) {
            double fp[6];
            ref_m6tv(X[i], f[i], fp);
            for (int k = 0; k < 6; ++k) f[par][k] += fp[k];
        }
    }
}

/* Q(z, zd): gravity and velocity products, mbgen's sign (r = M zdd - Q). */
static inline void ref_forces(const struct ref_tree *t, const double *z, const double *zd, double *Q) {
    double zero[REF_MAX] = { 0 };
    ref_inverse_dynamics(t, z, zd, zero, Q);
    for (int i = 0; i < t->n; ++i) Q[i] = -Q[i];
}

/* Composite rigid body algorithm: M(z), n x n, both triangles (Featherstone Table 6.2). */
static inline void ref_mass_matrix(const struct ref_tree *t, const double *z, double *M) {
    double X[REF_MAX][36], S[REF_MAX][6], Ic[REF_MAX][36];
    int n = t->n;
    for (int i = 0; i < n; ++i) {
        ref_joint_xform(t, i, z[i], X[i]);
        ref_motion_subspace(t, i, S[i]);
        ref_body_inertia(t, i, Ic[i]);
    }
    for (int k = 0; k < n * n; ++k) M[k] = 0;
    for (int i = n - 1; i >= 0; --i)
        if (t->parent[i] >= 0) ref_add_congruence(X[i], Ic[i], Ic[t->parent[i]]);
    for (int i = 0; i < n; ++i) {
        double F[6];
        ref_m6v(Ic[i], S[i], F);
        M[i * n + i] = ref_dot6(S[i], F);
        for (int j = i; t->parent[j] >= 0;) {
            ref_m6tv(X[j], F, F);
            j = t->parent[j];
            M[i * n + j] = M[j * n + i] = ref_dot6(S[j], F);
        }
    }
}

/* Articulated-body algorithm: zdd = FD(z, zd, tau), solving M zdd = Q + tau (Featherstone Table 7.1).
 * Returns 0, or -1 when an articulated joint inertia is not positive (a massless leaf, say). */
static inline int ref_forward_dynamics(const struct ref_tree *t, const double *z, const double *zd,
                                       const double *tau, double *zdd) {
    double X[REF_MAX][36], S[REF_MAX][6], v[REF_MAX][6], c[REF_MAX][6], IA[REF_MAX][36], pA[REF_MAX][6];
    double U[REF_MAX][6], d[REF_MAX], u[REF_MAX], a[REF_MAX][6];
    const double a0[6] = { 0, 0, 0, -t->gravity[0], -t->gravity[1], -t->gravity[2] };
    int n = t->n;
    for (int i = 0; i < n; ++i) {
        double vJ[6], h[6];
        int par = t->parent[i];
        ref_joint_xform(t, i, z[i], X[i]);
        ref_motion_subspace(t, i, S[i]);
        for (int k = 0; k < 6; ++k) vJ[k] = S[i][k] * zd[i];
        if (par < 0) memset(v[i], 0, sizeof v[i]);
        else ref_m6v(X[i], v[par], v[i]);
        for (int k = 0; k < 6; ++k) v[i][k] += vJ[k];
        ref_crm(v[i], vJ, c[i]);
        ref_body_inertia(t, i, IA[i]);
        ref_m6v(IA[i], v[i], h);
        ref_crf(v[i], h, pA[i]);
    }
    for (int i = n - 1; i >= 0; --i) {
        int par = t->parent[i];
        ref_m6v(IA[i], S[i], U[i]);
        d[i] = ref_dot6(S[i], U[i]);
        if (!(d[i] > 0)) return -1;
        u[i] = tau[i] - ref_dot6(S[i], pA[i]);
        if (par >= 0) {
            double Ia[36], pa[6], Iac[6], pp[6];
            for (int r = 0; r < 6; ++r)
                for (int s = 0; s < 6; ++s) Ia[6 * r + s] = IA[i][6 * r + s] - U[i][r] * U[i][s] / d[i];
            ref_m6v(Ia, c[i], Iac);
            for (int k = 0; k < 6; ++k) pa[k] = pA[i][k] + Iac[k] + U[i][k] * u[i] / d[i];
            ref_add_congruence(X[i], Ia, IA[par]);
            ref_m6tv(X[i], pa, pp);
            for (int k = 0; k < 6; ++k) pA[par][k] += pp[k];
        }
    }
    for (int i = 0; i < n; ++i) {
        int par = t->parent[i];
        ref_m6v(X[i], par < 0 ? a0 : a[par], a[i]);
        for (int k = 0; k < 6; ++k) a[i][k] += c[i][k];
        zdd[i] = (u[i] - ref_dot6(U[i], a[i])) / d[i];
        for (int k = 0; k < 6; ++k) a[i][k] += S[i][k] * zdd[i];
    }
    return 0;
}

/* E[0] = kinetic energy (sum of v.I v / 2), E[1] = potential energy of gravity (-sum m g.com_world). */
static inline void ref_energy(const struct ref_tree *t, const double *z, const double *zd, double E[2]) {
    double v[REF_MAX][6], R[REF_MAX][9], p[REF_MAX][3];
    ref_velocities(t, z, zd, v);
    ref_fk(t, z, R, p);
    E[0] = E[1] = 0;
    for (int i = 0; i < t->n; ++i) {
        double I[36], h[6], c[3];
        ref_body_inertia(t, i, I);
        ref_m6v(I, v[i], h);
        E[0] += 0.5 * ref_dot6(v[i], h);
        ref_m3v(R[i], t->com[i], c);
        for (int k = 0; k < 3; ++k) c[k] += p[i][k];
        E[1] -= t->mass[i] * ref_dot3(t->gravity, c);
    }
}

/* Cholesky A = L L^T of a symmetric n x n matrix (lower triangle of L written, upper zeroed).
 * Returns 0, or -1 when A is not positive definite. */
static inline int ref_cholesky(int n, const double *A, double *L) {
    for (int k = 0; k < n * n; ++k) L[k] = 0;
    for (int j = 0; j < n; ++j) {
        double s = A[j * n + j];
        for (int k = 0; k < j; ++k) s -= L[j * n + k] * L[j * n + k];
        if (!(s > 0)) return -1;
        L[j * n + j] = sqrt(s);
        for (int i = j + 1; i < n; ++i) {
            double r = A[i * n + j];
            for (int k = 0; k < j; ++k) r -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = r / L[j * n + j];
        }
    }
    return 0;
}

/* ---- seeded random trees ---- */

/* xorshift64* (Vigna): integer-only, so the stream and every tree built from it are bit-identical on
 * any machine (the tree uses only + - * / and sqrt, which IEEE 754 rounds exactly, and GCC does not
 * contract them into FMAs under -std=c99). */
struct ref_rng { uint64_t s; };

static inline void ref_rng_seed(struct ref_rng *g, uint64_t seed) {
    /* splitmix64 step, so small or zero seeds still give a good non-zero state */
    uint64_t x = seed + 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    g->s = x ? x : 0x2545F4914F6CDD1Dull;
}

static inline uint64_t ref_rng_next(struct ref_rng *g) {
    uint64_t x = g->s;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    g->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [lo, hi). */
static inline double ref_rng_uniform(struct ref_rng *g, double lo, double hi) {
    return lo + (hi - lo) * ((double)(ref_rng_next(g) >> 11) * 0x1.0p-53);
}

/* Uniform random unit vector (rejection from the cube: no trigonometry, so bit-reproducible). */
static inline void ref_rng_unit(struct ref_rng *g, double u[3]) {
    for (;;) {
        double x = ref_rng_uniform(g, -1, 1), y = ref_rng_uniform(g, -1, 1), z = ref_rng_uniform(g, -1, 1);
        double r2 = x * x + y * y + z * z;
        if (r2 > 0.01 && r2 <= 1) {
            double r = sqrt(r2);
            u[0] = x / r; u[1] = y / r; u[2] = z / r;
            return;
        }
    }
}

/* Uniform random proper rotation, from a unit quaternion drawn by rejection in the 4-ball. */
static inline void ref_rng_rotation(struct ref_rng *g, double R[9]) {
    double w, x, y, z, r2;
    do {
        w = ref_rng_uniform(g, -1, 1); x = ref_rng_uniform(g, -1, 1);
        y = ref_rng_uniform(g, -1, 1); z = ref_rng_uniform(g, -1, 1);
        r2 = w * w + x * x + y * y + z * z;
    } while (r2 < 0.01 || r2 > 1);
    double r = sqrt(r2);
    w /= r; x /= r; y /= r; z /= r;
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}

/* Fills t with n bodies (1 <= n <= REF_MAX) from seed. shape REF_CHAIN: parent = i - 1; REF_BRANCHED:
 * several roots and branches (the parent is the previous body 40% of the time, else any earlier body or
 * the ground). Joints are revolute or prismatic (30%), with random unit axes, origins and proper
 * rotations; masses in [0.5, 3); COMs in [-0.5, 0.5)^3; inertias R diag(b+c, a+c, a+b) R^T with
 * a, b, c in [0.02, 0.3), so they are symmetric positive definite and meet the triangle inequality
 * strictly; gravity of magnitude 9.81 in a random direction. */
static inline void ref_random_tree(struct ref_tree *t, int n, uint64_t seed, int shape) {
    struct ref_rng g;
    memset(t, 0, sizeof *t);
    if (n < 0) n = 0;
    if (n > REF_MAX) n = REF_MAX;
    ref_rng_seed(&g, seed);
    t->n = n;
    for (int i = 0; i < n; ++i) {
        double Q[9], D[9] = { 0 }, QD[9], Qt[9], a, b, c;
        if (shape == REF_CHAIN || i == 0) t->parent[i] = i - 1;
        else if (ref_rng_uniform(&g, 0, 1) < 0.4) t->parent[i] = i - 1;
        else t->parent[i] = (int)(ref_rng_next(&g) % (uint64_t)(i + 1)) - 1;
        t->kind[i] = ref_rng_uniform(&g, 0, 1) < 0.3 ? REF_PRISMATIC : REF_REVOLUTE;
        ref_rng_unit(&g, t->axis[i]);
        for (int k = 0; k < 3; ++k) t->origin[i][k] = ref_rng_uniform(&g, -0.8, 0.8);
        ref_rng_rotation(&g, t->rotation[i]);
        t->mass[i] = ref_rng_uniform(&g, 0.5, 3);
        for (int k = 0; k < 3; ++k) t->com[i][k] = ref_rng_uniform(&g, -0.5, 0.5);
        a = ref_rng_uniform(&g, 0.02, 0.3); b = ref_rng_uniform(&g, 0.02, 0.3); c = ref_rng_uniform(&g, 0.02, 0.3);
        D[0] = b + c; D[4] = a + c; D[8] = a + b;
        ref_rng_rotation(&g, Q);
        ref_m3m(Q, D, QD);
        ref_m3t(Q, Qt);
        ref_m3m(QD, Qt, t->inertia[i]);
        for (int r = 0; r < 3; ++r)  /* exact symmetry, whatever the rounding of the product */
            for (int s = r + 1; s < 3; ++s) t->inertia[i][3 * s + r] = t->inertia[i][3 * r + s];
    }
    ref_rng_unit(&g, t->gravity);
    for (int k = 0; k < 3; ++k) t->gravity[k] *= 9.81;
}

#endif
