/* matrix_r_tangent.c: the tangent linear model of the Matrix R motion: d zdd along directions in (z, zd) or p. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg.h"
#include "matrix_r_tangent.h"
#include "mb_work.h"

struct mb_mrt {
    const mb_model *m;
    int n, nc, np, cap, ldb;              /* ldb = max(n, nc): B's leading dimension */
    double *r, *lam;                      /* n, max(n, nc) */
    double *Jz, *B;                       /* nc x n, ldb x cap */
    double *K, *C, *M, *Fp;               /* n x n (three; M for trees only), n x np */
    double *Vz, *Vp, *Az, *Ap, *bz, *bzd, *bp, *TWz, *TWp;
    double *rhs1, *X, *W;
    const double *dzhat;                  /* rod modes: the directions of the extrapolated accelerations (n x ns) */
    double *xr, *rv, *RZ, *RP;            /* rod modes: zdd - zhat, one M_rod v, d(M_rod x)/dz and /dp at x = xr */
    double *work;                         /* the model functions' workspace */
    double *zs, ts;                       /* the state (z, zd) and time of the last mb_mrt_directions call */
    int stamped;                          /* 1 while the matrices above are those of that state */
    double *gS, *gSd, *g;                 /* mb_mrt_transpose: adjoints of S, Sd (n each) and one of n */
};

void mb_mrt_free(mb_mrt *x) {
    if (!x) return;
    double *bufs[] = {x->r, x->lam, x->Jz, x->B, x->K, x->C, x->M, x->Fp, x->Vz, x->Vp, x->Az, x->Ap, x->bz,
                      x->bzd, x->bp, x->TWz, x->TWp, x->rhs1, x->X, x->W, x->xr, x->rv, x->RZ, x->RP, x->work,
                      x->zs, x->gS, x->gSd, x->g};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) free(bufs[i]);
    free(x);
}

mb_mrt *mb_mrt_create(const mb_model *m, int cap, int with_p, char *err, size_t errlen) {
    /* p: needed for directions in p only; c: a constraint's slot, needed only with constraints (a tree's
     * tangent is M^-1 applied to -(K S + C Sd + r_p)). */
    struct {
        const char *name;
        mb_fn *fn;
        int p, c;
    } need[] = {
        {"mass", m->mass, 0, 0}, {"inverse_dynamics", m->inverse_dynamics, 0, 0},
        {"inverse_dynamics_dz", m->inverse_dynamics_dz, 0, 0}, {"inverse_dynamics_dzd", m->inverse_dynamics_dzd, 0, 0},
        {"constraints_dz", m->constraints_dz, 0, 1}, {"constraint_vel_dz", m->constraint_vel_dz, 0, 1},
        {"constraint_acc_dz", m->constraint_acc_dz, 0, 1}, {"constraint_bias_dz", m->constraint_bias_dz, 0, 1},
        {"constraint_bias_dzd", m->constraint_bias_dzd, 0, 1}, {"constraints_dz_tw_dz", m->constraints_dz_tw_dz, 0, 1},
        {"inverse_dynamics_dp", m->inverse_dynamics_dp, 1, 0}, {"constraints_dp", m->constraints_dp, 1, 1},
        {"constraint_vel_dp", m->constraint_vel_dp, 1, 1}, {"constraint_acc_dp", m->constraint_acc_dp, 1, 1},
        {"constraint_bias_dp", m->constraint_bias_dp, 1, 1}, {"constraints_dz_tw_dp", m->constraints_dz_tw_dp, 1, 1},
    };
    for (size_t i = 0; i < sizeof need / sizeof *need; ++i)
        if (!need[i].fn && (!need[i].p || (with_p && m->np > 0)) && (!need[i].c || m->nc > 0)) {
            mb_fail(err, errlen, MB_ERR_MODEL, "model %s lacks %s, which the Matrix R tangent needs",
                    m->name ? m->name : "?", need[i].name);
            return NULL;
        }
    mb_mrt *x = calloc(1, sizeof *x);
    if (!x) goto nomem;
    x->m = m;
    x->n = m->nz;
    x->nc = m->nc;
    x->np = m->np;
    x->cap = cap > 0 ? cap : 1;
    size_t n = (size_t)m->nz, nc = (size_t)m->nc, ns = (size_t)x->cap, np = (size_t)(m->np > 0 ? m->np : 1);
    size_t big = n > nc ? n : nc;
    x->ldb = (int)big;
    x->r = calloc(n, sizeof(double)), x->lam = calloc(big, sizeof(double));
    x->Jz = calloc(nc * n, sizeof(double)), x->B = calloc(big * ns, sizeof(double));
    x->K = calloc(n * n, sizeof(double)), x->C = calloc(n * n, sizeof(double)), x->M = calloc(n * n, sizeof(double));
    x->Fp = calloc(n * np, sizeof(double));
    x->Vz = calloc(nc * n, sizeof(double)), x->Vp = calloc(nc * np, sizeof(double));
    x->Az = calloc(nc * n, sizeof(double)), x->Ap = calloc(nc * np, sizeof(double));
    x->bz = calloc(nc * n, sizeof(double)), x->bzd = calloc(nc * n, sizeof(double)), x->bp = calloc(nc * np, sizeof(double));
    x->TWz = calloc(n * n, sizeof(double)), x->TWp = calloc(n * np, sizeof(double));
    x->rhs1 = calloc(n * ns, sizeof(double)), x->X = calloc(n * ns, sizeof(double));
    x->W = calloc(n * ns, sizeof(double));
    x->zs = calloc(2 * n, sizeof(double));
    x->gS = calloc(n, sizeof(double)), x->gSd = calloc(n, sizeof(double)), x->g = calloc(n, sizeof(double));
    x->work = mb_work_alloc(m);
    if (m->rod_inertia && (!(x->xr = calloc(n, sizeof(double))) || !(x->rv = calloc(n, sizeof(double))) ||
                           !(x->RZ = calloc(n * n, sizeof(double))) || !(x->RP = calloc(n * np, sizeof(double)))))
        goto nomem;
    if (!x->r || !x->lam || !x->Jz || !x->B || !x->K || !x->C || !x->M || !x->Fp || !x->Vz || !x->Vp || !x->Az ||
        !x->Ap || !x->bz || !x->bzd || !x->bp || !x->TWz || !x->TWp || !x->rhs1 || !x->X || !x->W || !x->zs ||
        !x->gS || !x->gSd || !x->g ||
        (m->nwork > 0 && !x->work))
        goto nomem;
    return x;
nomem:
    mb_mrt_free(x);
    mb_fail(err, errlen, MB_ERR_ALLOC, "matrix_r tangent: out of memory (nz = %d)", m->nz);
    return NULL;
}

/* Dependent rows of Y (n x ns) from Phi_d Y_d = RHS (nc x ns, in x->B), by the factors of the dependent block the
 * motion keeps (mb_mr_accel factored it at this z): one factorization per point for the motion and its tangent. */
static int solve_dep(mb_mrt *x, mb_kin *kin, int ns, double *Y, char *err, size_t errlen) {
    int n = x->n, big = x->ldb, nd = mb_kin_rank(kin);
    const int *dep = mb_kin_dependent(kin);
    int rc = mb_kin_solve_dependent(kin, ns, x->B, big, err, errlen);
    if (rc) return rc;
    for (int j = 0; j < ns; ++j)
        for (int k = 0; k < nd; ++k) Y[dep[k] + (size_t)j * n] = x->B[k + (size_t)j * big];
    return MB_OK;
}

/* The design parameter direction j moves (columns p0 .. p0 + np - 1 move p_0 .. p_np-1), or -1. */
static int pcol(const mb_mrt *x, int p0, int j) {
    int jp = j - p0;
    return p0 >= 0 && jp >= 0 && jp < x->np ? jp : -1;
}

static void mul_add(const double *A, const mb_pattern *P, int rows, int cols, double sign, const double *X, int ldx,
                    int ns, double *Y, int ldy);

void mb_mrt_set_rod_directions(mb_mrt *x, const double *dzhat) { x->dzhat = dzhat; }

/* A rod mode's evaluation (mb_mr_rod_form > 0) solved M' zdd = Q - M_rod zhat, M = M' + M_rod: its residual is
 * r' = r - M_rod (zdd - zhat) = r - rho(z, zdd - zhat), rho the generated rod_inertia (or its cross part). Along a
 * direction, rhs (n x ns, the negated residual's change) gains rho_z S + rho_p - rho(z, dzhat_j): the derivatives of
 * rho at x = zdd - zhat, and the extrapolation's own change dzhat_j (mb_mrt_set_rod_directions). r (n, or NULL)
 * becomes r'. */
static int rod_terms(mb_mrt *x, const mb_mr *mr, const mb_args *a, int ns, int p0, const double *S, double *rhs,
                     double *r, char *err, size_t errlen) {
    const mb_model *m = x->m;
    const double *zhat;
    int n = x->n, form = mb_mr_rod_form(mr, &zhat);
    if (!form) return MB_OK;
    mb_fn *rho = form == 2 ? m->rod_inertia_cross : m->rod_inertia;
    mb_fn *rho_z = form == 2 ? m->rod_inertia_cross_dz : m->rod_inertia_dz;
    mb_fn *rho_p = form == 2 ? m->rod_inertia_cross_dp : m->rod_inertia_dp;
    const mb_pattern *PZ = form == 2 ? m->rod_inertia_cross_dz_pattern : m->rod_inertia_dz_pattern;
    if (!rho || !rho_z || !x->xr || (p0 >= 0 && x->np > 0 && !rho_p))
        return mb_fail(err, errlen, MB_ERR_MODEL, "model %s lacks %s%s, which the sensitivities of a rod mode need",
                       m->name ? m->name : "?", form == 2 ? "rod_inertia_cross" : "rod_inertia",
                       !rho || !x->xr ? "" : !rho_z ? "_dz" : "_dp");
    for (int i = 0; i < n; ++i) x->xr[i] = a->zdd[i] - zhat[i];
    mb_args ax = *a;
    ax.zdd = x->xr;
    if (r) {
        rho(&ax, x->rv, x->work);
        for (int i = 0; i < n; ++i) r[i] -= x->rv[i];
    }
    rho_z(&ax, x->RZ, x->work);
    mul_add(x->RZ, PZ, n, n, 1, S, n, ns, rhs, n);
    if (p0 >= 0 && x->np > 0) {
        rho_p(&ax, x->RP, x->work);
        for (int j = 0; j < ns; ++j) {
            int jp = pcol(x, p0, j);
            if (jp >= 0)
                for (int i = 0; i < n; ++i) rhs[i + (size_t)j * n] += x->RP[i + (size_t)jp * n];
        }
    }
    if (x->dzhat)
        for (int j = 0; j < ns; ++j) {
            ax.zdd = x->dzhat + (size_t)j * n;
            rho(&ax, x->rv, x->work);
            for (int i = 0; i < n; ++i) rhs[i + (size_t)j * n] -= x->rv[i];
        }
    return MB_OK;
}

/* Without constraints every coordinate is independent: M Sdd = -(K S + C Sd [+ r_p]). */
static int tree_directions(mb_mrt *x, const mb_mr *mr, const mb_args *a, int ns, int p0, const double *S,
                           const double *Sd, double *Sdd, double t, char *err, size_t errlen) {
    const mb_model *m = x->m;
    int n = x->n, rc, form = mb_mr_rod_form(mr, NULL);
    m->inverse_dynamics_dz(a, x->K, x->work);
    m->inverse_dynamics_dzd(a, x->C, x->work);
    if (p0 >= 0) m->inverse_dynamics_dp(a, x->Fp, x->work);
    (form == 1 ? m->mass_tree : form == 2 ? m->mass_lumped : m->mass)(a, x->M, x->work);
    for (int j = 0; j < ns; ++j)
        for (int i = 0; i < n; ++i) {
            int jp = pcol(x, p0, j);
            double s = jp >= 0 ? x->Fp[i + (size_t)jp * n] : 0;
            for (int k = 0; k < n; ++k)
                s += x->K[i + (size_t)k * n] * S[k + (size_t)j * n] + x->C[i + (size_t)k * n] * Sd[k + (size_t)j * n];
            Sdd[i + (size_t)j * n] = -s;
        }
    if ((rc = rod_terms(x, mr, a, ns, p0, S, Sdd, NULL, err, errlen))) return rc;
    if ((rc = mb_chol_factor(n, x->M, err, errlen))) return rc;
    if ((rc = mb_chol_solve(n, x->M, ns, Sdd, err, errlen))) return rc;
    for (size_t i = 0; i < (size_t)n * ns; ++i)
        if (!isfinite(Sdd[i]))
            return mb_fail(err, errlen, MB_ERR_NAN, "matrix_r tangent: d zdd is not finite at t = %.10g", t);
    return MB_OK;
}

/* Y (rows x ns, leading dimension ldy) += sign A[:, which] X[which, :] for a rows x cols A stored dense with the
 * structural non-zeros P (NULL: all), X with leading dimension ldx, over the count columns listed in which (NULL: all
 * cols): column by column of A, skipping zero entries of X (the unit directions of the implicit rule's tangent are
 * mostly zeros). */
static void mul_add_cols(const double *A, const mb_pattern *P, int rows, int cols, const int *which, int count,
                         double sign, const double *X, int ldx, int ns, double *Y, int ldy) {
    if (P && (P->rows != rows || P->cols != cols)) P = NULL;
    for (int w = 0; w < count; ++w) {
        int k = which ? which[w] : w;
        const double *Ak = A + (size_t)k * rows;
        int lo = P ? P->colptr[k] : 0, hi = P ? P->colptr[k + 1] : rows;
        for (int j = 0; j < ns; ++j) {
            double v = X[k + (size_t)j * ldx];
            if (v == 0) continue;
            v *= sign;
            double *Yj = Y + (size_t)j * ldy;
            if (P)
                for (int q = lo; q < hi; ++q) Yj[P->rowind[q]] += Ak[P->rowind[q]] * v;
            else
                for (int i = 0; i < rows; ++i) Yj[i] += Ak[i] * v;
        }
    }
}

static void mul_add(const double *A, const mb_pattern *P, int rows, int cols, double sign, const double *X, int ldx,
                    int ns, double *Y, int ldy) {
    mul_add_cols(A, P, rows, cols, NULL, cols, sign, X, ldx, ns, Y, ldy);
}

int mb_mrt_directions(mb_mrt *x, mb_mr *mr, double t, const double *z, const double *zd, const double *zdd,
                      const double *u, const double *p, int ns, int p0, double *S, double *Sd, double *Sdd,
                      char *err, size_t errlen) {
    const mb_model *m = x->m;
    int n = x->n, nc = x->nc, big = x->ldb, rc;
    size_t nS = (size_t)n * ns;
    if (ns > x->cap) return mb_fail(err, errlen, MB_ERR_ARG, "matrix_r tangent: %d directions, room for %d", ns, x->cap);
    if (p0 >= 0 && p0 + x->np > ns)
        return mb_fail(err, errlen, MB_ERR_ARG, "matrix_r tangent: the %d directions in p start at %d of %d", x->np, p0, ns);
    mb_kin *kin = mb_mr_kin(mr);
    int d = mb_kin_dof(kin);
    const int *ind = mb_kin_independent(kin);
    mb_args a = {t, z, zd, zdd, u, p, NULL};
    x->stamped = 0;
    if (nc == 0) return tree_directions(x, mr, &a, ns, p0, S, Sd, Sdd, t, err, errlen);
    m->constraints_dz(&a, x->Jz, x->work);
    /* S: independent rows given, dependent from Phi_z S = -Phi_p. */
    const mb_pattern *PJ = m->constraints_dz_pattern;
    if (p0 >= 0) m->constraints_dp(&a, x->Vp, x->work);
    for (int j = 0; j < ns; ++j)
        for (int i = 0, jp = pcol(x, p0, j); i < nc; ++i) x->B[i + (size_t)j * big] = jp >= 0 ? -x->Vp[i + (size_t)jp * nc] : 0;
    mul_add_cols(x->Jz, PJ, nc, n, ind, d, -1, S, n, ns, x->B, big);
    if ((rc = solve_dep(x, kin, ns, S, err, errlen))) return rc;
    /* Sd: Phi_z Sd = -(V_z S + V_p). */
    m->constraint_vel_dz(&a, x->Vz, x->work);
    if (p0 >= 0) m->constraint_vel_dp(&a, x->Vp, x->work);
    for (int j = 0; j < ns; ++j)
        for (int i = 0, jp = pcol(x, p0, j); i < nc; ++i) x->B[i + (size_t)j * big] = jp >= 0 ? -x->Vp[i + (size_t)jp * nc] : 0;
    mul_add_cols(x->Jz, PJ, nc, n, ind, d, -1, Sd, n, ns, x->B, big);
    mul_add(x->Vz, m->constraint_vel_dz_pattern, nc, n, -1, S, n, ns, x->B, big);
    if ((rc = solve_dep(x, kin, ns, Sd, err, errlen))) return rc;
    /* lambda from Phi_z' lambda = -r on the dependent rows, by the same factors (r = M zdd - Q lies in the range
     * of Phi_z'; redundant constraints give the least-norm lambda). */
    m->inverse_dynamics(&a, x->r, x->work);
    /* A rod mode: r' (rod_terms), its multipliers, and the rods' terms of the right-hand side; the rest as below. */
    memset(x->rhs1, 0, nS * sizeof(double));
    if ((rc = rod_terms(x, mr, &a, ns, p0, S, x->rhs1, x->r, err, errlen))) return rc;
    if ((rc = mb_kin_multipliers(kin, t, z, p, x->r, x->lam, err, errlen))) return rc;
    mb_args aw = a;
    aw.w = x->lam;
    /* rhs1 = -((K + TWz) S + C Sd + r_p + TWp), over each matrix's structural non-zeros. */
    m->inverse_dynamics_dz(&a, x->K, x->work);
    m->inverse_dynamics_dzd(&a, x->C, x->work);
    m->constraints_dz_tw_dz(&aw, x->TWz, x->work);
    if (p0 >= 0) {
        m->inverse_dynamics_dp(&a, x->Fp, x->work);
        m->constraints_dz_tw_dp(&aw, x->TWp, x->work);
    }
    for (int j = 0; j < ns; ++j)
        for (int i = 0, jp = pcol(x, p0, j); i < n; ++i)
            if (jp >= 0) x->rhs1[i + (size_t)j * n] -= x->Fp[i + (size_t)jp * n] + x->TWp[i + (size_t)jp * n];
    mul_add(x->K, m->inverse_dynamics_dz_pattern, n, n, -1, S, n, ns, x->rhs1, n);
    mul_add(x->TWz, m->constraints_dz_tw_dz_pattern, n, n, -1, S, n, ns, x->rhs1, n);
    mul_add(x->C, m->inverse_dynamics_dzd_pattern, n, n, -1, Sd, n, ns, x->rhs1, n);
    /* X: Phi_z X = -((A_z + b_z) S + b_zd Sd + A_p + b_p), zero independent rows. */
    m->constraint_acc_dz(&a, x->Az, x->work);
    m->constraint_bias_dz(&a, x->bz, x->work);
    m->constraint_bias_dzd(&a, x->bzd, x->work);
    if (p0 >= 0) {
        m->constraint_acc_dp(&a, x->Ap, x->work);
        m->constraint_bias_dp(&a, x->bp, x->work);
    }
    for (int j = 0; j < ns; ++j)
        for (int i = 0, jp = pcol(x, p0, j); i < nc; ++i)
            x->B[i + (size_t)j * big] = jp >= 0 ? -(x->Ap[i + (size_t)jp * nc] + x->bp[i + (size_t)jp * nc]) : 0;
    mul_add(x->Az, m->constraint_acc_dz_pattern, nc, n, -1, S, n, ns, x->B, big);
    mul_add(x->bz, m->constraint_bias_dz_pattern, nc, n, -1, S, n, ns, x->B, big);
    mul_add(x->bzd, m->constraint_bias_dzd_pattern, nc, n, -1, Sd, n, ns, x->B, big);
    memset(x->X, 0, nS * sizeof(double));
    if ((rc = solve_dep(x, kin, ns, x->X, err, errlen))) return rc;
    /* W = (R'MR)^-1 R'(rhs1 - M X); Sdd = X + R W, with the motion's own M, R and factor of R'MR at this state
     * (mb_mr_accel formed them), over M's and R's structure. */
    const double *M, *R, *L;
    const int *rp, *ri;
    if (d > 0 && mb_mr_reduced(mr, &M, &R, &L) != d)
        return mb_fail(err, errlen, MB_ERR_ARG, "matrix_r tangent: call mb_mr_accel at the state first");
    if (!mb_kin_R_pattern(kin, &rp, &ri)) rp = ri = NULL;
    if (d > 0) mul_add(M, m->mass_pattern, n, n, -1, x->X, n, ns, x->rhs1, n);
    for (int j = 0; j < ns; ++j)
        for (int c = 0; c < d; ++c) {
            const double *Rc = R + (size_t)c * n, *r1 = x->rhs1 + (size_t)j * n;
            double s = r1[ind[c]];
            for (int e = rp ? rp[c] : 0; e < (rp ? rp[c + 1] : 0); ++e) s += Rc[ri[e]] * r1[ri[e]];
            x->W[c + (size_t)j * d] = s;
        }
    if (d > 0 && (rc = mb_chol_solve(d, L, ns, x->W, err, errlen))) return rc;
    for (int j = 0; j < ns; ++j) {
        double *Sj = Sdd + (size_t)j * n;
        memcpy(Sj, x->X + (size_t)j * n, (size_t)n * sizeof(double));
        for (int c = 0; c < d; ++c) {
            double w = x->W[c + (size_t)j * d];
            const double *Rc = R + (size_t)c * n;
            Sj[ind[c]] += w;
            for (int e = rp ? rp[c] : 0; e < (rp ? rp[c + 1] : 0); ++e) Sj[ri[e]] += Rc[ri[e]] * w;
        }
        for (int i = 0; i < n; ++i)
            if (!isfinite(Sj[i]))
                return mb_fail(err, errlen, MB_ERR_NAN, "matrix_r tangent: d zdd is not finite at t = %.10g", t);
    }
    memcpy(x->zs, z, (size_t)n * sizeof(double));
    memcpy(x->zs + n, zd, (size_t)n * sizeof(double));
    x->ts = t;
    x->stamped = 1;
    return MB_OK;
}

/* y (cols) += sign A' v for a rows x cols A stored dense with the structural non-zeros P (NULL: all). */
static void mul_add_t(const double *A, const mb_pattern *P, int rows, int cols, double sign, const double *v,
                      double *y) {
    if (P && (P->rows != rows || P->cols != cols)) P = NULL;
    for (int k = 0; k < cols; ++k) {
        const double *Ak = A + (size_t)k * rows;
        double s = 0;
        if (P)
            for (int q = P->colptr[k]; q < P->colptr[k + 1]; ++q) s += Ak[P->rowind[q]] * v[P->rowind[q]];
        else
            for (int i = 0; i < rows; ++i) s += Ak[i] * v[i];
        y[k] += sign * s;
    }
}

/* The adjoint of solve_dep: lam (nc) = Phi_d^-T g[dep] (least norm where constraints are redundant), by the motion's
 * factors, so that g' Y = lam' RHS for Y = solve_dep(RHS). */
static int solve_dep_t(mb_mrt *x, mb_kin *kin, double t, const double *z, const double *p, const double *g, double *lam,
                       char *err, size_t errlen) {
    for (int i = 0; i < x->n; ++i) x->g[i] = -g[i];
    return mb_kin_multipliers(kin, t, z, p, x->g, lam, err, errlen);
}

/* The adjoint of an independent row of S (or Sd): its own adjoint g[ind[q]], less Phi_z[:, ind[q]]' lam through the
 * dependent rows it moves (lam = Phi_d^-T g[dep]). */
static void independent_part(const mb_mrt *x, const int *ind, int d, const double *g, const double *lam, double *out) {
    const mb_pattern *P = x->m->constraints_dz_pattern;
    if (P && (P->rows != x->nc || P->cols != x->n)) P = NULL;
    for (int q = 0; q < d; ++q) {
        int k = ind[q];
        const double *Jk = x->Jz + (size_t)k * x->nc;
        double s = g[k];
        if (P)
            for (int e = P->colptr[k]; e < P->colptr[k + 1]; ++e) s -= Jk[P->rowind[e]] * lam[P->rowind[e]];
        else
            for (int i = 0; i < x->nc; ++i) s -= Jk[i] * lam[i];
        out[q] = s;
    }
}

int mb_mrt_transpose(mb_mrt *x, mb_mr *mr, double t, const double *z, const double *zd, const double *zdd,
                     const double *u, const double *p, const double *lS, const double *lSd, const double *lSdd,
                     double *gu, double *gp, char *err, size_t errlen) {
    const mb_model *m = x->m;
    int n = x->n, nc = x->nc, np = gp ? x->np : 0, rc;
    if (nc == 0 || mb_mr_rod_form(mr, NULL) || !x->stamped || x->ts != t ||
        memcmp(x->zs, z, (size_t)n * sizeof(double)) || memcmp(x->zs + n, zd, (size_t)n * sizeof(double)))
        return mb_fail(err, errlen, MB_ERR_ARG, "matrix_r tangent: the transpose needs constraints, no rod mode and "
                       "mb_mrt_directions at the same state first");
    mb_kin *kin = mb_mr_kin(mr);
    int d = mb_kin_dof(kin);
    const int *ind = mb_kin_independent(kin);
    const double *M, *R, *L;
    const int *rp, *ri;
    if (d > 0 && mb_mr_reduced(mr, &M, &R, &L) != d)
        return mb_fail(err, errlen, MB_ERR_ARG, "matrix_r tangent: call mb_mr_accel at the state first");
    if (!mb_kin_R_pattern(kin, &rp, &ri)) rp = ri = NULL;
    mb_args a = {t, z, zd, zdd, u, p, NULL}, aw = a;
    aw.w = x->lam;
    double *Xb = x->X, *ub = x->rhs1, *w = x->W, *lam = x->B, *gS = x->gS, *gSd = x->gSd;
    if (gp) memset(gp, 0, (size_t)np * sizeof(double));
    /* Sdd = X + R W, W = (R'MR)^-1 R'(rhs1 - M X): u = R (R'MR)^-1 R' lSdd is the adjoint of rhs1 - M X. */
    memcpy(Xb, lSdd, (size_t)n * sizeof(double));
    memset(ub, 0, (size_t)n * sizeof(double));
    if (d > 0) {
        for (int c = 0; c < d; ++c) {
            const double *Rc = R + (size_t)c * n;
            double s = lSdd[ind[c]];
            for (int e = rp ? rp[c] : 0; e < (rp ? rp[c + 1] : 0); ++e) s += Rc[ri[e]] * lSdd[ri[e]];
            w[c] = s;
        }
        if ((rc = mb_chol_solve(d, L, 1, w, err, errlen))) return rc;
        for (int c = 0; c < d; ++c) {
            const double *Rc = R + (size_t)c * n;
            ub[ind[c]] += w[c];
            for (int e = rp ? rp[c] : 0; e < (rp ? rp[c + 1] : 0); ++e) ub[ri[e]] += Rc[ri[e]] * w[c];
        }
        mul_add(M, m->mass_pattern, n, n, -1, ub, n, 1, Xb, n);
    }
    /* X = Phi_d^-1 (-((A_z + b_z) S + b_zd Sd + A_p + b_p)). */
    if ((rc = solve_dep_t(x, kin, t, z, p, Xb, lam, err, errlen))) return rc;
    memcpy(gS, lS, (size_t)n * sizeof(double));
    memcpy(gSd, lSd, (size_t)n * sizeof(double));
    mul_add_t(x->Az, m->constraint_acc_dz_pattern, nc, n, -1, lam, gS);
    mul_add_t(x->bz, m->constraint_bias_dz_pattern, nc, n, -1, lam, gS);
    mul_add_t(x->bzd, m->constraint_bias_dzd_pattern, nc, n, -1, lam, gSd);
    if (np > 0) {
        m->constraint_acc_dp(&a, x->Ap, x->work);
        m->constraint_bias_dp(&a, x->bp, x->work);
        mul_add_t(x->Ap, m->constraint_acc_dp_pattern, nc, np, -1, lam, gp);
        mul_add_t(x->bp, m->constraint_bias_dp_pattern, nc, np, -1, lam, gp);
    }
    /* rhs1 = -((K + TWz) S + C Sd + r_p + TWp). */
    mul_add_t(x->K, m->inverse_dynamics_dz_pattern, n, n, -1, ub, gS);
    mul_add_t(x->TWz, m->constraints_dz_tw_dz_pattern, n, n, -1, ub, gS);
    mul_add_t(x->C, m->inverse_dynamics_dzd_pattern, n, n, -1, ub, gSd);
    if (np > 0) {
        m->inverse_dynamics_dp(&a, x->Fp, x->work);
        m->constraints_dz_tw_dp(&aw, x->TWp, x->work);
        mul_add_t(x->Fp, m->inverse_dynamics_dp_pattern, n, np, -1, ub, gp);
        mul_add_t(x->TWp, m->constraints_dz_tw_dp_pattern, n, np, -1, ub, gp);
    }
    /* Sd: its independent rows given, the dependent ones Phi_d^-1 (-(Phi_z[:, ind] Sd_i + V_z S + V_p)). */
    if ((rc = solve_dep_t(x, kin, t, z, p, gSd, lam, err, errlen))) return rc;
    mul_add_t(x->Vz, m->constraint_vel_dz_pattern, nc, n, -1, lam, gS);
    if (np > 0) {
        m->constraint_vel_dp(&a, x->Vp, x->work);
        mul_add_t(x->Vp, m->constraint_vel_dp_pattern, nc, np, -1, lam, gp);
    }
    if (gu) independent_part(x, ind, d, gSd, lam, gu + d);
    /* S: the same with Phi_p. */
    if ((rc = solve_dep_t(x, kin, t, z, p, gS, lam, err, errlen))) return rc;
    if (np > 0) {
        m->constraints_dp(&a, x->Vp, x->work);
        mul_add_t(x->Vp, m->constraints_dp_pattern, nc, np, -1, lam, gp);
    }
    if (gu) independent_part(x, ind, d, gS, lam, gu);
    for (int j = 0; j < np; ++j)
        if (!isfinite(gp[j]))
            return mb_fail(err, errlen, MB_ERR_NAN,
                           "matrix_r tangent: the transpose along p is not finite at t = %.10g", t);
    for (int q = 0; gu && q < 2 * d; ++q)
        if (!isfinite(gu[q]))
            return mb_fail(err, errlen, MB_ERR_NAN, "matrix_r tangent: the transpose is not finite at t = %.10g", t);
    return MB_OK;
}
