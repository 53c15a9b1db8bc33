/* formulation_baumgarte.h: closed loops by Lagrange multipliers with Baumgarte's stabilisation (seeds/001.md §7). */
#ifndef MB_FORMULATION_BAUMGARTE_H
#define MB_FORMULATION_BAUMGARTE_H

#include <stddef.h>

#include "kinematics.h"
#include "mb_model.h"
#include "mb_status.h"

/* The index-1 system of the dependent coordinates z (all nz of them) and multipliers lambda,
 *     [ M      Phi_z' ] [ zdd    ]   [ Q                                       ]
 *     [ Phi_z  0      ] [ lambda ] = [ -bias - 2 a (Phi_z zd + Phi_t) - b² Phi ]
 * (bias = d(Phi_z) zd + d(Phi_t), the constraint acceleration at zdd = 0; seeds/001.md eqs. 60-61, the sign of
 * lambda that of +Phi_z' lambda on the left), solved by the range space: Cholesky of M, the Schur complement
 * Phi_z M^-1 Phi_z' in the least-squares sense (redundant constraints give the multipliers of least norm). The ODE
 * is y = [z; zd] as it stands: nothing projects it, so the constraints drift, and a (damping, 1/s) and b
 * (stiffness, 1/s) pull the drift back; a = b = 0 is the plain index-1 form. */

typedef struct mb_bg mb_bg;

/* Needs mass, forces, constraints, constraints_dz, constraints_dt and constraint_bias. */
mb_bg *mb_bg_create(const mb_model *m, double a, double b, const mb_kin_options *ko, char *err, size_t errlen);
void mb_bg_free(mb_bg *bg);

/* Assembles (t, z, zd) once, in place: the position and velocity problems of kinematics.h. The integration that
 * follows keeps the constraints only through the stabilisation. */
int mb_bg_assemble(mb_bg *bg, double t, double *z, double *zd, const double *p, char *err, size_t errlen);

/* zdd (nz) and, when lambda is not NULL, the multipliers (nc) at (t, z, zd). */
int mb_bg_accel(mb_bg *bg, double t, const double *z, const double *zd, const double *u, const double *p, double *zdd,
                double *lambda, char *err, size_t errlen);

/* The ODE f = [zd; zdd] at y = [z; zd]. */
int mb_bg_rhs(mb_bg *bg, double t, const double *y, const double *u, const double *p, double *f, char *err,
              size_t errlen);

/* The integrator's stage of the next evaluations (RK4's hook): at stage 1, an accepted state, the violation
 * max|Phi| and max|Phi_z zd + Phi_t| enters the run's largest. */
void mb_bg_set_stage(mb_bg *bg, int stage);
/* The largest violations over the accepted states seen (position, velocity) and their count. */
long mb_bg_violation_max(const mb_bg *bg, double v[2]);
/* Adds the state (t, z, zd) to those maxima (an output time, the state of another integrator). */
int mb_bg_record(mb_bg *bg, double t, const double *z, const double *zd, const double *p, char *err, size_t errlen);

mb_kin *mb_bg_kin(mb_bg *bg);

#endif
