/* formulation_al3.c: index-3 augmented Lagrangian, trapezoidal rule, Newton on the exact tangent, projections. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "al3_sparse.h"
#include "formulation_al3.h"
#include "formulation_matrix_r.h"
#include "linalg.h"
#include "mb_work.h"

struct mb_al3 {
    const mb_model *m;
    mb_al3_options o;
    int nz, nc;
    double t, h, alpha;
    double alpha0;                      /* the start's penalty; alpha is raised above it near singular configurations */
    long calm, raises;                  /* steps since the last rise; rises so far */
    double raise_max;                   /* the largest alpha / alpha0 reached */
    double hp;                          /* the step before the last one; 0 until there is one */
    double *zn, *zdn, *zddn;            /* the last accepted step */
    double *z, *zd, *zdd, *zdh, *zddh;  /* iterate and the trapezoidal constants */
    double *r, *f, *dz, *zero, *tmp;    /* nz */
    double *phi, *w, *lam, *vec;        /* nc; lam is the iterate */
    double *lamn, *lamp;                /* nc: multipliers of the last two accepted steps */
    double *J;                          /* nc x nz */
    double *fz, *fr1, *fr2, *fJ1, *fJ2; /* fd_tangent only: a perturbed copy (nz), two residuals, two Phi_z */
    double *M, *T, *K;                  /* nz x nz (T: the dense tangent and its LU) */
    double *Jp;                         /* nz x nz: h/2 dr/dzd + h²/4 (dr/dz + curvature), kept jacobian_reuse iterations */
    mb_linalg *lu;                      /* nz x nz, holds T's pivots */
    mb_linalg *ls;                      /* Phi_z' (nz x nc) least squares at the start */
    mb_al3_sparse *sp;                  /* options.sparse: T in the generated patterns, factored by KLU (no lu) */
    double *pv;                         /* an outside provider's values in the dense path */
    mb_mr *mr;                          /* start-up: assembly and the consistent zdd */
    double *work;                       /* the model functions' workspace */
};

void mb_al3_options_default(mb_al3_options *o) {
    o->alpha = 0;
    o->alpha_rel = 1e5;
    o->alpha_raise = 1e4;
    o->newton_tol = 1e-10;
    o->phi_tol = 1e-10;
    o->max_iter = 30;
    o->approx_tangent = 0;
    o->fd_tangent = 0;
    o->penalty = 0;
    o->jacobian_reuse = 1;
    o->sparse = MB_AL3_SPARSE_AUTO;
    o->jacobian.fn = NULL;
    o->jacobian.ctx = NULL;
    o->jacobian.pattern = NULL;
}

void mb_al3_free(mb_al3 *al) {
    if (!al) return;
    double **bufs[] = {&al->zn, &al->zdn, &al->zddn, &al->z, &al->zd, &al->zdd, &al->zdh, &al->zddh,
                       &al->r, &al->f, &al->dz, &al->zero, &al->tmp, &al->phi, &al->w, &al->lam,
                       &al->lamn, &al->lamp, &al->vec, &al->J, &al->M, &al->T, &al->K, &al->Jp, &al->fz,
                       &al->fr1, &al->fr2, &al->fJ1, &al->fJ2, &al->work, &al->pv};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) free(*bufs[i]);
    mb_linalg_free(al->lu);
    mb_linalg_free(al->ls);
    mb_al3_sparse_free(al->sp);
    mb_mr_free(al->mr);
    free(al);
}

static const char *mname(const mb_model *m) { return m->name ? m->name : "(unnamed)"; }

mb_al3 *mb_al3_create(const mb_model *m, const mb_al3_options *o, const mb_kin_options *ko, char *err,
                      size_t errlen) {
    mb_al3_options d;
    mb_al3_options_default(&d);
    if (!o) o = &d;
    if (!m || m->nz < 1) {
        mb_fail(err, errlen, MB_ERR_ARG, "al3: %s", m ? "the model has no coordinates" : "no model");
        return NULL;
    }
    if (!m->mass || !m->inverse_dynamics_dz || !m->inverse_dynamics_dzd || (!m->inverse_dynamics && !m->forces)) {
        mb_fail(err, errlen, MB_ERR_MODEL,
                "model %s lacks mass, inverse_dynamics_dz or inverse_dynamics_dzd, needed by the al3 tangent",
                mname(m));
        return NULL;
    }
    if (o->fd_tangent && !m->inverse_dynamics) {
        mb_fail(err, errlen, MB_ERR_MODEL, "model %s lacks inverse_dynamics, needed by the finite-difference tangent",
                mname(m));
        return NULL;
    }
    if (m->nc > 0 && !o->approx_tangent && !o->fd_tangent && !m->constraints_dz_tw_dz) {
        mb_fail(err, errlen, MB_ERR_MODEL,
                "model %s lacks constraints_dz_tw_dz, needed by the exact al3 tangent (or use the approximate one)",
                mname(m));
        return NULL;
    }
    if (!(o->newton_tol > 0) || !(o->phi_tol > 0) || o->max_iter < 1 || !(o->alpha_rel > 0) || !(o->alpha_raise >= 1) ||
        !isfinite(o->alpha_raise) || !isfinite(o->alpha) || o->jacobian_reuse < 1) {
        mb_fail(err, errlen, MB_ERR_ARG, "al3: options need newton_tol > 0, phi_tol > 0, max_iter >= 1, alpha_rel > 0, "
                "1 <= alpha_raise < inf, jacobian_reuse >= 1");
        return NULL;
    }
    const mb_al3_provider *pr = &o->jacobian;
    if (o->fd_tangent && (o->sparse > 0 || pr->fn)) {
        mb_fail(err, errlen, MB_ERR_ARG, "al3: the finite-difference tangent is dense and its own provider (not with %s)",
                o->sparse > 0 ? "the sparse tangent" : "an outside provider");
        return NULL;
    }
    if (pr->fn && !mb_pattern_valid(pr->pattern, m->nz, 2 * m->nz)) {
        mb_fail(err, errlen, MB_ERR_ARG, "al3: the Jacobian provider needs a valid nz x 2nz pattern (%d x %d)", m->nz,
                2 * m->nz);
        return NULL;
    }
    int sparse = o->sparse;
    if (sparse == MB_AL3_SPARSE_AUTO)
        sparse = !o->fd_tangent && m->inverse_dynamics && m->mass_csc && m->nz >= MB_AL3_SPARSE_MIN_NZ &&
                 (pr->fn || m->inverse_dynamics_tangent_csc) && (m->nc == 0 || m->constraints_dz_csc) &&
                 (m->nc == 0 || o->approx_tangent || m->constraints_dz_tw_dz_csc);
    if (sparse && !m->inverse_dynamics) {
        mb_fail(err, errlen, MB_ERR_MODEL, "model %s lacks inverse_dynamics, needed by the sparse al3 tangent", mname(m));
        return NULL;
    }
    mb_al3 *al = calloc(1, sizeof *al);
    if (!al) goto nomem;
    al->m = m;
    al->o = *o;
    al->o.sparse = sparse;
    al->nz = m->nz;
    al->nc = m->nc;
    if (!(al->mr = mb_mr_create(m, ko, err, errlen))) {
        mb_al3_free(al);
        return NULL;
    }
    size_t n = (size_t)m->nz, c = (size_t)(m->nc > 0 ? m->nc : 1);
    double **vn[] = {&al->zn, &al->zdn, &al->zddn, &al->z, &al->zd, &al->zdd, &al->zdh, &al->zddh,
                     &al->r, &al->f, &al->dz, &al->zero, &al->tmp};
    for (size_t i = 0; i < sizeof vn / sizeof *vn; ++i)
        if (!(*vn[i] = calloc(n > c ? n : c, sizeof(double)))) goto nomem;
    double **vc[] = {&al->phi, &al->w, &al->lam, &al->lamn, &al->lamp, &al->vec};
    for (size_t i = 0; i < sizeof vc / sizeof *vc; ++i)
        if (!(*vc[i] = calloc(c, sizeof(double)))) goto nomem;
    if (!(al->J = calloc(c * n, sizeof(double)))) goto nomem;
    if (!(al->work = mb_work_alloc(m))) goto nomem;
    double **mm[] = {&al->M, &al->T, &al->K, &al->Jp};
    for (size_t i = 0; i < sizeof mm / sizeof *mm; ++i)
        if (!(*mm[i] = calloc(n * n, sizeof(double)))) goto nomem;
    if (o->fd_tangent) {
        double **fv[] = {&al->fz, &al->fr1, &al->fr2};
        for (size_t i = 0; i < sizeof fv / sizeof *fv; ++i)
            if (!(*fv[i] = calloc(n, sizeof(double)))) goto nomem;
        if (!(al->fJ1 = calloc(c * n, sizeof(double))) || !(al->fJ2 = calloc(c * n, sizeof(double)))) goto nomem;
    }
    if (pr->fn && !sparse && !(al->pv = calloc((size_t)pr->pattern->colptr[2 * m->nz] + 1, sizeof(double))))
        goto nomem;
    if (sparse && !(al->sp = mb_al3_sparse_create(m, pr->fn ? pr->pattern : NULL, m->nc > 0 && !o->approx_tangent,
                                                     err, errlen))) {
        mb_al3_free(al);
        return NULL;
    }
    if (!sparse && !(al->lu = mb_linalg_create(m->nz, m->nz, 1, err, errlen))) {
        mb_al3_free(al);
        return NULL;
    }
    if (m->nc > 0 && !(al->ls = mb_linalg_create(m->nz, m->nc, 1, err, errlen))) {
        mb_al3_free(al);
        return NULL;
    }
    return al;
nomem:
    mb_al3_free(al);
    mb_fail(err, errlen, MB_ERR_ALLOC, "al3: out of memory (nz = %d, nc = %d)", m->nz, m->nc);
    return NULL;
}

/* A non-finite entry of v, named by its coordinate: v is column-major with `rows` rows (1: a vector over the
 * coordinates; 0: over the constraint rows, which have no names). */
static int check(const mb_al3 *al, const double *v, int n, int rows, const char *what, double t, char *err,
                 size_t errlen) {
    const char *const *zn = al->m->z_names;
    for (int i = 0; i < n; ++i) {
        if (isfinite(v[i])) continue;
        if (rows == 0) return mb_fail(err, errlen, MB_ERR_NAN, "al3: %s[%d] is %g at t = %.10g", what, i, v[i], t);
        int col = i / rows;
        return mb_fail(err, errlen, MB_ERR_NAN, "al3: %s entry %d (coordinate %s) is %g at t = %.10g", what, i,
                       zn && zn[col] ? zn[col] : "?", v[i], t);
    }
    return MB_OK;
}

/* y += Phi_z x (y: nc) and y += s Phi_z' v (y: nz) with the Phi_z of the last evaluation, dense or compressed. */
static void phi_x(const mb_al3 *al, const double *x, double *y) {
    if (al->sp) {
        mb_al3_sparse_phi_x(al->sp, x, y);
        return;
    }
    for (int j = 0; j < al->nz; ++j)
        for (int i = 0; i < al->nc; ++i) y[i] += al->J[i + (size_t)j * al->nc] * x[j];
}

static void phit_x(const mb_al3 *al, const double *v, double s, double *y) {
    if (al->sp) {
        mb_al3_sparse_phit_x(al->sp, v, s, y);
        return;
    }
    for (int j = 0; j < al->nz; ++j) {
        double acc = 0;
        for (int i = 0; i < al->nc; ++i) acc += al->J[i + (size_t)j * al->nc] * v[i];
        y[j] += s * acc;
    }
}

/* b = T^-1 b with the last factorization of the tangent. */
static int solve(mb_al3 *al, double *b, char *err, size_t errlen) {
    return al->sp ? mb_splu_solve(al->sp->lu, b, err, errlen) : mb_lu_solve(al->lu, al->nz, al->T, 1, b, err, errlen);
}

/* x += T^-1 (-s Phi_z'(Phi_z x + vec)) with the factored tangent: one projection (eq. 24 or 26) solved
 * for the change of x. vec (nc) holds Phi_t or the bias on entry and is overwritten. */
static int project(mb_al3 *al, double *x, double s, char *err, size_t errlen) {
    int n = al->nz;
    phi_x(al, x, al->vec);
    memset(al->dz, 0, (size_t)n * sizeof(double));
    phit_x(al, al->vec, -s, al->dz);
    int rc = solve(al, al->dz, err, errlen);
    if (rc) return rc;
    for (int i = 0; i < n; ++i) x[i] += al->dz[i];
    return MB_OK;
}

/* The tangent's derivatives by central differences (fd_tangent): column j of dr/dy (y = z or zd, `which`
 * 0 or 1) into K, from two calls of the generated residual. */
static void fd_residual(mb_al3 *al, const mb_args *a, int which, double *K) {
    int n = al->nz;
    const double *y = which ? a->zd : a->z;
    mb_args b = *a;
    memcpy(al->fz, y, (size_t)n * sizeof(double));
    if (which) b.zd = al->fz; else b.z = al->fz;
    for (int j = 0; j < n; ++j) {
        double h = 1e-6 * (1 + fabs(y[j]));
        al->fz[j] = y[j] + h;
        al->m->inverse_dynamics(&b, al->fr1, al->work);
        al->fz[j] = y[j] - h;
        al->m->inverse_dynamics(&b, al->fr2, al->work);
        al->fz[j] = y[j];
        for (int i = 0; i < n; ++i) K[i + (size_t)j * n] = (al->fr1[i] - al->fr2[i]) / (2 * h);
    }
}

/* d(Phi_z' w)/dz by central differences of the generated Phi_z (fd_tangent). */
static void fd_reaction(mb_al3 *al, const mb_args *a, const double *w, double *K) {
    int n = al->nz, nc = al->nc;
    mb_args b = *a;
    memcpy(al->fz, a->z, (size_t)n * sizeof(double));
    b.z = al->fz;
    for (int j = 0; j < n; ++j) {
        double h = 1e-6 * (1 + fabs(a->z[j]));
        al->fz[j] = a->z[j] + h;
        al->m->constraints_dz(&b, al->fJ1, al->work);
        al->fz[j] = a->z[j] - h;
        al->m->constraints_dz(&b, al->fJ2, al->work);
        al->fz[j] = a->z[j];
        for (int c = 0; c < n; ++c) {
            double s = 0;
            for (int i = 0; i < nc; ++i) s += (al->fJ1[i + (size_t)c * nc] - al->fJ2[i + (size_t)c * nc]) * w[i];
            K[c + (size_t)j * n] = s / (2 * h);
        }
    }
}

/* r = M zdd - Q at (t, z, zd, zdd); with dense_mass (or without the generated residual) M stays in al->M. */
static int residual(mb_al3 *al, double t, const double *z, const double *zd, const double *zdd, const double *u,
                    const double *p, int dense_mass, char *err, size_t errlen) {
    int n = al->nz;
    mb_args a = {t, z, zd, zdd, u, p, NULL};
    if (dense_mass || !al->m->inverse_dynamics) al->m->mass(&a, al->M, al->work);
    if (al->m->inverse_dynamics) {
        al->m->inverse_dynamics(&a, al->r, al->work);
    } else {
        al->m->forces(&a, al->r, al->work);
        for (int i = 0; i < n; ++i) {
            double s = -al->r[i];
            for (int j = 0; j < n; ++j) s += al->M[i + (size_t)j * n] * zdd[j];
            al->r[i] = s;
        }
    }
    int rc = dense_mass ? check(al, al->M, n * n, n, "M", t, err, errlen) : MB_OK;
    return rc ? rc : check(al, al->r, n, 1, "residual", t, err, errlen);
}

int mb_al3_reset(mb_al3 *al, double t, const double *z, const double *zd, const double *u, const double *p,
                 double h, mb_stats *st, char *err, size_t errlen) {
    int n = al->nz, nc = al->nc, rc;
    if (!(h > 0) || !isfinite(h)) return mb_fail(err, errlen, MB_ERR_ARG, "al3: step %g must be positive", h);
    memcpy(al->zn, z, (size_t)n * sizeof(double));
    memcpy(al->zdn, zd, (size_t)n * sizeof(double));
    if ((rc = mb_mr_project(al->mr, t, al->zn, al->zdn, p, err, errlen))) return rc;
    if ((rc = mb_mr_accel(al->mr, t, al->zn, al->zdn, u, p, al->zddn, err, errlen))) return rc;
    if (st) st->rhs_evals++;
    al->t = t;
    al->h = h;
    al->hp = 0;
    al->calm = al->raises = 0;
    al->raise_max = 1;
    memset(al->lamn, 0, (size_t)(nc > 0 ? nc : 1) * sizeof(double));
    if (nc == 0) {
        al->alpha = al->alpha0 = 0;
        return MB_OK;
    }
    /* lambda: Phi_z' lambda = Q - M zdd = -r, least squares (minimum norm when redundant). */
    if ((rc = residual(al, t, al->zn, al->zdn, al->zddn, u, p, 1, err, errlen))) return rc;
    mb_args a = {t, al->zn, NULL, NULL, NULL, p, NULL};
    al->m->constraints_dz(&a, al->J, al->work);
    for (int i = 0; i < nc; ++i)
        for (int j = 0; j < n; ++j) al->K[j + (size_t)i * n] = al->J[i + (size_t)j * nc];
    int ldb = n > nc ? n : nc, rank = 0;
    for (int j = 0; j < ldb; ++j) al->tmp[j] = j < n ? -al->r[j] : 0;
    if ((rc = mb_lstsq(al->ls, n, nc, 1, al->K, al->tmp, 1e-9, &rank, err, errlen))) return rc;
    memcpy(al->lamn, al->tmp, (size_t)nc * sizeof(double));
    if (al->o.alpha > 0) {
        al->alpha = al->o.alpha;
    } else {
        double mmax = 0, jmax = 0;
        for (int j = 0; j < n; ++j) {
            mmax = fmax(mmax, fabs(al->M[j + (size_t)j * n]));
            double s = 0;
            for (int i = 0; i < nc; ++i) s += al->J[i + (size_t)j * nc] * al->J[i + (size_t)j * nc];
            jmax = fmax(jmax, s);
        }
        if (!(jmax > 0)) jmax = 1;
        al->alpha = al->o.alpha_rel * 4 / (h * h) * mmax / jmax;
    }
    al->alpha0 = al->alpha;
    return MB_OK;
}

/* Phi_z at a, dense into J or compressed into the sparse tangent's Jv; checked. */
static int eval_phi_z(mb_al3 *al, const mb_args *a, char *err, size_t errlen) {
    if (al->sp) {
        al->m->constraints_dz_csc(a, al->sp->Jv, al->work);
        return check(al, al->sp->Jv, al->sp->nJ, 0, "Phi_z (compressed)", a->t, err, errlen);
    }
    al->m->constraints_dz(a, al->J, al->work);
    return check(al, al->J, al->nc * al->nz, al->nc, "Phi_z", a->t, err, errlen);
}

/* The tangent's derivative terms Jp = h/2 dr/dzd + h²/4 (dr/dz + curvature), dense: from the generated derivatives,
 * their central differences or an outside provider. az is a with zdd = 0 under approx_tangent. */
static int derivatives_dense(mb_al3 *al, const mb_args *a, const mb_args *az, double h, char *err, size_t errlen) {
    int n = al->nz;
    size_t nn = (size_t)n * n;
    double hh = h * h / 4;
    const mb_al3_provider *pr = &al->o.jacobian;
    if (pr->fn) {
        int rc = pr->fn(pr->ctx, az, al->pv, err, errlen);
        if (rc) return rc < 0 ? rc : MB_ERR_MODEL;
        memset(al->Jp, 0, nn * sizeof(double));
        const mb_pattern *P = pr->pattern;
        for (int j = 0; j < 2 * n; ++j)
            for (int k = P->colptr[j]; k < P->colptr[j + 1]; ++k)
                al->Jp[P->rowind[k] + (size_t)(j % n) * n] += (j < n ? hh : h / 2) * al->pv[k];
    } else {
        if (al->o.fd_tangent) fd_residual(al, a, 1, al->K);
        else al->m->inverse_dynamics_dzd(a, al->K, al->work);
        for (size_t i = 0; i < nn; ++i) al->Jp[i] = h / 2 * al->K[i];
        if (al->o.fd_tangent) fd_residual(al, az, 0, al->K);
        else al->m->inverse_dynamics_dz(az, al->K, al->work);
        for (size_t i = 0; i < nn; ++i) al->Jp[i] += hh * al->K[i];
    }
    if (al->nc > 0 && !al->o.approx_tangent) {
        mb_args aw = *a;
        aw.w = al->lam;
        if (al->o.fd_tangent) fd_reaction(al, a, al->lam, al->K);
        else al->m->constraints_dz_tw_dz(&aw, al->K, al->work);
        for (size_t i = 0; i < nn; ++i) al->Jp[i] += hh * al->K[i];
    }
    return MB_OK;   /* checked within T */
}

/* The same terms in T's sparse pattern (Jpv): the generated tangent in one call with weights (h²/4, h/2, 0), or the
 * provider's values, and the compressed curvature. */
static int derivatives_sparse(mb_al3 *al, const mb_args *a, const mb_args *az, double h, char *err, size_t errlen) {
    mb_al3_sparse *sp = al->sp;
    double hh = h * h / 4;
    const mb_al3_provider *pr = &al->o.jacobian;
    memset(sp->Jpv, 0, (size_t)sp->nnz * sizeof(double));
    if (pr->fn) {
        int rc = pr->fn(pr->ctx, az, sp->Dv, err, errlen);
        if (rc) return rc < 0 ? rc : MB_ERR_MODEL;
        mb_al3_sparse_scatter(sp->mapD, sp->nD_dz, sp->Dv, hh, sp->Jpv);
        mb_al3_sparse_scatter(sp->mapD + sp->nD_dz, sp->nD - sp->nD_dz, sp->Dv + sp->nD_dz, h / 2, sp->Jpv);
    } else {
        const double cw[3] = {hh, h / 2, 0};
        mb_args aw = *az;
        aw.w = cw;
        al->m->inverse_dynamics_tangent_csc(&aw, sp->Dv, al->work);
        mb_al3_sparse_scatter(sp->mapD, sp->nD, sp->Dv, 1, sp->Jpv);
    }
    if (sp->nC) {
        mb_args aw = *a;
        aw.w = al->lam;
        al->m->constraints_dz_tw_dz_csc(&aw, sp->Cv, al->work);
        mb_al3_sparse_scatter(sp->mapC, sp->nC, sp->Cv, hh, sp->Jpv);
    }
    return MB_OK;
}

/* T = M + Jp + h²/4 alpha Phi_z'Phi_z at a, factored. */
static int factor_tangent(mb_al3 *al, const mb_args *a, double hh_alpha, char *err, size_t errlen) {
    int n = al->nz, nc = al->nc, rc;
    size_t nn = (size_t)n * n;
    if (al->sp) {
        mb_al3_sparse *sp = al->sp;
        al->m->mass_csc(a, sp->Mv, al->work);
        memcpy(sp->Tv, sp->Jpv, (size_t)sp->nnz * sizeof(double));
        mb_al3_sparse_scatter(sp->mapM, sp->nM, sp->Mv, 1, sp->Tv);
        mb_al3_sparse_penalty(sp, hh_alpha);
        if ((rc = check(al, sp->Tv, sp->nnz, 0, "tangent (compressed)", a->t, err, errlen))) return rc;
        return mb_splu_factor(sp->lu, sp->Tv, err, errlen);
    }
    for (size_t i = 0; i < nn; ++i) al->T[i] = al->M[i] + al->Jp[i];
    if (nc > 0) {
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k) {
                double s = 0;
                for (int i = 0; i < nc; ++i) s += al->J[i + (size_t)k * nc] * al->J[i + (size_t)j * nc];
                al->T[k + (size_t)j * n] += hh_alpha * s;
            }
    }
    if ((rc = check(al, al->T, (int)nn, n, "tangent", a->t, err, errlen))) return rc;
    return mb_lu_factor(al->lu, n, al->T, err, errlen);
}

/* One trapezoidal step of size h from (zn, zdn, zddn, lam). */
static int step(mb_al3 *al, double h, const double *u, const double *p, mb_stats *st, char *err, size_t errlen) {
    int n = al->nz, nc = al->nc, rc;
    double t = al->t + h, c2 = 2 / h, c4 = 4 / (h * h), hh = h * h / 4, alpha = al->alpha;
    for (int i = 0; i < n; ++i) {
        al->zdh[i] = -(c2 * al->zn[i] + al->zdn[i]);
        al->zddh[i] = -(c4 * al->zn[i] + 4 / h * al->zdn[i] + al->zddn[i]);
        al->z[i] = al->zn[i] + h * al->zdn[i] + h * h / 2 * al->zddn[i];
    }
    /* Multiplier predictor: linear extrapolation of the last two steps. The multiplier update
     * lambda += alpha Phi removes the start's error only by about 1/alpha_rel per iteration, and
     * that remainder, not Newton's rate, decided whether a step took a third iteration: starting
     * from the last step's lambda (error O(h)) rather than from the extrapolation (O(h²)) cost
     * quick_return 2316 instead of 2131 iterations over 1000 steps at alpha_rel 1e3. */
    for (int i = 0; i < nc; ++i)
        al->lam[i] = al->lamn[i] + (al->hp > 0 ? h / al->hp * (al->lamn[i] - al->lamp[i]) : 0);
    double dzmax = INFINITY, phimax = INFINITY, dzlast = INFINITY;
    int it, since = 0; /* the iteration the penalty last changed at */
    for (it = 0; it < al->o.max_iter; ++it) {
        for (int i = 0; i < n; ++i) {
            al->zd[i] = c2 * al->z[i] + al->zdh[i];
            al->zdd[i] = c4 * al->z[i] + al->zddh[i];
        }
        if ((rc = residual(al, t, al->z, al->zd, al->zdd, u, p, !al->sp, err, errlen))) return rc;
        mb_args a = {t, al->z, al->zd, al->zdd, u, p, NULL};
        if (nc > 0) {
            al->m->constraints(&a, al->phi, al->work);
            if ((rc = check(al, al->phi, nc, 0, "Phi", t, err, errlen)) || (rc = eval_phi_z(al, &a, err, errlen)))
                return rc;
        }
        /* Multiplier update with Phi at the corrected z (lambda_{k+1} = lambda_k + alpha Phi_{k+1});
         * the first iteration uses the predicted lambda, whose Phi the predictor has not seen. */
        phimax = 0;
        for (int i = 0; i < nc; ++i) {
            phimax = fmax(phimax, fabs(al->phi[i]));
            if (it > 0 && !al->o.penalty) al->lam[i] += alpha * al->phi[i];
            al->w[i] = (al->o.penalty ? 0 : al->lam[i]) + alpha * al->phi[i];
        }
        /* Converged: the last correction was small and the constraints hold (the pure penalty leaves Phi at the
         * size the penalty allows: the correction alone); the tangent factored last serves the projections. */
        if (it > 0 && dzmax <= al->o.newton_tol && (al->o.penalty || phimax <= al->o.phi_tol)) break;
        /* f = h²/4 (r + Phi_z' w) */
        memcpy(al->f, al->r, (size_t)n * sizeof(double));
        phit_x(al, al->w, 1, al->f);
        /* T = M + Jp + h²/4 alpha Phi_z'Phi_z, Jp = h/2 dr/dzd + h²/4 dr/dz (approximate: dr/dz at zdd = 0) and the
         * curvature: the derivatives, the dearest part, are evaluated every jacobian_reuse iterations (seeds/003.md
         * §1.10: 3), M and the penalty term at every one, and T is factored at every one.
         * The curvature term joins P too: the projections must differ from T only by the penalty
         * term h²/4 alpha Phi_z'Phi_z, or they shift the velocities off the constraint directions
         * (an O(h²) drift per step, first-order energy loss).
         * It is weighted by the multiplier estimate lambda, not by w = lambda + alpha Phi(z): the
         * penalty force alpha Phi(z) of the current iterate is what this very step removes (Phi drops
         * by about alpha_rel per iteration), so its curvature is not there at the solution, where
         * Phi = 0 and both weights agree. This is Newton's tangent for w carried as an unknown next to
         * z (the primal-dual form of the penalty equations, Nocedal & Wright §17.1); weighting by w
         * instead made the first iteration's tangent wrong by the predictor's alpha Phi, several times
         * lambda at alpha_rel 1e3 and 1e5 times lambda at 1e7, and the exact tangent took up to 7 % (at
         * 1e3) and 50 % (at 1e7) more iterations than eq. (20), which leaves the curvature out. The pure
         * penalty (no multipliers in its force) weights it the same way: its estimate lam is the converged
         * penalty forces of the last steps, extrapolated, which the iterate's alpha Phi tends to. */
        if (it % al->o.jacobian_reuse == 0) {
            mb_args az = a;
            if (al->o.approx_tangent) az.zdd = al->zero;
            rc = al->sp ? derivatives_sparse(al, &a, &az, h, err, errlen) : derivatives_dense(al, &a, &az, h, err, errlen);
            if (rc) return rc;
            if (st) st->deriv_evals++;
        }
        if ((rc = factor_tangent(al, &a, hh * alpha, err, errlen))) return rc;
        if (st) st->jac_evals++;
        for (int i = 0; i < n; ++i) al->dz[i] = -hh * al->f[i];
        if ((rc = solve(al, al->dz, err, errlen))) return rc;
        double zmax = 0;
        dzmax = 0;
        for (int i = 0; i < n; ++i) {
            al->z[i] += al->dz[i];
            zmax = fmax(zmax, fabs(al->z[i]));
            dzmax = fmax(dzmax, fabs(al->dz[i]));
        }
        dzmax /= 1 + zmax;
        /* The multiplier update stalls where Phi_z is nearly singular: its error along the weak direction
         * shrinks by 1 / (1 + alpha h²/4 sigma² / m) per iteration, 0.99 on the 4 x 15 grid near its flat
         * configuration at the default penalty, and so does Newton's correction. A tenfold stiffer penalty
         * converges there in a few iterations; it is not the default because its rounding shows in the
         * motion elsewhere (mb_al3_options.alpha_rel), hence a rise only where the iteration stalls: a
         * correction not converged and not half the last, from the fourth iteration at one penalty on. Never
         * on a converged correction, so that the factorization the projections reuse has the step's final
         * penalty. The pure penalty has no update to stall, and a rise would change its solution. */
        if (!al->o.penalty && it >= since + 3 && dzmax > al->o.newton_tol && dzmax > 0.5 * dzlast &&
            alpha * 10 <= al->alpha0 * al->o.alpha_raise * (1 + 1e-12)) {
            alpha *= 10;
            al->alpha = alpha;
            al->calm = 0;
            al->raises++;
            al->raise_max = fmax(al->raise_max, alpha / al->alpha0);
            since = it;
        }
        dzlast = dzmax;
        if (st) {
            st->newton_iters++;
            st->rhs_evals++;
        }
        if (!isfinite(dzmax)) break;
    }
    if (al->alpha > al->alpha0 && ++al->calm >= MB_AL3_CALM_STEPS) {
        al->alpha = fmax(al->alpha0, al->alpha / 10);
        al->calm = 0;
    }
    if (it == al->o.max_iter || !isfinite(dzmax))
        return mb_fail(err, errlen, MB_ERR_NEWTON,
                       "al3: Newton did not converge at t = %.10g (h = %g) in %d iterations: max|dz| = %.3g, "
                       "max|Phi| = %.3g (tolerances %g, %g)",
                       t, h, it, dzmax, phimax, al->o.newton_tol, al->o.phi_tol);
    /* Projections (eqs. 24, 26) with the last factorization; Phi_z, Phi_t and the bias at the final z.
     * Solved for the change: T (zd - zd*) = -h²/4 alpha Phi_z'(Phi_z zd* + Phi_t) is eq. (24) with
     * T = P + h²/4 alpha Phi_z'Phi_z, but the LU's rounding error, about eps alpha_rel relative to what
     * is solved for, then falls on the small correction instead of on all of zd: solving for zd
     * itself put an error growing like alpha_rel into the motion (fourbar_spatial, h = 2.5e-4, 1 s,
     * from matrix_r: 3.4e-7 at alpha_rel 1e4, 1.2e-5 at 1e6; solved for the change, 4.7e-7 at both).
     * Likewise eq. (26) for zdd. */
    mb_args a = {t, al->z, NULL, NULL, u, p, NULL};
    if (nc > 0) {
        if ((rc = eval_phi_z(al, &a, err, errlen))) return rc;
        if (al->m->constraints_dt) al->m->constraints_dt(&a, al->vec, al->work);
        else memset(al->vec, 0, (size_t)nc * sizeof(double));
        if ((rc = project(al, al->zd, hh * alpha, err, errlen))) return rc;
        a.zd = al->zd;
        al->m->constraint_bias(&a, al->vec, al->work);
        if ((rc = project(al, al->zdd, hh * alpha, err, errlen))) return rc;
    }
    if ((rc = check(al, al->zd, n, 1, "zd", t, err, errlen)) || (rc = check(al, al->zdd, n, 1, "zdd", t, err, errlen))) return rc;
    memcpy(al->zn, al->z, (size_t)n * sizeof(double));
    memcpy(al->zdn, al->zd, (size_t)n * sizeof(double));
    memcpy(al->zddn, al->zdd, (size_t)n * sizeof(double));
    if (nc > 0) {
        memcpy(al->lamp, al->lamn, (size_t)nc * sizeof(double));
        /* The pure penalty's multipliers are its converged penalty forces. */
        memcpy(al->lamn, al->o.penalty ? al->w : al->lam, (size_t)nc * sizeof(double));
    }
    al->hp = h;
    al->t = t;
    if (st) st->steps++;
    return MB_OK;
}

int mb_al3_advance(mb_al3 *al, double t_out, long max_steps, const double *u, const double *p, mb_stats *st,
                   char *err, size_t errlen) {
    if (!(t_out >= al->t)) return mb_fail(err, errlen, MB_ERR_ARG, "al3: t_out %g is before t = %g", t_out, al->t);
    if (t_out == al->t) return MB_OK;
    long steps = mb_fixed_step_count(al->t, t_out, al->h);
    if (max_steps > 0 && steps > max_steps)
        return mb_fail(err, errlen, MB_ERR_MAX_STEPS, "al3: reaching t = %g takes %ld steps, more than %ld", t_out,
                       steps, max_steps);
    double t0 = al->t, hs = (t_out - t0) / (double)steps;
    for (long k = 1; k <= steps; ++k) {
        int rc = step(al, hs, u, p, st, err, errlen);
        if (rc) return rc;
        al->t = k == steps ? t_out : t0 + k * hs;
    }
    return MB_OK;
}

double mb_al3_time(const mb_al3 *al) { return al->t; }
const double *mb_al3_z(const mb_al3 *al) { return al->zn; }
const double *mb_al3_zd(const mb_al3 *al) { return al->zdn; }
const double *mb_al3_zdd(const mb_al3 *al) { return al->zddn; }
const double *mb_al3_lambda(const mb_al3 *al) { return al->lamn; }
double mb_al3_alpha(const mb_al3 *al) { return al->alpha; }

void mb_al3_penalty_info(const mb_al3 *al, mb_al3_penalty_stats *out) {
    out->alpha0 = al->alpha0;
    out->raises = al->raises;
    out->max_factor = al->raise_max;
}
mb_kin *mb_al3_kin(mb_al3 *al) { return mb_mr_kin(al->mr); }

void mb_al3_tangent_info(const mb_al3 *al, mb_al3_tangent_stats *out) {
    memset(out, 0, sizeof *out);
    if (!al->sp) return;
    out->sparse = 1;
    out->nnz = al->sp->nnz;
    out->lu_nnz = mb_splu_lu_nnz(al->sp->lu);
    out->full = mb_splu_full_count(al->sp->lu);
    out->refactor = mb_splu_refactor_count(al->sp->lu);
}
