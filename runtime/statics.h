/* statics.h: static equilibrium of a model at rest (zd = zdd = 0), with its loop constraints. */
#ifndef MB_STATICS_H
#define MB_STATICS_H

#include <stddef.h>

#include "mb_model.h"

typedef struct {
    double force_tol;  /* converged when max|r + Phi_z' lambda| <= force_tol (1 + max|Q at the start|) ... (1e-10) */
    double step_tol;   /* ... and max|dz| <= step_tol (1 + max|z|) (1e-12) */
    double phi_tol;    /* ... and max|Phi| <= phi_tol (1e-12) */
    int max_iter;      /* Newton iterations (100) */
    int fd_tangent;    /* 1: the tangent by central differences even when the model has its derivatives (0) */
} mb_static_options;

void mb_static_options_default(mb_static_options *o);

typedef struct mb_static mb_static;

/* The solver's workspace for model m (allocated once; NULL on failure, message in err). */
mb_static *mb_static_create(const mb_model *m, const mb_static_options *o, char *err, size_t errlen);
void mb_static_free(mb_static *s);

/* Finds z (starting from z, overwritten) and the multipliers lambda (nc, may be NULL) with
 *     r(t, z, 0, 0) + Phi_z' lambda = 0,   Phi(t, z) = 0,
 * i.e. the applied, spring, tyre and gravity forces in equilibrium with the constraint reactions, by
 * Newton's method on [z; lambda] with the tangent from the generated dr/dz, d(Phi_z' w)/dz and Phi_z.
 * Each step is the minimum-norm least-squares solution (mb_lstsq), so the neutral directions of a
 * vehicle at rest (its place and heading on a level road, the wheels' spin angles) keep their start
 * values instead of making the tangent singular; a step that does not reduce the residual is halved.
 * Needs inverse_dynamics, and with loops constraints and constraints_dz (checked at create). The tangent's
 * z-block is the generated inverse_dynamics_dz (+ constraints_dz_tw_dz) when the model has them, else central
 * differences of r + Phi_z' lambda (2 nz residuals per iteration): mbgen run's Matrix R set leaves them out, half
 * of a vehicle's C for a few iterations at the start, and the equilibrium is the residual's zero either way.
 * Start with the tyres touching the road: a wheel in the air has no stiffness.
 * iters and residual (the final max|r + Phi_z' lambda|, max|Phi|) may be NULL. Returns MB_OK or an error code
 * with a message that names the largest residual's coordinate or constraint. */
/* Whether the tangent is taken by central differences (the model lacks its derivatives, or fd_tangent). */
int mb_static_fd_tangent(const mb_static *s);

int mb_static_solve(mb_static *s, double t, double *z, double *lambda, const double *u, const double *p,
                    int *iters, double residual[2], char *err, size_t errlen);

#endif
