/* sens_adjoint.c: AVM, the adjoint of the discrete trapezoidal scheme swept backward over checkpointed segments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sens_adjoint.h"
#include "sens_common.h"

/* The forward DDM recurrence (sens_direct.c) per step k-1 -> k, with A = S + h Sd + h^2/4 Sdd and
 * B = Sd + h/2 Sdd of step k-1: T_k Sdd_k = -(Fp_k + K_k A + C_k B), S_k = A + h^2/4 Sdd_k,
 * Sd_k = B + h/2 Sdd_k. The gradient is sum_k w_k (g_z S_k + g_zd Sd_k + g_zdd Sdd_k + g_p) plus the
 * terminal term. Its adjoint: with lambda_k = (la, lb, lc) = d grad / d (S_k, Sd_k, Sdd_k),
 *   mu = T_k^-T (lc + h^2/4 la + h/2 lb), grad -= Fp_k' mu, dA = la - K_k' mu, dB = lb - C_k' mu,
 *   lambda_{k-1} = (alpha + dA, beta + h dA + dB, gamma + h^2/4 dA + h/2 dB)
 * where (alpha, beta, gamma) are the objective's weighted partials at k-1; at k = 0 T is M and the
 * remaining (la, lb) meet the initial sensitivities (the t0 boundary term). */

typedef struct {
    sens_ctx *c;
    const mb_sens_problem *pr;
    long N;
    double h;
    int n, np;
    double *la, *lb, *lc, *dA, *dB, *mu, *Tt;
} adj;

static double time_of(const adj *a, long k) { return k == a->N ? a->pr->t_end : a->pr->t0 + k * a->h; }

/* The objective's partials at index k, weighted, into (alpha, beta, gamma) = (la, lb, lc) += ..., grad += g_p. */
static int add_partials(adj *a, mb_fn *f, double w, long k, const double *x, double *grad, char *err,
                        size_t errlen) {
    int n = a->n;
    return sens_objective_partials(a->c, f, time_of(a, k), x, x + n, x + 2 * n, w, a->la, a->lb, a->lc, grad, err,
                                   errlen);
}

/* Index k of the backward sweep at state x = (z, zd, zdd)_k; dA, dB hold what step k+1 passed back. */
static int visit(adj *a, long k, const double *x, double *grad, char *err, size_t errlen) {
    sens_ctx *c = a->c;
    int rc, n = a->n, np = a->np;
    double h = a->h, t = time_of(a, k);
    if (k == a->N) {
        memset(a->la, 0, (size_t)n * sizeof(double));
        memset(a->lb, 0, (size_t)n * sizeof(double));
        memset(a->lc, 0, (size_t)n * sizeof(double));
    } else {
        for (int i = 0; i < n; ++i) {
            a->la[i] = a->dA[i];
            a->lb[i] = h * a->dA[i] + a->dB[i];
            a->lc[i] = 0.25 * h * h * a->dA[i] + 0.5 * h * a->dB[i];
        }
    }
    double w = (k == 0 || k == a->N) ? 0.5 * h : h;
    if ((rc = add_partials(a, c->integrand, w, k, x, grad, err, errlen))) return rc;
    if (k == a->N && (rc = add_partials(a, c->terminal, 1.0, k, x, grad, err, errlen))) return rc;

    if ((rc = sens_jacobians(c, t, x, x + n, x + 2 * n, err, errlen))) return rc;
    double hk = k > 0 ? h : 0;
    sens_iteration_matrix(c, hk);
    for (int i = 0; i < n; ++i) {
        a->mu[i] = a->lc[i] + 0.25 * hk * hk * a->la[i] + 0.5 * hk * a->lb[i];
        for (int j = 0; j < n; ++j) a->Tt[j + (size_t)i * n] = c->T[i + (size_t)j * n];
    }
    if ((rc = mb_lu_factor(c->la, n, a->Tt, err, errlen))) return rc;
    if ((rc = mb_lu_solve(c->la, n, a->Tt, 1, a->mu, err, errlen))) return rc;
    c->factorizations++;
    for (int j = 0; j < np; ++j) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += c->Fp[i + (size_t)j * n] * a->mu[i];
        grad[j] -= s;
    }
    for (int j = 0; j < n; ++j) {
        double sk = 0, sc = 0;
        for (int i = 0; i < n; ++i) {
            sk += c->K[i + (size_t)j * n] * a->mu[i];
            sc += c->C[i + (size_t)j * n] * a->mu[i];
        }
        a->dA[j] = a->la[j] - sk;
        a->dB[j] = a->lb[j] - sc;
    }
    if (k == 0) {
        /* t0 boundary term: the initial sensitivities against what is left of the adjoint. */
        const double *S0 = a->pr->z0_p, *Sd0 = a->pr->zd0_p;
        for (int j = 0; j < np; ++j) {
            double s = 0;
            for (int i = 0; i < n; ++i) {
                if (S0) s += S0[i + (size_t)j * n] * a->dA[i];
                if (Sd0) s += Sd0[i + (size_t)j * n] * a->dB[i];
            }
            grad[j] += s;
        }
    }
    return MB_OK;
}

int mb_sens_avm(const mb_sens_problem *pr, const mb_sens_options *o, double *psi, double *grad,
                mb_sens_stats *st, char *err, size_t errlen) {
    const mb_model *m = pr->model;
    sens_ctx c;
    int rc = sens_ctx_init(&c, pr, o, err, errlen);
    if (rc) return rc;
    int n = m->nz, np = m->np;
    if (m->nc > 0) {
        double *zz = calloc(2 * (size_t)n, sizeof(double));
        if (!zz) {
            sens_ctx_free(&c);
            return mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory");
        }
        const double *zs = pr->z0 ? pr->z0 : m->z0, *zds = pr->zd0 ? pr->zd0 : m->zd0;
        if (zs) memcpy(zz, zs, (size_t)n * sizeof(double));
        if (zds) memcpy(zz + n, zds, (size_t)n * sizeof(double));
        rc = mb_sens_avm_mr(&c, pr, o, zz, zz + n, psi, grad, st, err, errlen);
        free(zz);
        sens_ctx_free(&c);
        return rc;
    }
    size_t x3 = 3 * (size_t)n;
    long N = mb_fixed_step_count(pr->t0, pr->t_end, o->step);
    if (o->max_steps > 0 && N > o->max_steps) {
        sens_ctx_free(&c);
        return mb_fail(err, errlen, MB_ERR_MAX_STEPS, "sens: %ld steps are more than max_steps = %ld", N, o->max_steps);
    }
    long K = o->checkpoints > 0 ? o->checkpoints : (long)ceil(sqrt((double)N));
    if (K > N) K = N;
    long L = (N + K - 1) / K; /* steps per segment */
    K = (N + L - 1) / L;
    adj a = {&c, pr, N, (pr->t_end - pr->t0) / N, n, np, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    double *ck = calloc((size_t)K * x3, sizeof(double));
    double *seg = calloc((size_t)(L + 1) * x3, sizeof(double));
    double *vec = calloc(6 * (size_t)n + (size_t)n * n, sizeof(double));
    double *scratch = calloc((size_t)np + 1, sizeof(double));
    if (!ck || !seg || !vec || !scratch) {
        rc = mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory for %ld checkpoints and segments of %ld steps",
                     K, L);
        goto done;
    }
    a.la = vec, a.lb = vec + n, a.lc = vec + 2 * n, a.dA = vec + 3 * n, a.dB = vec + 4 * n, a.mu = vec + 5 * n;
    a.Tt = vec + 6 * n;
    st->stored_states = K + L + 1;

    /* Forward: psi by the trapezoidal rule, a checkpoint at the start of every segment. */
    double *x = seg, *x1 = seg + x3;
    const double *zs = pr->z0 ? pr->z0 : m->z0, *zds = pr->zd0 ? pr->zd0 : m->zd0;
    if (zs) memcpy(x, zs, (size_t)n * sizeof(double));
    if (zds) memcpy(x + n, zds, (size_t)n * sizeof(double));
    double w0 = sens_now();
    if ((rc = sens_accel(&c, pr->t0, x, x + n, x + 2 * n, err, errlen))) goto done;
    *psi = 0;
    for (long k = 0; k <= N; ++k) {
        sens_progress(o, "forward", time_of(&a, k), pr->t0, pr->t_end);
        if (k > 0) {
            if ((rc = sens_trap_step(&c, time_of(&a, k), a.h, x, x + n, x + 2 * n, x1, x1 + n, x1 + 2 * n, err,
                                     errlen)))
                goto done;
            memcpy(x, x1, x3 * sizeof(double));
            st->steps++;
        }
        if (k % L == 0 && k < N) memcpy(ck + (size_t)(k / L) * x3, x, x3 * sizeof(double));
        double w = (k == 0 || k == N) ? 0.5 * a.h : a.h;
        if ((rc = sens_objective_total(&c, c.integrand, time_of(&a, k), x, x + n, x + 2 * n, NULL, NULL, NULL, w,
                                       psi, scratch, err, errlen)))
            goto done;
        if (k == N && (rc = sens_objective_total(&c, c.terminal, time_of(&a, k), x, x + n, x + 2 * n, NULL, NULL,
                                                 NULL, 1.0, psi, scratch, err, errlen)))
            goto done;
    }

    /* Backward, segment by segment: recompute its states from the checkpoint, then sweep them. */
    st->seconds_forward = sens_now() - w0;
    memset(grad, 0, (size_t)np * sizeof(double));
    for (long s = K - 1; s >= 0; --s) {
        long start = s * L, end = start + L < N ? start + L : N;
        sens_progress(o, "adjoint", pr->t0 + pr->t_end - time_of(&a, end), pr->t0, pr->t_end);
        memcpy(seg, ck + (size_t)s * x3, x3 * sizeof(double));
        for (long k = start + 1; k <= end; ++k) {
            double *xp = seg + (size_t)(k - 1 - start) * x3, *xk = xp + x3;
            if ((rc = sens_trap_step(&c, time_of(&a, k), a.h, xp, xp + n, xp + 2 * n, xk, xk + n, xk + 2 * n, err,
                                     errlen)))
                goto done;
            st->recomputed_steps++;
        }
        long top = end == N ? N : end - 1;
        for (long k = top; k >= start; --k)
            if ((rc = visit(&a, k, seg + (size_t)(k - start) * x3, grad, err, errlen))) goto done;
    }
done:
    st->rhs_evals = c.residuals;
    st->factorizations = c.factorizations;
    free(ck);
    free(seg);
    free(vec);
    free(scratch);
    sens_ctx_free(&c);
    return rc;
}
