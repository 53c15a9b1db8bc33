/* formulation_al3.h: closed loops by the index-3 augmented Lagrangian with projections and the trapezoidal rule. */
#ifndef MB_FORMULATION_AL3_H
#define MB_FORMULATION_AL3_H

#include <stddef.h>

#include "integrate.h"
#include "kinematics.h"
#include "mb_model.h"
#include "mb_status.h"

/* seeds/003.md §1.6–1.10 with the multiplier update of Bayo and Cuadrado:
 *     M zdd + Phi_z'(lambda + alpha Phi) = Q,     lambda <- lambda + alpha Phi  (every Newton iteration)
 * discretized by the trapezoidal rule (Newmark 1/4, 1/2) in z, solved by
 * Newton-Raphson on f(z) = h²/4 (r + Phi_z' w), w = lambda + alpha Phi, with
 * the tangent
 *     T = M + h/2 dr/dzd + h²/4 (dr/dz + d(Phi_z' lambda)/dz + alpha Phi_z' Phi_z)
 * from the generated derivatives (exact), or seeds/003.md eq. (20) (dr/dz at
 * zdd = 0, no constraint curvature) with approx_tangent. The curvature is
 * weighted by the multiplier estimate lambda rather than by w: the two agree
 * at the solution (Phi = 0), and the penalty force alpha Phi of an iterate,
 * which the step removes, would only mislead the tangent (formulation_al3.c). After convergence the
 * velocities and accelerations are projected onto the constraints with the
 * last factorization of T (eqs. 24–26, P = M + h/2 dr/dzd + h²/4 dr/dz). This
 * formulation is its own integrator (always the trapezoidal rule). */

/* A provider of the residual's Jacobian [dr/dz, dr/dzd] (nz x 2nz) from outside the generated code: the
 * benchmarks' ADOL-C tapes (tests/bench/al3_providers.sh). fn writes the values of pattern's structural non-zeros,
 * in its compressed-column order, at a (a->zdd is the zero vector under approx_tangent, as for the generated dr/dz),
 * and returns 0, or non-zero after writing a message into err. It replaces dr/dz and dr/dzd only: M, the penalty
 * term and the constraints' curvature stay the generated ones. */
typedef int mb_al3_jacobian_fn(void *ctx, const mb_args *a, double *values, char *err, size_t errlen);
typedef struct {
    mb_al3_jacobian_fn *fn;       /* NULL: the generated derivatives (or fd_tangent's differences) */
    void *ctx;
    const mb_pattern *pattern;    /* nz x 2nz; must hold every entry that is not zero */
} mb_al3_provider;

typedef struct {
    double alpha;        /* penalty; <= 0: automatic, alpha_rel (4/h²) max M_ii / max (Phi_z'Phi_z)_ii */
    double alpha_rel;    /* automatic penalty relative to the mass matrix (1e5): the multiplier update
                          * removes about 1/alpha_rel of lambda's error per iteration and the
                          * projections leave constraint residuals of that order; above about 1e7 the
                          * rounding of the stiff penalty terms starts to show in the motion */
    double alpha_raise;  /* al3 (not penalty): the largest factor the penalty may rise by (1e4; 1: fixed). Near
                          * a singular configuration (Phi_z's smallest singular value 1e-5 of its largest on the
                          * grids) the multiplier update stalls: Newton's correction shrinks by 1 % per iteration.
                          * When it shrinks by less than half in an iteration (the fourth or later at one penalty),
                          * the penalty rises tenfold for this step and the next MB_AL3_CALM_STEPS; it falls back
                          * tenfold after each such calm stretch */
    double newton_tol;   /* converged when max|dz| <= newton_tol (1 + max|z|) ... (1e-10) */
    double phi_tol;      /* ... and max|Phi| <= phi_tol (1e-10) */
    int max_iter;        /* Newton iterations per step (30) */
    int approx_tangent;  /* 1: seeds/003.md eq. (20) instead of the exact tangent (0) */
    int fd_tangent;      /* 1: the exact tangent's derivatives by central differences of the generated
                          * inverse_dynamics and constraints_dz (2 calls per column; for benchmarks) */
    int jacobian_reuse;  /* the derivatives dr/dz, dr/dzd and the curvature evaluated every this many Newton
                          * iterations (1; seeds/003.md §1.10 uses 3); M, the penalty term and T's factorization
                          * at every iteration, the last factorization serving the projections */
    int penalty;         /* 1: the pure penalty formulation of seeds/003.md eq. (14), M zdd + Phi_z' alpha Phi = Q:
                          * no multipliers in the force (no update), so Phi is left at about |lambda| / alpha and
                          * Newton stops on the correction alone; the projections as in al3; mb_al3_lambda gives
                          * the converged penalty forces alpha Phi, which also weight the tangent's curvature */
    int sparse;          /* 1: T assembled in the generation-time patterns (the model's mass, inverse_dynamics_tangent,
                          * constraints_dz and constraints_dz_tw_dz in compressed form, `mbgen generate --csc`) and
                          * factored by KLU: symbolic analysis once, numeric refactorization per iteration; 0: dense
                          * LAPACK LU; MB_AL3_SPARSE_AUTO (default): sparse when the model has those compressed forms
                          * and at least MB_AL3_SPARSE_MIN_NZ coordinates */
    mb_al3_provider jacobian; /* the tangent's dr/dz and dr/dzd from outside (fn NULL: from the model) */
} mb_al3_options;

#define MB_AL3_SPARSE_AUTO (-1)
/* Steps a raised penalty is kept for before it falls back tenfold. */
#define MB_AL3_CALM_STEPS 100
/* Below this size the dense LU is as fast (tests/bench/results/al3_tangent.md). */
#define MB_AL3_SPARSE_MIN_NZ 40

void mb_al3_options_default(mb_al3_options *o);

typedef struct mb_al3 mb_al3;

/* Needs mass, inverse_dynamics_dz and _dzd, inverse_dynamics or forces, the
 * constraint functions and (exact tangent) constraints_dz_tw_dz. ko: options of
 * the start-up kinematics (NULL: defaults). */
mb_al3 *mb_al3_create(const mb_model *m, const mb_al3_options *o, const mb_kin_options *ko, char *err,
                      size_t errlen);
void mb_al3_free(mb_al3 *al);

/* Starts at (t, z, zd) for steps of h: assembles z and zd (position and
 * velocity problems), zdd and lambda (Matrix R and least squares), and fixes
 * the automatic alpha. */
int mb_al3_reset(mb_al3 *al, double t, const double *z, const double *zd, const double *u, const double *p,
                 double h, mb_stats *st, char *err, size_t errlen);
/* Steps to t_out in fixed steps of at most h (the h of reset; a shorter last
 * interval is split evenly as mb_rk4_advance does). On error the state is the
 * last step that succeeded. */
int mb_al3_advance(mb_al3 *al, double t_out, long max_steps, const double *u, const double *p, mb_stats *st,
                   char *err, size_t errlen);

double mb_al3_time(const mb_al3 *al);
const double *mb_al3_z(const mb_al3 *al);
const double *mb_al3_zd(const mb_al3 *al);
const double *mb_al3_zdd(const mb_al3 *al);
const double *mb_al3_lambda(const mb_al3 *al);  /* nc multipliers */
double mb_al3_alpha(const mb_al3 *al);         /* the penalty now (raised or not) */
/* The start's penalty, its rises so far (each tenfold) and the largest factor it reached over the start's. */
typedef struct {
    double alpha0;
    long raises;
    double max_factor;
} mb_al3_penalty_stats;
void mb_al3_penalty_info(const mb_al3 *al, mb_al3_penalty_stats *out);
mb_kin *mb_al3_kin(mb_al3 *al);               /* for violation reports */

/* How the tangent is factored: sparse (1) or dense (0); for sparse, T's structural non-zeros, those of its last L + U,
 * and the full factorizations (new pivots) and refactorizations (pivots kept) so far. */
typedef struct {
    int sparse;
    long nnz, lu_nnz, full, refactor;
} mb_al3_tangent_stats;
void mb_al3_tangent_info(const mb_al3 *al, mb_al3_tangent_stats *out);

#endif
