/* formulation_tree.c: accelerations, residual and Newton tangent of an open-tree model; knows no integrator. */
#include <math.h>
#include <stdlib.h>

#include "formulation_tree.h"
#include "linalg.h"
#include "mb_work.h"

struct mb_tree {
    const mb_model *m;
    int nz;
    unsigned flags;
    double *M;   /* nz x nz: mass matrix, then its Cholesky factor */
    double *Q;   /* nz */
    double *J;   /* nz x nz: one derivative matrix at a time while assembling T */
    double *work; /* the model functions' workspace */
};

void mb_tree_free(mb_tree *tr) {
    if (!tr) return;
    free(tr->M);
    free(tr->Q);
    free(tr->J);
    free(tr->work);
    free(tr);
}

mb_tree *mb_tree_create(const mb_model *m, unsigned flags, char *err, size_t errlen) {
    if (!m || m->nz < 1) {
        mb_fail(err, errlen, MB_ERR_ARG, "tree formulation: %s", m ? "the model has no coordinates" : "no model");
        return NULL;
    }
    const char *name = m->name ? m->name : "(unnamed)";
    if ((flags & MB_TREE_FORWARD_DYNAMICS) && !m->forward_dynamics) {
        mb_fail(err, errlen, MB_ERR_MODEL, "model %s has no forward_dynamics function", name);
        return NULL;
    }
    if ((flags & MB_TREE_ACCEL) && !(flags & MB_TREE_FORWARD_DYNAMICS) && (!m->mass || !m->forces)) {
        mb_fail(err, errlen, MB_ERR_MODEL, "model %s lacks mass or forces, needed for M zdd = Q", name);
        return NULL;
    }
    if ((flags & MB_TREE_TANGENT) &&
        (!m->mass || !m->inverse_dynamics_dz || !m->inverse_dynamics_dzd || (!m->inverse_dynamics && !m->forces))) {
        mb_fail(err, errlen, MB_ERR_MODEL,
                "model %s lacks mass, inverse_dynamics_dz or inverse_dynamics_dzd, needed for the Newton tangent",
                name);
        return NULL;
    }
    mb_tree *tr = calloc(1, sizeof *tr);
    size_t n = (size_t)m->nz;
    if (tr) {
        tr->m = m;
        tr->nz = m->nz;
        tr->flags = flags;
        tr->M = calloc(n * n, sizeof *tr->M);
        tr->Q = calloc(n, sizeof *tr->Q);
        tr->J = calloc(n * n, sizeof *tr->J);
        tr->work = mb_work_alloc(m);
    }
    if (!tr || !tr->M || !tr->Q || !tr->J || !tr->work) {
        mb_tree_free(tr);
        mb_fail(err, errlen, MB_ERR_ALLOC, "tree formulation: out of memory (nz = %d)", m->nz);
        return NULL;
    }
    return tr;
}

static const char *zname(const mb_model *m, int i) {
    return m->z_names && m->z_names[i] ? m->z_names[i] : "?";
}

/* Names the first non-finite entry of a model output: a NaN must stop the run
 * at its source, not surface later as a "singular matrix" or a wrong answer. */
static const char *nonfinite(double v) { return isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf"; }

static int check_vec(const mb_tree *tr, const double *v, const char *what, double t, char *err, size_t errlen) {
    for (int i = 0; i < tr->nz; ++i)
        if (!isfinite(v[i]))
            return mb_fail(err, errlen, MB_ERR_NAN, "%s[%d] (%s) is %s at t = %.10g", what, i, zname(tr->m, i),
                           nonfinite(v[i]), t);
    return MB_OK;
}

static int check_mat(const mb_tree *tr, const double *a, const char *what, double t, char *err, size_t errlen) {
    int n = tr->nz;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            if (!isfinite(a[i + (size_t)j * n]))
                return mb_fail(err, errlen, MB_ERR_NAN, "%s(%d,%d) is %s at t = %.10g", what, i + 1, j + 1,
                               nonfinite(a[i + (size_t)j * n]), t);
    return MB_OK;
}

static mb_args args(double t, const double *z, const double *zd, const double *zdd, const double *u,
                    const double *p) {
    mb_args a = {t, z, zd, zdd, u, p, NULL};
    return a;
}

int mb_tree_accel(mb_tree *tr, double t, const double *z, const double *zd, const double *u, const double *p,
                  double *zdd, char *err, size_t errlen) {
    const mb_model *m = tr->m;
    mb_args a = args(t, z, zd, NULL, u, p);
    int rc;
    if (tr->flags & MB_TREE_FORWARD_DYNAMICS) {
        if ((rc = m->forward_dynamics(&a, zdd, tr->work)))
            return mb_fn_status(m, rc, "forward_dynamics", t, err, errlen);
        return check_vec(tr, zdd, "forward_dynamics zdd", t, err, errlen);
    }
    m->mass(&a, tr->M, tr->work);
    m->forces(&a, tr->Q, tr->work);
    if ((rc = check_mat(tr, tr->M, "mass matrix M", t, err, errlen))) return rc;
    if ((rc = check_vec(tr, tr->Q, "forces Q", t, err, errlen))) return rc;
    char msg[MB_ERRLEN];
    int pivot;
    rc = mb_chol_factor_at(tr->nz, tr->M, &pivot, msg, sizeof msg);
    if (rc == MB_ERR_NOT_PD)
        return mb_fail(err, errlen, rc, "mass matrix of model %s is not positive definite at t = %.10g: it fails at "
                       "coordinate z[%d] (%s) (%s)", m->name ? m->name : "?", t, pivot, zname(m, pivot), msg);
    if (rc) return mb_fail(err, errlen, rc, "%s", msg);
    for (int i = 0; i < tr->nz; ++i) zdd[i] = tr->Q[i];
    if ((rc = mb_chol_solve(tr->nz, tr->M, 1, zdd, err, errlen))) return rc;
    /* An ill-conditioned M can still overflow in the solve. */
    return check_vec(tr, zdd, "acceleration zdd", t, err, errlen);
}

int mb_tree_residual(mb_tree *tr, double t, const double *z, const double *zd, const double *zdd,
                     const double *u, const double *p, double *r, char *err, size_t errlen) {
    const mb_model *m = tr->m;
    mb_args a = args(t, z, zd, zdd, u, p);
    int n = tr->nz;
    if (m->inverse_dynamics) {
        m->inverse_dynamics(&a, r, tr->work);
    } else {
        m->mass(&a, tr->M, tr->work);
        m->forces(&a, tr->Q, tr->work);
        for (int i = 0; i < n; ++i) {
            double s = -tr->Q[i];
            for (int j = 0; j < n; ++j) s += tr->M[i + (size_t)j * n] * zdd[j];
            r[i] = s;
        }
    }
    return check_vec(tr, r, "residual r", t, err, errlen);
}

int mb_tree_tangent(mb_tree *tr, double t, const double *z, const double *zd, const double *zdd,
                    const double *u, const double *p, double cz, double cv, double ca, double *T, char *err,
                    size_t errlen) {
    const mb_model *m = tr->m;
    mb_args a = args(t, z, zd, zdd, u, p);
    size_t nn = (size_t)tr->nz * tr->nz;
    int rc;
    if (m->inverse_dynamics_tangent) {   /* fused: one pass, about half the work of the three matrices */
        const double c[3] = { cz, cv, ca };
        a.w = c;
        m->inverse_dynamics_tangent(&a, T, tr->work);
        return check_mat(tr, T, "inverse_dynamics_tangent", t, err, errlen);
    }
    m->mass(&a, T, tr->work);
    if ((rc = check_mat(tr, T, "mass matrix M", t, err, errlen))) return rc;
    for (size_t k = 0; k < nn; ++k) T[k] *= ca;
    m->inverse_dynamics_dzd(&a, tr->J, tr->work);
    if ((rc = check_mat(tr, tr->J, "inverse_dynamics_dzd", t, err, errlen))) return rc;
    for (size_t k = 0; k < nn; ++k) T[k] += cv * tr->J[k];
    m->inverse_dynamics_dz(&a, tr->J, tr->work);
    if ((rc = check_mat(tr, tr->J, "inverse_dynamics_dz", t, err, errlen))) return rc;
    for (size_t k = 0; k < nn; ++k) T[k] += cz * tr->J[k];
    return MB_OK;
}
