/* matrix_r_reduced.c: Matrix R as a second-order system in the independent coordinates, for the implicit trapezoidal rule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_r_reduced.h"
#include "matrix_r_tangent.h"

struct mb_mrs {
    const mb_model *m;
    mb_mr *mr;
    mb_mrt *tan;
    const double *u, *p;
    int n, d;
    int *ind;                     /* d: the independent coordinates at mb_mrs_begin */
    int rechosen;
    double tb, *zb, *zdb, *zddb;  /* the state of mb_mrs_begin, extrapolated for the guesses */
    double *z, *zd, *zdd;         /* n: the consistent state of the last residual */
    double *S, *Sd, *Sdd;         /* n x 2n: unit directions and the tangent along them */
};

void mb_mrs_free(mb_mrs *x) {
    if (!x) return;
    mb_mrt_free(x->tan);
    double *bufs[] = {x->zb, x->zdb, x->zddb, x->z, x->zd, x->zdd, x->S, x->Sd, x->Sdd};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) free(bufs[i]);
    free(x->ind);
    free(x);
}

mb_mrs *mb_mrs_create(const mb_model *m, mb_mr *mr, const double *u, const double *p, char *err, size_t errlen) {
    mb_mrs *x = calloc(1, sizeof *x);
    if (!x) goto nomem;
    x->m = m;
    x->mr = mr;
    x->u = u;
    x->p = p;
    x->n = m->nz;
    size_t n = (size_t)m->nz;
    if (!(x->tan = mb_mrt_create(m, 2 * m->nz, 0, err, errlen))) {
        mb_mrs_free(x);
        return NULL;
    }
    double **bufs[] = {&x->zb, &x->zdb, &x->zddb, &x->z, &x->zd, &x->zdd};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i)
        if (!(*bufs[i] = calloc(n, sizeof(double)))) goto nomem;
    if (!(x->ind = calloc(n, sizeof(int))) || !(x->S = calloc(2 * n * n, sizeof(double))) ||
        !(x->Sd = calloc(2 * n * n, sizeof(double))) || !(x->Sdd = calloc(2 * n * n, sizeof(double))))
        goto nomem;
    return x;
nomem:
    mb_mrs_free(x);
    mb_fail(err, errlen, MB_ERR_ALLOC, "matrix_r trapezoidal: out of memory (nz = %d)", m->nz);
    return NULL;
}

void mb_mrs_begin(mb_mrs *x, double t, const double *z, const double *zd, const double *zdd, double *zi, double *zdi) {
    mb_kin *kin = mb_mr_kin(x->mr);
    size_t bytes = (size_t)x->n * sizeof(double);
    x->d = mb_kin_dof(kin);
    memcpy(x->ind, mb_kin_independent(kin), (size_t)x->d * sizeof(int));
    x->rechosen = 0;
    x->tb = t;
    memcpy(x->zb, z, bytes);
    memcpy(x->zdb, zd, bytes);
    memcpy(x->zddb, zdd, bytes);
    for (int k = 0; k < x->d; ++k) zi[k] = z[x->ind[k]], zdi[k] = zd[x->ind[k]];
}

int mb_mrs_dof(const mb_mrs *x) { return x->d; }
int mb_mrs_rechosen(const mb_mrs *x) { return x->rechosen; }
int mb_mrs_coordinate(const mb_mrs *x, int k) { return k >= 0 && k < x->d ? x->ind[k] : -1; }

/* The consistent state with independent values (zi, zdi): the dependent ones from the begin state extrapolated to
 * t (a second-order Taylor step), then projected. A re-choice of the independent coordinates there is noted; within
 * a step (rechoice = 0) it fails, since the unknowns then mean other coordinates. */
static int consistent(mb_mrs *x, double t, const double *zi, const double *zdi, int rechoice, char *err,
                      size_t errlen) {
    double dt = t - x->tb;
    for (int i = 0; i < x->n; ++i) {
        x->z[i] = x->zb[i] + dt * x->zdb[i] + 0.5 * dt * dt * x->zddb[i];
        x->zd[i] = x->zdb[i] + dt * x->zddb[i];
    }
    for (int k = 0; k < x->d; ++k) x->z[x->ind[k]] = zi[k], x->zd[x->ind[k]] = zdi[k];
    int rc = mb_mr_project(x->mr, t, x->z, x->zd, x->p, err, errlen);
    if (rc) return rc;
    if (memcmp(mb_kin_independent(mb_mr_kin(x->mr)), x->ind, (size_t)x->d * sizeof(int)) != 0) {
        x->rechosen = 1;
        if (!rechoice)
            return mb_fail(err, errlen, MB_ERR_SINGULAR, "matrix_r trapezoidal: the independent coordinates were "
                           "re-chosen at t = %.10g", t);
    }
    return mb_mr_accel(x->mr, t, x->z, x->zd, x->u, x->p, x->zdd, err, errlen);
}

static int residual(void *ctx, double t, const double *zi, const double *zdi, const double *zddi, double *r, char *err,
                    size_t errlen) {
    mb_mrs *x = ctx;
    int rc = consistent(x, t, zi, zdi, 0, err, errlen);
    if (rc) return rc;
    for (int k = 0; k < x->d; ++k) r[k] = zddi[k] - x->zdd[x->ind[k]];
    return MB_OK;
}

/* At the state of the last residual (the rule asks for the tangent right after it, at the same point). */
static int tangent(void *ctx, double t, const double *zi, const double *zdi, const double *zddi, double cz, double cv,
                   double ca, double *T, char *err, size_t errlen) {
    mb_mrs *x = ctx;
    int n = x->n, d = x->d, rc;
    (void)zi, (void)zdi, (void)zddi;
    size_t nS = (size_t)n * 2 * d;
    memset(x->S, 0, nS * sizeof(double));
    memset(x->Sd, 0, nS * sizeof(double));
    for (int c = 0; c < d; ++c) {
        x->S[x->ind[c] + (size_t)c * n] = 1;
        x->Sd[x->ind[c] + (size_t)(d + c) * n] = 1;
    }
    if ((rc = mb_mrt_directions(x->tan, x->mr, t, x->z, x->zd, x->zdd, x->u, x->p, 2 * d, -1, x->S, x->Sd, x->Sdd, err,
                                errlen)))
        return rc;
    for (int c = 0; c < d; ++c)
        for (int k = 0; k < d; ++k) {
            double jz = x->Sdd[x->ind[k] + (size_t)c * n], jzd = x->Sdd[x->ind[k] + (size_t)(d + c) * n];
            T[k + (size_t)c * d] = (k == c ? ca : 0) - cz * jz - cv * jzd;
        }
    return MB_OK;
}

mb_so_system mb_mrs_system(mb_mrs *x) {
    mb_so_system sys = {residual, tangent, x};
    return sys;
}

int mb_mrs_full(mb_mrs *x, double t, const double *zi, const double *zdi, double *z, double *zd, double *zdd,
                char *err, size_t errlen) {
    int rc = consistent(x, t, zi, zdi, 1, err, errlen);
    if (rc) return rc;
    size_t bytes = (size_t)x->n * sizeof(double);
    memcpy(z, x->z, bytes);
    memcpy(zd, x->zd, bytes);
    memcpy(zdd, x->zdd, bytes);
    return MB_OK;
}
