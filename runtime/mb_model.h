/* mb_model.h: the ABI between generated models and everything that calls them (INTERFACES.md §3). */
#ifndef MB_MODEL_H
#define MB_MODEL_H

/* Scalar type of the generated code. Default double; -DMB_REAL=float for
 * controllers; -DMB_COMPLEX for complex-step derivative checks. */
#ifdef MB_COMPLEX
#include <complex.h>
#include <math.h>
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

/* restrict in C; C++ builds of a generated file (the ADOL-C peer's adouble) spell it __restrict. */
#ifdef __cplusplus
#define MB_RESTRICT __restrict
#else
#define MB_RESTRICT restrict
#endif

/* The arguments every generated function takes. A pointer the function does
 * not read may be NULL. */
typedef struct {
    mb_real t;                    /* time */
    const mb_real *z, *zd, *zdd;  /* coordinates, velocities, accelerations: nz each */
    const mb_real *u;             /* inputs: nu */
    const mb_real *p;             /* design parameters: np */
    const mb_real *w;             /* weights where a function contracts (multipliers): nc */
} mb_args;

/* Every generated function: writes out (matrices dense, column-major: LAPACK's layout), uses the caller's
 * workspace `work` of at least the function's size in mb_reals (NAME_FN_NWORK in NAME.h; model->nwork is the
 * largest; NULL is allowed when the size is 0) and keeps only a small fixed amount on the stack. It returns
 * MB_FN_OK (0), or MB_FN_SINGULAR when a factorization meets a pivot that is not positive and finite (out is
 * then unspecified). The sparse form NAME_FN_csc writes only the structural non-zeros, in the compressed
 * column order of the slot's mb_pattern, bit for bit the values of the dense form. */
typedef int mb_fn(const mb_args *a, mb_real *out, mb_real *work);

#define MB_FN_OK 0
#define MB_FN_SINGULAR 1

/* The pivot test of the generated factorizations: positive and finite (a NaN fails both comparisons). */
#define MB_PIVOT_OK(d) (MB_RE(d) > 0 && MB_RE(d) < HUGE_VAL)
/* The threshold test of the generated inversions' static pivots: p is not zero and its magnitude at least a tenth
 * of m, the largest magnitude of the other candidates in its column (a NaN fails). */
#define MB_PIVOT_NEAR(p, m) (MB_RE(MB_ABS(p)) > 0 && MB_RE(MB_ABS(p)) >= 0.1 * MB_RE(m))

/* A generated file's table of model data is shared by its sections (MB_PART), some of which may not read
 * it: unused there is not a mistake. */
#if defined(__GNUC__)
#define MB_UNUSED __attribute__((unused))
#else
#define MB_UNUSED
#endif

/* Structural non-zeros of a rows x cols output in compressed-column form:
 * column j holds rowind[colptr[j] .. colptr[j+1]-1]. */
typedef struct {
    int rows, cols;
    const int *colptr;            /* cols + 1 */
    const int *rowind;            /* colptr[cols] */
} mb_pattern;

/* 1 when p is a rows x cols compressed-column pattern whose indices are in range (a pattern from outside the
 * generated code, e.g. a Jacobian provider's). */
static inline int mb_pattern_valid(const mb_pattern *p, int rows, int cols)
{
    if (!p || p->rows != rows || p->cols != cols || !p->colptr || p->colptr[0] != 0) return 0;
    for (int j = 0; j < cols; ++j) {
        if (p->colptr[j + 1] < p->colptr[j]) return 0;
        for (int k = p->colptr[j]; k < p->colptr[j + 1]; ++k)
            if (p->rowind[k] < 0 || p->rowind[k] >= rows) return 0;
    }
    return 1;
}

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

/* Matrix R's reduced system generated for the model's declared independent coordinates (formulation/matrix_r.lua):
 * solve(M, Q, x, R, L, zdd) forms R'M R (into L's upper triangle) and its Cholesky factor (lower triangle), solves
 * R'M R zdd_i = R'(Q - M x) and writes zdd = x + R zdd_i, with M's and R's structure unrolled; MB_FN_SINGULAR at a
 * pivot that is not positive and finite. Valid only while the runtime's independent coordinates are the model's
 * and its R has the pattern R_pattern (nz x d: the dependent non-zeros of each column). */
typedef int mb_reduce_fn(const mb_real *M, const mb_real *Q, const mb_real *x, const mb_real *R, mb_real *L,
                         mb_real *zdd);
/* The dependent part of Phi_z for the same independent coordinates, by its blocks (the connected parts of its
 * pattern, numbered by their smallest equation, as the runtime's kinematics groups them; all square), each inverted
 * by unrolled Gauss-Jordan steps in a pivot order fixed at generation time (formulation/dependent_blocks.lua).
 * J = Phi_z (nc x nz). factor writes X, the blocks' inverses one after the other (block b: n x n, column-major, its
 * coordinates by its equations), and fig[3 b .. 3 b + 2]: block b's largest column norm and its inverse's 1- and
 * infinity-norms; MB_FN_SINGULAR where a pivot is zero or below a tenth of its column's largest other candidate (the
 * runtime then inverts with pivoting of its own). rhs writes b = -(v + Phi_z[:, ind] y[ind]) (v, b: nc; y: nz), the
 * right-hand side of the velocity and acceleration problems; solve writes x (the dependent coordinates, ascending)
 * solving Phi_z[:, dep] x = b (b: nc); R writes the dependent rows of R = -Phi_z[:, dep]^-1 Phi_z[:, ind] at
 * R_pattern. */
typedef struct {
    int count;                      /* blocks */
    const int *ptr;                 /* count + 1: block b is rows[ptr[b] .. ptr[b+1]-1] and coords[the same] */
    const int *rows, *coords;       /* its equations and its dependent coordinates, ascending within a block */
    int (*factor)(const mb_real *J, mb_real *X, mb_real *fig);
    void (*rhs)(const mb_real *J, const mb_real *v, const mb_real *y, mb_real *b);
    void (*solve)(const mb_real *X, const mb_real *b, mb_real *x);
    void (*R)(const mb_real *X, const mb_real *J, mb_real *R);
} mb_dependent_blocks;

typedef struct {
    mb_reduce_fn *solve;
    const mb_pattern *R_pattern;
    const mb_dependent_blocks *blocks;  /* NULL where a block is not square or the initial pose gives no pivots */
} mb_reduction;

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

    /* Workspace: the largest size in mb_reals any function of this model needs (0: none). */
    int nwork;

    /* The function slots of mb_slots.h, in its order (NULL where a function does not apply or was not
     * generated). A MAT slot NAME has three members: NAME (dense), NAME_csc (the structural non-zeros only)
     * and NAME_pattern (their compressed-column pattern, fixed at generation time). */
#define MB_SLOT_MEMBERS_VEC(name) mb_fn *name;
#define MB_SLOT_MEMBERS_MAT(name) mb_fn *name; mb_fn *name##_csc; const mb_pattern *name##_pattern;
#define MB_SLOT(name, rows, cols, form, doc) MB_SLOT_MEMBERS_##form(name)
#include "mb_slots.h"
#undef MB_SLOT
#undef MB_SLOT_MEMBERS_VEC
#undef MB_SLOT_MEMBERS_MAT

    /* Objectives (issue 8, sensitivity analysis): nobj of them, in declaration order. */
    int nobj;
    const mb_objective *objectives;

    /* Tyres (issue 9): ntyre of them; the slot tyres writes MB_TYRE_OUTPUTS values per tyre, in this order:
     * Fx, Fy, Fz (longitudinal, lateral, normal force on the wheel, N), kappa, tan(alpha), deflection (m),
     * contact point x, y, z (ground frame). */
    int ntyre;
    const char *const *tyre_names;
    /* The gravity vector (m/s^2, ground frame); the weight |g| total_mass is what static tyre loads carry. */
    double gravity[3];

    /* MB_NSLOTS counts, in mb_slots.h's order: the operations (additions, multiplications, divisions and
     * calls) the generator emitted for each slot's dense function, 0 where it was not generated; lets the
     * runtime choose between two routes to the same result (the tree DDM's kernels) without timing them.
     * NULL: not known. */
    const long *slot_ops;

    /* nc: the constraint each equation belongs to, as the model names it ("fl_ubj.2": the second equation of the
     * loop fl_ubj; a one-equation rod or drive: its name), for messages. NULL: not known. */
    const char *const *c_names;

    /* Massive rods (slots mass_tree, mass_lumped, rod_inertia, rod_inertia_cross): how their second-derivative
     * inertia forces enter by default (rod_mode): "exact" (in M), or extrapolated from earlier steps, "point",
     * "linear" or "quadratic"; rod_partitioned = 1 keeps a third of each rod's mass exact at each end. NULL: exact. */
    const char *rod_mode;
    int rod_partitioned;

    /* Matrix R's generated reduction for the declared independent coordinates; NULL: none (no declared choice). */
    const mb_reduction *matrix_r;
} mb_model;

#define MB_TYRE_OUTPUTS 9

/* The slots as numbers, to iterate over them: for (int s = 0; s < MB_NSLOTS; ++s) mb_slot_fn(m, s) ... */
enum mb_slot {
#define MB_SLOT(name, rows, cols, form, doc) MB_SLOT_##name,
#include "mb_slots.h"
#undef MB_SLOT
    MB_NSLOTS
};

static inline const char *mb_slot_name(int s)
{
    switch (s) {
#define MB_SLOT(name, rows, cols, form, doc) case MB_SLOT_##name: return #name;
#include "mb_slots.h"
#undef MB_SLOT
    default: return 0;
    }
}

/* 1 for a matrix slot (it has a sparse form and a pattern), 0 for a vector. */
static inline int mb_slot_is_matrix(int s)
{
    switch (s) {
#define MB_SLOT_IS_MAT 1
#define MB_SLOT_IS_VEC 0
#define MB_SLOT(name, rows, cols, form, doc) case MB_SLOT_##name: return MB_SLOT_IS_##form;
#include "mb_slots.h"
#undef MB_SLOT
#undef MB_SLOT_IS_MAT
#undef MB_SLOT_IS_VEC
    default: return 0;
    }
}

/* The output shape of slot s for model m. */
static inline void mb_slot_shape(const mb_model *m, int s, int *rows, int *cols)
{
    const int NZ = m->nz, NC = m->nc, NP = m->np, NPT = m->npt, NTYO = MB_TYRE_OUTPUTS * m->ntyre;
    int r = 0, c = 0;
    switch (s) {
#define MB_SLOT(name, rows_, cols_, form, doc) case MB_SLOT_##name: r = rows_; c = cols_; break;
#include "mb_slots.h"
#undef MB_SLOT
    default: break;
    }
    (void)NZ; (void)NC; (void)NP; (void)NPT; (void)NTYO;
    *rows = r;
    *cols = c;
}

/* The dense function, the sparse function (NULL for a vector slot) and the pattern (NULL for a vector) of slot s. */
static inline mb_fn *mb_slot_fn(const mb_model *m, int s)
{
    switch (s) {
#define MB_SLOT(name, rows, cols, form, doc) case MB_SLOT_##name: return m->name;
#include "mb_slots.h"
#undef MB_SLOT
    default: return 0;
    }
}

static inline mb_fn *mb_slot_csc(const mb_model *m, int s)
{
    switch (s) {
#define MB_SLOT_CSC_VEC(name) return 0;
#define MB_SLOT_CSC_MAT(name) return m->name##_csc;
#define MB_SLOT(name, rows, cols, form, doc) case MB_SLOT_##name: MB_SLOT_CSC_##form(name)
#include "mb_slots.h"
#undef MB_SLOT
#undef MB_SLOT_CSC_VEC
#undef MB_SLOT_CSC_MAT
    default: return 0;
    }
}

static inline const mb_pattern *mb_slot_pattern(const mb_model *m, int s)
{
    switch (s) {
#define MB_SLOT_PATTERN_VEC(name) return 0;
#define MB_SLOT_PATTERN_MAT(name) return m->name##_pattern;
#define MB_SLOT(name, rows, cols, form, doc) case MB_SLOT_##name: MB_SLOT_PATTERN_##form(name)
#include "mb_slots.h"
#undef MB_SLOT
#undef MB_SLOT_PATTERN_VEC
#undef MB_SLOT_PATTERN_MAT
    default: return 0;
    }
}

#endif
