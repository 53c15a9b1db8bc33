/* sens_direct_mr.c: DDM for closed loops: Matrix R dynamics with full-coordinate sensitivities kept on the constraints. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulation_matrix_r.h"
#include "sens_common.h"
#include "sens_direct.h"

/* The augmented state is [z, zd, S, Sd, psi, grad] as for trees, integrated by rk4 or dopri5. Each
 * evaluation mirrors mb_mr_rhs: the dependent z and zd are re-assembled from the independent ones, and so
 * are the dependent rows of S and Sd, from the linearized constraints
 *     Phi_z S + Phi_p = 0,     Phi_z Sd + V_z S + V_p = 0          (V = Phi_z zd + Phi_t)
 * holding the independent rows. Sdd solves the differentiated index-1 equations
 *     M Sdd + Phi_z' Lambda = -((K + (Phi_z' lambda)_z) S + C Sd + r_p + (Phi_z' lambda)_p)
 *     Phi_z Sdd = -((A_z + b_z) S + b_zd Sd + A_p + b_p)             (A = Phi_z zdd, b = bias)
 * (K, C, r_p: derivatives of r = M zdd - Q; lambda from Phi_z' lambda = -r) by Matrix R:
 * Sdd = X + R W with Phi_z X = rhs2 on the dependent rows and R'MR W = R'(rhs1 - M X). Because the
 * sensitivities follow the scheme's own projections, the gradient is the derivative of the discrete psi. */

typedef struct {
    sens_ctx *c;
    mb_mr *mr;
    int nc, ns, dof;
    int ldb;                              /* leading dimension of B: max(nc, dependent count), as mb_qrp_solve wants */
    double *z, *zd, *zdd, *r, *lam;       /* n, n, n, n, max(n, nc) */
    double *Jz, *Jd, *B, *At;             /* nc x n, nc x n, max(n,nc) x ns, n x nc (Phi_z' for lambda) */
    double *Vz, *Vp, *Az, *Ap, *bz, *bzd, *bp, *TWz, *TWp;
    double *S, *Sd, *Sdd, *rhs1, *X, *R, *MR, *Mb, *W;
    int *dep;
    mb_linalg *qr, *ls;
} mr_ctx;

static void mr_free(mr_ctx *x) {
    mb_mr_free(x->mr);
    double *bufs[] = {x->z, x->zd, x->zdd, x->r, x->lam, x->Jz, x->Jd, x->B, x->At, x->Vz, x->Vp, x->Az, x->Ap,
                      x->bz, x->bzd, x->bp, x->TWz, x->TWp, x->S, x->Sd, x->Sdd, x->rhs1, x->X, x->R, x->MR, x->Mb,
                      x->W};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) free(bufs[i]);
    free(x->dep);
    mb_linalg_free(x->qr);
    mb_linalg_free(x->ls);
}

static int mr_init(mr_ctx *x, sens_ctx *c, char *err, size_t errlen) {
    const mb_model *m = c->m;
    memset(x, 0, sizeof *x);
    x->c = c;
    x->nc = m->nc;
    x->ns = c->ns;
    size_t n = (size_t)c->n, nc = (size_t)m->nc, ns = (size_t)(c->ns > 0 ? c->ns : 1), np = (size_t)(m->np > 0 ? m->np : 1);
    size_t big = n > nc ? n : nc;
    if (!(x->mr = mb_mr_create(m, NULL, err, errlen))) return MB_ERR_MODEL;
    x->z = calloc(n, sizeof(double)), x->zd = calloc(n, sizeof(double)), x->zdd = calloc(n, sizeof(double));
    x->r = calloc(n, sizeof(double)), x->lam = calloc(big, sizeof(double));
    x->Jz = calloc(nc * n, sizeof(double)), x->Jd = calloc(nc * n, sizeof(double));
    x->B = calloc(big * (ns > 1 ? ns : 1), sizeof(double)), x->At = calloc(n * nc, sizeof(double));
    x->Vz = calloc(nc * n, sizeof(double)), x->Vp = calloc(nc * np, sizeof(double));
    x->Az = calloc(nc * n, sizeof(double)), x->Ap = calloc(nc * np, sizeof(double));
    x->bz = calloc(nc * n, sizeof(double)), x->bzd = calloc(nc * n, sizeof(double)), x->bp = calloc(nc * np, sizeof(double));
    x->TWz = calloc(n * n, sizeof(double)), x->TWp = calloc(n * np, sizeof(double));
    x->S = calloc(n * ns, sizeof(double)), x->Sd = calloc(n * ns, sizeof(double)), x->Sdd = calloc(n * ns, sizeof(double));
    x->rhs1 = calloc(n * ns, sizeof(double)), x->X = calloc(n * ns, sizeof(double));
    x->R = calloc(n * n, sizeof(double)), x->MR = calloc(n * n, sizeof(double)), x->Mb = calloc(n * n, sizeof(double));
    x->W = calloc(n * ns, sizeof(double));
    x->dep = calloc(n, sizeof(int));
    x->qr = mb_linalg_create((int)big, (int)big, (int)(ns > 1 ? ns : 1), err, errlen);
    x->ls = mb_linalg_create((int)big, (int)big, (int)(ns > 1 ? ns : 1), err, errlen);
    if (!x->qr || !x->ls) return MB_ERR_ALLOC;
    if (!x->z || !x->zd || !x->zdd || !x->r || !x->lam || !x->Jz || !x->Jd || !x->B || !x->At || !x->Vz || !x->Vp ||
        !x->Az || !x->Ap || !x->bz || !x->bzd || !x->bp || !x->TWz || !x->TWp || !x->S || !x->Sd || !x->Sdd ||
        !x->rhs1 || !x->X || !x->R || !x->MR || !x->Mb || !x->W || !x->dep)
        return mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (matrix_r sensitivities)");
    return MB_OK;
}

/* Dependent rows of Y (n x ns) from Phi_d Y_d = RHS (nc x ns, in x->B with leading dimension big). */
static int solve_dep(mr_ctx *x, int rank, int nd, double *Y, char *err, size_t errlen) {
    int n = x->c->n, nc = x->nc, big = x->ldb;
    int rc = mb_qrp_solve(x->qr, nc, nd, rank, x->Jd, x->ns, x->B, err, errlen);
    if (rc) return rc;
    for (int j = 0; j < x->ns; ++j)
        for (int k = 0; k < nd; ++k) Y[x->dep[k] + (size_t)j * n] = x->B[k + (size_t)j * big];
    return MB_OK;
}

/* y -> f (or, f NULL, just the consistent z, zd, zdd, S, Sd, Sdd in x). */
static int mr_eval(mr_ctx *x, double t, const double *y, double *f, char *err, size_t errlen) {
    sens_ctx *c = x->c;
    const mb_model *m = c->m;
    int n = c->n, nc = x->nc, ns = x->ns, big = n > nc ? n : nc, rc;
    size_t nS = (size_t)n * ns;
    memcpy(x->z, y, (size_t)n * sizeof(double));
    memcpy(x->zd, y + n, (size_t)n * sizeof(double));
    if ((rc = mb_mr_project(x->mr, t, x->z, x->zd, c->p, err, errlen))) return rc;
    if ((rc = mb_mr_accel(x->mr, t, x->z, x->zd, c->u, c->p, x->zdd, err, errlen))) return rc;
    if (ns > 0) {
        mb_kin *kin = mb_mr_kin(x->mr);
        int d = mb_kin_dof(kin), nd = 0, rank;
        const int *ind = mb_kin_independent(kin);
        char isind[4096];
        if (n > (int)sizeof isind) return mb_fail(err, errlen, MB_ERR_ARG, "sens: more than %zu coordinates", sizeof isind);
        memset(isind, 0, (size_t)n);
        for (int k = 0; k < d; ++k) isind[ind[k]] = 1;
        for (int k = 0; k < n; ++k)
            if (!isind[k]) x->dep[nd++] = k;
        big = x->ldb = nc > nd ? nc : nd;
        mb_args a = {t, x->z, x->zd, x->zdd, c->u, c->p, NULL};
        m->constraints_dz(&a, x->Jz);
        for (int k = 0; k < nd; ++k) memcpy(x->Jd + (size_t)k * nc, x->Jz + (size_t)x->dep[k] * nc, (size_t)nc * sizeof(double));
        if ((rc = mb_qrp_factor(x->qr, nc, nd, x->Jd, 0, &rank, err, errlen))) return rc;
        const double *Sy = y + 2 * n, *Sdy = Sy + nS;
        /* S: independent rows from y, dependent from Phi_z S = -Phi_p. */
        memcpy(x->S, Sy, nS * sizeof(double));
        m->constraints_dp(&a, x->Vp);
        for (int j = 0; j < ns; ++j)
            for (int i = 0; i < nc; ++i) {
                double s = x->Vp[i + (size_t)j * nc];
                for (int k = 0; k < d; ++k) s += x->Jz[i + (size_t)ind[k] * nc] * x->S[ind[k] + (size_t)j * n];
                x->B[i + (size_t)j * big] = -s;
            }
        if ((rc = solve_dep(x, rank, nd, x->S, err, errlen))) return rc;
        /* Sd: Phi_z Sd = -(V_z S + V_p). */
        memcpy(x->Sd, Sdy, nS * sizeof(double));
        m->constraint_vel_dz(&a, x->Vz);
        m->constraint_vel_dp(&a, x->Vp);
        for (int j = 0; j < ns; ++j)
            for (int i = 0; i < nc; ++i) {
                double s = x->Vp[i + (size_t)j * nc];
                for (int k = 0; k < n; ++k) s += x->Vz[i + (size_t)k * nc] * x->S[k + (size_t)j * n];
                for (int k = 0; k < d; ++k) s += x->Jz[i + (size_t)ind[k] * nc] * x->Sd[ind[k] + (size_t)j * n];
                x->B[i + (size_t)j * big] = -s;
            }
        if ((rc = solve_dep(x, rank, nd, x->Sd, err, errlen))) return rc;
        /* lambda from Phi_z' lambda = -r (least squares: redundant constraints give the minimum norm). */
        m->inverse_dynamics(&a, x->r);
        for (int i = 0; i < nc; ++i)
            for (int k = 0; k < n; ++k) x->At[k + (size_t)i * n] = x->Jz[i + (size_t)k * nc];
        for (int k = 0; k < n; ++k) x->lam[k] = -x->r[k];
        int lrank;
        if ((rc = mb_lstsq(x->ls, n, nc, 1, x->At, x->lam, 0, &lrank, err, errlen))) return rc;
        mb_args aw = a;
        aw.w = x->lam;
        /* rhs1 = -((K + TWz) S + C Sd + r_p + TWp). */
        m->inverse_dynamics_dz(&a, c->K);
        m->inverse_dynamics_dzd(&a, c->C);
        m->inverse_dynamics_dp(&a, c->Fp);
        m->constraints_dz_tw_dz(&aw, x->TWz);
        m->constraints_dz_tw_dp(&aw, x->TWp);
        for (int j = 0; j < ns; ++j)
            for (int i = 0; i < n; ++i) {
                double s = c->Fp[i + (size_t)j * n] + x->TWp[i + (size_t)j * n];
                for (int k = 0; k < n; ++k)
                    s += (c->K[i + (size_t)k * n] + x->TWz[i + (size_t)k * n]) * x->S[k + (size_t)j * n] +
                         c->C[i + (size_t)k * n] * x->Sd[k + (size_t)j * n];
                x->rhs1[i + (size_t)j * n] = -s;
            }
        /* X: Phi_z X = -((A_z + b_z) S + b_zd Sd + A_p + b_p), zero independent rows. */
        m->constraint_acc_dz(&a, x->Az);
        m->constraint_acc_dp(&a, x->Ap);
        m->constraint_bias_dz(&a, x->bz);
        m->constraint_bias_dzd(&a, x->bzd);
        m->constraint_bias_dp(&a, x->bp);
        for (int j = 0; j < ns; ++j)
            for (int i = 0; i < nc; ++i) {
                double s = x->Ap[i + (size_t)j * nc] + x->bp[i + (size_t)j * nc];
                for (int k = 0; k < n; ++k)
                    s += (x->Az[i + (size_t)k * nc] + x->bz[i + (size_t)k * nc]) * x->S[k + (size_t)j * n] +
                         x->bzd[i + (size_t)k * nc] * x->Sd[k + (size_t)j * n];
                x->B[i + (size_t)j * big] = -s;
            }
        memset(x->X, 0, nS * sizeof(double));
        if ((rc = solve_dep(x, rank, nd, x->X, err, errlen))) return rc;
        /* W = (R'MR)^-1 R'(rhs1 - M X); Sdd = X + R W. The kinematics is factored at z (mb_mr_accel). */
        if ((rc = mb_kin_R(kin, x->R, err, errlen))) return rc;
        m->mass(&a, c->M);
        for (int j = 0; j < ns; ++j)
            for (int i = 0; i < n; ++i) {
                double s = x->rhs1[i + (size_t)j * n];
                for (int k = 0; k < n; ++k) s -= c->M[i + (size_t)k * n] * x->X[k + (size_t)j * n];
                x->rhs1[i + (size_t)j * n] = s;
            }
        for (int q = 0; q < d; ++q)
            for (int i = 0; i < n; ++i) {
                double s = 0;
                for (int k = 0; k < n; ++k) s += c->M[i + (size_t)k * n] * x->R[k + (size_t)q * n];
                x->MR[i + (size_t)q * n] = s;
            }
        for (int q = 0; q < d; ++q) {
            for (int e = 0; e < d; ++e) {
                double s = 0;
                for (int i = 0; i < n; ++i) s += x->R[i + (size_t)q * n] * x->MR[i + (size_t)e * n];
                x->Mb[q + (size_t)e * d] = s;
            }
            for (int j = 0; j < ns; ++j) {
                double s = 0;
                for (int i = 0; i < n; ++i) s += x->R[i + (size_t)q * n] * x->rhs1[i + (size_t)j * n];
                x->W[q + (size_t)j * d] = s;
            }
        }
        if (d > 0) {
            if ((rc = mb_chol_factor(d, x->Mb, err, errlen))) return rc;
            if ((rc = mb_chol_solve(d, x->Mb, ns, x->W, err, errlen))) return rc;
        }
        for (int j = 0; j < ns; ++j)
            for (int i = 0; i < n; ++i) {
                double s = x->X[i + (size_t)j * n];
                for (int q = 0; q < d; ++q) s += x->R[i + (size_t)q * n] * x->W[q + (size_t)j * d];
                x->Sdd[i + (size_t)j * n] = s;
                if (!isfinite(s))
                    return mb_fail(err, errlen, MB_ERR_NAN, "sens: sensitivity acceleration is not finite at t = %.10g", t);
            }
    }
    if (!f) return MB_OK;
    memcpy(f, x->zd, (size_t)n * sizeof(double));
    memcpy(f + n, x->zdd, (size_t)n * sizeof(double));
    memcpy(f + 2 * n, x->Sd, nS * sizeof(double));
    memcpy(f + 2 * n + nS, x->Sdd, nS * sizeof(double));
    double *fq = f + 2 * n + 2 * nS;
    *fq = 0;
    memset(fq + 1, 0, (size_t)ns * sizeof(double));
    return sens_objective_total(c, c->integrand, t, x->z, x->zd, x->zdd, ns ? x->S : NULL, ns ? x->Sd : NULL,
                                ns ? x->Sdd : NULL, 1.0, fq, fq + 1, err, errlen);
}

static int mr_rhs(void *ctx, double t, const double *y, double *f, char *err, size_t errlen) {
    return mr_eval(ctx, t, y, f, err, errlen);
}

int mb_sens_ddm_mr(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, const double *z0,
                   const double *zd0, double *psi, double *grad, mb_sens_stats *st, char *err, size_t errlen) {
    int n = c->n, ns = c->ns, rc;
    size_t nS = (size_t)n * ns, ny = 2 * (size_t)n + 2 * nS + 1 + (size_t)ns;
    mr_ctx x;
    double *y = NULL;
    mb_rk4 *rk = NULL;
    mb_dopri5 *dp = NULL;
    mb_stats ist = {0};
    if ((rc = mr_init(&x, c, err, errlen))) goto done;
    if (!(y = calloc(ny, sizeof(double)))) {
        rc = mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory");
        goto done;
    }
    memcpy(y, z0, (size_t)n * sizeof(double));
    memcpy(y + n, zd0, (size_t)n * sizeof(double));
    if (ns && pr->z0_p) memcpy(y + 2 * n, pr->z0_p, nS * sizeof(double));
    if (ns && pr->zd0_p) memcpy(y + 2 * n + nS, pr->zd0_p, nS * sizeof(double));
    /* As mb_sim: the coordinates given a velocity are preferred as independent. */
    mb_kin_prefer(mb_mr_kin(x.mr), zd0);
    double t = pr->t0;
    if (o->integrator == MB_INTEGRATOR_RK4) {
        if (!(rk = mb_rk4_create((int)ny, err, errlen))) {
            rc = MB_ERR_ALLOC;
            goto done;
        }
        rc = mb_rk4_advance(rk, mr_rhs, &x, &t, y, pr->t_end, o->step, o->max_steps, &ist, err, errlen);
    } else {
        mb_dopri5_opts dop;
        mb_dopri5_opts_default(&dop);
        dop.rtol = o->rtol;
        dop.atol = o->atol;
        dop.h0 = o->step > 0 ? o->step : 0;
        dop.max_steps = o->max_steps;
        if (!(dp = mb_dopri5_create((int)ny, &dop, err, errlen))) {
            rc = MB_ERR_ALLOC;
            goto done;
        }
        if (!(rc = mb_dopri5_reset(dp, mr_rhs, &x, t, y, &ist, err, errlen)))
            rc = mb_dopri5_advance(dp, mr_rhs, &x, pr->t_end, y, &ist, err, errlen);
    }
    if (rc) goto done;
    *psi = y[2 * n + 2 * nS];
    memcpy(grad, y + 2 * n + 2 * nS + 1, (size_t)ns * sizeof(double));
    if (c->terminal) {
        if ((rc = mr_eval(&x, pr->t_end, y, NULL, err, errlen))) goto done;
        rc = sens_objective_total(c, c->terminal, pr->t_end, x.z, x.zd, x.zdd, ns ? x.S : NULL, ns ? x.Sd : NULL,
                                  ns ? x.Sdd : NULL, 1.0, psi, grad, err, errlen);
    }
    st->steps = ist.steps;
    st->rhs_evals = ist.rhs_evals;
done:
    mb_rk4_free(rk);
    mb_dopri5_free(dp);
    free(y);
    mr_free(&x);
    return rc;
}
