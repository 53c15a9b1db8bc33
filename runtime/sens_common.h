/* sens_common.h: internals shared by the DDM and AVM: model evaluations, objective partials, trapezoidal steps. */
#ifndef MB_SENS_COMMON_H
#define MB_SENS_COMMON_H

#include <stddef.h>

#include "linalg.h"
#include "sens.h"

/* One evaluation context: the model at fixed p and u, with every workspace allocated once. */
typedef struct {
    const mb_model *m;
    int n, np;
    int ns;                       /* sensitivity columns: np, or 0 for psi alone (mb_sens_psi) */
    const double *p, *u;
    mb_fn *integrand, *terminal;  /* of the chosen objective; either may be NULL */
    double *obj;                  /* 1 + 3n + np: an objective function's output */
    double *K, *C, *M, *T;        /* n x n: dr/dz, dr/dzd, mass, iteration matrix */
    double *Fp;                   /* n x np: dr/dp */
    double *r, *dx;               /* n */
    double *zp, *zdp;             /* n: Newton trial z and zd */
    double *fs;                   /* n x (1 + np): a _sens function's output */
    mb_sens_kernel kernel;        /* open-tree DDM: the kernel in use (sens_ddm_kernel) */
    double *work;                 /* the model functions' workspace */
    mb_linalg *la;
    double newton_tol;
    int newton_max_iter;
    long residuals, factorizations;
} sens_ctx;

int sens_ctx_init(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, char *err, size_t errlen);
void sens_ctx_free(sens_ctx *c);

/* The objective function f (integrand or terminal) at a state: c->obj = [value, f_z, f_zd, f_zdd, f_p]. */
int sens_objective(sens_ctx *c, mb_fn *f, double t, const double *z, const double *zd, const double *zdd,
                   char *err, size_t errlen);
/* Its value and total derivative along the sensitivities (S, Sd, Sdd: n x np, NULL = 0):
 * dval[j] = f_z S_j + f_zd Sd_j + f_zdd Sdd_j + f_p[j]; both accumulate with weight w. */
int sens_objective_total(sens_ctx *c, mb_fn *f, double t, const double *z, const double *zd,
                         const double *zdd, const double *S, const double *Sd, const double *Sdd, double w,
                         double *val, double *dval, char *err, size_t errlen);

/* The adjoint's view of the same: its partials, weighted, accumulated into lz, lzd, lzdd (n each) and grad (np). */
int sens_objective_partials(sens_ctx *c, mb_fn *f, double t, const double *z, const double *zd, const double *zdd,
                            double w, double *lz, double *lzd, double *lzdd, double *grad, char *err, size_t errlen);

/* K = dr/dz, C = dr/dzd, M and Fp = dr/dp of r = M zdd - Q at a state (into c->K, c->C, c->M, c->Fp). */
int sens_jacobians(sens_ctx *c, double t, const double *z, const double *zd, const double *zdd, char *err,
                   size_t errlen);
/* zdd at (t, z, zd) from r(zdd) = M zdd - Q, linear in zdd: zdd = -M^-1 r(0). */
/* y (ny values) from t0 to t_end with o's rk4 or dopri5 (the integrator objects live inside this call); rk4 tells
 * hook (when not NULL) each stage, as mb_rk4_set_stage_hook does, and dopri5 tells steps (when not NULL) every accepted
 * step, as mb_dopri5_set_step_hook does. */
/* o->progress, if any, at time t of [t0, t_end] (phase "forward" or "adjoint"). */
void sens_progress(const mb_sens_options *o, const char *phase, double t, double t0, double t_end);
/* Wall-clock seconds (CLOCK_MONOTONIC). */
double sens_now(void);

int sens_integrate(const mb_sens_options *o, mb_ode_fn *f, void *ctx, mb_stage_hook *hook, mb_step_hook *steps,
                   double t0, double t_end, double *y, int ny, mb_stats *ist, char *err, size_t errlen);
int sens_accel(sens_ctx *c, double t, const double *z, const double *zd, double *zdd, char *err, size_t errlen);
/* One trapezoidal (Newmark 1/4, 1/2) step of size h to t1 from (z0, zd0, zdd0) by Newton on zdd1. */
int sens_trap_step(sens_ctx *c, double t1, double h, const double *z0, const double *zd0, const double *zdd0,
                   double *z1, double *zd1, double *zdd1, char *err, size_t errlen);
/* T = M + h/2 C + h^2/4 K into c->T from c->K, c->C, c->M (h = 0: T = M). */
void sens_iteration_matrix(sens_ctx *c, double h);
/* The recursive kernel's form of sens_jacobians + sens_iteration_matrix + the products K A + C B: c->T as
 * above by the fused tangent, and c->Fp[:, j] = K A_j + C B_j + dr/dp_j by inverse_dynamics_sens, with
 * AB = [A, B] (n x np each, contiguous). */
int sens_directional(sens_ctx *c, double t, const double *z, const double *zd, const double *zdd, const double *AB,
                     double h, char *err, size_t errlen);
/* The open-tree DDM's kernel for o (mb_sens_kernel): the forced one, or the cheaper by the model's counts. */
mb_sens_kernel sens_ddm_kernel(const sens_ctx *c, const mb_sens_options *o);

/* The DDM of closed loops (sens_matrix_r.c): rk4 or dopri5 on the Matrix R formulation, from the
 * initial guess z0, zd0 (assembled there); called by mb_sens_ddm for models with constraints. */
int mb_sens_ddm_mr(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, const double *z0,
                   const double *zd0, double *psi, double *grad, mb_sens_stats *st, char *err, size_t errlen);

/* The AVM of closed loops (sens_matrix_r.c): the discrete adjoint of rk4 or of the trapezoidal rule on the Matrix R
 * formulation. */
int mb_sens_avm_mr(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, const double *z0,
                   const double *zd0, double *psi, double *grad, mb_sens_stats *st, char *err, size_t errlen);

#endif
