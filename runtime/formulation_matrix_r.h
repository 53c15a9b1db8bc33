/* formulation_matrix_r.h: closed loops by Matrix R, the ODE in the independent coordinates (seeds/000.md §1.5–1.6). */
#ifndef MB_FORMULATION_MATRIX_R_H
#define MB_FORMULATION_MATRIX_R_H

#include <stddef.h>

#include "kinematics.h"
#include "mb_model.h"
#include "mb_status.h"
#include "rod_history.h"

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

/* on = 1 (the default): R'M R and the reduced solve by the model's generated reduction (mb_model.matrix_r) while
 * the independent coordinates are the model's declared ones and R has its pattern; 0: always by the runtime's
 * loops (the reference the generated code is checked against). */
void mb_mr_set_generated(mb_mr *mr, int on);
/* Evaluations (mb_mr_accel calls that reduced) that went through the generated reduction; *evals: all of them. */
long mb_mr_generated_evals(const mb_mr *mr, long *evals);
/* mb_mr_accel calls that took M, Q and the constraint bias from the model's one pass (NAME_mass_forces_bias: the
 * exact rod mode, when the model has it); *accels: all of them. */
long mb_mr_fused_evals(const mb_mr *mr, long *accels);

/* Massive rods (seeds/002.md §2.3-2.6): exact (the default: their mass in M), or their second-derivative inertia
 * forces M_rod zdd at accelerations extrapolated from the history of first stages (point, linear, quadratic),
 * with M without the rods; partitioned: a third of each rod's mass stays in M at each end and only the cross part
 * is extrapolated. Needs the model's mass_tree, mass_lumped, rod_inertia, rod_inertia_cross; resets the history. */
int mb_mr_set_rods(mb_mr *mr, mb_rod_mode mode, int partitioned, char *err, size_t errlen);
/* The integrator's stage of the next evaluations: 1 the first stage of a step (an accepted point: its zdd enters
 * the history), 2.. the others, 0 outside a step (outputs, statics: read the history, never add to it). */
void mb_mr_set_stage(mb_mr *mr, int stage);
/* Forgets the history after a discontinuity (a restart, new inputs): the next evaluation is exact, and the
 * extrapolation's order builds up again. */
void mb_mr_rod_reset(mb_mr *mr);
/* Evaluations in a rod mode that were exact for lack of history. */
long mb_mr_rod_exact_evals(const mb_mr *mr);
/* How the last mb_mr_accel took the rods: 0 exactly (their mass in M), 1 with M without them (mass_tree) and
 * rod_inertia at the extrapolated accelerations *zhat, 2 partitioned (mass_lumped and rod_inertia_cross); for the
 * tangent linear model of that evaluation. zhat may be NULL. */
int mb_mr_rod_form(const mb_mr *mr, const double **zhat);
/* The rod mode (its order: 0 exact, 1 point, 2 linear, 3 quadratic) and the stage last set. */
int mb_mr_rod_order(const mb_mr *mr);
int mb_mr_stage(const mb_mr *mr);
/* The history itself (NULL in the exact mode), for the adjoint's snapshots. */
mb_rod_history *mb_mr_rod_history(mb_mr *mr);

mb_kin *mb_mr_kin(mb_mr *mr);
/* Newton iterations of all position problems so far. */
long mb_mr_position_iters(const mb_mr *mr);

#endif
