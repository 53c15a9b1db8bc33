/* integrate_trapezoidal.c: the implicit trapezoidal rule (Newmark beta 1/4, gamma 1/2) with Newton on the exact tangent. */
#include <stdlib.h>
#include <string.h>

#include "integrate.h"
#include "linalg.h"

/* The unknown of a step is x = zdd_{n+1}; position and velocity follow from it
 *   z_{n+1}  = z_n + h zd_n + h²/4 (zdd_n + x)     (beta = 1/4)
 *   zd_{n+1} = zd_n + h/2 (zdd_n + x)              (gamma = 1/2)
 * and r(t_{n+1}, z_{n+1}, zd_{n+1}, x) = 0 is solved by Newton. Because z and zd
 * are affine in x with slopes h²/4 and h/2, the exact Jacobian of the residual
 * with respect to x is T = h²/4 dr/dz + h/2 dr/dzd + dr/dzdd, which the system's
 * tangent callback builds. T need not be symmetric (velocity-dependent forces),
 * hence LU. For a linear undamped system the rule conserves the quadratic energy
 * exactly: it is the (symplectic) implicit midpoint rule in disguise. */

struct mb_trap {
    int n;
    double tol;
    int max_iter;
    double t, *z, *zd, *zdd;     /* state after the last successful step */
    double *zddp;                /* zdd of the step before (reuse: the predictor extrapolates), have_prev */
    int have_prev;
    double *zb, *zdb;            /* the parts of z_{n+1}, zd_{n+1} that do not depend on x */
    double *zn, *zdn, *x, *r;    /* Newton iterate */
    double *T;                   /* n x n tangent, then its LU factor */
    mb_linalg *la;
    int reuse;                   /* keep the LU of T across iterations and steps while Newton converges */
    int full;                    /* this solve: a fresh tangent every iteration whatever reuse says */
    int have_lu;                 /* T's LU is in T, built for (lu_cz, lu_cv) */
    double lu_cz, lu_cv;
    int started;
    int worst;                   /* component of the largest correction in the last Newton iteration */
};

void mb_trap_free(mb_trap *tr) {
    if (!tr) return;
    double *bufs[] = {tr->z, tr->zd, tr->zdd, tr->zddp, tr->zb, tr->zdb, tr->zn, tr->zdn, tr->x, tr->r, tr->T};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) free(bufs[i]);
    mb_linalg_free(tr->la);
    free(tr);
}

mb_trap *mb_trap_create(int n, double newton_tol, int newton_max_iter, char *err, size_t errlen) {
    if (n < 1 || !(newton_tol > 0) || !isfinite(newton_tol) || newton_max_iter < 1) {
        mb_fail(err, errlen, MB_ERR_ARG,
                "trapezoidal: bad arguments (n = %d, newton_tol = %g must be > 0, newton_max_iter = %d must be >= 1)",
                n, newton_tol, newton_max_iter);
        return NULL;
    }
    mb_trap *tr = calloc(1, sizeof *tr);
    int okay = tr != NULL;
    if (okay) {
        tr->n = n;
        tr->tol = newton_tol;
        tr->max_iter = newton_max_iter;
        double **bufs[] = {&tr->z, &tr->zd, &tr->zdd, &tr->zddp, &tr->zb, &tr->zdb, &tr->zn, &tr->zdn, &tr->x, &tr->r};
        for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i)
            okay &= (*bufs[i] = calloc((size_t)n, sizeof(double))) != NULL;
        okay &= (tr->T = calloc((size_t)n * n, sizeof(double))) != NULL;
        if (okay) {
            tr->la = mb_linalg_create(n, n, 1, err, errlen);
            if (!tr->la) {
                mb_trap_free(tr);
                return NULL;
            }
        }
    }
    if (!okay) {
        mb_trap_free(tr);
        mb_fail(err, errlen, MB_ERR_ALLOC, "trapezoidal: out of memory (n = %d)", n);
        return NULL;
    }
    return tr;
}

double mb_trap_time(const mb_trap *tr) { return tr->t; }
const double *mb_trap_z(const mb_trap *tr) { return tr->z; }
const double *mb_trap_zd(const mb_trap *tr) { return tr->zd; }
const double *mb_trap_zdd(const mb_trap *tr) { return tr->zdd; }
int mb_trap_worst(const mb_trap *tr) { return tr->worst; }
void mb_trap_set_reuse(mb_trap *tr, int reuse) {
    tr->reuse = reuse;
    tr->have_lu = 0;
}

int mb_trap_set_tangent(mb_trap *tr, const double *T, double cz, double cv, char *err, size_t errlen) {
    memcpy(tr->T, T, (size_t)tr->n * tr->n * sizeof(double));
    tr->have_lu = 0;
    int rc = mb_lu_factor(tr->la, tr->n, tr->T, err, errlen);
    if (rc) return rc;
    tr->have_lu = 1, tr->lu_cz = cz, tr->lu_cv = cv;
    return MB_OK;
}

/* Solves r(t, zb + cz x, zdb + cv x, x) = 0 for x, starting from the x in tr->x.
 * linear: r is known to be linear in x (cz = cv = 0), so one correction is
 * exact and no confirming iteration is needed. Full Newton: the tangent is rebuilt every iteration, which keeps the
 * convergence quadratic (it costs one more LU per iteration than a frozen one). With reuse, the last LU serves
 * while each correction is at most half the one before; a slower one rebuilds it at the next iteration. */
static int newton(mb_trap *tr, const mb_so_system *sys, double t, double cz, double cv, int linear, mb_stats *st,
                  char *err, size_t errlen) {
    int n = tr->n, rc, rebuild = 0;
    double dmax = INFINITY, dprev = INFINITY;
    /* The smallest change of x the state can show: z = zb + cz x and zd = zdb + cv x are doubles, so a correction
     * below eps |zb| / cz (h = 1 ms: 4e-9 for |z| = 5) moves nothing but the rounding of z and zd. */
    double floor_x = 0;
    for (int i = 0; i < n; ++i)
        floor_x = fmax(floor_x, DBL_EPSILON * (fabs(tr->zb[i]) / fabs(cz) + fabs(tr->zdb[i]) / fabs(cv)));
    for (int it = 1; it <= tr->max_iter; ++it) {
        for (int i = 0; i < n; ++i) {
            tr->zn[i] = tr->zb[i] + cz * tr->x[i];
            tr->zdn[i] = tr->zdb[i] + cv * tr->x[i];
        }
        char msg[MB_ERRLEN] = "";
        rc = sys->residual(sys->ctx, t, tr->zn, tr->zdn, tr->x, tr->r, msg, sizeof msg);
        st->rhs_evals++;
        /* A kept LU serves the same coefficients up to the rounding of the step size (t_out - t of one step). */
        int same = fabs(tr->lu_cz - cz) <= 1e-9 * fabs(cz) && fabs(tr->lu_cv - cv) <= 1e-9 * fabs(cv);
        int fresh = !tr->reuse || tr->full || !tr->have_lu || rebuild || !same;
        if (rc == MB_OK && fresh)
            rc = sys->tangent(sys->ctx, t, tr->zn, tr->zdn, tr->x, cz, cv, 1.0, tr->T, msg, sizeof msg);
        /* A non-finite value after the first iteration means the iterates ran
         * away: a Newton failure, whatever function noticed it first. */
        if (rc == MB_ERR_NAN && it > 1)
            return mb_fail(err, errlen, MB_ERR_NEWTON, "trapezoidal: Newton diverged at t = %.10g (iteration %d: %s)",
                           t, it, msg);
        if (rc) return mb_fail(err, errlen, rc, "%s", msg);
        st->newton_iters++;
        if (fresh) {
            st->jac_evals++;
            tr->have_lu = 0;
            if ((rc = mb_lu_factor(tr->la, n, tr->T, msg, sizeof msg)))
                return mb_fail(err, errlen, rc, "trapezoidal: Newton tangent at t = %.10g: %s", t, msg);
            tr->have_lu = 1, tr->lu_cz = cz, tr->lu_cv = cv, rebuild = 0;
        }
        for (int i = 0; i < n; ++i) tr->r[i] = -tr->r[i];
        if ((rc = mb_lu_solve(tr->la, n, tr->T, 1, tr->r, msg, sizeof msg))) return mb_fail(err, errlen, rc, "%s", msg);
        double xmax = 0;
        dmax = 0;
        tr->worst = 0;
        for (int i = 0; i < n; ++i) {
            if (!(fabs(tr->r[i]) <= dmax)) { /* a NaN correction is the worst: infinite */
                tr->worst = i;
                dmax = isnan(tr->r[i]) ? INFINITY : fabs(tr->r[i]);
            }
            xmax = fmax(xmax, fabs(tr->x[i] + tr->r[i]));
        }
        /* Converged on the size of the correction, relative to the acceleration with an absolute floor of
         * newton_tol; or stalled within 100 times that (and the state's resolution), where it no longer halves: the
         * residual's own rounding (Matrix R's, whose positions are solved to 1e-12), which no tangent improves. */
        double lim = tr->tol * (1 + xmax);
        int stalled = it > 1 && dmax <= 100 * (lim + floor_x) && dmax > 0.5 * dprev;
        if (!fresh && !(dmax <= 0.5 * dprev) && !stalled) {
            /* The old LU does not contract enough here: this iterate again with a fresh tangent. */
            rebuild = 1;
            continue;
        }
        dprev = dmax;
        for (int i = 0; i < n; ++i) tr->x[i] += tr->r[i];
        if (!isfinite(dmax) || !isfinite(xmax))
            return mb_fail(err, errlen, MB_ERR_NEWTON, "trapezoidal: Newton diverged at t = %.10g (iteration %d)", t,
                           it);
        if (linear || dmax <= lim || stalled) {
            for (int i = 0; i < n; ++i) {
                tr->zn[i] = tr->zb[i] + cz * tr->x[i];
                tr->zdn[i] = tr->zdb[i] + cv * tr->x[i];
            }
            return MB_OK;
        }
    }
    return mb_fail(err, errlen, MB_ERR_NEWTON,
                   "trapezoidal: Newton did not converge in %d iteration(s) at t = %.10g (last correction %.3g, "
                   "tolerance %.3g)",
                   tr->max_iter, t, dmax, tr->tol);
}

int mb_trap_reset(mb_trap *tr, const mb_so_system *sys, double t, const double *z, const double *zd,
                  mb_stats *st, char *err, size_t errlen) {
    int n = tr->n;
    if (!isfinite(t)) return mb_fail(err, errlen, MB_ERR_ARG, "trapezoidal: start time %g", t);
    for (int i = 0; i < n; ++i)
        if (!isfinite(z[i]) || !isfinite(zd[i]))
            return mb_fail(err, errlen, MB_ERR_NAN, "trapezoidal: start state z[%d] = %g, zd[%d] = %g", i, z[i], i,
                           zd[i]);
    tr->started = 0;
    tr->have_prev = 0;
    /* r = M zdd - Q is linear in zdd (z, zd fixed: cz = cv = 0), so one Newton
     * correction from zdd = 0 is the solve M zdd = Q. */
    memcpy(tr->zb, z, (size_t)n * sizeof(double));
    memcpy(tr->zdb, zd, (size_t)n * sizeof(double));
    memset(tr->x, 0, (size_t)n * sizeof(double));
    int rc = newton(tr, sys, t, 0, 0, 1, st, err, errlen);
    if (rc) return rc;
    tr->t = t;
    memcpy(tr->z, z, (size_t)n * sizeof(double));
    memcpy(tr->zd, zd, (size_t)n * sizeof(double));
    memcpy(tr->zdd, tr->x, (size_t)n * sizeof(double));
    tr->started = 1;
    return MB_OK;
}

static int trap_step(mb_trap *tr, const mb_so_system *sys, double t_new, double h, mb_stats *st, char *err,
                     size_t errlen) {
    int n = tr->n;
    for (int i = 0; i < n; ++i) {
        tr->zb[i] = tr->z[i] + h * tr->zd[i] + 0.25 * h * h * tr->zdd[i];
        tr->zdb[i] = tr->zd[i] + 0.5 * h * tr->zdd[i];
        /* predictor: constant acceleration; with kept tangents, whose Newton converges linearly, the linear
         * extrapolation of the last two (one iteration fewer on a smooth stretch) */
        tr->x[i] = tr->reuse && tr->have_prev ? 2 * tr->zdd[i] - tr->zddp[i] : tr->zdd[i];
    }
    int rc = newton(tr, sys, t_new, 0.25 * h * h, 0.5 * h, 0, st, err, errlen);
    if (rc == MB_ERR_NEWTON && tr->reuse) {
        /* The kept tangents fell short (a strongly nonlinear stretch): the step again by full Newton. */
        memcpy(tr->x, tr->zdd, (size_t)n * sizeof(double));
        tr->full = 1;
        rc = newton(tr, sys, t_new, 0.25 * h * h, 0.5 * h, 0, st, err, errlen);
        tr->full = 0;
    }
    if (rc) return rc;
    tr->t = t_new;
    memcpy(tr->zddp, tr->zdd, (size_t)n * sizeof(double));
    tr->have_prev = 1;
    memcpy(tr->z, tr->zn, (size_t)n * sizeof(double));
    memcpy(tr->zd, tr->zdn, (size_t)n * sizeof(double));
    memcpy(tr->zdd, tr->x, (size_t)n * sizeof(double));
    st->steps++;
    return MB_OK;
}

const double *mb_trap_zdd_prev(const mb_trap *tr) { return tr->have_prev ? tr->zddp : NULL; }

void mb_trap_restore(mb_trap *tr, double t, const double *z, const double *zd, const double *zdd, const double *zddp) {
    size_t bytes = (size_t)tr->n * sizeof(double);
    tr->t = t;
    memcpy(tr->z, z, bytes);
    memcpy(tr->zd, zd, bytes);
    memcpy(tr->zdd, zdd, bytes);
    tr->have_prev = zddp != NULL;
    if (zddp) memcpy(tr->zddp, zddp, bytes);
    tr->have_lu = 0;
    tr->started = 1;
}

int mb_trap_advance(mb_trap *tr, const mb_so_system *sys, double t_out, double h, long max_steps, mb_stats *st,
                    char *err, size_t errlen) {
    if (!tr->started) return mb_fail(err, errlen, MB_ERR_ARG, "trapezoidal: advance before reset");
    double t0 = tr->t;
    if (!(h > 0) || !isfinite(h)) return mb_fail(err, errlen, MB_ERR_ARG, "trapezoidal: step %g must be positive", h);
    if (!isfinite(t_out) || t_out < t0)
        return mb_fail(err, errlen, MB_ERR_ARG, "trapezoidal: output time %g is before the current time %.10g",
                       t_out, t0);
    if (t_out == t0) return MB_OK;
    long n = mb_fixed_step_count(t0, t_out, h);
    if (max_steps > 0 && n > max_steps)
        return mb_fail(err, errlen, MB_ERR_MAX_STEPS,
                       "trapezoidal: reaching t = %g from t = %g takes %ld steps of %g, more than max_steps = %ld",
                       t_out, t0, n, h, max_steps);
    double he = (t_out - t0) / n;
    for (long k = 0; k < n; ++k) {
        int rc = trap_step(tr, sys, k + 1 == n ? t_out : t0 + (k + 1) * he, he, st, err, errlen);
        if (rc) return rc;
    }
    return MB_OK;
}
