/* sim.h: the public C API to simulate any mb_model (open trees), in the shape of SUNDIALS' CVODE. */
#ifndef MB_SIM_H
#define MB_SIM_H

#include <stddef.h>

#include "formulation_al3.h"
#include "formulation_baumgarte.h"
#include "integrate.h"
#include "kinematics.h"
#include "mb_model.h"
#include "mb_status.h"
#include "rod_history.h"

/* Usage:
 *   mb_sim_options o;
 *   mb_sim_options_default(&o, &NAME_model);     // the model's `simulate` defaults
 *   o.integrator = MB_INTEGRATOR_DOPRI5;
 *   char err[MB_ERRLEN];
 *   mb_sim *s = mb_sim_create(&NAME_model, &o, err, sizeof err);
 *   if (!s) { fprintf(stderr, "%s\n", err); ... }
 *   for (int k = 1; k <= 100; ++k)
 *       if (mb_sim_step(s, 0.05 * k)) { fprintf(stderr, "%s\n", mb_sim_errmsg(s)); break; }
 *   printf("%g %g\n", mb_sim_t(s), mb_sim_z(s)[0]);
 *   mb_sim_free(s);
 * Create allocates every workspace; set_*, step and the accessors never allocate.
 * Every int-returning call returns an mb_status (MB_OK = 0) and leaves a
 * message for mb_sim_errmsg on failure. */

typedef enum { MB_INTEGRATOR_RK4, MB_INTEGRATOR_DOPRI5, MB_INTEGRATOR_TRAPEZOIDAL } mb_integrator;
/* tree: M zdd = Q (open trees); matrix_r: closed loops reduced to the independent coordinates
 * (rk4, dopri5, or the trapezoidal rule on the independent coordinates, matrix_r_reduced.h, which needs the
 * constraints' z and zd derivatives); al3: closed loops by the index-3 augmented Lagrangian, always with its
 * own trapezoidal rule (the integrator option is set to trapezoidal); baumgarte: closed loops by multipliers with
 * Baumgarte's stabilisation on the full state, nothing projected (formulation_baumgarte.h; rk4, dopri5); penalty:
 * al3 without its multipliers, the pure penalty of seeds/003.md eq. (14) (mb_al3_options.penalty). */
typedef enum {
    MB_FORMULATION_TREE, MB_FORMULATION_MATRIX_R, MB_FORMULATION_AL3, MB_FORMULATION_BAUMGARTE, MB_FORMULATION_PENALTY
} mb_formulation;

typedef struct {
    mb_integrator integrator;
    double step;              /* rk4, trapezoidal: the fixed step; dopri5: first step (0 = automatic) */
    double rtol, atol;        /* dopri5: error tolerances per step */
    double h_min, h_max;      /* dopri5: step limits (0 = none beyond roundoff) */
    long max_steps;           /* steps allowed per mb_sim_step call, like CVODE's mxstep (<= 0: no limit) */
    double newton_tol;        /* trapezoidal: max|dzdd| <= newton_tol (1 + max|zdd|) */
    int newton_max_iter;      /* trapezoidal */
    int use_forward_dynamics; /* rk4, dopri5: zdd from model->forward_dynamics instead of Cholesky of M */
    mb_formulation formulation;
    mb_kin_options kin;       /* matrix_r, al3: position problem, rank and re-selection (kinematics.h) */
    mb_al3_options al3;       /* al3: penalty and Newton (formulation_al3.h); newton_max_iter is not used */
    mb_rod_mode rod_mode;     /* massive rods: exact (default), or their inertia forces extrapolated from RK4's
                               * first stages (point, linear, quadratic; matrix_r with rk4 only, rod_history.h) */
    int rod_partitioned;      /* with a rod mode: a third of each rod's mass stays exact at each end */
    int generated_reduction;  /* matrix_r: 1 (default) R'M R and its solve by the model's generated reduction where
                               * the declared independent coordinates hold (mb_mr_set_generated); 0: runtime loops */
    double baumgarte_a, baumgarte_b; /* baumgarte: damping and stiffness of the stabilisation, 1/s (10, 10) */
} mb_sim_options;

/* Defaults: rk4, step 1e-3, rtol = atol = 1e-6, max_steps 1e6, newton_tol 1e-10,
 * newton_max_iter 10, formulation tree for models without constraints and
 * matrix_r with, kinematics and al3 defaults of their headers, rods exact; then
 * m->simulate (integrator, step, tolerance as rtol and atol, formulation) and
 * the model's rod mode override where they are set, if m is not NULL. */
void mb_sim_options_default(mb_sim_options *o, const mb_model *m);
/* "rk4", "dopri5", "trapezoidal" -> *out; MB_ERR_ARG for another name. */
int mb_integrator_parse(const char *name, mb_integrator *out);
const char *mb_integrator_name(mb_integrator i);
/* "tree", "matrix_r", "al3", "baumgarte", "penalty" -> *out; MB_ERR_ARG for another name. */
int mb_formulation_parse(const char *name, mb_formulation *out);
const char *mb_formulation_name(mb_formulation f);

typedef struct mb_sim mb_sim;

/* A simulation of model m at t = 0 from m->z0, m->zd0 (zeros where NULL; for
 * closed loops assembled from them: position and velocity problems holding the
 * independent coordinates), with
 * p = m->p_default (zeros where NULL) and u = 0. o NULL: defaults for m. Checks
 * the options and that the model has what the integrator needs, computes the
 * initial acceleration (so a bad model fails here), and returns NULL with a
 * message in err on failure. The model is borrowed and must outlive the sim. */
mb_sim *mb_sim_create(const mb_model *m, const mb_sim_options *o, char *err, size_t errlen);
void mb_sim_free(mb_sim *s);

/* Restart at time t from z, zd (nz each; zd NULL = zeros). Rejects NaN/inf. */
int mb_sim_set_state(mb_sim *s, double t, const double *z, const double *zd);
/* Design parameters (np) and inputs (nu). Inputs are held constant over each
 * mb_sim_step call; the integrator restarts from the current state so no step
 * straddles the change. Values must be finite; on error nothing changes. */
int mb_sim_set_params(mb_sim *s, const double *p);
int mb_sim_set_param(mb_sim *s, const char *name, double value);
int mb_sim_set_inputs(mb_sim *s, const double *u);

/* Advance to t_out >= mb_sim_t(s). On failure the state stays a successfully
 * reached one (the last step or output time before the failure), mb_sim_t says
 * when, and the next call restarts the integrator from there. */
int mb_sim_step(mb_sim *s, double t_out);
/* Carries out now what set_state, set_params and set_inputs leave to the next step: the restart that
 * assembles a closed loop's coordinates and velocities with the current parameters, so that mb_sim_z,
 * mb_sim_zd, the energy and the outputs show the state the integration starts from. */
int mb_sim_assemble(mb_sim *s);

double mb_sim_t(const mb_sim *s);
const double *mb_sim_z(const mb_sim *s);    /* nz, valid until the next call that changes the state */
const double *mb_sim_zd(const mb_sim *s);
const double *mb_sim_params(const mb_sim *s);
const double *mb_sim_inputs(const mb_sim *s);
const mb_model *mb_sim_model(const mb_sim *s);
const mb_sim_options *mb_sim_get_options(const mb_sim *s);
/* Kinetic and potential energy at the current state (model->energy). */
int mb_sim_energy(mb_sim *s, double *kinetic, double *potential);
/* Power zd . Q_nc of the non-conservative forces (dampers, torques, forces, inputs, user force laws) at the
 * current state; q_nc is the caller's workspace of nz values and receives Q_nc (model->forces_nc). Ideal
 * constraints do no work, so T + V changes by the time integral of this power. */
int mb_sim_power_nc(mb_sim *s, double *q_nc, double *power);
/* Power of the constraint forces at the current state: Phi_t . lambda, with lambda from the constraint force
 * r = M zdd - Q = -Phi_z' lambda (zdd from the formulation) by least squares: zero for ideal scleronomic
 * constraints, the power a drive (a rheonomic constraint) puts in. r is the caller's workspace of nz values;
 * 0 without constraints (model->inverse_dynamics, constraints_dz, constraints_dt). */
int mb_sim_power_constraints(mb_sim *s, double *r, double *power);
/* Forgets the rods' acceleration history (a rod mode after a discontinuity the state does not show, e.g. a road
 * step): the next step starts exact and the extrapolation builds up again. Every restart (after set_state,
 * set_params, set_inputs, or a failed step) does it itself. Counters: rod-mode evaluations that were exact for lack of history, and resets. */
void mb_sim_rod_reset(mb_sim *s);
long mb_sim_rod_exact_evals(const mb_sim *s);
/* Positions of the named points, 3 npt values (model->points). */
int mb_sim_points(mb_sim *s, double *xyz);
/* MB_TYRE_OUTPUTS values per tyre at the current state (mb_model.h: Fx, Fy, Fz, kappa, tan alpha,
 * deflection, contact point); MB_ERR_MODEL when the model has no tyres. */
int mb_sim_tyres(mb_sim *s, double *out);
/* Constraint violation at the current state: max|Phi|, max|Phi_z zd + Phi_t|,
 * max|Phi_z zdd + bias| (zeros for a model without constraints). */
int mb_sim_constraint_violation(mb_sim *s, double v[3]);
/* Degrees of freedom and the changes of the independent coordinates (matrix_r, al3; else nz and 0). */
int mb_sim_dof(const mb_sim *s);
long mb_sim_reselections(const mb_sim *s);
/* The al3 (and penalty) integrator of the run, for its tangent's statistics; NULL for the other formulations. */
const mb_al3 *mb_sim_al3(const mb_sim *s);
/* Factorizations of the constraints' dependent block (matrix_r, al3: none repeated at one point; else 0). */
long mb_sim_factorizations(const mb_sim *s);
/* Of them, those done by the model's generated inversions (its declared independent coordinates). */
long mb_sim_generated_factorizations(const mb_sim *s);
/* Of them, those whose Phi_z came from the Newton step that reached the point (mb_kin_paired_factorizations). */
long mb_sim_paired_factorizations(const mb_sim *s);
/* The blocks of the dependent block of Phi_z (mb_kin_blocks), 0 for an open tree or before the first step. */
int mb_sim_blocks(const mb_sim *s, int *rows, int *cols, int max);
/* The independent coordinates now (mb_kin_independent; NULL for an open tree), mb_sim_dof of them, and the
 * notes of the first re-selections (mb_kin_reselection_note; NULL beyond). */
const int *mb_sim_independent(const mb_sim *s);
const char *mb_sim_reselection_note(const mb_sim *s, long i);
/* baumgarte: the largest violations max|Phi| and max|Phi_z zd + Phi_t| over the states the run accepted (every RK4
 * step, every output time) in v, and their count; 0 for the other formulations (which keep the constraints). */
long mb_sim_violation_max(const mb_sim *s, double v[2]);
/* Newton iterations of matrix_r's position problems so far (0 for the other formulations). */
long mb_sim_position_iters(const mb_sim *s);
/* matrix_r: evaluations reduced by the model's generated reduction; *evals: all that reduced (0, 0 otherwise). */
long mb_sim_generated_reductions(const mb_sim *s, long *evals);
/* Matrix R: the evaluations that took M, Q and the constraint bias from the model's one pass (mb_mr_fused_evals). */
long mb_sim_fused_evals(const mb_sim *s, long *accels);
/* Work counters since create (set_state does not reset them). */
void mb_sim_stats(const mb_sim *s, mb_stats *out);
/* The message of the last failed call ("" if none). */
const char *mb_sim_errmsg(const mb_sim *s);

#endif
