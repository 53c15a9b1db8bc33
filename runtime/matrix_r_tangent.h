/* matrix_r_tangent.h: the tangent linear model of the Matrix R motion: d zdd along directions in (z, zd) or p. */
#ifndef MB_MATRIX_R_TANGENT_H
#define MB_MATRIX_R_TANGENT_H

#include <stddef.h>

#include "formulation_matrix_r.h"
#include "mb_model.h"
#include "mb_status.h"

/* Along a direction (S, Sd) of the coordinates and velocities (and, for a design parameter j, e_j), the
 * consistent motion changes by the linearized constraints and equations of motion (seeds/000.md §2.4-2.6):
 *     Phi_z S + Phi_p = 0,     Phi_z Sd + V_z S + V_p = 0          (V = Phi_z zd + Phi_t)
 *     M Sdd + Phi_z' Lambda = -((K + (Phi_z' lambda)_z) S + C Sd + r_p + (Phi_z' lambda)_p)
 *     Phi_z Sdd = -((A_z + b_z) S + b_zd Sd + A_p + b_p)             (A = Phi_z zdd, b = bias)
 * (K, C, r_p: derivatives of r = M zdd - Q; lambda from Phi_z' lambda = -r), solved by Matrix R: the dependent
 * rows of S and Sd from the first two with the independent rows given, Sdd = X + R W with Phi_z X = rhs2 on the
 * dependent rows and R'MR W = R'(rhs1 - M X). The dependent block's factors are the motion's own (mb_mr). The
 * sensitivities (sens_matrix_r.c: directions d/dp) and the implicit trapezoidal rule on Matrix R (its exact
 * Newton tangent: unit directions of the independent coordinates and velocities) share it. */
typedef struct mb_mrt mb_mrt;

/* For model m and up to cap directions at a time; with_p: directions in p will be asked for (the model must then
 * have the p-derivative slots). Names the first missing slot in err. */
mb_mrt *mb_mrt_create(const mb_model *m, int cap, int with_p, char *err, size_t errlen);
void mb_mrt_free(mb_mrt *x);

/* At a consistent state (t, z, zd, zdd) of mr (mb_mr_accel has just run there, so its kinematics is factored at
 * z), for ns <= cap directions: S and Sd (n x ns) hold the independent rows on entry and every row on return;
 * Sdd (n x ns) gets d zdd along each. p0 >= 0: directions p0 .. p0 + np - 1 also move p_0 .. p_np-1 (the
 * model's p-derivatives are evaluated once for them, and the rest shares the evaluation); p0 < 0: none does. */
int mb_mrt_directions(mb_mrt *x, mb_mr *mr, double t, const double *z, const double *zd, const double *zdd,
                      const double *u, const double *p, int ns, int p0, double *S, double *Sd, double *Sdd,
                      char *err, size_t errlen);

/* The transpose of the tangent model, for adjoints. With G_u = d(S, Sd, Sdd)/d(S_i, Sd_i) (the unit directions of the
 * independent coordinates, then of their velocities) and G_p = d(S, Sd, Sdd)/dp (zero independent rows of S and Sd),
 * gu (2d, or NULL) = G_u' l and gp (np, or NULL) = G_p' l for l = (lS, lSd, lSdd). One pass back through
 * mb_mrt_directions' steps (transposed products, three transposed dependent solves and one of R'MR) at the state of
 * the last mb_mrt_directions call, whose matrices it reuses (a call with ns = 0 evaluates them): the cost grows with
 * neither d nor np beyond the model's p-derivatives and their products. MB_ERR_ARG at another state, in a rod mode or
 * without constraints (callers then take directions). */
int mb_mrt_transpose(mb_mrt *x, mb_mr *mr, double t, const double *z, const double *zd, const double *zdd,
                     const double *u, const double *p, const double *lS, const double *lSd, const double *lSdd,
                     double *gu, double *gp, char *err, size_t errlen);

/* Rod modes (mb_mr_set_rods): the evaluation's extrapolated accelerations move along each direction too, by dzhat
 * (n x ns, kept by the caller: the same extrapolation of the directions' first-stage Sdd, rod_history.h); NULL: not
 * at all. Read by the next mb_mrt_directions at an evaluation that took the rods from the extrapolation. */
void mb_mrt_set_rod_directions(mb_mrt *x, const double *dzhat);

#endif
