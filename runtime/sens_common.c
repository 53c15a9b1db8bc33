/* sens_common.c: model evaluations, objective partials and the trapezoidal step shared by the DDM and AVM. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mb_work.h"
#include "sens_common.h"

void sens_ctx_free(sens_ctx *c) {
    free(c->obj);
    free(c->K);
    free(c->C);
    free(c->M);
    free(c->T);
    free(c->Fp);
    free(c->r);
    free(c->dx);
    free(c->zp);
    free(c->zdp);
    free(c->fs);
    free(c->work);
    mb_linalg_free(c->la);
    memset(c, 0, sizeof *c);
}

int sens_ctx_init(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, char *err, size_t errlen) {
    const mb_model *m = pr->model;
    memset(c, 0, sizeof *c);
    c->m = m;
    c->n = m->nz;
    c->np = m->np;
    c->ns = o->psi_only ? 0 : m->np;
    c->p = pr->p ? pr->p : m->p_default;
    c->u = pr->u;
    c->integrand = m->objectives[pr->objective].integrand;
    c->terminal = m->objectives[pr->objective].terminal;
    c->newton_tol = o->newton_tol;
    c->newton_max_iter = o->newton_max_iter;
    size_t n = (size_t)c->n, np = (size_t)c->np;
    c->obj = calloc(1 + 3 * n + np, sizeof(double));
    c->K = calloc(n * n, sizeof(double));
    c->C = calloc(n * n, sizeof(double));
    c->M = calloc(n * n, sizeof(double));
    c->T = calloc(n * n, sizeof(double));
    c->Fp = calloc(n * np, sizeof(double));
    c->r = calloc(n, sizeof(double));
    c->dx = calloc(n, sizeof(double));
    c->zp = calloc(n, sizeof(double));
    c->zdp = calloc(n, sizeof(double));
    c->fs = calloc(n * (1 + np), sizeof(double));
    c->work = mb_work_alloc(m);
    c->la = mb_linalg_create(c->n, c->n, c->np > 1 ? c->np : 1, err, errlen);
    if (!c->la) {
        sens_ctx_free(c);
        return MB_ERR_ALLOC;
    }
    if (!c->obj || !c->K || !c->C || !c->M || !c->T || !c->Fp || !c->r || !c->dx || !c->zp || !c->zdp || !c->fs || !c->work) {
        sens_ctx_free(c);
        return mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (nz = %d, np = %d)", m->nz, m->np);
    }
    return MB_OK;
}

static int check(const double *v, size_t len, const char *what, double t, char *err, size_t errlen) {
    for (size_t i = 0; i < len; ++i)
        if (!isfinite(v[i]))
            return mb_fail(err, errlen, MB_ERR_NAN, "sens: %s[%zu] is %s at t = %.10g", what, i,
                           isnan(v[i]) ? "NaN" : "infinite", t);
    return MB_OK;
}

int sens_objective(sens_ctx *c, mb_fn *f, double t, const double *z, const double *zd, const double *zdd,
                   char *err, size_t errlen) {
    mb_args a = {t, z, zd, zdd, c->u, c->p, NULL};
    f(&a, c->obj, c->work);
    return check(c->obj, 1 + 3 * (size_t)c->n + (size_t)c->np, "objective", t, err, errlen);
}

int sens_objective_total(sens_ctx *c, mb_fn *f, double t, const double *z, const double *zd,
                         const double *zdd, const double *S, const double *Sd, const double *Sdd, double w,
                         double *val, double *dval, char *err, size_t errlen) {
    int rc, n = c->n;
    if (!f) return MB_OK;
    if ((rc = sens_objective(c, f, t, z, zd, zdd, err, errlen))) return rc;
    const double *gz = c->obj + 1, *gzd = gz + n, *gzdd = gzd + n, *gp = gzdd + n;
    *val += w * c->obj[0];
    for (int j = 0; j < c->ns; ++j) {
        double s = gp[j];
        size_t off = (size_t)j * n;
        for (int i = 0; i < n; ++i) {
            if (S) s += gz[i] * S[off + i];
            if (Sd) s += gzd[i] * Sd[off + i];
            if (Sdd) s += gzdd[i] * Sdd[off + i];
        }
        dval[j] += w * s;
    }
    return MB_OK;
}

int sens_objective_partials(sens_ctx *c, mb_fn *f, double t, const double *z, const double *zd, const double *zdd,
                            double w, double *lz, double *lzd, double *lzdd, double *grad, char *err, size_t errlen) {
    int rc, n = c->n;
    if (!f) return MB_OK;
    if ((rc = sens_objective(c, f, t, z, zd, zdd, err, errlen))) return rc;
    const double *g = c->obj + 1;
    for (int i = 0; i < n; ++i) {
        lz[i] += w * g[i];
        lzd[i] += w * g[n + i];
        lzdd[i] += w * g[2 * n + i];
    }
    for (int j = 0; j < c->m->np; ++j) grad[j] += w * g[3 * n + j];
    return MB_OK;
}

int sens_jacobians(sens_ctx *c, double t, const double *z, const double *zd, const double *zdd, char *err,
                   size_t errlen) {
    const mb_model *m = c->m;
    mb_args a = {t, z, zd, zdd, c->u, c->p, NULL};
    size_t nn = (size_t)c->n * c->n;
    int rc;
    m->inverse_dynamics_dz(&a, c->K, c->work);
    m->inverse_dynamics_dzd(&a, c->C, c->work);
    m->mass(&a, c->M, c->work);
    m->inverse_dynamics_dp(&a, c->Fp, c->work);
    if ((rc = check(c->K, nn, "inverse_dynamics_dz", t, err, errlen))) return rc;
    if ((rc = check(c->C, nn, "inverse_dynamics_dzd", t, err, errlen))) return rc;
    if ((rc = check(c->M, nn, "mass", t, err, errlen))) return rc;
    return check(c->Fp, (size_t)c->n * c->np, "inverse_dynamics_dp", t, err, errlen);
}

void sens_iteration_matrix(sens_ctx *c, double h) {
    size_t nn = (size_t)c->n * c->n;
    for (size_t k = 0; k < nn; ++k) c->T[k] = c->M[k] + 0.5 * h * c->C[k] + 0.25 * h * h * c->K[k];
}

int sens_directional(sens_ctx *c, double t, const double *z, const double *zd, const double *zdd, const double *AB,
                     double h, char *err, size_t errlen) {
    const mb_model *m = c->m;
    const double w[3] = {0.25 * h * h, 0.5 * h, 1.0};
    mb_args a = {t, z, zd, zdd, c->u, c->p, w};
    size_t n = (size_t)c->n, nS = n * c->np;
    int rc;
    m->inverse_dynamics_tangent(&a, c->T, c->work);
    if ((rc = check(c->T, n * n, "inverse_dynamics_tangent", t, err, errlen))) return rc;
    a.w = AB;
    m->inverse_dynamics_sens(&a, c->fs, c->work);
    memcpy(c->Fp, c->fs + n, nS * sizeof(double));
    return check(c->Fp, nS, "inverse_dynamics_sens", t, err, errlen);
}

/* Operations per evaluation of each route, by the model's counts: the generated functions it calls and the
 * dense work it does here (the jacobian route's n x n products, 4 n^2 per column, and the trapezoidal
 * iteration matrix, 3 n^2); what both do alike (the nominal dynamics of the trapezoidal rule, its
 * factorization and solves) is left out. */
mb_sens_kernel sens_ddm_kernel(const sens_ctx *c, const mb_sens_options *o) {
    const mb_model *m = c->m;
    int trap = o->integrator == MB_INTEGRATOR_TRAPEZOIDAL;
    int rec = trap ? m->inverse_dynamics_sens && m->inverse_dynamics_tangent : m->forward_dynamics_sens != NULL;
    int jac = trap ? m->inverse_dynamics_dz && m->inverse_dynamics_dzd && m->mass && m->inverse_dynamics_dp
                   : m->forward_dynamics_dp && (m->forward_dynamics_dy || (m->forward_dynamics_dz && m->forward_dynamics_dzd));
    if (c->ns == 0 || m->nc > 0) return MB_SENS_KERNEL_AUTO;   /* no sensitivities, or Matrix R */
    if (o->kernel != MB_SENS_KERNEL_AUTO) return o->kernel;
    if (!rec || !jac) return rec ? MB_SENS_KERNEL_RECURSIVE : MB_SENS_KERNEL_JACOBIAN;
    if (!m->slot_ops) return MB_SENS_KERNEL_RECURSIVE;
    const long *ops = m->slot_ops;
    double n2 = (double)c->n * c->n, dense = 4 * n2 * c->ns, r, j;
    if (trap) {
        r = ops[MB_SLOT_inverse_dynamics_tangent] + ops[MB_SLOT_inverse_dynamics_sens];
        j = ops[MB_SLOT_inverse_dynamics_dz] + ops[MB_SLOT_inverse_dynamics_dzd] + ops[MB_SLOT_mass] +
            ops[MB_SLOT_inverse_dynamics_dp] + dense + 3 * n2;
    } else {
        r = ops[MB_SLOT_forward_dynamics_sens];
        j = ops[MB_SLOT_forward_dynamics] + ops[MB_SLOT_forward_dynamics_dp] + dense +
            (m->forward_dynamics_dy ? ops[MB_SLOT_forward_dynamics_dy]
                                    : ops[MB_SLOT_forward_dynamics_dz] + ops[MB_SLOT_forward_dynamics_dzd]);
    }
    return r <= j ? MB_SENS_KERNEL_RECURSIVE : MB_SENS_KERNEL_JACOBIAN;
}

static int residual(sens_ctx *c, double t, const double *z, const double *zd, const double *zdd, char *err,
                    size_t errlen) {
    mb_args a = {t, z, zd, zdd, c->u, c->p, NULL};
    c->m->inverse_dynamics(&a, c->r, c->work);
    c->residuals++;
    return check(c->r, (size_t)c->n, "residual", t, err, errlen);
}

int sens_accel(sens_ctx *c, double t, const double *z, const double *zd, double *zdd, char *err, size_t errlen) {
    int rc, n = c->n;
    for (int i = 0; i < n; ++i) zdd[i] = 0;
    if ((rc = residual(c, t, z, zd, zdd, err, errlen))) return rc;
    mb_args a = {t, z, zd, NULL, c->u, c->p, NULL};
    c->m->mass(&a, c->T, c->work);
    if ((rc = mb_chol_factor(n, c->T, err, errlen))) return rc;
    for (int i = 0; i < n; ++i) zdd[i] = -c->r[i];
    if ((rc = mb_chol_solve(n, c->T, 1, zdd, err, errlen))) return rc;
    return check(zdd, (size_t)n, "acceleration", t, err, errlen);
}

/* Full Newton on zdd1 with z1 = z0 + h zd0 + h^2/4 (zdd0 + zdd1), zd1 = zd0 + h/2 (zdd0 + zdd1): the
 * sensitivities are only as exact as this solve, so it iterates to the tolerance, not to a fixed count. */
int sens_trap_step(sens_ctx *c, double t1, double h, const double *z0, const double *zd0, const double *zdd0,
                   double *z1, double *zd1, double *zdd1, char *err, size_t errlen) {
    int rc, n = c->n;
    for (int i = 0; i < n; ++i) zdd1[i] = zdd0[i];
    for (int it = 0; it < c->newton_max_iter; ++it) {
        for (int i = 0; i < n; ++i) {
            z1[i] = z0[i] + h * zd0[i] + 0.25 * h * h * (zdd0[i] + zdd1[i]);
            zd1[i] = zd0[i] + 0.5 * h * (zdd0[i] + zdd1[i]);
        }
        if ((rc = residual(c, t1, z1, zd1, zdd1, err, errlen))) return rc;
        mb_args a = {t1, z1, zd1, zdd1, c->u, c->p, NULL};
        size_t nn = (size_t)n * n;
        if (c->m->inverse_dynamics_tangent) { /* fused: one pass instead of three matrices */
            const double w[3] = {0.25 * h * h, 0.5 * h, 1.0};
            a.w = w;
            c->m->inverse_dynamics_tangent(&a, c->T, c->work);
            if ((rc = check(c->T, nn, "inverse_dynamics_tangent", t1, err, errlen))) return rc;
        } else {
            c->m->inverse_dynamics_dz(&a, c->K, c->work);
            c->m->inverse_dynamics_dzd(&a, c->C, c->work);
            c->m->mass(&a, c->M, c->work);
            if ((rc = check(c->K, nn, "inverse_dynamics_dz", t1, err, errlen))) return rc;
            if ((rc = check(c->C, nn, "inverse_dynamics_dzd", t1, err, errlen))) return rc;
            sens_iteration_matrix(c, h);
        }
        if ((rc = mb_lu_factor(c->la, n, c->T, err, errlen))) return rc;
        for (int i = 0; i < n; ++i) c->dx[i] = -c->r[i];
        if ((rc = mb_lu_solve(c->la, n, c->T, 1, c->dx, err, errlen))) return rc;
        double dmax = 0, amax = 0;
        for (int i = 0; i < n; ++i) {
            zdd1[i] += c->dx[i];
            dmax = fmax(dmax, fabs(c->dx[i]));
            amax = fmax(amax, fabs(zdd1[i]));
        }
        if (dmax <= c->newton_tol * (1 + amax)) {
            for (int i = 0; i < n; ++i) {
                z1[i] = z0[i] + h * zd0[i] + 0.25 * h * h * (zdd0[i] + zdd1[i]);
                zd1[i] = zd0[i] + 0.5 * h * (zdd0[i] + zdd1[i]);
            }
            return MB_OK;
        }
    }
    return mb_fail(err, errlen, MB_ERR_NEWTON, "sens: trapezoidal Newton did not converge in %d iterations at t = %.10g",
                   c->newton_max_iter, t1);
}

void sens_progress(const mb_sens_options *o, const char *phase, double t, double t0, double t_end) {
    if (o->progress) o->progress(o->progress_ctx, phase, t_end > t0 ? (t - t0) / (t_end - t0) : 1);
}

double sens_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The right-hand side with the progress told at every evaluation. */
typedef struct {
    mb_ode_fn *f;
    void *ctx;
    const mb_sens_options *o;
    double t0, t_end;
} rhs_told;

static int rhs_telling(void *ctx, double t, const double *y, double *f, char *err, size_t errlen) {
    rhs_told *r = ctx;
    sens_progress(r->o, "forward", t, r->t0, r->t_end);
    return r->f(r->ctx, t, y, f, err, errlen);
}

int sens_integrate(const mb_sens_options *o, mb_ode_fn *f, void *ctx, mb_stage_hook *hook, mb_step_hook *steps,
                   double t0, double t_end, double *y, int ny, mb_stats *ist, char *err, size_t errlen) {
    int rc;
    double t = t0;
    /* The hooks keep the caller's context; only f goes through the teller. */
    rhs_told told = {f, ctx, o, t0, t_end};
    void *fctx = ctx;
    if (o->progress) f = rhs_telling, fctx = &told;
    if (o->integrator == MB_INTEGRATOR_RK4) {
        mb_rk4 *rk = mb_rk4_create(ny, err, errlen);
        if (!rk) return MB_ERR_ALLOC;
        if (hook) mb_rk4_set_stage_hook(rk, hook, ctx);
        rc = mb_rk4_advance(rk, f, fctx, &t, y, t_end, o->step, o->max_steps, ist, err, errlen);
        mb_rk4_free(rk);
        return rc;
    }
    mb_dopri5_opts dop;
    mb_dopri5_opts_default(&dop);
    dop.rtol = o->rtol;
    dop.atol = o->atol;
    dop.h0 = o->step > 0 ? o->step : 0;
    dop.max_steps = o->max_steps;
    dop.stop_at_out = 1;   /* psi and the gradient at t_end from a step, as the adjoints replay it */
    mb_dopri5 *dp = mb_dopri5_create(ny, &dop, err, errlen);
    if (!dp) return MB_ERR_ALLOC;
    if (steps) mb_dopri5_set_step_hook(dp, steps, ctx);
    if (!(rc = mb_dopri5_reset(dp, f, fctx, t, y, ist, err, errlen)))
        rc = mb_dopri5_advance(dp, f, fctx, t_end, y, ist, err, errlen);
    mb_dopri5_free(dp);
    return rc;
}
