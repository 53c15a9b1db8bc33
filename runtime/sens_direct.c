/* sens_direct.c: DDM, the sensitivities S = dz/dp integrated alongside the motion (augmented or trapezoidal). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mb_work.h"
#include "sens_common.h"
#include "sens_direct.h"

/* ---- rk4 and dopri5: y = [z, zd, S, Sd, psi, grad] of size 2n + 2n np + 1 + np ---- */

typedef struct {
    sens_ctx *c;
    double *Fz, *Fzd, *Fp; /* n x n, n x n (right after Fz), n x np: forward-dynamics derivatives */
    double *zdd, *Sdd;     /* n, n x np (the recursive kernel: both point into c->fs) */
} aug_ctx;

/* The recursive kernel: zdd and every Sdd_j = d zdd along (S_j, Sd_j, e_j) in one call, reading [S, Sd]
 * where they lie in y. */
static int aug_recursive(aug_ctx *x, double t, const double *y) {
    sens_ctx *c = x->c;
    mb_args a = {t, y, y + c->n, NULL, c->u, c->p, y + 2 * c->n};
    return c->m->forward_dynamics_sens(&a, c->fs, c->work);
}

static int aug_eval(aug_ctx *x, double t, const double *y, double *f, char *err, size_t errlen) {
    sens_ctx *c = x->c;
    const mb_model *m = c->m;
    int n = c->n, np = c->ns, rc;
    size_t nS = (size_t)n * np;
    const double *z = y, *zd = y + n, *S = y + 2 * n, *Sd = S + nS;
    mb_args a = {t, z, zd, NULL, c->u, c->p, NULL};
    if (c->kernel == MB_SENS_KERNEL_RECURSIVE) {
        if ((rc = aug_recursive(x, t, y))) return mb_fn_status(m, rc, "forward_dynamics_sens", t, err, errlen);
    } else if ((rc = m->forward_dynamics(&a, x->zdd, c->work))) {
        return mb_fn_status(m, rc, "forward_dynamics", t, err, errlen);
    }
    if (np > 0 && c->kernel != MB_SENS_KERNEL_RECURSIVE) {
        /* [Fz, Fzd] in one call where the model has the fused form: one recursion and one factorization. */
        if (m->forward_dynamics_dy) {
            if ((rc = m->forward_dynamics_dy(&a, x->Fz, c->work)))
                return mb_fn_status(m, rc, "forward_dynamics_dy", t, err, errlen);
        } else {
            if ((rc = m->forward_dynamics_dz(&a, x->Fz, c->work)))
                return mb_fn_status(m, rc, "forward_dynamics_dz", t, err, errlen);
            if ((rc = m->forward_dynamics_dzd(&a, x->Fzd, c->work)))
                return mb_fn_status(m, rc, "forward_dynamics_dzd", t, err, errlen);
        }
        if ((rc = m->forward_dynamics_dp(&a, x->Fp, c->work)))
            return mb_fn_status(m, rc, "forward_dynamics_dp", t, err, errlen);
    }
    for (int j = 0; j < np && c->kernel != MB_SENS_KERNEL_RECURSIVE; ++j)
        for (int i = 0; i < n; ++i) {
            double s = x->Fp[i + (size_t)j * n];
            for (int k = 0; k < n; ++k)
                s += x->Fz[i + (size_t)k * n] * S[k + (size_t)j * n] + x->Fzd[i + (size_t)k * n] * Sd[k + (size_t)j * n];
            x->Sdd[i + (size_t)j * n] = s;
        }
    for (size_t i = 0; i < nS; ++i)
        if (!isfinite(x->Sdd[i]))
            return mb_fail(err, errlen, MB_ERR_NAN, "sens: sensitivity acceleration is not finite at t = %.10g", t);
    if (!f) return MB_OK;
    memcpy(f, zd, (size_t)n * sizeof(double));
    memcpy(f + n, x->zdd, (size_t)n * sizeof(double));
    memcpy(f + 2 * n, Sd, nS * sizeof(double));
    memcpy(f + 2 * n + nS, x->Sdd, nS * sizeof(double));
    double *fq = f + 2 * n + 2 * nS, *fqp = fq + 1;
    *fq = 0;
    memset(fqp, 0, (size_t)np * sizeof(double));
    if ((rc = sens_objective_total(c, c->integrand, t, z, zd, x->zdd, S, Sd, x->Sdd, 1.0, fq, fqp, err, errlen)))
        return rc;
    return MB_OK;
}

static int aug_rhs(void *ctx, double t, const double *y, double *f, char *err, size_t errlen) {
    return aug_eval(ctx, t, y, f, err, errlen);
}

static int ddm_explicit(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, const double *z0,
                        const double *zd0, double *psi, double *grad, mb_sens_stats *st, char *err, size_t errlen) {
    int n = c->n, np = c->ns, rc = MB_OK;
    size_t nS = (size_t)n * np, ny = 2 * (size_t)n + 2 * nS + 1 + (size_t)np;
    size_t nS1 = nS > 0 ? nS : 1; /* psi alone: no columns, but calloc(0) may return NULL */
    /* The jacobian route's matrices and outputs; the recursive kernel writes zdd and Sdd into c->fs. */
    int jac = c->kernel != MB_SENS_KERNEL_RECURSIVE;
    size_t nn = (size_t)n * n;
    double *own = jac ? calloc(2 * nn + nS1 + n + nS1, sizeof(double)) : NULL;
    aug_ctx x = {c, NULL, NULL, NULL, c->fs, c->fs + n};
    if (own) x = (aug_ctx){c, own, own + nn, own + 2 * nn, own + 2 * nn + nS1, own + 2 * nn + nS1 + n};
    double *y = calloc(ny, sizeof(double));
    mb_stats ist = {0};
    if ((jac && !own) || !y) {
        rc = mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (augmented state of %zu)", ny);
        goto done;
    }
    memcpy(y, z0, (size_t)n * sizeof(double));
    memcpy(y + n, zd0, (size_t)n * sizeof(double));
    if (pr->z0_p) memcpy(y + 2 * n, pr->z0_p, nS * sizeof(double));
    if (pr->zd0_p) memcpy(y + 2 * n + nS, pr->zd0_p, nS * sizeof(double));
    double t = pr->t0;
    rc = sens_integrate(o, aug_rhs, &x, NULL, NULL, t, pr->t_end, y, (int)ny, &ist, err, errlen);
    if (rc) goto done;
    /* Terminal term at t_end, with zdd and Sdd from the state reached. */
    const double *S = y + 2 * n, *Sd = S + nS;
    *psi = y[2 * n + 2 * nS];
    memcpy(grad, y + 2 * n + 2 * nS + 1, (size_t)np * sizeof(double));
    if (c->terminal) {
        if ((rc = aug_eval(&x, pr->t_end, y, NULL, err, errlen))) goto done;
        rc = sens_objective_total(c, c->terminal, pr->t_end, y, y + n, x.zdd, S, Sd, x.Sdd, 1.0, psi, grad, err,
                                  errlen);
    }
    st->steps = ist.steps;
    st->rhs_evals = ist.rhs_evals;
done:
    free(own);
    free(y);
    return rc;
}

/* ---- trapezoidal: one Newton-converged step, then T S''_{n+1} = -(Fp + K A + C B) for all columns (the recursive
 * kernel: that right-hand side as directional derivatives of the residual, T by the fused tangent) ---- */

static int ddm_trapezoidal(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, const double *z0,
                           const double *zd0, double *psi, double *grad, mb_sens_stats *st, char *err,
                           size_t errlen) {
    int n = c->n, np = c->ns, rc = MB_OK;
    size_t nS = (size_t)n * np;
    double *buf = calloc(6 * (size_t)n + 5 * nS, sizeof(double));
    if (!buf) return mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory");
    double *z = buf, *zd = z + n, *zdd = zd + n, *z1 = zdd + n, *zd1 = z1 + n, *zdd1 = zd1 + n;
    double *S = zdd1 + n, *Sd = S + nS, *Sdd = Sd + nS, *A = Sdd + nS, *B = A + nS;
    memcpy(z, z0, (size_t)n * sizeof(double));
    memcpy(zd, zd0, (size_t)n * sizeof(double));
    if (pr->z0_p) memcpy(S, pr->z0_p, nS * sizeof(double));
    if (pr->zd0_p) memcpy(Sd, pr->zd0_p, nS * sizeof(double));
    long N = mb_fixed_step_count(pr->t0, pr->t_end, o->step);
    if (o->max_steps > 0 && N > o->max_steps) {
        free(buf);
        return mb_fail(err, errlen, MB_ERR_MAX_STEPS, "sens: %ld steps are more than max_steps = %ld", N, o->max_steps);
    }
    double h = (pr->t_end - pr->t0) / N;
    /* t0: zdd from the dynamics, Sdd = -M^-1 (Fp + K S + C Sd). */
    if ((rc = sens_accel(c, pr->t0, z, zd, zdd, err, errlen))) goto done;
    for (long k = 0; k <= N; ++k) {
        double t = k == N ? pr->t_end : pr->t0 + k * h;
        sens_progress(o, "forward", t, pr->t0, pr->t_end);
        if (k > 0) {
            for (size_t i = 0; i < nS; ++i) {
                A[i] = S[i] + h * Sd[i] + 0.25 * h * h * Sdd[i];
                B[i] = Sd[i] + 0.5 * h * Sdd[i];
            }
            if ((rc = sens_trap_step(c, t, h, z, zd, zdd, z1, zd1, zdd1, err, errlen))) goto done;
            memcpy(z, z1, (size_t)n * sizeof(double));
            memcpy(zd, zd1, (size_t)n * sizeof(double));
            memcpy(zdd, zdd1, (size_t)n * sizeof(double));
            st->steps++;
        } else {
            memcpy(A, S, nS * sizeof(double));
            memcpy(B, Sd, nS * sizeof(double));
        }
        if (np > 0 && c->kernel == MB_SENS_KERNEL_RECURSIVE) {   /* Fp := K A + C B + dr/dp, O(n) per column */
            if ((rc = sens_directional(c, t, z, zd, zdd, A, k > 0 ? h : 0, err, errlen))) goto done;
            for (size_t i = 0; i < nS; ++i) Sdd[i] = -c->Fp[i];
        } else if (np > 0) {
            if ((rc = sens_jacobians(c, t, z, zd, zdd, err, errlen))) goto done;
            sens_iteration_matrix(c, k > 0 ? h : 0);
        }
        for (int j = 0; j < np && c->kernel != MB_SENS_KERNEL_RECURSIVE; ++j)
            for (int i = 0; i < n; ++i) {
                double s = c->Fp[i + (size_t)j * n];
                for (int l = 0; l < n; ++l)
                    s += c->K[i + (size_t)l * n] * A[l + (size_t)j * n] + c->C[i + (size_t)l * n] * B[l + (size_t)j * n];
                Sdd[i + (size_t)j * n] = -s;
            }
        if (np > 0) {
            if ((rc = mb_lu_factor(c->la, n, c->T, err, errlen))) goto done;
            if ((rc = mb_lu_solve(c->la, n, c->T, np, Sdd, err, errlen))) goto done;
            c->factorizations++;
        }
        double hk = k > 0 ? h : 0;
        for (size_t i = 0; i < nS; ++i) {
            S[i] = A[i] + 0.25 * hk * hk * Sdd[i];
            Sd[i] = B[i] + 0.5 * hk * Sdd[i];
        }
        double w = (k == 0 || k == N) ? 0.5 * h : h;
        if ((rc = sens_objective_total(c, c->integrand, t, z, zd, zdd, S, Sd, Sdd, w, psi, grad, err, errlen)))
            goto done;
        if (k == N &&
            (rc = sens_objective_total(c, c->terminal, t, z, zd, zdd, S, Sd, Sdd, 1.0, psi, grad, err, errlen)))
            goto done;
    }
done:
    st->rhs_evals = c->residuals;
    st->factorizations = c->factorizations;
    free(buf);
    return rc;
}

int mb_sens_ddm(const mb_sens_problem *pr, const mb_sens_options *o, double *psi, double *grad,
                mb_sens_stats *st, char *err, size_t errlen) {
    const mb_model *m = pr->model;
    sens_ctx c;
    int rc = sens_ctx_init(&c, pr, o, err, errlen);
    if (rc) return rc;
    double *z0 = calloc(2 * (size_t)m->nz, sizeof(double)), *zd0 = z0 ? z0 + m->nz : NULL;
    if (!z0) {
        sens_ctx_free(&c);
        return mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory");
    }
    const double *zs = pr->z0 ? pr->z0 : m->z0, *zds = pr->zd0 ? pr->zd0 : m->zd0;
    if (zs) memcpy(z0, zs, (size_t)m->nz * sizeof(double));
    if (zds) memcpy(zd0, zds, (size_t)m->nz * sizeof(double));
    *psi = 0;
    memset(grad, 0, (size_t)c.ns * sizeof(double));
    c.kernel = sens_ddm_kernel(&c, o);
    st->kernel = c.kernel;
    if (m->nc > 0)
        rc = mb_sens_ddm_mr(&c, pr, o, z0, zd0, psi, grad, st, err, errlen);
    else if (o->integrator == MB_INTEGRATOR_TRAPEZOIDAL)
        rc = ddm_trapezoidal(&c, pr, o, z0, zd0, psi, grad, st, err, errlen);
    else
        rc = ddm_explicit(&c, pr, o, z0, zd0, psi, grad, st, err, errlen);
    free(z0);
    sens_ctx_free(&c);
    return rc;
}
