/* kinematics.h: position, velocity and acceleration problems of a constrained model, and its independent coordinates. */
#ifndef MB_KINEMATICS_H
#define MB_KINEMATICS_H

#include <stddef.h>

#include "mb_model.h"
#include "mb_status.h"

/* The constraints Phi(t, z) = 0 (nc equations in nz coordinates) split z into
 * d = nz - rank(Phi_z) independent coordinates z_i, held fixed, and the
 * dependent rest z_d, solved for (seeds/000.md §1.4, form (a)):
 *   position      Phi_z[:, d] dz_d = -Phi                         (Newton, damped)
 *   velocity      Phi_z[:, d] zd_d = -(Phi_t + Phi_z[:, i] zd_i)
 *   acceleration  Phi_z[:, d] zdd_d = -(bias + Phi_z[:, i] zdd_i)  (bias = dPhi_z/dt zd + dPhi_t/dt)
 * The dependent block Phi_z[:, d] (nc x r) is split by its pattern (kin_blocks.h); a square block is inverted by
 * Gauss-Jordan with partial pivoting (or by the model's generated inversions, for its declared independent
 * coordinates), one with redundant rows factored by QR with column pivoting and solved in the least-squares sense,
 * so redundant but compatible constraints (nc > r) need no special case. */

typedef struct {
    double pos_tol;       /* position problem converged when max|Phi| <= pos_tol (1e-12) */
    int pos_max_iter;     /* Newton iterations per position problem (50) */
    double rank_tol;      /* |R_kk| <= rank_tol |R_11| counts as rank deficient, in QR of Phi_z (and |U_kk| <=
                             rank_tol |U_11| in LU) (1e-9) */
    double reselect_tol;  /* re-choose the independent coordinates when the dependent block's
                             |R_rr| / |R_11| (LU: min |U_kk| / max |U_kk|) falls below this (1e-2) */
    int reselect;         /* 1: re-choose when ill-conditioned; 0: report MB_ERR_SINGULAR instead */
    int blocks;           /* 1: split the dependent block by Phi_z's generated pattern (kin_blocks.h); 0: factor it
                             as one dense block (the reference the split is checked against) */
    int lu;               /* 1: square blocks inverted by Gauss-Jordan with partial pivoting (the conditioning
                             bounded from the inverse, pivoted QR's where the bound is near reselect_tol); 0: every
                             block by pivoted QR (the reference the inverses are checked against) */
    int generated;        /* 1: while the choice is the model's declared one, its blocks inverted by the model's
                             generated code (mb_dependent_blocks) where its static pivots pass their test; 0: by
                             the runtime throughout (the reference the generated code is checked against) */
    int simplified;       /* 1: the position problem's Newton steps reuse the last factorization (from the last
                             solve, at a nearby point) while it divides ||Phi|| by 4 per step, so a solve costs one
                             factorization, at its solution; 0: a factorization at every iterate, so the result
                             depends on the point alone (the sensitivities' replays want that) */
} mb_kin_options;

void mb_kin_options_default(mb_kin_options *o);

typedef struct mb_kin mb_kin;

/* Workspaces for model m (needs constraints and constraints_dz; nc may be 0).
 * o NULL: defaults. The independent coordinates are m->independent when given,
 * else chosen at the first mb_kin_factor. */
mb_kin *mb_kin_create(const mb_model *m, const mb_kin_options *o, char *err, size_t errlen);
void mb_kin_free(mb_kin *k);

/* Evaluates Phi_z at (t, z), checks it is finite, chooses the independent
 * coordinates if none are chosen yet (or the current choice is ill-conditioned
 * and reselect is on) and factors the dependent block. The velocity,
 * acceleration and R calls below use this factorization. MB_ERR_SINGULAR when
 * the rank of Phi_z changed since the first choice (a singular configuration),
 * or when the choice is ill-conditioned and reselect is off. */
int mb_kin_factor(mb_kin *k, double t, const double *z, const double *p, char *err, size_t errlen);

/* Solves Phi(t, z) = 0 for the dependent coordinates of z (in place) holding
 * the independent ones; ends factored at the solution. MB_ERR_NEWTON when the
 * mechanism does not assemble: the message names the equations that stay
 * violated and by how much. iters (may be NULL) gets the Newton iterations. */
int mb_kin_position(mb_kin *k, double t, double *z, const double *p, int *iters, char *err, size_t errlen);
/* The dependent velocities of zd (in place) from the independent ones. */
int mb_kin_velocity(mb_kin *k, double t, const double *z, double *zd, const double *p, char *err, size_t errlen);
/* The dependent accelerations of zdd (in place) from the independent ones. */
int mb_kin_acceleration(mb_kin *k, double t, const double *z, const double *zd, double *zdd, const double *p,
                        char *err, size_t errlen);
/* The same from the constraint bias already evaluated at (t, z, zd): NAME_mass_forces_bias's last nc entries. */
int mb_kin_acceleration_bias(mb_kin *k, double t, const double *bias, double *zdd, char *err, size_t errlen);
/* R (nz x dof, column-major): zd = R zd_i for scleronomic constraints; Phi_z R = 0, R[i, :] = I. */
int mb_kin_R(mb_kin *k, double *R, char *err, size_t errlen);
/* The same, writing only R's dependent non-zeros (mb_kin_R_pattern) into an R that mb_kin_R filled under the same
 * choice of independent coordinates (mb_kin_choice unchanged): the rest of R is fixed by the choice. */
int mb_kin_R_values(mb_kin *k, double *R, char *err, size_t errlen);
/* A number that changes whenever the independent coordinates are chosen anew. */
long mb_kin_choice(const mb_kin *k);

/* The dependent block's least-squares solve with the current factors, as the velocity and acceleration problems
 * use it: b is nc x nrhs with leading dimension ldb >= max(nc, rank); on return its first rank rows hold the
 * solutions in the order of mb_kin_dependent. For callers with right-hand sides of their own (the Matrix R
 * sensitivities), so that they share the factorization. */
int mb_kin_solve_dependent(mb_kin *k, int nrhs, double *b, int ldb, char *err, size_t errlen);

/* The multipliers lambda (nc) of the constraint forces -Phi_z' lambda = r (nz) at (t, z, p), from the dependent
 * rows Phi_z[:, dep]' lambda = -r[dep] by the dependent block's factors (factored here unless they are at that
 * point): exact when r lies in the range of Phi_z', as Matrix R's M zdd - Q does; the least-norm lambda where
 * constraints are redundant. */
int mb_kin_multipliers(mb_kin *k, double t, const double *z, const double *p, const double *r, double *lambda,
                       char *err, size_t errlen);

/* Constraint violation at position, velocity and acceleration level:
 * v[0] = max|Phi|, v[1] = max|Phi_z zd + Phi_t|, v[2] = max|Phi_z zdd + bias|
 * (zd or zdd NULL: that entry is 0). Does not change the factorization. */
int mb_kin_violation(mb_kin *k, double t, const double *z, const double *zd, const double *zdd, const double *p,
                     double v[3], char *err, size_t errlen);

/* Before the first automatic choice: prefer as independent the coordinates
 * where v[c] != 0 (the runtime passes the model's initial velocities, so the
 * velocities the user gave are the ones held). No effect with a user choice. */
int mb_kin_prefer(mb_kin *k, const double *v);

/* Restores a choice saved from mb_kin_independent (count = dof entries), so a stretch of a run can be
 * replayed exactly (the adjoint of sens_matrix_r.c does); it is factored, and re-chosen only if
 * ill-conditioned, at the next mb_kin_factor. MB_ERR_ARG before the first choice or for a bad list. */
int mb_kin_set_independent(mb_kin *k, const int *ind, int count);

int mb_kin_dof(const mb_kin *k);            /* -1 before the first mb_kin_factor */
int mb_kin_rank(const mb_kin *k);
const int *mb_kin_independent(const mb_kin *k);  /* dof indices, ascending */
const int *mb_kin_dependent(const mb_kin *k);    /* rank indices, ascending */
long mb_kin_reselections(const mb_kin *k);  /* changes of the choice after the first one */
/* The i-th re-selection (0-based, the first MB_KIN_NOTES of them) as "t = T: |R_rr/R_11| = R < TOL; independent
 * LEFT -> JOINED"; NULL beyond. */
#define MB_KIN_NOTES 16
const char *mb_kin_reselection_note(const mb_kin *k, long i);
long mb_kin_factorizations(const mb_kin *k); /* factorizations of the dependent block (none repeated at one point) */
long mb_kin_generated_factorizations(const mb_kin *k); /* those done by the model's generated inversions */
/* Those whose Phi_z came from the position problem's own pass of Phi where it was solved (constraints_and_dz). */
long mb_kin_paired_factorizations(const mb_kin *k);
/* The blocks the dependent block splits into by its structure (kin_blocks.h), for the current choice: their
 * number (0 before the first factorization), and the rows and columns of the first `max` in rows, cols. */
int mb_kin_blocks(const mb_kin *k, int *rows, int *cols, int max);
/* R's structure for the current choice (kin_blocks_R_pattern): column c may be non-zero in row ind[c] and in
 * the coordinates rowind[colptr[c] .. colptr[c+1]-1]. 0 (and NULLs) before the first factorization or without
 * dependent coordinates. */
int mb_kin_R_pattern(const mb_kin *k, const int **colptr, const int **rowind);
const mb_kin_options *mb_kin_get_options(const mb_kin *k);

#endif
