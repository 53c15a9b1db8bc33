/* sens_start.h: a closed-loop start defined by coordinates other than the run's degrees of freedom, with its dz0/dp. */
#ifndef MB_SENS_START_H
#define MB_SENS_START_H

#include <stddef.h>

#include "mb_model.h"

/* A run's start holds its independent coordinates at their start values, so a design parameter that moves the
 * linkage moves the others. A general coordinate q = h(z, p) (model language: independent { q = function ... }) is
 * independent, and held would not start where the joint angles it replaces put it. Here the start holds the count
 * coordinates hold[] instead (indices into z, ascending, as many as the degrees of freedom): z0 is assembled at
 * (t0, p) from the guess z0 with those values kept, zd0 from zd0 with theirs kept, and z0_p, zd0_p (nz x np,
 * column-major) are d z0 / dp and d zd0 / dp with the held rows zero: Phi_z z0_p = -Phi_p and
 * Phi_z zd0_p = -(d(Phi_z zd + Phi_t)/dz z0_p + d(Phi_z zd + Phi_t)/dp). Passed as mb_sens_problem's z0, zd0, z0_p,
 * zd0_p, every degree-of-freedom choice then integrates the same problem, and the gradient includes the start's
 * dependence on p (the adjoint's boundary term). u: nu inputs or NULL (zeros). Needs constraints, constraints_dz,
 * constraints_dp, constraints_dt, constraint_vel_dz and constraint_vel_dp; MB_ERR_SINGULAR, naming the held
 * coordinates, when they cannot be held there. */
int mb_sens_start_hold(const mb_model *m, double t0, const double *p, const double *u, const int *hold, int count,
                       double *z0, double *zd0, double *z0_p, double *zd0_p, char *err, size_t errlen);

#endif
