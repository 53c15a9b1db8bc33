/* formulation_matrix_r.h: closed loops by Matrix R, the ODE in the independent coordinates (seeds/000.md §1.5–1.6). */
#ifndef MB_FORMULATION_MATRIX_R_H
#define MB_FORMULATION_MATRIX_R_H

#include <stddef.h>

#include "kinematics.h"
#include "mb_model.h"
#include "mb_status.h"

/* With R from [Phi_z; B] (B selects the independent coordinates z_i) and x the
 * accelerations of the acceleration problem with zdd_i = 0,
 *     zdd = R zdd_i + x,     R' M R zdd_i = R' (Q - M x)          (seeds/000.md eq. 29)
 * The state the integrator sees is the full y = [z; zd] (2 nz); every
 * evaluation takes z_i and zd_i from y, recovers the dependent z and zd by the
 * position and velocity problems (y's dependent entries only seed the Newton
 * iteration), and returns f = [zd; zdd] consistent at all three levels. Keeping
 * the full state lets the runtime change the choice of independent
 * coordinates between two evaluations without restarting the integrator. */

typedef struct mb_mr mb_mr;

/* Needs mass, forces, constraints, constraints_dz and constraint_bias. */
mb_mr *mb_mr_create(const mb_model *m, const mb_kin_options *o, char *err, size_t errlen);
void mb_mr_free(mb_mr *mr);

/* Makes (z, zd) consistent in place: dependent z by the position problem
 * (from z as the guess), dependent zd by the velocity problem. */
int mb_mr_project(mb_mr *mr, double t, double *z, double *zd, const double *p, char *err, size_t errlen);

/* zdd (nz) at a consistent (t, z, zd), right after mb_mr_project at the same point. */
int mb_mr_accel(mb_mr *mr, double t, const double *z, const double *zd, const double *u, const double *p,
                double *zdd, char *err, size_t errlen);

/* The ODE: f = [zd; zdd] (2 nz) at y = [z; zd] as described above. */
int mb_mr_rhs(mb_mr *mr, double t, const double *y, const double *u, const double *p, double *f, char *err,
              size_t errlen);

/* From the last mb_mr_accel (its state): M (nz x nz), R (nz x dof) and the Cholesky factor of R'MR (dof x dof,
 * lower triangle as mb_chol_factor leaves it), for callers that solve with the same reduced mass matrix there
 * (the tangent linear model). Returns dof; 0 (and NULLs) before any or for a fully driven mechanism. */
int mb_mr_reduced(const mb_mr *mr, const double **M, const double **R, const double **L);

mb_kin *mb_mr_kin(mb_mr *mr);
/* Newton iterations of all position problems so far. */
long mb_mr_position_iters(const mb_mr *mr);

#endif
