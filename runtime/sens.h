/* sens.h: the public C API of sensitivity analysis: psi and d psi / d p by direct differentiation or adjoint. */
#ifndef MB_SENS_H
#define MB_SENS_H

#include <stddef.h>

#include "integrate.h"
#include "mb_model.h"
#include "mb_status.h"
#include "rod_history.h"
#include "sim.h"

/* Usage:
 *   mb_sens_problem pr;
 *   mb_sens_problem_default(&pr, &NAME_model);          // p = p_default, z0, zd0 of the model
 *   pr.objective = mb_sens_objective_index(&NAME_model, "kinetic_energy");
 *   pr.t_end = 5;
 *   mb_sens_options o;
 *   mb_sens_options_default(&o, &NAME_model);
 *   o.method = MB_SENS_AVM;
 *   double psi, grad[NAME_NP];
 *   char err[MB_ERRLEN];
 *   if (mb_sens_run(&pr, &o, &psi, grad, NULL, err, sizeof err)) fprintf(stderr, "%s\n", err);
 *
 * psi = integral over [t0, t_end] of the objective's integrand + its terminal term at t_end, along
 * the motion of the open-tree formulation M(z) zdd = Q(t, z, zd, u, p) with u held constant;
 * grad = d psi / d p (np), including the dependence of the initial state on p when z0_p, zd0_p are
 * given (the t0 boundary term). Closed loops (m->nc > 0) run on the Matrix R formulation: DDM and AVM on rk4,
 * dopri5 or the trapezoidal rule on the independent coordinates (matrix_r_reduced.h, sens_matrix_r.c). Every
 * dopri5 run ends its last step on t_end.
 *
 * Both methods differentiate the discrete scheme exactly, so their gradients equal the derivative of
 * the computed psi (finite differences of whole simulations) up to roundoff and the Newton tolerance:
 *   DDM, rk4 / dopri5: the sensitivities S = dz/dp, Sd = dzd/dp and the quadrature of psi and its
 *     gradient ride in the augmented state [z, zd, S, Sd, psi, grad] of the explicit integrator
 *     (dopri5: the error control covers all of it); Sdd = F_z S + F_zd Sd + F_p from the generated
 *     forward-dynamics derivatives.
 *   DDM, trapezoidal: per step one Newton-converged dynamics step, then one factorization of the
 *     iteration matrix T = M + h/2 C + h^2/4 K (C = dr/dzd, K = dr/dz of r = M zdd - Q) and one
 *     right-hand side per parameter; psi by the trapezoidal rule on the same grid.
 *   AVM (open trees: trapezoidal; closed loops: rk4, dopri5 or trapezoidal, see sens_matrix_r.c, whose trapezoidal
 *     and dopri5 adjoints keep every step while they fit in MB_SENS_TRAP_MEMORY bytes and checkpoints beyond (or
 *     as many as options.checkpoints says), and whose products with the transposed tangent
 *     cost one pass per stage or step, matrix_r_tangent.h): the forward run, then the adjoint of the discrete
 *     scheme backward with T^T, one solve per step whatever np is. Memory stays bounded by checkpointing: the forward
 *     run keeps K checkpoints, and each segment between them is recomputed and stored while the
 *     adjoint crosses it (K = options.checkpoints; 0 picks ceil(sqrt(steps)), so storage is
 *     O(sqrt(steps)) states at the price of one extra forward run). */

typedef enum { MB_SENS_DDM, MB_SENS_AVM } mb_sens_method;

/* The closed-loop adjoints on the trapezoidal rule and dopri5 keep every step's record while it fits in this many
 * bytes (no step is then taken twice), and checkpoints beyond: their memory stays under it. */
#define MB_SENS_TRAP_MEMORY ((size_t)64 << 20)

/* How the open-tree DDM forms the sensitivity accelerations (seeds/004.md):
 *   recursive: the generated forward_dynamics_sens (rk4, dopri5) or inverse_dynamics_sens (trapezoidal), the
 *     body-frame recursion differentiated along (S_j, Sd_j, e_j): O(n) per parameter, no n x n Jacobian and,
 *     on the explicit integrators, no solve;
 *   jacobian: Sdd = F_z S + F_zd Sd + F_p from the n x n forward-dynamics Jacobians (trapezoidal: K A + C B
 *     + dr/dp from the inverse-dynamics ones);
 *   auto: the one with fewer generated operations per evaluation (mb_model.slot_ops, counting the dense
 *     products the jacobian route does at run time); recursive where the counts are unknown. */
typedef enum { MB_SENS_KERNEL_AUTO, MB_SENS_KERNEL_RECURSIVE, MB_SENS_KERNEL_JACOBIAN } mb_sens_kernel;

typedef struct {
    const mb_model *model;
    int objective;            /* index into model->objectives */
    const double *p;          /* np; NULL = model->p_default */
    const double *u;          /* nu, constant over the run; NULL = zeros */
    const double *z0, *zd0;   /* nz; NULL = model->z0, model->zd0 (zeros where those are NULL) */
    const double *z0_p;       /* nz x np column-major: d z0 / d p; NULL = zeros */
    const double *zd0_p;      /* nz x np: d zd0 / d p; NULL = zeros */
    double t0, t_end;
} mb_sens_problem;

typedef struct {
    mb_sens_method method;
    mb_integrator integrator; /* DDM: rk4, dopri5 or trapezoidal; AVM: trapezoidal (closed loops: any of the three) */
    double step;              /* fixed step (rk4, trapezoidal); dopri5: first step (0 = automatic) */
    double rtol, atol;        /* dopri5 */
    long max_steps;           /* <= 0: no limit */
    double newton_tol;        /* trapezoidal: max|dzdd| <= newton_tol (1 + max|zdd|) */
    int newton_max_iter;
    int checkpoints;          /* AVM: number of stored checkpoints K; 0 = ceil(sqrt(steps)) (closed loops on the
                                 trapezoidal rule: every step while they fit in MB_SENS_TRAP_MEMORY, no replay) */
    int psi_only;             /* 1: psi alone, the same discretization without sensitivities (for
                                 finite differences of whole simulations); grad is left untouched */
    /* Told how far the run is, phase "forward" (the motion, and the DDM's sensitivities with it) or "adjoint" (the
     * backward sweep and its replays), fraction in [0, 1] of that phase: at every right-hand side or step, so it
     * should return at once most of the time (mbsens draws a bar at most 10 times a second). NULL: none. */
    void (*progress)(void *ctx, const char *phase, double fraction);
    void *progress_ctx;
    mb_sens_kernel kernel;    /* open-tree DDM: see mb_sens_kernel (default auto) */
    int allow_reselection;    /* closed loops: 0 (default): a re-choice of the independent coordinates during the
                                 run stops it with MB_ERR_SINGULAR naming the time and the coordinates, since psi
                                 is not differentiable where a change of p moves such a switch to another step;
                                 1: carry on (the gradient is then that of the discrete psi with the switches at
                                 the steps where they fell; stats.reselections says how many) */
    mb_rod_mode rod_mode;     /* massive rods (closed loops on rk4): exact, or their inertia forces from the history
                                 of first-stage accelerations (rod_history.h); default the model's */
    int rod_partitioned;      /* with a rod mode: a third of each rod's mass stays exact at each end */
} mb_sens_options;

typedef struct {
    long steps;               /* forward steps (AVM: of the first forward run) */
    long recomputed_steps;    /* AVM: forward steps taken again between checkpoints */
    long factorizations;      /* sensitivity or adjoint iteration matrices factored */
    long rhs_evals;           /* rk4/dopri5: augmented right-hand sides; trapezoidal: residuals */
    long stored_states;       /* AVM: the most (z, zd, zdd) triples held at once */
    mb_sens_kernel kernel;    /* open-tree DDM: the kernel that ran (recursive or jacobian); auto otherwise */
    long reselections;        /* closed loops: re-choices of the independent coordinates during the run */
    double seconds_forward;   /* AVM: wall seconds of its forward run (the motion alone, on the same steps) */
} mb_sens_stats;

/* t0 = 0, t_end = m->simulate.t_end, objective 0, the model's p, z0, zd0; m may be NULL. */
void mb_sens_problem_default(mb_sens_problem *pr, const mb_model *m);
/* DDM with the model's simulate integrator and step (rk4 when unknown), rtol = atol = 1e-8,
 * newton_tol 1e-12, newton_max_iter 20, checkpoints 0, max_steps 1e8. */
void mb_sens_options_default(mb_sens_options *o, const mb_model *m);
/* Index of the objective called name, or -1. */
int mb_sens_objective_index(const mb_model *m, const char *name);
/* "ddm", "avm" -> *out; MB_ERR_ARG otherwise. */
int mb_sens_method_parse(const char *name, mb_sens_method *out);
/* "auto", "recursive", "jacobian" -> *out; MB_ERR_ARG otherwise. And back. */
int mb_sens_kernel_parse(const char *name, mb_sens_kernel *out);
const char *mb_sens_kernel_name(mb_sens_kernel k);

/* psi and grad (np; may be NULL) of the problem; st may be NULL. Allocates its workspaces and
 * frees them before returning. */
int mb_sens_run(const mb_sens_problem *pr, const mb_sens_options *o, double *psi, double *grad,
                mb_sens_stats *st, char *err, size_t errlen);

#endif
