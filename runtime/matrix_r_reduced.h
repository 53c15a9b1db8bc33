/* matrix_r_reduced.h: Matrix R as a second-order system in the independent coordinates, for the implicit trapezoidal rule. */
#ifndef MB_MATRIX_R_REDUCED_H
#define MB_MATRIX_R_REDUCED_H

#include <stddef.h>

#include "formulation_matrix_r.h"
#include "integrate.h"

/* The trapezoidal rule (integrate_trapezoidal.c) solves r(t, z_i, zd_i, zdd_i) = 0 for the d independent
 * accelerations, with
 *     r = zdd_i - F_i(t, z_i, zd_i)
 * where F is Matrix R's acceleration at the consistent state whose independent coordinates and velocities are
 * (z_i, zd_i): the dependent ones come from the position and velocity problems, started from the last step's
 * state extrapolated to t. Its tangent is exact: cz dr/dz_i + cv dr/dzd_i + ca dr/dzdd_i = ca I - cz J_z - cv J_zd,
 * with J = d zdd_i / d(z_i, zd_i) from the motion's tangent linear model along the 2d unit directions
 * (matrix_r_tangent.h). The rule then integrates the independent coordinates only, and the dependent ones follow
 * the constraints exactly at every step, as with rk4. */
typedef struct mb_mrs mb_mrs;

/* Over mr (which it does not own), with the model's inputs and parameters read through u and p at every call. */
mb_mrs *mb_mrs_create(const mb_model *m, mb_mr *mr, const double *u, const double *p, char *err, size_t errlen);
void mb_mrs_free(mb_mrs *x);

/* The callbacks, for mb_trap_* on mb_mrs_dof unknowns. */
mb_so_system mb_mrs_system(mb_mrs *x);

/* Starts from the consistent state (t, z, zd, zdd) (nz each): records the independent coordinates of mr's current
 * choice, writes their values to zi, zdi (d each) and keeps the full state to guess the dependent coordinates of
 * the next step from. */
void mb_mrs_begin(mb_mrs *x, double t, const double *z, const double *zd, const double *zdd, double *zi, double *zdi);
int mb_mrs_dof(const mb_mrs *x);

/* The consistent full state at (t, zi, zdi) (after a converged step): z, zd, zdd (nz each). The projection there
 * may re-choose the independent coordinates: mb_mrs_rechosen then says so, and the caller begins again. */
int mb_mrs_full(mb_mrs *x, double t, const double *zi, const double *zdi, double *z, double *zd, double *zdd,
                char *err, size_t errlen);

/* 1 when a residual found mr's independent coordinates re-chosen since mb_mrs_begin (the reduced unknowns then
 * mean other coordinates: the caller restarts the rule from its last good state). */
int mb_mrs_rechosen(const mb_mrs *x);
/* The coordinate (index into z) of reduced unknown k. */
int mb_mrs_coordinate(const mb_mrs *x, int k);

#endif
