/* formulation_matrix_r.c: the Matrix R reduced ODE of a closed-loop model; knows no integrator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulation_matrix_r.h"
#include "linalg.h"
#include "mb_work.h"

struct mb_mr {
    const mb_model *m;
    mb_kin *kin;
    int nz;
    double *M, *Q, *R, *MR, *Mb;  /* nz x nz each (R, MR: nz x dof; Mb: dof x dof) */
    double *x, *zw, *zdw, *zlast, *tmp;  /* nz */
    double *work;                 /* the model functions' workspace */
    int have_last;
    long pos_iters;
};

void mb_mr_free(mb_mr *mr) {
    if (!mr) return;
    mb_kin_free(mr->kin);
    free(mr->M);
    free(mr->Q);
    free(mr->R);
    free(mr->MR);
    free(mr->Mb);
    free(mr->x);
    free(mr->zw);
    free(mr->zdw);
    free(mr->zlast);
    free(mr->tmp);
    free(mr->work);
    free(mr);
}

mb_mr *mb_mr_create(const mb_model *m, const mb_kin_options *o, char *err, size_t errlen) {
    if (!m || m->nz < 1) {
        mb_fail(err, errlen, MB_ERR_ARG, "matrix_r: %s", m ? "the model has no coordinates" : "no model");
        return NULL;
    }
    if (!m->mass || !m->forces) {
        mb_fail(err, errlen, MB_ERR_MODEL, "model %s lacks mass or forces, needed by matrix_r",
                m->name ? m->name : "?");
        return NULL;
    }
    mb_mr *mr = calloc(1, sizeof *mr);
    if (!mr) goto nomem;
    mr->m = m;
    mr->nz = m->nz;
    if (!(mr->kin = mb_kin_create(m, o, err, errlen))) {
        mb_mr_free(mr);
        return NULL;
    }
    size_t n = (size_t)m->nz;
    if (!(mr->M = calloc(n * n, sizeof(double))) || !(mr->Q = calloc(n, sizeof(double))) ||
        !(mr->R = calloc(n * n, sizeof(double))) || !(mr->MR = calloc(n * n, sizeof(double))) ||
        !(mr->Mb = calloc(n * n, sizeof(double))) || !(mr->x = calloc(n, sizeof(double))) ||
        !(mr->zw = calloc(n, sizeof(double))) || !(mr->zdw = calloc(n, sizeof(double))) ||
        !(mr->zlast = calloc(n, sizeof(double))) || !(mr->tmp = calloc(n, sizeof(double))) ||
        !(mr->work = mb_work_alloc(m)))
        goto nomem;
    return mr;
nomem:
    mb_mr_free(mr);
    mb_fail(err, errlen, MB_ERR_ALLOC, "matrix_r: out of memory (nz = %d)", m->nz);
    return NULL;
}

mb_kin *mb_mr_kin(mb_mr *mr) { return mr->kin; }
long mb_mr_position_iters(const mb_mr *mr) { return mr->pos_iters; }

int mb_mr_project(mb_mr *mr, double t, double *z, double *zd, const double *p, char *err, size_t errlen) {
    int it = 0, rc;
    size_t bytes = (size_t)mr->nz * sizeof(double);
    /* Factor at the guess first, so an ill-conditioned choice is replaced before Newton holds it fixed. */
    if ((rc = mb_kin_factor(mr->kin, t, z, p, err, errlen))) return rc;
    memcpy(mr->tmp, z, bytes);
    rc = mb_kin_position(mr->kin, t, z, p, &it, err, errlen);
    mr->pos_iters += it;
    if (rc == MB_ERR_NEWTON && mr->have_last) {
        /* The guess may sit in another basin (a stage far from the last step): retry from the
         * last assembled configuration with the same independent values. */
        const int *ind = mb_kin_independent(mr->kin);
        memcpy(z, mr->zlast, bytes);
        for (int j = 0; j < mb_kin_dof(mr->kin); ++j) z[ind[j]] = mr->tmp[ind[j]];
        rc = mb_kin_position(mr->kin, t, z, p, &it, err, errlen);
        mr->pos_iters += it;
    }
    if (rc) return rc;
    memcpy(mr->zlast, z, bytes);
    mr->have_last = 1;
    return zd ? mb_kin_velocity(mr->kin, t, z, zd, p, err, errlen) : MB_OK;
}

int mb_mr_accel(mb_mr *mr, double t, const double *z, const double *zd, const double *u, const double *p,
                double *zdd, char *err, size_t errlen) {
    int n = mr->nz, d = mb_kin_dof(mr->kin), rc;
    mb_args a = {t, z, zd, NULL, u, p, NULL};
    mr->m->mass(&a, mr->M, mr->work);
    mr->m->forces(&a, mr->Q, mr->work);
    const char *const *zn = mr->m->z_names;
    for (int i = 0; i < n * n; ++i)
        if (!isfinite(mr->M[i]))
            return mb_fail(err, errlen, MB_ERR_NAN, "mass matrix M(%d, %d) (%s, %s) is %g at t = %.10g", i % n, i / n,
                           zn ? zn[i % n] : "?", zn ? zn[i / n] : "?", mr->M[i], t);
    for (int i = 0; i < n; ++i)
        if (!isfinite(mr->Q[i]))
            return mb_fail(err, errlen, MB_ERR_NAN, "forces Q[%d] (%s) is %g at t = %.10g", i, zn ? zn[i] : "?", mr->Q[i], t);
    /* x: the acceleration problem with zdd_i = 0. */
    memset(mr->x, 0, (size_t)n * sizeof(double));
    if ((rc = mb_kin_acceleration(mr->kin, t, z, zd, mr->x, p, err, errlen))) return rc;
    if (d == 0) { /* fully driven: the motion is kinematic */
        memcpy(zdd, mr->x, (size_t)n * sizeof(double));
        return MB_OK;
    }
    if ((rc = mb_kin_R(mr->kin, mr->R, err, errlen))) return rc;
    /* tmp = Q - M x; MR = M R; Mb = R' M R; zdd_i from Mb zdd_i = R' tmp. */
    for (int i = 0; i < n; ++i) {
        double s = mr->Q[i];
        for (int j = 0; j < n; ++j) s -= mr->M[i + (size_t)j * n] * mr->x[j];
        mr->tmp[i] = s;
    }
    for (int c = 0; c < d; ++c)
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int j = 0; j < n; ++j) s += mr->M[i + (size_t)j * n] * mr->R[j + (size_t)c * n];
            mr->MR[i + (size_t)c * n] = s;
        }
    double *zi = mr->zw;
    for (int r = 0; r < d; ++r) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += mr->R[i + (size_t)r * n] * mr->tmp[i];
        zi[r] = s;
        for (int c = 0; c < d; ++c) {
            double v = 0;
            for (int i = 0; i < n; ++i) v += mr->R[i + (size_t)r * n] * mr->MR[i + (size_t)c * n];
            mr->Mb[r + (size_t)c * d] = v;
        }
    }
    if ((rc = mb_chol_factor(d, mr->Mb, err, errlen))) return rc;
    if ((rc = mb_chol_solve(d, mr->Mb, 1, zi, err, errlen))) return rc;
    for (int i = 0; i < n; ++i) {
        double s = mr->x[i];
        for (int c = 0; c < d; ++c) s += mr->R[i + (size_t)c * n] * zi[c];
        zdd[i] = s;
        if (!isfinite(s))
            return mb_fail(err, errlen, MB_ERR_NAN, "acceleration zdd[%d] (%s) is %g at t = %.10g", i, zn ? zn[i] : "?", s, t);
    }
    return MB_OK;
}

int mb_mr_rhs(mb_mr *mr, double t, const double *y, const double *u, const double *p, double *f, char *err,
              size_t errlen) {
    int n = mr->nz, rc;
    /* Project in f's halves (zw and tmp are mb_mr_accel's scratch). */
    double *z = f + n, *zd = f;
    memcpy(z, y, (size_t)n * sizeof(double));
    memcpy(zd, y + n, (size_t)n * sizeof(double));
    if ((rc = mb_mr_project(mr, t, z, zd, p, err, errlen))) return rc;
    memcpy(mr->zdw, zd, (size_t)n * sizeof(double));
    /* f = [zd; zdd]: zd stays in the first half; zdd overwrites z, whose copy is zlast. */
    return mb_mr_accel(mr, t, mr->zlast, mr->zdw, u, p, f + n, err, errlen);
}
