/* mb_model.h: the ABI between generated models and everything that calls them (INTERFACES.md §3). */
#ifndef MB_MODEL_H
#define MB_MODEL_H

/* Scalar type of the generated code. Default double; -DMB_REAL=float for
 * controllers; -DMB_COMPLEX for complex-step derivative checks. */
#ifdef MB_COMPLEX
#include <complex.h>
#undef MB_REAL
#define MB_REAL double _Complex
#define MB_RE(x) creal(x)
#define MB_SIN csin
#define MB_COS ccos
#define MB_TAN ctan
#define MB_SQRT csqrt
#define MB_EXP cexp
#define MB_LOG clog
#define MB_TANH ctanh
/* atan2 through its analytic continuation: atan(y/x) plus the branch of the
 * real parts, so the imaginary part carries the exact derivative. */
#define MB_ATAN2(y, x) (catan((y) / (x)) + \
    (creal(x) < 0 ? (creal(y) < 0 ? -3.14159265358979323846 : 3.14159265358979323846) : 0.0))
/* abs, min, max, select branch on the real part: one-sided derivatives. */
#define MB_ABS(x) (creal(x) < 0 ? -(x) : (x))
#define MB_MIN(a, b) (creal(a) <= creal(b) ? (a) : (b))
#define MB_MAX(a, b) (creal(a) >= creal(b) ? (a) : (b))
#define MB_SELECT(c, a, b) (creal(c) > 0 ? (a) : (b))
#else
#include <math.h>
#ifndef MB_REAL
#define MB_REAL double
#endif
#define MB_RE(x) (x)
#define MB_SIN sin
#define MB_COS cos
#define MB_TAN tan
#define MB_SQRT sqrt
#define MB_EXP exp
#define MB_LOG log
#define MB_TANH tanh
/* The piecewise functions may be given by a build whose mb_real is an AD type (tests/peers/adolc_jac.cpp). */
#ifndef MB_ATAN2
#define MB_ATAN2 atan2
#endif
#ifndef MB_ABS
#define MB_ABS fabs
#endif
#ifndef MB_MIN
#define MB_MIN(a, b) ((a) <= (b) ? (a) : (b))
#endif
#ifndef MB_MAX
#define MB_MAX(a, b) ((a) >= (b) ? (a) : (b))
#endif
#ifndef MB_SELECT
#define MB_SELECT(c, a, b) ((c) > 0 ? (a) : (b))
#endif
#endif

typedef MB_REAL mb_real;

/* The arguments every generated function takes. A pointer the function does
 * not read may be NULL. */
typedef struct {
    mb_real t;                    /* time */
    const mb_real *z, *zd, *zdd;  /* coordinates, velocities, accelerations: nz each */
    const mb_real *u;             /* inputs: nu */
    const mb_real *p;             /* design parameters: np */
    const mb_real *w;             /* weights where a function contracts (multipliers): nc */
} mb_args;

/* Matrices are written dense, column-major (LAPACK's layout). */
typedef void mb_fn(const mb_args *a, mb_real *out);

/* Structural non-zeros of a rows x cols output in compressed-column form:
 * column j holds rowind[colptr[j] .. colptr[j+1]-1]. */
typedef struct {
    int rows, cols;
    const int *colptr;            /* cols + 1 */
    const int *rowind;            /* colptr[cols] */
} mb_pattern;

/* Defaults of `mbgen run` taken from the model's `simulate` element. */
typedef struct {
    double t_end, step, tolerance;
    const char *integrator;       /* "rk4", "dopri5", "trapezoidal" */
    const char *formulation;      /* "tree", "matrix_r", "al3" */
} mb_simulate;

/* Objectives (issue 8): psi = integral of integrand(t, z, zd, zdd, u, p) dt + terminal(z, zd, zdd, u, p)
 * at the final time. Each function writes 1 + 3 nz + np values: the value, then its partial
 * derivatives with respect to z (nz), zd (nz), zdd (nz) and p (np). NULL where the model gives none. */
typedef struct {
    const char *name;
    mb_fn *integrand, *terminal;
} mb_objective;

typedef struct mb_model {
    const char *name;
    int nz, nc, np, nu, nb, npt;

    const char *const *z_names;       /* nz: coordinate names ("joint" or "joint.rx") */
    const char *const *p_names;       /* np: design parameters, byte order */
    const char *const *u_names;       /* nu: inputs, in declaration order */
    const char *const *body_names;    /* nb */
    const char *const *point_names;   /* npt */

    const double *p_default;          /* np */
    const double *z0, *zd0;           /* nz: initial state (closed loops: a guess to assemble from) */
    const int *independent;           /* n_independent coordinate indices chosen by the user */
    int n_independent;
    mb_simulate simulate;

    /* Open tree (NULL where a function does not apply). */
    mb_fn *mass, *forces, *inverse_dynamics;
    mb_fn *forces_nc;                 /* the part of Q without a potential: zd . forces_nc is the power that changes T + V */
    mb_fn *inverse_dynamics_dz, *inverse_dynamics_dzd, *inverse_dynamics_dp;
    /* w[0..2] = (c_z, c_v, c_a): c_z dr/dz + c_v dr/dzd + c_a M, one pass (trapezoidal: h^2/4, h/2, 1). */
    mb_fn *inverse_dynamics_tangent;
    mb_fn *forward_dynamics, *forward_dynamics_dz, *forward_dynamics_dzd, *forward_dynamics_dp;
    mb_fn *energy, *points, *points_dz;

    /* Constraints (issue 7). */
    mb_fn *constraints, *constraints_dz, *constraints_dp, *constraints_dt;
    mb_fn *constraint_bias, *constraint_bias_dz, *constraint_bias_dzd, *constraint_bias_dp;
    mb_fn *constraints_dz_tw_dz;

    /* Sparsity patterns of the matrix outputs (NULL: dense). */
    const mb_pattern *mass_pattern;
    const mb_pattern *inverse_dynamics_dz_pattern, *inverse_dynamics_dzd_pattern;
    const mb_pattern *inverse_dynamics_dp_pattern, *inverse_dynamics_tangent_pattern;
    const mb_pattern *constraints_dz_pattern;

    /* Objectives (issue 8, sensitivity analysis): nobj of them, in declaration order. */
    int nobj;
    const mb_objective *objectives;
    /* Closed-loop sensitivities (issue 8): partials of the velocity constraint Phi_z zd + Phi_t and of
     * Phi_z zdd with respect to z (nc x nz) and p (nc x np), and d(Phi_z' w)/dp (nz x np). */
    mb_fn *constraint_vel_dz, *constraint_vel_dp, *constraint_acc_dz, *constraint_acc_dp;
    mb_fn *constraints_dz_tw_dp;

    /* Tyres (issue 9): ntyre of them; tyres writes MB_TYRE_OUTPUTS values per tyre, in this order:
     * Fx, Fy, Fz (longitudinal, lateral, normal force on the wheel, N), kappa, tan(alpha), deflection (m),
     * contact point x, y, z (ground frame). */
    int ntyre;
    const char *const *tyre_names;
    mb_fn *tyres;
    /* The gravity vector (m/s^2, ground frame) and the total mass of bodies and rods (a function of p,
     * out[0]): the weight |g| total_mass is what static tyre loads carry. */
    double gravity[3];
    mb_fn *total_mass;
} mb_model;

#define MB_TYRE_OUTPUTS 9

#endif
