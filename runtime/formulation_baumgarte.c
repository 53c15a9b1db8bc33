/* formulation_baumgarte.c: the multiplier form of a closed loop with Baumgarte's stabilisation; knows no integrator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulation_baumgarte.h"
#include "linalg.h"
#include "mb_work.h"

struct mb_bg {
    const mb_model *m;
    mb_kin *kin;
    mb_linalg *la;
    int nz, nc, stage;
    double a, b;
    double *M, *Q, *J, *X, *S, *phi, *phit, *bias, *rhs, *work;
    double vmax[2];
    long recorded;
};

void mb_bg_free(mb_bg *bg) {
    if (!bg) return;
    mb_kin_free(bg->kin);
    mb_linalg_free(bg->la);
    free(bg->M);
    free(bg->Q);
    free(bg->J);
    free(bg->X);
    free(bg->S);
    free(bg->phi);
    free(bg->phit);
    free(bg->bias);
    free(bg->rhs);
    free(bg->work);
    free(bg);
}

mb_bg *mb_bg_create(const mb_model *m, double a, double b, const mb_kin_options *ko, char *err, size_t errlen) {
    if (!m || m->nz < 1 || m->nc < 1) {
        mb_fail(err, errlen, MB_ERR_ARG, "baumgarte: %s", !m ? "no model" : "the model has no constraints (use tree)");
        return NULL;
    }
    if (!m->mass || !m->forces || !m->constraints || !m->constraints_dz || !m->constraints_dt || !m->constraint_bias) {
        mb_fail(err, errlen, MB_ERR_MODEL, "model %s lacks mass, forces or a constraint function, needed by baumgarte",
                m->name ? m->name : "?");
        return NULL;
    }
    if (!(a >= 0) || !(b >= 0) || !isfinite(a) || !isfinite(b)) {
        mb_fail(err, errlen, MB_ERR_ARG, "baumgarte: a = %g and b = %g must be finite and >= 0", a, b);
        return NULL;
    }
    mb_bg *bg = calloc(1, sizeof *bg);
    if (!bg) goto nomem;
    bg->m = m;
    bg->nz = m->nz;
    bg->nc = m->nc;
    bg->a = a;
    bg->b = b;
    size_t n = (size_t)m->nz, c = (size_t)m->nc;
    if (!(bg->kin = mb_kin_create(m, ko, err, errlen))) {
        mb_bg_free(bg);
        return NULL;
    }
    if (!(bg->la = mb_linalg_create(m->nc, m->nc, 1, err, errlen))) {
        mb_bg_free(bg);
        return NULL;
    }
    if (!(bg->M = calloc(n * n, sizeof(double))) || !(bg->Q = calloc(n, sizeof(double))) ||
        !(bg->J = calloc(c * n, sizeof(double))) || !(bg->X = calloc(n * c, sizeof(double))) ||
        !(bg->S = calloc(c * c, sizeof(double))) || !(bg->phi = calloc(c, sizeof(double))) ||
        !(bg->phit = calloc(c, sizeof(double))) || !(bg->bias = calloc(c, sizeof(double))) ||
        !(bg->rhs = calloc(c > n ? c : n, sizeof(double))) || !(bg->work = mb_work_alloc(m)))
        goto nomem;
    return bg;
nomem:
    mb_bg_free(bg);
    mb_fail(err, errlen, MB_ERR_ALLOC, "baumgarte: out of memory (nz = %d, nc = %d)", m->nz, m->nc);
    return NULL;
}

mb_kin *mb_bg_kin(mb_bg *bg) { return bg->kin; }

int mb_bg_assemble(mb_bg *bg, double t, double *z, double *zd, const double *p, char *err, size_t errlen) {
    int rc = mb_kin_position(bg->kin, t, z, p, NULL, err, errlen);
    return rc ? rc : mb_kin_velocity(bg->kin, t, z, zd, p, err, errlen);
}

/* Phi, Phi_z, Phi_t at (t, z) into phi, J, phit. */
static void constraints(mb_bg *bg, double t, const double *z, const double *zd, const double *u, const double *p) {
    mb_args a = {t, z, zd, NULL, u, p, NULL};
    bg->m->constraints(&a, bg->phi, bg->work);
    bg->m->constraints_dz(&a, bg->J, bg->work);
    bg->m->constraints_dt(&a, bg->phit, bg->work);
}

/* max|Phi| and max|Phi_z zd + Phi_t| from the last constraints() into the run's largest. */
static void record(mb_bg *bg, const double *zd) {
    int n = bg->nz, c = bg->nc;
    for (int i = 0; i < c; ++i) {
        double v = bg->phit[i];
        for (int j = 0; j < n; ++j) v += bg->J[i + (size_t)j * c] * zd[j];
        bg->vmax[0] = fmax(bg->vmax[0], fabs(bg->phi[i]));
        bg->vmax[1] = fmax(bg->vmax[1], fabs(v));
    }
    bg->recorded++;
}

int mb_bg_record(mb_bg *bg, double t, const double *z, const double *zd, const double *p, char *err, size_t errlen) {
    (void)err, (void)errlen;
    constraints(bg, t, z, zd, NULL, p);
    record(bg, zd);
    return MB_OK;
}

void mb_bg_set_stage(mb_bg *bg, int stage) { bg->stage = stage; }

long mb_bg_violation_max(const mb_bg *bg, double v[2]) {
    v[0] = bg->vmax[0];
    v[1] = bg->vmax[1];
    return bg->recorded;
}

int mb_bg_accel(mb_bg *bg, double t, const double *z, const double *zd, const double *u, const double *p, double *zdd,
                double *lambda, char *err, size_t errlen) {
    int n = bg->nz, c = bg->nc, rc, rank;
    mb_args a = {t, z, zd, NULL, u, p, NULL};
    bg->m->mass(&a, bg->M, bg->work);
    bg->m->forces(&a, bg->Q, bg->work);
    bg->m->constraint_bias(&a, bg->bias, bg->work);
    constraints(bg, t, z, zd, u, p);
    if (bg->stage == 1) record(bg, zd);
    const char *const *zn = bg->m->z_names;
    for (int i = 0; i < n; ++i)
        if (!isfinite(bg->Q[i]))
            return mb_fail(err, errlen, MB_ERR_NAN, "forces Q[%d] (%s) is %g at t = %.10g", i, zn ? zn[i] : "?", bg->Q[i], t);
    int pivot;
    if ((rc = mb_chol_factor_at(n, bg->M, &pivot, err, errlen))) {
        /* A coordinate without mass (a general independent coordinate is one) leaves M singular; Matrix R, al3 and
         * the penalty formulation never factor M alone. */
        if (rc == MB_ERR_NOT_PD && pivot >= 0 && zn)
            return mb_fail(err, errlen, rc, "baumgarte needs a positive definite mass matrix, but M is singular at "
                           "coordinate %s (a coordinate without mass, such as a general independent coordinate, "
                           "needs matrix_r, al3 or penalty)", zn[pivot]);
        return rc;
    }
    /* X = M^-1 Phi_z', zdd = M^-1 Q (for now). */
    for (int i = 0; i < c; ++i)
        for (int j = 0; j < n; ++j) bg->X[j + (size_t)i * n] = bg->J[i + (size_t)j * c];
    if ((rc = mb_chol_solve(n, bg->M, c, bg->X, err, errlen))) return rc;
    memcpy(zdd, bg->Q, (size_t)n * sizeof(double));
    if ((rc = mb_chol_solve(n, bg->M, 1, zdd, err, errlen))) return rc;
    /* S lambda = Phi_z M^-1 Q - (-bias - 2a (Phi_z zd + Phi_t) - b² Phi), S = Phi_z M^-1 Phi_z'. */
    for (int i = 0; i < c; ++i) {
        double s = 0, v = bg->phit[i];
        for (int j = 0; j < n; ++j) {
            s += bg->J[i + (size_t)j * c] * zdd[j];
            v += bg->J[i + (size_t)j * c] * zd[j];
        }
        bg->rhs[i] = s + bg->bias[i] + 2 * bg->a * v + bg->b * bg->b * bg->phi[i];
        for (int k = 0; k < c; ++k) {
            double w = 0;
            for (int j = 0; j < n; ++j) w += bg->J[i + (size_t)j * c] * bg->X[j + (size_t)k * n];
            bg->S[i + (size_t)k * c] = w;
        }
    }
    if ((rc = mb_lstsq(bg->la, c, c, 1, bg->S, bg->rhs, 0, &rank, err, errlen))) return rc;
    for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int k = 0; k < c; ++k) s += bg->X[j + (size_t)k * n] * bg->rhs[k];
        zdd[j] -= s;
        if (!isfinite(zdd[j]))
            return mb_fail(err, errlen, MB_ERR_NAN, "acceleration zdd[%d] (%s) is %g at t = %.10g", j, zn ? zn[j] : "?",
                           zdd[j], t);
    }
    if (lambda) memcpy(lambda, bg->rhs, (size_t)c * sizeof(double));
    return MB_OK;
}

int mb_bg_rhs(mb_bg *bg, double t, const double *y, const double *u, const double *p, double *f, char *err,
              size_t errlen) {
    memcpy(f, y + bg->nz, (size_t)bg->nz * sizeof(double));
    return mb_bg_accel(bg, t, y, y + bg->nz, u, p, f + bg->nz, NULL, err, errlen);
}
