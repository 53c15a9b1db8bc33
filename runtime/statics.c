/* statics.c: static equilibrium by Newton's method with minimum-norm least-squares steps. */
#include "statics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg.h"
#include "mb_status.h"
#include "mb_work.h"

struct mb_static {
    const mb_model *m;
    mb_static_options o;
    int nz, nc, n;          /* n = nz + nc unknowns and equations */
    double *zero;           /* nz zeros: zd = zdd = 0 */
    double *r, *phi, *phiz, *ktw, *J, *b, *zt, *lt, *lam;
    mb_linalg *ws;
    double *work;           /* the model functions' workspace */
    int fd;                 /* the tangent's z-block by central differences */
};

void mb_static_options_default(mb_static_options *o) {
    o->force_tol = 1e-10;
    o->step_tol = 1e-12;
    o->phi_tol = 1e-12;
    o->max_iter = 100;
    o->fd_tangent = 0;
}

void mb_static_free(mb_static *s) {
    if (!s) return;
    free(s->zero);
    free(s->r);
    free(s->phi);
    free(s->phiz);
    free(s->ktw);
    free(s->J);
    free(s->b);
    free(s->zt);
    free(s->lt);
    free(s->lam);
    free(s->work);
    mb_linalg_free(s->ws);
    free(s);
}

static double *alloc(size_t count) { return calloc(count > 0 ? count : 1, sizeof(double)); }

mb_static *mb_static_create(const mb_model *m, const mb_static_options *o, char *err, size_t errlen) {
    if (!m) {
        mb_fail(err, errlen, MB_ERR_ARG, "static: no model");
        return NULL;
    }
    if (!m->inverse_dynamics) {
        mb_fail(err, errlen, MB_ERR_MODEL, "static: model %s has no inverse_dynamics", m->name);
        return NULL;
    }
    if (m->nc > 0 && (!m->constraints || !m->constraints_dz)) {
        mb_fail(err, errlen, MB_ERR_MODEL, "static: model %s has loops but no constraints and constraints_dz", m->name);
        return NULL;
    }
    mb_static *s = calloc(1, sizeof *s);
    if (!s) {
        mb_fail(err, errlen, MB_ERR_ALLOC, "static: out of memory");
        return NULL;
    }
    s->m = m;
    if (o) s->o = *o;
    else mb_static_options_default(&s->o);
    s->fd = s->o.fd_tangent || !m->inverse_dynamics_dz || (m->nc > 0 && !m->constraints_dz_tw_dz);
    s->nz = m->nz;
    s->nc = m->nc;
    s->n = m->nz + m->nc;
    size_t nz = (size_t)s->nz, nc = (size_t)s->nc, n = (size_t)s->n;
    s->zero = alloc(nz);
    s->r = alloc(nz);
    s->phi = alloc(nc);
    s->phiz = alloc(nc * nz);
    s->ktw = alloc(nz * nz);
    s->J = alloc(n * n);
    s->b = alloc(n);
    s->zt = alloc(nz);
    s->lt = alloc(nc);
    s->lam = alloc(nc);
    s->work = mb_work_alloc(m);
    s->ws = s->n > 0 ? mb_linalg_create(s->n, s->n, 1, err, errlen) : NULL;
    if (!s->zero || !s->r || !s->phi || !s->phiz || !s->ktw || !s->J || !s->b || !s->zt || !s->lt || !s->lam || !s->work ||
        (s->n > 0 && !s->ws)) {
        mb_static_free(s);
        mb_fail(err, errlen, MB_ERR_ALLOC, "static: out of memory");
        return NULL;
    }
    return s;
}

static double maxabs(int n, const double *v) {
    double x = 0;
    for (int i = 0; i < n; ++i) x = fmax(x, fabs(v[i]));
    return x;
}

/* r + Phi_z' lambda into s->r and Phi into s->phi at (z, lambda); Phi_z into s->phiz. */
static int residual(mb_static *s, double t, const double *z, const double *lambda, const double *u, const double *p) {
    const mb_model *m = s->m;
    mb_args a = { t, z, s->zero, s->zero, u, p, lambda };
    m->inverse_dynamics(&a, s->r, s->work);
    if (s->nc > 0) {
        m->constraints(&a, s->phi, s->work);
        m->constraints_dz(&a, s->phiz, s->work);
        for (int j = 0; j < s->nz; ++j)
            for (int i = 0; i < s->nc; ++i) s->r[j] += s->phiz[(size_t)j * s->nc + i] * lambda[i];
    }
    for (int i = 0; i < s->nz; ++i)
        if (!isfinite(s->r[i])) return i;
    for (int i = 0; i < s->nc; ++i)
        if (!isfinite(s->phi[i])) return s->nz + i;
    return -1;
}

int mb_static_fd_tangent(const mb_static *s) { return s->fd; }

/* d(r + Phi_z' lambda)/dz into s->ktw (column j: z_j) by central differences, the residual restored at z after:
 * steps of eps^(1/3) relative (their truncation and rounding errors balance near 1e-10 relative). */
static int tangent_fd(mb_static *s, double t, const double *z, const double *lam, const double *u, const double *p) {
    const int nz = s->nz;
    double *zp = s->zt;
    memcpy(zp, z, (size_t)nz * sizeof *zp);
    for (int j = 0; j < nz; ++j) {
        const double h = 6e-6 * (1 + fabs(z[j]));
        double *col = s->ktw + (size_t)j * nz;
        zp[j] = z[j] + h;
        const double up = zp[j];
        if (residual(s, t, zp, lam, u, p) >= 0) return j;
        memcpy(col, s->r, (size_t)nz * sizeof *col);
        zp[j] = z[j] - h;
        const double down = zp[j];
        if (residual(s, t, zp, lam, u, p) >= 0) return j;
        for (int i = 0; i < nz; ++i) col[i] = (col[i] - s->r[i]) / (up - down);
        zp[j] = z[j];
    }
    return residual(s, t, z, lam, u, p);
}

static double norm2(int n, const double *v) {
    double x = 0;
    for (int i = 0; i < n; ++i) x += v[i] * v[i];
    return sqrt(x);
}

int mb_static_solve(mb_static *s, double t, double *z, double *lambda, const double *u, const double *p, int *iters,
                    double res[2], char *err, size_t errlen) {
    const mb_model *m = s->m;
    const int nz = s->nz, nc = s->nc, n = s->n;
    double *lam = lambda ? lambda : s->lam;
    if (iters) *iters = 0;
    for (int i = 0; i < nz; ++i)
        if (!isfinite(z[i])) return mb_fail(err, errlen, MB_ERR_ARG, "static: start value of %s is not finite", m->z_names[i]);
    if (!lambda) memset(s->lam, 0, (size_t)(nc > 0 ? nc : 1) * sizeof *s->lam);
    int bad = residual(s, t, z, lam, u, p);
    if (bad >= 0) return mb_fail(err, errlen, MB_ERR_NAN, "static: the residual of %s is not finite at the start",
                                 bad < nz ? m->z_names[bad] : "a constraint");
    const double fscale = 1 + maxabs(nz, s->r);
    double kscale = 1; /* a stiffness, N/m: weighs the constraint violation against the forces in the merit */
    for (int it = 0; it <= s->o.max_iter; ++it) {
        double rmax = maxabs(nz, s->r), pmax = maxabs(nc, s->phi);
        if (res) {
            res[0] = rmax;
            res[1] = pmax;
        }
        /* Tangent [dr/dz + d(Phi_z' lambda)/dz, Phi_z'; Phi_z, 0] at the current iterate. */
        if (s->fd) {
            int bad_fd = tangent_fd(s, t, z, lam, u, p);
            if (bad_fd >= 0)
                return mb_fail(err, errlen, MB_ERR_NAN, "static: the residual is not finite near %s (central differences)",
                               bad_fd < nz ? m->z_names[bad_fd] : "a constraint");
        } else {
            mb_args a = { t, z, s->zero, s->zero, u, p, lam };
            m->inverse_dynamics_dz(&a, s->ktw, s->work);
            if (nc > 0) {
                double *k2 = s->J; /* scratch: d(Phi_z' lambda)/dz, then the tangent is rebuilt below */
                m->constraints_dz_tw_dz(&a, k2, s->work);
                for (size_t q = 0; q < (size_t)nz * nz; ++q) s->ktw[q] += k2[q];
            }
        }
        if (it == 0) kscale = fmax(1, maxabs(nz * nz, s->ktw));
        /* The constraint block is scaled by kscale (unknowns dz and dlambda / kscale, rows kscale Phi): a stiff
         * vehicle (a coach's pitch stiffness is 2e8 N m/rad) against Phi_z entries of order 1 otherwise puts
         * the small physical singular values of the tangent below the least-squares rank tolerance, and the
         * truncated step is no descent direction. */
        memset(s->J, 0, (size_t)n * n * sizeof *s->J);
        for (int j = 0; j < nz; ++j)
            for (int i = 0; i < nz; ++i) s->J[(size_t)j * n + i] = s->ktw[(size_t)j * nz + i];
        for (int j = 0; j < nz; ++j)
            for (int i = 0; i < nc; ++i) {
                double v = kscale * s->phiz[(size_t)j * nc + i];
                s->J[(size_t)j * n + nz + i] = v;         /* Phi_z */
                s->J[(size_t)(nz + i) * n + j] = v;       /* Phi_z' */
            }
        double merit = norm2(nz, s->r) + kscale * norm2(nc, s->phi);
        for (int i = 0; i < nz; ++i) s->b[i] = -s->r[i];
        for (int i = 0; i < nc; ++i) s->b[nz + i] = -kscale * s->phi[i];
        int rank = 0, rc = mb_lstsq(s->ws, n, n, 1, s->J, s->b, 1e-12, &rank, err, errlen);
        if (rc) return rc;
        /* Damped step: halve until the merit decreases (at most 30 halvings). */
        double lambda_step = 1;
        int accepted = 0;
        for (int h = 0; h < 30 && !accepted; ++h, lambda_step *= 0.5) {
            for (int i = 0; i < nz; ++i) s->zt[i] = z[i] + lambda_step * s->b[i];
            for (int i = 0; i < nc; ++i) s->lt[i] = lam[i] + lambda_step * kscale * s->b[nz + i];
            if (residual(s, t, s->zt, s->lt, u, p) >= 0) continue;
            double trial = norm2(nz, s->r) + kscale * norm2(nc, s->phi);
            accepted = trial <= merit || (maxabs(nz, s->r) <= s->o.force_tol * fscale && maxabs(nc, s->phi) <= s->o.phi_tol);
        }
        if (!accepted) {
            residual(s, t, z, lam, u, p); /* leave the residual of the last accepted iterate in place */
            break;
        }
        double dz = lambda_step * 2 * maxabs(nz, s->b), zmax = maxabs(nz, s->zt);
        memcpy(z, s->zt, (size_t)nz * sizeof *z);
        if (nc > 0) memcpy(lam, s->lt, (size_t)nc * sizeof *lam);
        if (iters) *iters = it + 1;
        rmax = maxabs(nz, s->r);
        pmax = maxabs(nc, s->phi);
        if (res) {
            res[0] = rmax;
            res[1] = pmax;
        }
        if (rmax <= s->o.force_tol * fscale && pmax <= s->o.phi_tol && dz <= s->o.step_tol * (1 + zmax)) return MB_OK;
    }
    /* Name the worst equation, so a user sees which part of the model does not balance. */
    int worst = 0;
    double wv = -1;
    for (int i = 0; i < nz; ++i)
        if (fabs(s->r[i]) / fscale > wv) wv = fabs(s->r[i]) / fscale, worst = i;
    for (int i = 0; i < nc; ++i)
        if (fabs(s->phi[i]) > wv) wv = fabs(s->phi[i]), worst = nz + i;
    if (worst < nz)
        return mb_fail(err, errlen, MB_ERR_NEWTON,
                       "static: no equilibrium found: the force on %s stays %.3g (of %.3g at the start), max|Phi| %.3g",
                       m->z_names[worst], s->r[worst], fscale - 1, maxabs(nc, s->phi));
    return mb_fail(err, errlen, MB_ERR_NEWTON, "static: no equilibrium found: constraint %d stays violated by %.3g",
                   worst - nz, s->phi[worst - nz]);
}
