/* integrate.h: the callback interfaces integrators see, and the three integrators' calls; no mechanics here. */
#ifndef MB_INTEGRATE_H
#define MB_INTEGRATE_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "mb_status.h"

/* Work counters, accumulated by every integrator call that takes one. */
typedef struct {
    long steps;         /* accepted steps */
    long rhs_evals;     /* right-hand side (rk4, dopri5) or residual (trapezoidal) evaluations */
    long rejected;      /* steps rejected by the error control (dopri5) */
    long newton_iters;  /* Newton iterations (trapezoidal) */
    long jac_evals;     /* tangent matrices built and factored (trapezoidal) */
    long deriv_evals;   /* evaluations of the residual's derivatives for a tangent (al3, penalty) */
} mb_stats;

/* First-order system y' = f(t, y) of size n (rk4, dopri5). Returns an
 * mb_status; a non-zero return stops the integrator, which passes it on with
 * the callback's message unchanged. */
typedef int mb_ode_fn(void *ctx, double t, const double *y, double *f, char *err, size_t errlen);

/* Second-order system r(t, z, zd, zdd) = 0 of size n (trapezoidal): the
 * residual, and the tangent cz dr/dz + cv dr/dzd + ca dr/dzdd. */
typedef struct {
    int (*residual)(void *ctx, double t, const double *z, const double *zd, const double *zdd, double *r,
                    char *err, size_t errlen);
    int (*tangent)(void *ctx, double t, const double *z, const double *zd, const double *zdd, double cz,
                   double cv, double ca, double *T, char *err, size_t errlen);
    void *ctx;
} mb_so_system;

/* Fixed-step integrators cover [t, t_out] in n equal steps of at most h: a
 * step that does not divide the interval is shortened evenly instead of
 * leaving a sliver of a last step (the 1e-12 slack absorbs t += h roundoff). */
static inline long mb_fixed_step_count(double t, double t_out, double h) {
    double n = ceil((t_out - t) / h * (1 - 1e-12));
    return n < 1 ? 1 : n > 9e18 ? (long)9e18 : (long)n;
}

/* ---- classical Runge-Kutta, 4th order, fixed step (integrate_rk4.c) ---- */
typedef struct mb_rk4 mb_rk4;
mb_rk4 *mb_rk4_create(int n, char *err, size_t errlen);
void mb_rk4_free(mb_rk4 *rk);
/* Called with the stage (1..4) before each evaluation of f and with 0 when the step ends (done or failed): what
 * a right-hand side that keeps a history of first stages needs (the rods' extrapolated inertia, seeds/002.md
 * §2.5: stage 1 is at an accepted point, at c = 0; stages 2 and 3 at c = 1/2, stage 4 at c = 1). */
typedef void mb_stage_hook(void *ctx, int stage);
void mb_rk4_set_stage_hook(mb_rk4 *rk, mb_stage_hook *hook, void *ctx);
/* Advances y (n) from *t to t_out in steps of at most h; *t and y always hold
 * the last step that succeeded. MB_ERR_MAX_STEPS (before any work) when that
 * takes more than max_steps steps (max_steps <= 0: no limit). */
int mb_rk4_advance(mb_rk4 *rk, mb_ode_fn *f, void *ctx, double *t, double *y, double t_out, double h,
                   long max_steps, mb_stats *st, char *err, size_t errlen);

/* ---- Dormand-Prince 5(4), adaptive, dense output (integrate_dopri5.c) ---- */
typedef struct {
    double rtol, atol;      /* error per step: |e_i| <= atol + rtol max(|y_i|, |y_new_i|) in RMS */
    double h0;              /* first step; 0 = chosen from f (Hairer's initial step algorithm) */
    double h_min;           /* a step below max(h_min, 16 eps |t|) is an underflow error */
    double h_max;           /* 0 = no limit */
    double safety;          /* 0.9: aim below the tolerance so the next step is accepted */
    double fac_min, fac_max;/* 0.2, 10: bounds of the step-size change per step */
    long max_steps;         /* per mb_dopri5_advance call; <= 0: no limit */
    int stop_at_out;        /* 1: no step passes t_out (the last one ends on it), so y(t_out) is a step's result, not
                               the continuous extension's (what a discrete adjoint differentiates); 0 (default) */
} mb_dopri5_opts;
void mb_dopri5_opts_default(mb_dopri5_opts *o);
typedef struct mb_dopri5 mb_dopri5;
mb_dopri5 *mb_dopri5_create(int n, const mb_dopri5_opts *o, char *err, size_t errlen);
void mb_dopri5_free(mb_dopri5 *dp);
/* Starts at (t, y): evaluates f there (the first stage, reused by FSAL) and picks the first step. */
int mb_dopri5_reset(mb_dopri5 *dp, mb_ode_fn *f, void *ctx, double t, const double *y, mb_stats *st,
                    char *err, size_t errlen);
/* Steps until the internal time passes t_out and writes y(t_out) into y_out by
 * the 4th-order continuous extension, so evenly spaced outputs cost no extra
 * steps. t_out must not lie before the start of the last step. */
int mb_dopri5_advance(mb_dopri5 *dp, mb_ode_fn *f, void *ctx, double t_out, double *y_out, mb_stats *st,
                      char *err, size_t errlen);
double mb_dopri5_time(const mb_dopri5 *dp);   /* internal time (end of the last step) */
/* The component with the largest scaled error estimate in the last attempted step (for messages). */
int mb_dopri5_worst(const mb_dopri5 *dp);
double mb_dopri5_step(const mb_dopri5 *dp);   /* the step size the next step will try */
/* Called at every accepted step with its start t, its size h and the state y (n) it started from: what a discrete
 * adjoint replays. */
typedef void mb_step_hook(void *ctx, double t, double h, const double *y);
void mb_dopri5_set_step_hook(mb_dopri5 *dp, mb_step_hook *hook, void *ctx);

/* ---- implicit trapezoidal rule = Newmark beta 1/4, gamma 1/2 (integrate_trapezoidal.c) ---- */
typedef struct mb_trap mb_trap;
/* newton_tol: converged when max|dzdd| <= newton_tol (1 + max|zdd|); newton_max_iter >= 1. */
mb_trap *mb_trap_create(int n, double newton_tol, int newton_max_iter, char *err, size_t errlen);
void mb_trap_free(mb_trap *tr);
/* Starts at (t, z, zd): finds the consistent zdd from r(t, z, zd, zdd) = 0. */
int mb_trap_reset(mb_trap *tr, const mb_so_system *sys, double t, const double *z, const double *zd,
                  mb_stats *st, char *err, size_t errlen);
/* Advances to t_out in fixed steps of at most h (as mb_rk4_advance). On an
 * error the state is the last step that succeeded. */
int mb_trap_advance(mb_trap *tr, const mb_so_system *sys, double t_out, double h, long max_steps,
                    mb_stats *st, char *err, size_t errlen);
double mb_trap_time(const mb_trap *tr);
const double *mb_trap_z(const mb_trap *tr);
const double *mb_trap_zd(const mb_trap *tr);
const double *mb_trap_zdd(const mb_trap *tr);
/* The component of the largest correction in the last Newton iteration (for messages). */
int mb_trap_worst(const mb_trap *tr);
/* The acceleration of the step before the last (what the predictor extrapolates from), NULL before a second step. */
const double *mb_trap_zdd_prev(const mb_trap *tr);
/* Back to a state the run passed through, as mb_trap_time, _z, _zd, _zdd and _zdd_prev gave it (zddp NULL: none), so
 * a stretch of the run can be replayed to the same bits (the closed-loop adjoint's checkpoints); a kept tangent is
 * then set again by mb_trap_set_tangent. */
void mb_trap_restore(mb_trap *tr, double t, const double *z, const double *zd, const double *zdd, const double *zddp);
/* 1: keep the tangent's LU across iterations and steps (same step size) while each Newton correction is at most
 * half the one before, rebuilding it when one is not (for systems whose tangent costs many evaluations, as
 * Matrix R's); 0 (default): full Newton, a fresh tangent every iteration. */
void mb_trap_set_reuse(mb_trap *tr, int reuse);
/* With reuse: T (n x n, the system's tangent for coefficients cz, cv, ca = 1, built elsewhere at the last step's
 * solution) becomes the kept tangent, factored here; the sensitivities build it anyway, so the next step's Newton
 * iterations need none of their own. */
int mb_trap_set_tangent(mb_trap *tr, const double *T, double cz, double cv, char *err, size_t errlen);

#endif
