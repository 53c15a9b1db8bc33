/* sens_matrix_r.c: DDM and AVM for closed loops: Matrix R dynamics, full-coordinate sensitivities kept on the constraints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formulation_matrix_r.h"
#include "matrix_r_reduced.h"
#include "matrix_r_tangent.h"
#include "sens_common.h"
#include "sens_direct.h"

/* The augmented state is [z, zd, S, Sd, psi, grad] as for trees, integrated by rk4 or dopri5. Each
 * evaluation mirrors mb_mr_rhs: the dependent z and zd are re-assembled from the independent ones, and so
 * are the dependent rows of S and Sd, from the linearized constraints holding the independent rows; Sdd is the
 * motion's tangent along them (matrix_r_tangent.h). Because the sensitivities follow the scheme's own
 * projections, the gradient is the derivative of the discrete psi. */

typedef struct {
    sens_ctx *c;
    mb_mr *mr;
    mb_mrt *tan;                          /* the motion's tangent linear model (matrix_r_tangent.h) */
    int ns;
    int with_p;                           /* 1: the columns are d/dp; 0: directions in (z_i, zd_i), no p terms */
    int allow_reselection;                /* mb_sens_options.allow_reselection */
    long reselections;                    /* re-choices seen so far */
    long evals;                           /* right-hand sides evaluated (the AVM's counter) */
    double *z, *zd, *zdd;                 /* n each */
    double *S, *Sd, *Sdd;                 /* n x cap each */
    /* Rod modes: the first stages' Sdd, as the motion keeps their zdd (rod_history.h), so that the extrapolated
     * accelerations move with p: dzhat = the same extrapolation of these (n x cap each). */
    int rods;
    mb_rod_history shist;
    double *dzhat;
    /* The adjoint's evaluations: no history of Sdd (it carries the rods' coupling itself); adj_dzhat (n x ns, or
     * NULL) the directions of the extrapolated accelerations it asks for. */
    int adjoint;
    const double *adj_dzhat;
    struct dp_record *steps;              /* the dopri5 adjoint's forward run: its accepted steps (or NULL) */
} mr_ctx;

static void mr_free(mr_ctx *x) {
    mb_mr_free(x->mr);
    mb_mrt_free(x->tan);
    mb_rod_history_free(&x->shist);
    double *bufs[] = {x->z, x->zd, x->zdd, x->S, x->Sd, x->Sdd, x->dzhat};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) free(bufs[i]);
}

/* cap: the most sensitivity columns an evaluation will carry (np for the DDM, more for the adjoint). */
static int mr_init(mr_ctx *x, sens_ctx *c, const mb_sens_options *o, int cap, char *err, size_t errlen) {
    const mb_model *m = c->m;
    memset(x, 0, sizeof *x);
    x->c = c;
    x->ns = c->ns;
    x->with_p = 1;
    size_t n = (size_t)c->n, ns = (size_t)(cap > 0 ? cap : 1);
    /* Full Newton in the position problems: a replay between checkpoints then reaches the same points bit for bit,
     * whatever was factored before it. */
    mb_kin_options ko;
    mb_kin_options_default(&ko);
    ko.simplified = 0;
    if (!(x->mr = mb_mr_create(m, &ko, err, errlen))) return MB_ERR_MODEL;
    if (!(x->tan = mb_mrt_create(m, (int)ns, 1, err, errlen))) return MB_ERR_MODEL;
    x->z = calloc(n, sizeof(double)), x->zd = calloc(n, sizeof(double)), x->zdd = calloc(n, sizeof(double));
    x->S = calloc(n * ns, sizeof(double)), x->Sd = calloc(n * ns, sizeof(double)), x->Sdd = calloc(n * ns, sizeof(double));
    if (!x->z || !x->zd || !x->zdd || !x->S || !x->Sd || !x->Sdd)
        return mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (matrix_r sensitivities)");
    if (o->rod_mode != MB_ROD_EXACT) {
        int rc = mb_mr_set_rods(x->mr, o->rod_mode, o->rod_partitioned, err, errlen);
        if (rc) return rc;
        x->rods = 1;
        if ((rc = mb_rod_history_init(&x->shist, (int)(n * ns), err, errlen))) return rc;
        if (!(x->dzhat = calloc(n * ns, sizeof(double))))
            return mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (rod history)");
    }
    return MB_OK;
}

/* The objective f at x's consistent state: val += w f, dval[j] += w (f_z S_j + f_zd Sd_j + f_zdd Sdd_j [+ f_p j]). */
static int mr_objective(mr_ctx *x, mb_fn *f, double t, double w, double *val, double *dval, char *err, size_t errlen) {
    sens_ctx *c = x->c;
    int n = c->n, rc;
    if (!f) return MB_OK;
    if ((rc = sens_objective(c, f, t, x->z, x->zd, x->zdd, err, errlen))) return rc;
    const double *g = c->obj;
    *val += w * g[0];
    for (int j = 0; j < x->ns; ++j) {
        double s = x->with_p ? g[1 + 3 * n + j] : 0;
        for (int i = 0; i < n; ++i)
            s += g[1 + i] * x->S[i + (size_t)j * n] + g[1 + n + i] * x->Sd[i + (size_t)j * n] +
                 g[1 + 2 * n + i] * x->Sdd[i + (size_t)j * n];
        dval[j] += w * s;
    }
    return MB_OK;
}

/* A re-choice of the independent coordinates since the last look: an error unless the options allow it. */
static int check_reselection(mr_ctx *x, double t, char *err, size_t errlen) {
    mb_kin *kin = mb_mr_kin(x->mr);
    long r = mb_kin_reselections(kin);
    if (r == x->reselections) return MB_OK;
    x->reselections = r;
    if (x->allow_reselection) return MB_OK;
    const char *note = mb_kin_reselection_note(kin, r - 1);
    char at[64];
    snprintf(at, sizeof at, "t = %.10g", t);
    return mb_fail(err, errlen, MB_ERR_SINGULAR,
                   "sens: the independent coordinates were re-chosen (%s): psi is not differentiable where a change "
                   "of p moves such a switch to another step; shorten the run, declare independent coordinates that "
                   "stay valid, or pass --allow-reselection to accept the discrete gradient",
                   note ? note : at);
}

/* y -> f (or, f NULL, just the consistent z, zd, zdd, S, Sd, Sdd in x). */
static int mr_eval(mr_ctx *x, double t, const double *y, double *f, char *err, size_t errlen) {
    sens_ctx *c = x->c;
    int n = c->n, ns = x->ns, rc;
    size_t nS = (size_t)n * ns;
    memcpy(x->z, y, (size_t)n * sizeof(double));
    memcpy(x->zd, y + n, (size_t)n * sizeof(double));
    if ((rc = mb_mr_project(x->mr, t, x->z, x->zd, c->p, err, errlen))) return rc;
    if ((rc = check_reselection(x, t, err, errlen))) return rc;
    if ((rc = mb_mr_accel(x->mr, t, x->z, x->zd, c->u, c->p, x->zdd, err, errlen))) return rc;
    ++x->evals;
    if (ns > 0) {
        /* S and Sd: the independent rows from y (the dependent ones follow from the constraints). */
        memcpy(x->S, y + 2 * n, nS * sizeof(double));
        memcpy(x->Sd, y + 2 * n + nS, nS * sizeof(double));
        /* Rod modes: the extrapolated accelerations' directions, from the first stages' Sdd as the motion's from
         * their zdd (the histories fill together, so the motion extrapolates exactly when these do). */
        const double *dz = NULL;
        if (x->rods && mb_mr_rod_form(x->mr, NULL) != 0) {
            dz = x->adjoint ? x->adj_dzhat : x->dzhat;
            if (!x->adjoint) mb_rod_history_extrapolate(&x->shist, mb_mr_rod_order(x->mr), t, x->dzhat);
        }
        mb_mrt_set_rod_directions(x->tan, dz);
        if ((rc = mb_mrt_directions(x->tan, x->mr, t, x->z, x->zd, x->zdd, c->u, c->p, ns, x->with_p ? 0 : -1, x->S,
                                    x->Sd, x->Sdd, err, errlen)))
            return rc;
        if (x->rods && !x->adjoint && mb_mr_stage(x->mr) == 1) mb_rod_history_push(&x->shist, t, x->Sdd);
    }
    if (!f) return MB_OK;
    memcpy(f, x->zd, (size_t)n * sizeof(double));
    memcpy(f + n, x->zdd, (size_t)n * sizeof(double));
    memcpy(f + 2 * n, x->Sd, nS * sizeof(double));
    memcpy(f + 2 * n + nS, x->Sdd, nS * sizeof(double));
    double *fq = f + 2 * n + 2 * nS;
    *fq = 0;
    memset(fq + 1, 0, (size_t)ns * sizeof(double));
    return mr_objective(x, c->integrand, t, 1.0, fq, fq + 1, err, errlen);
}

static int mr_rhs(void *ctx, double t, const double *y, double *f, char *err, size_t errlen) {
    return mr_eval(ctx, t, y, f, err, errlen);
}

/* RK4's stages told to Matrix R, whose rod modes keep the first ones. */
static void mr_stage(void *ctx, int stage) { mb_mr_set_stage(((mr_ctx *)ctx)->mr, stage); }

/* The trapezoidal rule's d x d matrix T = I - h²/4 dF/dq - h/2 dF/dv from the tangent model's Sdd along the 2d unit
 * directions (n x 2d, the independent rows ind), column-major. */
static void trap_matrix(const double *Sddu, const int *ind, int d, int n, double h, double *T) {
    for (int q = 0; q < d; ++q)
        for (int r = 0; r < d; ++r)
            T[r + (size_t)q * d] =
                (r == q) - 0.25 * h * h * Sddu[ind[r] + (size_t)q * n] - 0.5 * h * Sddu[ind[r] + (size_t)(d + q) * n];
}

/* ---- DDM on the trapezoidal rule: the discrete derivative of the reduced scheme of matrix_r_reduced.h ----
 * The rule on the independent coordinates, q' = q + h v + h²/4 (a + a'), v' = v + h/2 (a + a'), a' = F(q', v', p),
 * differentiated: with A = S + h Sd + h²/4 Sdd and B = Sd + h/2 Sdd (the parts known from step n),
 *     T s' = dF along (A_i, B_i, e_j),     T = I - h²/4 dF/dq - h/2 dF/dv
 * and S' = A + h²/4 s', Sd' = B + h/2 s', Sdd' with independent rows s'. T is the Newton tangent at the step's
 * solution (built exactly there, it also serves the next step's Newton iterations); the full columns follow by
 * linearity from the tangent model along (A_i, B_i, e_j) and along the 2d unit directions T was built from. psi
 * is the composite trapezoidal quadrature of the integrand on the same steps, plus the terminal term.
 * With np = 0 (psi alone, the finite differences' runs, the adjoint's forward run and its replays) the tangent is
 * still built at each step's solution for Newton, so that the motion is the DDM's to the last bit. */

/* One run of the rule: the reduced system, the integrator, the step's buffers. */
typedef struct {
    mr_ctx *x;
    const mb_sens_problem *pr;
    const mb_sens_options *o;
    int np, d;
    long N;
    double h;
    mb_stats ist;
    long exact;      /* tangents built at a step's solution */
    mb_mrs *rs;
    mb_trap *tr;
    mb_linalg *la;
    mb_so_system sys;
    double *buf, *A, *B, *Su, *Sdu, *Sddu, *zi, *zdi, *T, *Tk;   /* Tk: the last step's T, before its LU */
} trap_run;

static void trap_close(trap_run *r) {
    mb_trap_free(r->tr);
    mb_linalg_free(r->la);
    mb_mrs_free(r->rs);
    free(r->buf);
}

static int trap_open(trap_run *r, mr_ctx *x, const mb_sens_problem *pr, const mb_sens_options *o, int np, char *err,
                     size_t errlen) {
    sens_ctx *c = x->c;
    int n = c->n;
    memset(r, 0, sizeof *r);
    r->x = x, r->pr = pr, r->o = o, r->np = np;
    r->N = mb_fixed_step_count(pr->t0, pr->t_end, o->step);
    if (o->max_steps > 0 && r->N > o->max_steps)
        return mb_fail(err, errlen, MB_ERR_MAX_STEPS, "sens: %ld steps are more than max_steps = %ld", r->N,
                       o->max_steps);
    r->h = (pr->t_end - pr->t0) / r->N;
    size_t nS = (size_t)n * np, nA = (size_t)n * (2 * (size_t)n + (size_t)np);   /* n x (2d + np) at the most */
    r->rs = mb_mrs_create(c->m, x->mr, c->u, c->p, err, errlen);
    r->buf = calloc(2 * nS + 3 * nA + 2 * (size_t)n + 2 * (size_t)n * n + 1, sizeof(double));
    if (!r->rs || !r->buf) return r->rs ? mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory") : MB_ERR_MODEL;
    r->A = r->buf, r->B = r->A + nS, r->Su = r->B + nS, r->Sdu = r->Su + nA, r->Sddu = r->Sdu + nA;
    r->zi = r->Sddu + nA, r->zdi = r->zi + n, r->T = r->zdi + n, r->Tk = r->T + (size_t)n * n;
    r->sys = mb_mrs_system(r->rs);
    return MB_OK;
}

static double trap_time(const trap_run *r, long k) { return k == r->N ? r->pr->t_end : r->pr->t0 + k * r->h; }

/* t0: the assembled state, its sensitivities (independent rows given, the rest from the constraints) and Sdd, the
 * rule started there, and the objective's first quadrature term. */
static int trap_start(trap_run *r, const double *z0, const double *zd0, double *psi, double *grad, char *err,
                      size_t errlen) {
    mr_ctx *x = r->x;
    sens_ctx *c = x->c;
    const mb_sens_problem *pr = r->pr;
    int n = c->n, np = r->np, rc;
    size_t nS = (size_t)n * np;
    double t = pr->t0;
    memcpy(x->z, z0, (size_t)n * sizeof(double));
    memcpy(x->zd, zd0, (size_t)n * sizeof(double));
    mb_kin_prefer(mb_mr_kin(x->mr), zd0);
    if ((rc = mb_mr_project(x->mr, t, x->z, x->zd, c->p, err, errlen)) ||
        (rc = mb_mr_accel(x->mr, t, x->z, x->zd, c->u, c->p, x->zdd, err, errlen)))
        return rc;
    if (pr->z0_p) memcpy(x->S, pr->z0_p, nS * sizeof(double));
    if (pr->zd0_p) memcpy(x->Sd, pr->zd0_p, nS * sizeof(double));
    if (np > 0 && (rc = mb_mrt_directions(x->tan, x->mr, t, x->z, x->zd, x->zdd, c->u, c->p, np, 0, x->S, x->Sd,
                                          x->Sdd, err, errlen)))
        return rc;
    mb_mrs_begin(r->rs, t, x->z, x->zd, x->zdd, r->zi, r->zdi);
    r->d = mb_mrs_dof(r->rs);
    int d = r->d > 0 ? r->d : 1;
    if (!r->tr && (!(r->tr = mb_trap_create(d, r->o->newton_tol, r->o->newton_max_iter, err, errlen)) ||
                   !(r->la = mb_linalg_create(d, d, np > 0 ? np : 1, err, errlen))))
        return MB_ERR_ALLOC;
    mb_trap_set_reuse(r->tr, 1);
    if ((rc = mb_trap_reset(r->tr, &r->sys, t, r->zi, r->zdi, &r->ist, err, errlen))) return rc;
    return mr_objective(x, c->integrand, t, 0.5 * r->h, psi, grad, err, errlen);
}

/* At step k's solution: one evaluation of the tangent model along the 2d unit directions of (z_i, zd_i) and, with
 * columns, the np directions (A_i, B_i, e_j); the unit ones give T exactly (kept in Tk: the sensitivities' matrix,
 * and the next step's Newton tangent), the others the right-hand sides, solved into the new columns. */
static int trap_tangent(trap_run *r, double t, int columns, char *err, size_t errlen) {
    mr_ctx *x = r->x;
    sens_ctx *c = x->c;
    int n = c->n, d = r->d, np = columns ? r->np : 0, rc;
    double h = r->h;
    const int *ind = mb_kin_independent(mb_mr_kin(x->mr));
    int nu = 2 * d, na = nu + np;
    memset(r->Su, 0, (size_t)n * na * sizeof(double));
    memset(r->Sdu, 0, (size_t)n * na * sizeof(double));
    for (int q = 0; q < d; ++q) {
        r->Su[ind[q] + (size_t)q * n] = 1;
        r->Sdu[ind[q] + (size_t)(d + q) * n] = 1;
    }
    memcpy(r->Su + (size_t)nu * n, r->A, (size_t)n * np * sizeof(double));
    memcpy(r->Sdu + (size_t)nu * n, r->B, (size_t)n * np * sizeof(double));
    if ((rc = mb_mrt_directions(x->tan, x->mr, t, x->z, x->zd, x->zdd, c->u, c->p, na, np > 0 ? nu : -1, r->Su,
                                r->Sdu, r->Sddu, err, errlen)))
        return rc;
    trap_matrix(r->Sddu, ind, d, n, h, r->Tk);
    memcpy(r->T, r->Tk, (size_t)d * d * sizeof(double));
    if ((rc = mb_trap_set_tangent(r->tr, r->T, 0.25 * h * h, 0.5 * h, err, errlen)) ||
        (rc = mb_lu_factor(r->la, d, r->T, err, errlen)))
        return rc;
    ++r->exact;
    double *s = r->zi;   /* one column of s' at a time (zi is free until the next mb_mrs_begin) */
    for (int j = 0; j < np; ++j) {
        size_t pj = (size_t)(nu + j) * n;
        for (int q = 0; q < d; ++q) s[q] = r->Sddu[ind[q] + pj];
        if ((rc = mb_lu_solve(r->la, d, r->T, 1, s, err, errlen))) return rc;
        double *Sj = x->S + (size_t)j * n, *Sdj = x->Sd + (size_t)j * n, *Sddj = x->Sdd + (size_t)j * n;
        for (int i = 0; i < n; ++i) {
            double vs = r->Su[i + pj], vsd = r->Sdu[i + pj], vsdd = r->Sddu[i + pj];
            for (int q = 0; q < d; ++q) {
                double cq = 0.25 * h * h * s[q], cv = 0.5 * h * s[q];
                size_t uq = i + (size_t)q * n, vq = i + (size_t)(d + q) * n;
                vs += cq * r->Su[uq] + cv * r->Su[vq];
                vsd += cq * r->Sdu[uq] + cv * r->Sdu[vq];
                vsdd += cq * r->Sddu[uq] + cv * r->Sddu[vq];
            }
            Sj[i] = vs, Sdj[i] = vsd, Sddj[i] = vsdd;
        }
    }
    mb_mrs_begin(r->rs, t, x->z, x->zd, x->zdd, r->zi, r->zdi);   /* zi again, for the next step */
    return MB_OK;
}

/* Step k (1..N) from step k-1: the motion by one step of the rule (a re-selection begins it again on the new
 * independent set), the tangent at its solution, the columns, and the objective's quadrature term at k. */
static int trap_step(trap_run *r, long k, double *psi, double *grad, char *err, size_t errlen) {
    mr_ctx *x = r->x;
    sens_ctx *c = x->c;
    size_t nS = (size_t)c->n * r->np;
    double h = r->h, t = trap_time(r, k);
    int rc;
    for (size_t i = 0; i < nS; ++i) {
        r->A[i] = x->S[i] + h * x->Sd[i] + 0.25 * h * h * x->Sdd[i];
        r->B[i] = x->Sd[i] + 0.5 * h * x->Sdd[i];
    }
    rc = mb_trap_advance(r->tr, &r->sys, t, h * (1 + 1e-9), 0, &r->ist, err, errlen);
    if (rc && mb_mrs_rechosen(r->rs)) {
        mb_mrs_begin(r->rs, t - h, x->z, x->zd, x->zdd, r->zi, r->zdi);
        if ((rc = mb_trap_reset(r->tr, &r->sys, t - h, r->zi, r->zdi, &r->ist, err, errlen)) == MB_OK)
            rc = mb_trap_advance(r->tr, &r->sys, t, h * (1 + 1e-9), 0, &r->ist, err, errlen);
    }
    if (rc || (rc = mb_mrs_full(r->rs, t, mb_trap_z(r->tr), mb_trap_zd(r->tr), x->z, x->zd, x->zdd, err, errlen)) ||
        (rc = check_reselection(x, t, err, errlen)))
        return rc;
    int rechosen = mb_mrs_rechosen(r->rs);
    mb_mrs_begin(r->rs, t, x->z, x->zd, x->zdd, r->zi, r->zdi);
    if (rechosen && (rc = mb_trap_reset(r->tr, &r->sys, t, r->zi, r->zdi, &r->ist, err, errlen))) return rc;
    if ((rc = trap_tangent(r, t, 1, err, errlen))) return rc;
    return mr_objective(x, c->integrand, t, k == r->N ? 0.5 * h : h, psi, grad, err, errlen);
}

static int ddm_trapezoidal_mr(mr_ctx *x, const mb_sens_problem *pr, const mb_sens_options *o, const double *z0,
                              const double *zd0, int np, double *psi, double *grad, mb_sens_stats *st, char *err,
                              size_t errlen) {
    trap_run r;
    int rc = trap_open(&r, x, pr, o, np, err, errlen);
    if (!rc) rc = trap_start(&r, z0, zd0, psi, grad, err, errlen);
    for (long k = 1; !rc && k <= r.N; ++k) {
        sens_progress(o, "forward", trap_time(&r, k - 1), pr->t0, pr->t_end);
        rc = trap_step(&r, k, psi, grad, err, errlen);
        st->steps += !rc;
    }
    if (!rc && x->c->terminal) rc = mr_objective(x, x->c->terminal, pr->t_end, 1.0, psi, grad, err, errlen);
    st->rhs_evals = r.ist.rhs_evals;
    st->factorizations = r.ist.jac_evals + r.exact;
    st->reselections = x->reselections;
    trap_close(&r);
    return rc;
}

int mb_sens_ddm_mr(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, const double *z0,
                   const double *zd0, double *psi, double *grad, mb_sens_stats *st, char *err, size_t errlen) {
    int n = c->n, ns = c->ns, rc;
    size_t nS = (size_t)n * ns, ny = 2 * (size_t)n + 2 * nS + 1 + (size_t)ns;
    mr_ctx x;
    double *y = NULL;
    mb_stats ist = {0};
    /* The trapezoidal rule's tangent model also runs along the 2d unit directions. */
    if ((rc = mr_init(&x, c, o, ns + (o->integrator == MB_INTEGRATOR_TRAPEZOIDAL ? 2 * n : 0), err, errlen))) goto done;
    x.allow_reselection = o->allow_reselection;
    if (o->integrator == MB_INTEGRATOR_TRAPEZOIDAL) {
        x.ns = ns;
        rc = ddm_trapezoidal_mr(&x, pr, o, z0, zd0, ns, psi, grad, st, err, errlen);
        goto done;
    }
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
    rc = sens_integrate(o, mr_rhs, &x, x.rods ? mr_stage : NULL, NULL, t, pr->t_end, y, (int)ny, &ist, err, errlen);
    if (rc) goto done;
    *psi = y[2 * n + 2 * nS];
    memcpy(grad, y + 2 * n + 2 * nS + 1, (size_t)ns * sizeof(double));
    if (c->terminal) {
        if ((rc = mr_eval(&x, pr->t_end, y, NULL, err, errlen))) goto done;
        rc = mr_objective(&x, c->terminal, pr->t_end, 1.0, psi, grad, err, errlen);
    }
    st->steps = ist.steps;
    st->rhs_evals = ist.rhs_evals;
    st->reselections = x.reselections;
done:
    free(y);
    mr_free(&x);
    return rc;
}

/* ---- AVM on the trapezoidal rule: the adjoint of ddm_trapezoidal_mr's recurrence ----
 * Step k of the DDM, at step k's state with its independent rows P: the tangent model is linear in the independent
 * rows of its directions and in p, so with G_u its columns along the 2d unit directions (those that also build T)
 * and G_p along p, y = G_u [P A; P B] + G_p, s = T^-1 P y_dd and (S, Sd, Sdd)_k = y + G_u [h²/4 s; h/2 s], A and B
 * from step k-1. With lambda = d grad / d (S, Sd, Sdd)_k (3n) its adjoint is
 *     v = G_u' lambda,  mu = T^-T (h²/4 v_1 + h/2 v_2),  lambda~ = lambda + (0, 0, P' mu),
 *     grad += G_p' lambda~,  xbar = G_u' lambda~ = v + (P Sdd_u)' mu,  Abar = P' xbar_1,  Bbar = P' xbar_2,
 *     lambda_{k-1} = (Abar, h Abar + Bbar, h²/4 Abar + h/2 Bbar) + the objective's weighted partials at k-1,
 * and at k = 0, where (S, Sd, Sdd)_0 = G_u [P S0; P Sd0] + G_p: grad += G_p' lambda + v . [P S0; P Sd0].
 * The forward run is the DDM's with no columns (the same motion: it also builds each step's tangent for Newton).
 * It keeps K checkpoints (options.checkpoints; 0: ceil(sqrt(N))), one every L = ceil(N / K) steps: the state, its
 * independent set and the integrator's (q, v, a and the a before, which its predictor reads), all a step depends
 * on, so that the segment after a checkpoint is replayed to the same bits while the adjoint crosses it, keeping
 * each of its steps' z, zd, independent set and T; the last segment is kept by the forward run itself (K = 1: every
 * step, no replay; the default while that fits in MB_SENS_TRAP_MEMORY, sens.h). Memory: K checkpoints of 6n numbers
 * and L + 1 steps of 2n + d² numbers, for one more forward run's steps. The backward sweep evaluates the motion and the model's matrices at each step again (the tangent
 * model reuses the motion's factors) and forms the products with G_u' and G_p' by two passes of the tangent model's
 * transpose (mb_mrt_transpose), whatever d and np. Rod modes run on rk4 only. */

/* A step's record for the adjoint: z, zd (2n), its independent set (n ints, dof used) and T (d x d). */
typedef struct {
    double *x, *T;
    int *ind, *dof;
} trap_steps;

static void trap_keep(const trap_run *r, trap_steps *s, long i, int with_T) {
    const mr_ctx *x = r->x;
    size_t n = (size_t)x->c->n, d = (size_t)r->d;
    const mb_kin *kin = mb_mr_kin(x->mr);
    memcpy(s->x + i * 2 * n, x->z, n * sizeof(double));
    memcpy(s->x + i * 2 * n + n, x->zd, n * sizeof(double));
    s->dof[i] = mb_kin_dof(kin);
    memcpy(s->ind + i * n, mb_kin_independent(kin), (size_t)s->dof[i] * sizeof(int));
    if (with_T) memcpy(s->T + i * d * d, r->Tk, d * d * sizeof(double));
}

/* A checkpoint: z, zd, then the integrator's q, v, a, a-before (d each; the last absent before a second step) in
 * 6n numbers; the independent set, its size and whether a-before is there in n + 2 ints. */
static void trap_save(const trap_run *r, double *ck, int *cki) {
    const mr_ctx *x = r->x;
    size_t n = (size_t)x->c->n, d = (size_t)r->d;
    const mb_kin *kin = mb_mr_kin(x->mr);
    const double *prev = mb_trap_zdd_prev(r->tr);
    memcpy(ck, x->z, n * sizeof(double));
    memcpy(ck + n, x->zd, n * sizeof(double));
    memcpy(ck + 2 * n, mb_trap_z(r->tr), d * sizeof(double));
    memcpy(ck + 2 * n + d, mb_trap_zd(r->tr), d * sizeof(double));
    memcpy(ck + 2 * n + 2 * d, mb_trap_zdd(r->tr), d * sizeof(double));
    if (prev) memcpy(ck + 2 * n + 3 * d, prev, d * sizeof(double));
    cki[n] = mb_kin_dof(kin);
    cki[n + 1] = prev != NULL;
    memcpy(cki, mb_kin_independent(kin), (size_t)cki[n] * sizeof(int));
}

/* Back to the checkpoint of step k: the independent set, the kinematics factored at z and Matrix R's acceleration
 * there, the reduced system begun, the integrator's state and its kept tangent, which is built again. */
static int trap_restore(trap_run *r, long k, const double *ck, const int *cki, char *err, size_t errlen) {
    mr_ctx *x = r->x;
    sens_ctx *c = x->c;
    size_t n = (size_t)c->n, d = (size_t)r->d;
    double t = trap_time(r, k);
    mb_kin *kin = mb_mr_kin(x->mr);
    int rc;
    if (mb_kin_set_independent(kin, cki, cki[n]))
        return mb_fail(err, errlen, MB_ERR_ARG, "sens: restoring the independent coordinates at t = %g failed", t);
    memcpy(x->z, ck, n * sizeof(double));
    memcpy(x->zd, ck + n, n * sizeof(double));
    if ((rc = mb_kin_factor(kin, t, x->z, c->p, err, errlen)) ||
        (rc = mb_mr_accel(x->mr, t, x->z, x->zd, c->u, c->p, x->zdd, err, errlen)))
        return rc;
    mb_mrs_begin(r->rs, t, x->z, x->zd, x->zdd, r->zi, r->zdi);
    mb_trap_restore(r->tr, t, ck + 2 * n, ck + 2 * n + d, ck + 2 * n + 2 * d, cki[n + 1] ? ck + 2 * n + 3 * d : NULL);
    return trap_tangent(r, t, 0, err, errlen);
}

static int avm_trapezoidal_mr(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, const double *z0,
                              const double *zd0, double *psi, double *grad, mb_sens_stats *st, char *err,
                              size_t errlen) {
    int n = c->n, np = c->m->np, rc;
    mr_ctx x;
    trap_run r;
    memset(&r, 0, sizeof r);
    double *buf = calloc(5 * (size_t)n + (size_t)n * n + (size_t)n + (size_t)np, sizeof(double));
    mb_linalg *la = mb_linalg_create(n, n, 1, err, errlen);
    double *ck = NULL;
    int *cki = NULL;
    trap_steps seg = {NULL, NULL, NULL, NULL};
    /* The forward run's tangent goes along the 2d unit directions. */
    if ((rc = mr_init(&x, c, o, 2 * n, err, errlen))) goto done;
    x.allow_reselection = o->allow_reselection;
    x.ns = 0;
    *psi = 0;
    double w0 = sens_now();
    if ((rc = trap_open(&r, &x, pr, o, 0, err, errlen)) || (rc = trap_start(&r, z0, zd0, psi, NULL, err, errlen)))
        goto done;
    long N = r.N;
    size_t nn = (size_t)n, dd = (size_t)(r.d > 0 ? r.d : 1);
    /* By default every step while their record fits in MB_SENS_TRAP_MEMORY bytes (no replay), else ceil(sqrt(N))
     * checkpoints. */
    size_t step_bytes = 2 * nn * sizeof(double) + dd * dd * sizeof(double) + (nn + 1) * sizeof(int);
    long K = o->checkpoints > 0 ? o->checkpoints
           : (double)(N + 1) * step_bytes <= MB_SENS_TRAP_MEMORY ? 1 : (long)ceil(sqrt((double)N));
    if (K > N) K = N;
    long L = (N + K - 1) / K;
    K = (N + L - 1) / L;
    ck = malloc((size_t)K * 6 * nn * sizeof(double));
    cki = malloc((size_t)K * (nn + 2) * sizeof(int));
    seg.x = malloc((size_t)(L + 1) * 2 * nn * sizeof(double));
    seg.T = malloc((size_t)(L + 1) * dd * dd * sizeof(double));
    seg.ind = malloc((size_t)(L + 1) * nn * sizeof(int));
    seg.dof = malloc((size_t)(L + 1) * sizeof(int));
    if (!buf || !la || !ck || !cki || !seg.x || !seg.T || !seg.ind || !seg.dof) {
        rc = la ? mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (the adjoint keeps %ld checkpoints and %ld "
                          "steps of %d coordinates)", K, L + 1, n) : MB_ERR_ALLOC;
        goto done;
    }
    st->stored_states = (K > 1 ? K : 0) + L + 1;   /* K = 1: the checkpoint is the segment's first step */
    /* Forward: psi, a checkpoint every L steps, and the last segment's steps. */
    long last = (K - 1) * L;
    trap_save(&r, ck, cki);
    if (last == 0) trap_keep(&r, &seg, 0, 0);
    for (long k = 1; k <= N; ++k) {
        sens_progress(o, "forward", trap_time(&r, k - 1), pr->t0, pr->t_end);
        if ((rc = trap_step(&r, k, psi, NULL, err, errlen))) goto done;
        st->steps++;
        if (k % L == 0 && k / L < K) trap_save(&r, ck + (size_t)(k / L) * 6 * nn, cki + (size_t)(k / L) * (nn + 2));
        if (k >= last) trap_keep(&r, &seg, k - last, 1);
    }
    if (c->terminal && (rc = mr_objective(&x, c->terminal, pr->t_end, 1.0, psi, NULL, err, errlen))) goto done;
    st->reselections = x.reselections;   /* of the forward run: the replays retrace its choices */
    st->seconds_forward = sens_now() - w0;
    double h = r.h, hh = 0.25 * h * h, dummy = 0;
    double *la_ = buf, *lb = la_ + n, *lc = lb + n;   /* lambda = (la_, lb, lc) */
    double *v = lc + n, *Tt = v + 2 * n, *mu = Tt + (size_t)n * n, *gp = mu + n;
    mb_kin *kin = mb_mr_kin(x.mr);
    memset(grad, 0, (size_t)np * sizeof(double));
    for (long s = K - 1; s >= 0; --s) {
        long k0 = s * L, k1 = k0 + L < N ? k0 + L : N;
        sens_progress(o, "adjoint", pr->t0 + pr->t_end - trap_time(&r, k1), pr->t0, pr->t_end);
        if (s < K - 1) {
            /* The segment again from its checkpoint (the first from the start, on the first step's choice). */
            if (s == 0) {
                if (mb_kin_set_independent(kin, cki, cki[n])) {
                    rc = mb_fail(err, errlen, MB_ERR_ARG, "sens: restoring the independent coordinates at t0 failed");
                    goto done;
                }
                rc = trap_start(&r, z0, zd0, &dummy, NULL, err, errlen);
            } else {
                rc = trap_restore(&r, k0, ck + (size_t)s * 6 * nn, cki + (size_t)s * (nn + 2), err, errlen);
            }
            if (rc) goto done;
            trap_keep(&r, &seg, 0, 0);
            for (long k = k0 + 1; k <= k1; ++k) {
                if ((rc = trap_step(&r, k, &dummy, NULL, err, errlen))) goto done;
                trap_keep(&r, &seg, k - k0, 1);
                st->recomputed_steps++;
            }
        }
        for (long k = k1; k >= (s == 0 ? 0 : k0 + 1); --k) {
            double t = trap_time(&r, k);
            const double *rx = seg.x + (size_t)(k - k0) * 2 * n;
            const int *ind = seg.ind + (size_t)(k - k0) * n;
            int d = seg.dof[k - k0];
            /* The state again on its own independent coordinates (consistent as recorded), the kinematics factored
             * there for the tangent model. */
            if (mb_kin_set_independent(kin, ind, d)) {
                rc = mb_fail(err, errlen, MB_ERR_ARG, "sens: restoring the independent coordinates at t = %g failed", t);
                goto done;
            }
            memcpy(x.z, rx, (size_t)n * sizeof(double));
            memcpy(x.zd, rx + n, (size_t)n * sizeof(double));
            if ((rc = mb_kin_factor(kin, t, x.z, c->p, err, errlen)) ||
                (rc = mb_mr_accel(x.mr, t, x.z, x.zd, c->u, c->p, x.zdd, err, errlen)))
                goto done;
            st->rhs_evals++;
            /* The objective's partials at k, weighted as the DDM's quadrature, and the terminal term at N. */
            if ((rc = sens_objective_partials(c, c->integrand, t, x.z, x.zd, x.zdd, (k == 0 || k == N) ? 0.5 * h : h,
                                              la_, lb, lc, grad, err, errlen)) ||
                (k == N && (rc = sens_objective_partials(c, c->terminal, t, x.z, x.zd, x.zdd, 1.0, la_, lb, lc, grad,
                                                         err, errlen))))
                goto done;
            /* v = G_u' lambda and G_p' lambda~ (lambda~ = lambda at t0): by the tangent model's transpose, one pass
             * each whatever d and np, with the model's matrices at the state evaluated once (no directions). */
            if ((rc = mb_mrt_directions(x.tan, x.mr, t, x.z, x.zd, x.zdd, c->u, c->p, 0, -1, NULL, NULL, NULL, err,
                                        errlen)) ||
                (rc = mb_mrt_transpose(x.tan, x.mr, t, x.z, x.zd, x.zdd, c->u, c->p, la_, lb, lc, v, k == 0 ? gp : NULL,
                                       err, errlen)))
                goto done;
            if (k > 0) {
                /* mu = T^-T (h²/4 v_1 + h/2 v_2), with the T of step k. */
                const double *Tk = seg.T + (size_t)(k - k0) * d * d;
                for (int q = 0; q < d; ++q)
                    for (int s2 = 0; s2 < d; ++s2) Tt[q + (size_t)s2 * d] = Tk[s2 + (size_t)q * d];
                for (int q = 0; q < d; ++q) mu[q] = hh * v[q] + 0.5 * h * v[d + q];
                if ((rc = mb_lu_factor(la, d, Tt, err, errlen)) || (rc = mb_lu_solve(la, d, Tt, 1, mu, err, errlen)))
                    goto done;
                st->factorizations++;
                for (int q = 0; q < d; ++q) lc[ind[q]] += mu[q];
                if ((rc = mb_mrt_transpose(x.tan, x.mr, t, x.z, x.zd, x.zdd, c->u, c->p, la_, lb, lc, v, gp, err,
                                           errlen)))
                    goto done;
            }
            for (int j = 0; j < np; ++j) grad[j] += gp[j];
            if (k == 0) {
                /* t0: the initial sensitivities' independent rows (zero when the problem gives none). */
                for (int j = 0; j < np; ++j)
                    for (int q = 0; q < d; ++q) {
                        size_t ij = ind[q] + (size_t)j * n;
                        grad[j] += (pr->z0_p ? v[q] * pr->z0_p[ij] : 0) + (pr->zd0_p ? v[d + q] * pr->zd0_p[ij] : 0);
                    }
                break;
            }
            memset(la_, 0, 3 * (size_t)n * sizeof(double));
            for (int q = 0; q < d; ++q) {
                int i = ind[q];
                double abar = v[q], bbar = v[d + q];
                la_[i] = abar;
                lb[i] = h * abar + bbar;
                lc[i] = hh * abar + 0.5 * h * bbar;
            }
        }
    }
done:
    st->rhs_evals += r.ist.rhs_evals;
    st->factorizations += r.ist.jac_evals + r.exact;   /* the forward run's and the replays' tangents */
    trap_close(&r);
    free(ck);
    free(cki);
    free(seg.x);
    free(seg.T);
    free(seg.ind);
    free(seg.dof);
    free(buf);
    mb_linalg_free(la);
    mr_free(&x);
    return rc;
}

/* ---- AVM for closed loops: the discrete adjoint of rk4 on the reduced state (z_i, zd_i) ----
 * Per step the stages Y_1..Y_4 are recomputed from the stored state, and the stage adjoints run backward with the
 * reduced Jacobians J = d(zd_i, zdd_i)/d(z_i, zd_i) and Jp = d(zd_i, zdd_i)/dp of the evaluation above:
 *   kbar_i = h b_i lambda + c_{i+1} Ybar_{i+1},  Ybar_i = J_i' kbar_i + h b_i g_x(Y_i),
 *   grad += Jp_i' kbar_i + h b_i g_p(Y_i),       lambda <- lambda + sum_i Ybar_i
 * (b = 1/6, 1/3, 1/3, 1/6; c = h/2, h/2, h). The products with J' and Jp' (and the objective's g_x, g_p through
 * the dependent coordinates) are one pass of the tangent model's transpose per stage (mr_vjp), whatever d and
 * np; a rod mode, whose extrapolation couples the stages, forms J and Jp along 2d + np directions instead (mr_jac). */

typedef struct {
    mr_ctx *x;
    int n, np, d;               /* d: degrees of freedom at the last mr_jac */
    int *col;                   /* 2d: the entry of y = [z; zd] each direction moves (z_i, then zd_i) */
    double *yb;                 /* 2n + 2n cap: state and directions for mr_eval */
    double *J, *Jp, *gx, *gp;   /* 2n x 2d, 2n x np, 2d, np: f = [zd; zdd] against the directions */
    /* Rod modes: whether the last mr_jac took the rods from the extrapolation (rods), Dz = d zdd / d zhat there
     * (n x n), g's d/dzdd (n), and the identity the n directions in zhat are (n x n). */
    int rods;
    double *Dz, *gzdd, *eye;
    double *l, *gu;             /* mr_vjp: (lS, lSd, lSdd) (3n) and G_u' l (2n) */
} mr_adj;

/* The t0 boundary term of the explicit schemes' adjoints: grad += lambda' [z0_p; zd0_p] (lambda, 2n, is zero outside
 * the independent entries of the first point). */
static void boundary_term(const mb_sens_problem *pr, const double *lam, int n, int np, double *grad) {
    for (int j = 0; j < np; ++j) {
        double v = 0;
        for (int r = 0; r < n; ++r) {
            if (pr->z0_p) v += lam[r] * pr->z0_p[r + (size_t)j * n];
            if (pr->zd0_p) v += lam[n + r] * pr->zd0_p[r + (size_t)j * n];
        }
        grad[j] += v;
    }
}

/* Without rods: at the stage point (t, Y), ybar (2n) = J' kbar + w g_x(Y) on the independent entries (zero elsewhere)
 * and grad += Jp' kbar + w g_p(Y), for the objective function g (NULL: none) and kbar (2n, NULL: zero), by the
 * tangent model's transpose along l = (w g_z, kbar_zd + w g_zd, kbar_zdd + w g_zdd): f = [zd; zdd] moves with
 * (Sd, Sdd). */
static int mr_vjp(mr_adj *A, double t, const double *Y, mb_fn *g, double w, const double *kbar, double *ybar,
                  double *grad, char *err, size_t errlen) {
    mr_ctx *x = A->x;
    sens_ctx *c = x->c;
    int n = A->n, rc;
    x->ns = 0;
    if ((rc = mr_eval(x, t, Y, NULL, err, errlen))) return rc;
    mb_kin *kin = mb_mr_kin(x->mr);
    int d = A->d = mb_kin_dof(kin);
    const int *ind = mb_kin_independent(kin);
    for (int q = 0; q < d; ++q) A->col[q] = ind[q], A->col[d + q] = n + ind[q];
    double *lS = A->l, *lSd = lS + n, *lSdd = lSd + n;
    memset(lS, 0, (size_t)n * sizeof(double));
    for (int r = 0; r < n; ++r) lSd[r] = kbar ? kbar[r] : 0, lSdd[r] = kbar ? kbar[n + r] : 0;
    if ((rc = sens_objective_partials(c, g, t, x->z, x->zd, x->zdd, w, lS, lSd, lSdd, grad, err, errlen)) ||
        (rc = mb_mrt_directions(x->tan, x->mr, t, x->z, x->zd, x->zdd, c->u, c->p, 0, -1, x->S, x->Sd, x->Sdd, err,
                                errlen)) ||
        (rc = mb_mrt_transpose(x->tan, x->mr, t, x->z, x->zd, x->zdd, c->u, c->p, lS, lSd, lSdd, A->gu, A->gp, err,
                               errlen)))
        return rc;
    for (int j = 0; j < A->np; ++j) grad[j] += A->gp[j];
    memset(ybar, 0, 2 * (size_t)n * sizeof(double));
    for (int q = 0; q < 2 * d; ++q) ybar[A->col[q]] = A->gu[q];
    return MB_OK;
}

/* J, Jp, gx, gp at (t, Y) for the objective function g (integrand or terminal; NULL: gx = gp = 0). */
static int mr_jac(mr_adj *A, double t, const double *Y, mb_fn *g, char *err, size_t errlen) {
    mr_ctx *x = A->x;
    int n = A->n, np = A->np, rc;
    double dummy = 0;
    /* The independent coordinates of this point: the kinematics factored at Y (a re-selection during the
     * run changes them, and the adjoint follows, being kept in full coordinates). */
    x->ns = 0;
    if ((rc = mr_eval(x, t, Y, NULL, err, errlen))) return rc;
    mb_kin *kin = mb_mr_kin(x->mr);
    int d = A->d = mb_kin_dof(kin), d2 = 2 * d;
    const int *ind = mb_kin_independent(kin);
    for (int c = 0; c < d; ++c) A->col[c] = ind[c], A->col[d + c] = n + ind[c];
    /* Directions in (z_i, zd_i). */
    x->with_p = 0;
    x->ns = d2;
    size_t nS = (size_t)n * d2;
    memcpy(A->yb, Y, 2 * (size_t)n * sizeof(double));
    double *S = A->yb + 2 * n, *Sd = S + nS;
    memset(S, 0, 2 * nS * sizeof(double));
    for (int c = 0; c < d; ++c) {
        S[ind[c] + (size_t)c * n] = 1;
        Sd[ind[c] + (size_t)(d + c) * n] = 1;
    }
    if ((rc = mr_eval(x, t, A->yb, NULL, err, errlen))) return rc;
    for (int c = 0; c < d2; ++c)
        for (int r = 0; r < n; ++r) {
            A->J[r + (size_t)c * 2 * n] = x->Sd[r + (size_t)c * n];
            A->J[n + r + (size_t)c * 2 * n] = x->Sdd[r + (size_t)c * n];
        }
    memset(A->gx, 0, (size_t)d2 * sizeof(double));
    if ((rc = mr_objective(x, g, t, 1.0, &dummy, A->gx, err, errlen))) return rc;
    /* Directions in p. */
    x->with_p = 1;
    x->ns = np;
    nS = (size_t)n * np;
    memset(S, 0, 2 * nS * sizeof(double));
    if ((rc = mr_eval(x, t, A->yb, NULL, err, errlen))) return rc;
    for (int j = 0; j < np; ++j)
        for (int r = 0; r < n; ++r) {
            A->Jp[r + (size_t)j * 2 * n] = x->Sd[r + (size_t)j * n];
            A->Jp[n + r + (size_t)j * 2 * n] = x->Sdd[r + (size_t)j * n];
        }
    memset(A->gp, 0, (size_t)np * sizeof(double));
    if ((rc = mr_objective(x, g, t, 1.0, &dummy, A->gp, err, errlen))) return rc;
    /* g's own zdd derivative (the last objective evaluation, at this state), for the rods' coupling below. */
    for (int r = 0; r < n; ++r) A->gzdd[r] = g ? x->c->obj[1 + 2 * n + r] : 0;
    /* Rod modes: directions in the extrapolated accelerations alone, Dz = d zdd / d zhat (n of them). */
    A->rods = x->rods && mb_mr_rod_form(x->mr, NULL) != 0;
    if (!A->rods) return MB_OK;
    x->with_p = 0;
    x->ns = n;
    memset(S, 0, 2 * (size_t)n * n * sizeof(double));
    x->adj_dzhat = A->eye;
    rc = mr_eval(x, t, A->yb, NULL, err, errlen);
    x->adj_dzhat = NULL;
    if (rc) return rc;
    memcpy(A->Dz, x->Sdd, (size_t)n * n * sizeof(double));
    return MB_OK;
}

/* Rod modes: the adjoint u (n) of the zdd an evaluation at time t returned reaches the first-stage accelerations its
 * extrapolation read: abar[step of sample j] += w_j Dz' u, the steps' slots in a ring of four (a step's extrapolation
 * reads at most the three before it, or itself and the two before). */
static void rod_adjoint(const mr_adj *A, double t, double t0, double h, const double *u, double *abar) {
    mr_ctx *x = A->x;
    const mb_rod_history *hist = mb_mr_rod_history(x->mr);
    int n = A->n, order = mb_mr_rod_order(x->mr), k = order < hist->count ? order : hist->count;
    double w[MB_ROD_HISTORY_MAX];
    mb_rod_weights(hist->t, k, t, w);
    for (int j = 0; j < k; ++j) {
        long q = lround((hist->t[j] - t0) / h);
        double *a = abar + (size_t)(q % 4) * n;
        for (int c = 0; c < n; ++c) {
            double v = 0;
            for (int r = 0; r < n; ++r) v += A->Dz[r + (size_t)c * n] * u[r];
            a[c] += w[j] * v;
        }
    }
}

/* One rk4 step of [y; psi] without sensitivities (x->ns = 0), the same arithmetic as mb_rk4. Stages
 * are kept in Ys (4 x 2n) when not NULL. */
static int mr_step(mr_ctx *x, double t, double h, const double *y, double *ynew, double *psi, double *k, double *Ys,
                   int *sets, char *err, size_t errlen) {
    mb_kin *kin = mb_mr_kin(x->mr);
    int n2 = 2 * x->c->n, rc;
    static const double cs[4] = {0, 0.5, 0.5, 1};
    double q[4], *ys = ynew; /* ynew doubles as the stage argument until the end */
    double *kk[4] = {k, k + (n2 + 1), k + 2 * (n2 + 1), k + 3 * (n2 + 1)};
    x->ns = 0;
    x->with_p = 1;
    for (int s = 0; s < 4; ++s) {
        for (int i = 0; i < n2; ++i) ys[i] = s == 0 ? y[i] : y[i] + cs[s] * h * kk[s - 1][i];
        if (Ys) memcpy(Ys + (size_t)s * n2, ys, (size_t)n2 * sizeof(double));
        /* The choice of independent coordinates each stage starts from, to replay it in mr_jac. */
        if (sets && mb_kin_dof(kin) >= 0)
            memcpy(sets + (size_t)s * n2, mb_kin_independent(kin), (size_t)mb_kin_dof(kin) * sizeof(int));
        /* The stage, as mb_rk4 tells it: the rod modes keep the first stages' zdd. */
        mb_mr_set_stage(x->mr, s + 1);
        rc = mr_eval(x, t + cs[s] * h, ys, kk[s], err, errlen);
        mb_mr_set_stage(x->mr, 0);
        if (rc) return rc;
        q[s] = kk[s][n2];
    }
    for (int i = 0; i < n2; ++i) ynew[i] = y[i] + h / 6 * (kk[0][i] + 2 * (kk[1][i] + kk[2][i]) + kk[3][i]);
    *psi += h / 6 * (q[0] + 2 * (q[1] + q[2]) + q[3]);
    return MB_OK;
}

/* ---- AVM for closed loops on dopri5: the discrete adjoint of the accepted steps ----
 * The forward run integrates [z; zd; psi] with the error control and keeps every accepted step (its start, size and
 * state); the backward sweep replays each step's six stages with that size (the step sizes held, as a discrete
 * adjoint of an adaptive scheme does) and runs the stage adjoints of the explicit Runge-Kutta step:
 *   kbar_i = h b_i lambda + h sum_{l > i} a_li Ybar_l,  Ybar_i = J_i' kbar_i + h b_i g_x(Y_i),
 *   grad += Jp_i' kbar_i + h b_i g_p(Y_i),              lambda <- lambda + sum_i Ybar_i
 * with one pass of the tangent model's transpose per stage (mr_vjp). The seventh stage only estimates the error and
 * starts the next step (first same as last), so the map from one accepted state to the next has six. Every step is
 * stored (2n + 1 doubles a step; dopri5 takes few), and a re-choice of the independent coordinates stops the run. */
struct dp_record {
    long count, cap;          /* accepted steps; room in t and h */
    int ny;
    double *t, *h;            /* count each: every step's start and size */
    double *y;                /* kmax x ny: the start of every L-th step */
    long L, kmax;             /* checkpoints' spacing (a power of 2) and room (even) */
    int failed;
};

/* Every accepted step's start and size, and its start state every L steps; when the room for those is full, every
 * other one goes and L doubles, so that a run of unknown length keeps between kmax/2 and kmax of them. */
static void dp_record_step(void *ctx, double t, double h, const double *y) {
    struct dp_record *r = ((mr_ctx *)ctx)->steps;
    size_t ny = (size_t)r->ny;
    if (r->failed) return;
    if (r->count == r->cap) {
        long cap = r->cap ? 2 * r->cap : 256;
        double *nt = realloc(r->t, (size_t)cap * sizeof(double));
        double *nh = nt ? realloc(r->h, (size_t)cap * sizeof(double)) : NULL;
        if (nt) r->t = nt;
        if (!nh) {
            r->failed = 1;
            return;
        }
        r->h = nh;
        r->cap = cap;
    }
    r->t[r->count] = t;
    r->h[r->count] = h;
    if (r->count % r->L == 0) {
        long i = r->count / r->L;
        if (i == r->kmax) {
            for (long j = 1; 2 * j < r->kmax; ++j) memcpy(r->y + (size_t)j * ny, r->y + (size_t)(2 * j) * ny, ny * sizeof(double));
            r->L *= 2;
            i = r->kmax / 2;
        }
        memcpy(r->y + (size_t)i * ny, y, ny * sizeof(double));
    }
    r->count++;
}

/* Dormand and Prince's tableau, as integrate_dopri5.c steps with it: a (lower triangle, row i for stage i + 1), b,
 * c. */
static const double DP_A[6][5] = {
    {0},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
};
static const double DP_B[6] = {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84};
static const double DP_C[6] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1};

/* The six stages of the step of size h from y at t (states Y and derivatives K, 6 x ny each) and, with yn, its end,
 * in integrate_dopri5.c's own order of operations, so that a replay reaches its states to the last bit. */
static int dp_stages(mr_ctx *x, double t, double h, const double *y, int ny, double *Y, double *K, double *yn,
                     char *err, size_t errlen) {
    for (int i = 0; i < 6; ++i) {
        double *Yi = Y + (size_t)i * ny;
        for (int r = 0; r < ny; ++r) {
            if (i == 1) {
                Yi[r] = y[r] + h * DP_A[1][0] * K[r];
                continue;
            }
            double s = 0;
            for (int j = 0; j < i; ++j) s += DP_A[i][j] * K[r + (size_t)j * ny];
            Yi[r] = y[r] + h * s;
        }
        x->ns = 0;
        int rc = mr_eval(x, t + DP_C[i] * h, Yi, K + (size_t)i * ny, err, errlen);
        if (rc) return rc;
    }
    if (yn)
        for (int r = 0; r < ny; ++r)
            yn[r] = y[r] + h * (DP_B[0] * K[r] + DP_B[2] * K[r + 2 * (size_t)ny] + DP_B[3] * K[r + 3 * (size_t)ny] +
                                DP_B[4] * K[r + 4 * (size_t)ny] + DP_B[5] * K[r + 5 * (size_t)ny]);
    return MB_OK;
}

/* ---- AVM on dopri5 for closed loops: the adjoint of the accepted steps, their sizes held ----
 * The forward run keeps every accepted step's start and size, and its start state every L steps (L = 1 while
 * kmax of them fit: the options' checkpoints, or what MB_SENS_TRAP_MEMORY holds; beyond, every other one goes and
 * L doubles). Backward, segment by segment, the states between two kept ones are stepped again from the first with
 * the recorded sizes (to the same bits), then each step's stages are evaluated again and their adjoints run with
 * one pass of the tangent model's transpose each. */
static int avm_dopri5_mr(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, const double *z0,
                         const double *zd0, double *psi, double *grad, mb_sens_stats *st, char *err, size_t errlen) {
    int n = c->n, n2 = 2 * n, ny = n2 + 1, np = c->m->np, rc;
    if (o->allow_reselection)
        return mb_fail(err, errlen, MB_ERR_ARG, "sens: the closed-loop AVM on dopri5 does not cross a re-choice of the "
                       "independent coordinates (--allow-reselection): take rk4 or the trapezoidal rule");
    mr_ctx x;
    long kmax = o->checkpoints > 0 ? o->checkpoints : (long)(MB_SENS_TRAP_MEMORY / ((size_t)ny * sizeof(double)));
    kmax = kmax < 2 ? 2 : kmax + kmax % 2;
    struct dp_record rec = {0, 0, ny, NULL, NULL, calloc((size_t)kmax * ny, sizeof(double)), 1, kmax, 0};
    mr_adj A = {&x, n, np, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    double *y = calloc((size_t)ny, sizeof(double)), *Y = calloc(6 * (size_t)ny, sizeof(double));
    double *K = calloc(6 * (size_t)ny, sizeof(double)), *Yb = calloc(6 * (size_t)n2, sizeof(double));
    double *lam = calloc((size_t)n2, sizeof(double)), *kbar = calloc((size_t)n2, sizeof(double));
    double *seg = NULL;
    mb_stats ist = {0};
    A.col = calloc((size_t)n2, sizeof(int));
    A.gp = calloc((size_t)(np > 0 ? np : 1), sizeof(double));
    A.l = calloc(3 * (size_t)n, sizeof(double));
    A.gu = calloc((size_t)n2, sizeof(double));
    if ((rc = mr_init(&x, c, o, 1, err, errlen))) goto done;
    if (!rec.y || !y || !Y || !K || !Yb || !lam || !kbar || !A.col || !A.gp || !A.l || !A.gu) {
        rc = mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (closed-loop adjoint)");
        goto done;
    }
    x.adjoint = 1;
    x.ns = 0;
    x.steps = &rec;
    mb_kin *kin = mb_mr_kin(x.mr);
    mb_kin_prefer(kin, zd0);
    memcpy(y, z0, (size_t)n * sizeof(double));
    memcpy(y + n, zd0, (size_t)n * sizeof(double));
    /* Forward: [z; zd; psi] under the error control. */
    double w0 = sens_now();
    if ((rc = sens_integrate(o, mr_rhs, &x, NULL, dp_record_step, pr->t0, pr->t_end, y, ny, &ist, err, errlen)))
        goto done;
    st->seconds_forward = sens_now() - w0;
    if (rec.failed) {
        rc = mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (the adjoint keeps the sizes of %ld steps)",
                     rec.count);
        goto done;
    }
    *psi = y[n2];
    long L = rec.L, nck = (rec.count + L - 1) / L;
    st->steps = rec.count;
    st->stored_states = nck + L;
    if (!(seg = calloc((size_t)L * ny, sizeof(double)))) {
        rc = mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (a segment of %ld steps)", L);
        goto done;
    }
    memset(grad, 0, (size_t)np * sizeof(double));
    if (c->terminal) {
        if ((rc = mr_vjp(&A, pr->t_end, y, c->terminal, 1.0, NULL, lam, grad, err, errlen))) goto done;
        x.ns = 0;
        if ((rc = mr_eval(&x, pr->t_end, y, NULL, err, errlen)) ||
            (rc = mr_objective(&x, c->terminal, pr->t_end, 1.0, psi, NULL, err, errlen)))
            goto done;
    }
    for (long s = nck - 1; s >= 0; --s) {
        long k0 = s * L, k1 = k0 + L < rec.count ? k0 + L : rec.count;
        /* The segment's start states again from its checkpoint, with the recorded sizes. */
        memcpy(seg, rec.y + (size_t)s * ny, (size_t)ny * sizeof(double));
        for (long k = k0; k + 1 < k1; ++k) {
            if ((rc = dp_stages(&x, rec.t[k], rec.h[k], seg + (size_t)(k - k0) * ny, ny, Y, K,
                                seg + (size_t)(k + 1 - k0) * ny, err, errlen)))
                goto done;
            st->recomputed_steps++;
        }
        /* Backward over its steps: the stages again from the step's start, then their adjoints. */
        for (long k = k1 - 1; k >= k0; --k) {
            double t = rec.t[k], h = rec.h[k];
            sens_progress(o, "adjoint", pr->t0 + pr->t_end - t - h, pr->t0, pr->t_end);
            if ((rc = dp_stages(&x, t, h, seg + (size_t)(k - k0) * ny, ny, Y, K, NULL, err, errlen))) goto done;
            for (int i = 5; i >= 0; --i) {
                for (int r = 0; r < n2; ++r) {
                    double sum = DP_B[i] * lam[r];
                    for (int l = i + 1; l < 6; ++l) sum += DP_A[l][i] * Yb[r + (size_t)l * n2];
                    kbar[r] = h * sum;
                }
                if ((rc = mr_vjp(&A, t + DP_C[i] * h, Y + (size_t)i * ny, c->integrand, h * DP_B[i], kbar,
                                 Yb + (size_t)i * n2, grad, err, errlen)))
                    goto done;
            }
            for (int i = 0; i < 6; ++i)
                for (int r = 0; r < n2; ++r) lam[r] += Yb[r + (size_t)i * n2];
        }
    }
    boundary_term(pr, lam, n, np, grad);
done:
    st->rhs_evals = x.evals;
    st->reselections = x.reselections;
    free(rec.t);
    free(rec.h);
    free(rec.y);
    free(seg);
    free(y);
    free(Y);
    free(K);
    free(Yb);
    free(lam);
    free(kbar);
    free(A.col);
    free(A.gp);
    free(A.l);
    free(A.gu);
    mr_free(&x);
    return rc;
}

int mb_sens_avm_mr(sens_ctx *c, const mb_sens_problem *pr, const mb_sens_options *o, const double *z0,
                   const double *zd0, double *psi, double *grad, mb_sens_stats *st, char *err, size_t errlen) {
    if (o->integrator == MB_INTEGRATOR_TRAPEZOIDAL) return avm_trapezoidal_mr(c, pr, o, z0, zd0, psi, grad, st, err, errlen);
    if (o->integrator == MB_INTEGRATOR_DOPRI5) return avm_dopri5_mr(c, pr, o, z0, zd0, psi, grad, st, err, errlen);
    const mb_model *m = c->m;
    int n = c->n, n2 = 2 * n, np = m->np, rc;
    int cap = np > n2 ? np : n2;
    long N = mb_fixed_step_count(pr->t0, pr->t_end, o->step);
    if (o->max_steps > 0 && N > o->max_steps)
        return mb_fail(err, errlen, MB_ERR_MAX_STEPS, "sens: %ld steps are more than max_steps = %ld", N, o->max_steps);
    long K = o->checkpoints > 0 ? o->checkpoints : (long)ceil(sqrt((double)N));
    if (K > N) K = N;
    long L = (N + K - 1) / K;
    K = (N + L - 1) / L;
    double h = (pr->t_end - pr->t0) / N;
    mr_ctx x;
    mr_adj A = {&x, n, np, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    A.col = calloc((size_t)n2, sizeof(int));
    double *ck = NULL, *seg = NULL, *k = NULL, *Ys = NULL, *tmp = NULL, *vec = NULL;
    /* Rod modes: the history at every checkpoint (ckh), at the start of every step of the segment (sh), after the
     * first stage of the step being differentiated (h1); the first stages' adjoints, a ring of four steps (abar). */
    double *ckh = NULL, *sh = NULL, *h1 = NULL, *abar = NULL;
    size_t snap = MB_ROD_HISTORY_SNAPSHOT(n);
    /* Choices of independent coordinates (2n ints each, dof used): at every checkpoint, at the start of
     * every step of the segment being swept, and at the four stages of the step being differentiated. */
    int *cks = NULL, *steps = NULL, *stages = NULL;
    if ((rc = mr_init(&x, c, o, cap, err, errlen))) goto done;
    x.allow_reselection = o->allow_reselection;
    x.adjoint = 1;
    mb_rod_history *hist = mb_mr_rod_history(x.mr);
    if (hist) {
        ckh = calloc((size_t)K * snap, sizeof(double));
        sh = calloc((size_t)(L + 1) * snap, sizeof(double));
        h1 = calloc(snap, sizeof(double));
        abar = calloc(4 * (size_t)n, sizeof(double));
        A.Dz = calloc((size_t)n * n, sizeof(double));
        A.eye = calloc((size_t)n * n, sizeof(double));
        if (!ckh || !sh || !h1 || !abar || !A.Dz || !A.eye) {
            rc = mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (the rods' adjoint)");
            goto done;
        }
        for (int i = 0; i < n; ++i) A.eye[i + (size_t)i * n] = 1;
    }
    A.gzdd = calloc((size_t)n, sizeof(double));
    ck = calloc((size_t)K * n2, sizeof(double));
    cks = calloc((size_t)K * n2, sizeof(int));
    steps = calloc((size_t)(L + 1) * n2, sizeof(int));
    stages = calloc(4 * (size_t)n2, sizeof(int));
    seg = calloc((size_t)(L + 1) * n2, sizeof(double));
    k = calloc(4 * (size_t)(n2 + 1 + cap), sizeof(double));
    Ys = calloc(4 * (size_t)n2, sizeof(double));
    tmp = calloc((size_t)n2, sizeof(double));
    A.yb = calloc((size_t)n2 + (size_t)n2 * cap, sizeof(double));
    A.J = calloc((size_t)n2 * n2, sizeof(double));
    A.Jp = calloc((size_t)n2 * (np > 0 ? np : 1), sizeof(double));
    A.gx = calloc((size_t)n2, sizeof(double));
    A.gp = calloc((size_t)(np > 0 ? np : 1), sizeof(double));
    vec = calloc(5 * (size_t)n2, sizeof(double));
    A.l = calloc(3 * (size_t)n, sizeof(double));
    A.gu = calloc((size_t)n2, sizeof(double));
    if (!ck || !cks || !steps || !stages || !seg || !k || !Ys || !tmp || !A.col || !A.yb || !A.J || !A.Jp || !A.gx || !A.gp ||
        !vec || !A.gzdd || !A.l || !A.gu) {
        rc = mb_fail(err, errlen, MB_ERR_ALLOC, "sens: out of memory (closed-loop adjoint)");
        goto done;
    }
    st->stored_states = K + L + 1;
    mb_kin *kin = mb_mr_kin(x.mr);
    mb_kin_prefer(kin, zd0);

    /* Forward: psi, a checkpoint at the start of every segment. */
    double w0 = sens_now();
    memcpy(seg, z0, (size_t)n * sizeof(double));
    memcpy(seg + n, zd0, (size_t)n * sizeof(double));
    *psi = 0;
    /* The first choice of independent coordinates happens here, as in the DDM's first evaluation, so
     * the first checkpoint records it. */
    x.ns = 0;
    if ((rc = mr_eval(&x, pr->t0, seg, NULL, err, errlen))) goto done;
    for (long s = 0; s < N; ++s) {
        sens_progress(o, "forward", pr->t0 + s * h, pr->t0, pr->t_end);
        if (s % L == 0) memcpy(ck + (size_t)(s / L) * n2, seg, (size_t)n2 * sizeof(double));
        if (s % L == 0)
            memcpy(cks + (size_t)(s / L) * n2, mb_kin_independent(kin), (size_t)mb_kin_dof(kin) * sizeof(int));
        if (s % L == 0 && hist) mb_rod_history_save(hist, ckh + (size_t)(s / L) * snap);
        if ((rc = mr_step(&x, pr->t0 + s * h, h, seg, tmp, psi, k, NULL, NULL, err, errlen)))
            goto done;
        memcpy(seg, tmp, (size_t)n2 * sizeof(double));
        st->steps++;
    }
    st->reselections = x.reselections;   /* of the forward run: the replays retrace its choices */
    st->seconds_forward = sens_now() - w0;
    /* The adjoint lives in full coordinates y = [z; zd]; f reads only the independent entries of its
     * point, so the other entries of lambda stay zero there. */
    double *lam = vec, *ysum = vec + n2, *ybar = vec + 2 * n2, *kbar = vec + 3 * n2;
    memset(grad, 0, (size_t)np * sizeof(double));
    memset(lam, 0, (size_t)n2 * sizeof(double));
    if (c->terminal && !x.rods) {
        if ((rc = mr_vjp(&A, pr->t_end, seg, c->terminal, 1.0, NULL, lam, grad, err, errlen))) goto done;
    } else if (c->terminal) {
        if ((rc = mr_jac(&A, pr->t_end, seg, c->terminal, err, errlen))) goto done;
        if (A.rods) rod_adjoint(&A, pr->t_end, pr->t0, h, A.gzdd, abar);
        for (int cc = 0; cc < 2 * A.d; ++cc) lam[A.col[cc]] = A.gx[cc];
        for (int j = 0; j < np; ++j) grad[j] += A.gp[j];
    }
    if (c->terminal) {
        /* psi's terminal value, as the DDM adds it. */
        x.ns = 0;
        if ((rc = mr_eval(&x, pr->t_end, seg, NULL, err, errlen))) goto done;
        if ((rc = mr_objective(&x, c->terminal, pr->t_end, 1.0, psi, NULL, err, errlen))) goto done;
    }
    static const double b[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
    const double cnext[4] = {0.5 * h, 0.5 * h, h, 0};
    for (long s = K - 1; s >= 0; --s) {
        long start = s * L, end = start + L < N ? start + L : N;
        sens_progress(o, "adjoint", pr->t0 + pr->t_end - (pr->t0 + end * h), pr->t0, pr->t_end);
        memcpy(seg, ck + (size_t)s * n2, (size_t)n2 * sizeof(double));
        double dummy = 0;
        int dof = mb_kin_dof(kin);
        if (mb_kin_set_independent(kin, cks + (size_t)s * n2, dof)) {
            rc = mb_fail(err, errlen, MB_ERR_ARG, "sens: restoring the independent coordinates failed");
            goto done;
        }
        if (hist) mb_rod_history_load(hist, ckh + (size_t)s * snap);
        for (long q = start; q < end; ++q) {
            memcpy(steps + (size_t)(q - start) * n2, mb_kin_independent(kin), (size_t)dof * sizeof(int));
            if (hist) mb_rod_history_save(hist, sh + (size_t)(q - start) * snap);
            if (q == end - 1) break;
            if ((rc = mr_step(&x, pr->t0 + q * h, h, seg + (size_t)(q - start) * n2, seg + (size_t)(q + 1 - start) * n2,
                              &dummy, k, NULL, NULL, err, errlen)))
                goto done;
            st->recomputed_steps++;
        }
        for (long q = end - 1; q >= start; --q) {
            double tq = pr->t0 + q * h;
            mb_kin_set_independent(kin, steps + (size_t)(q - start) * n2, dof);
            if (hist) mb_rod_history_load(hist, sh + (size_t)(q - start) * snap);
            if ((rc = mr_step(&x, tq, h, seg + (size_t)(q - start) * n2, tmp, &dummy, k, Ys, stages, err, errlen)))
                goto done;
            if (hist) mb_rod_history_save(hist, h1);
            memset(ysum, 0, (size_t)n2 * sizeof(double));
            for (int i = 3; i >= 0; --i) {
                mb_kin_set_independent(kin, stages + (size_t)i * n2, dof);
                for (int r = 0; r < n2; ++r) kbar[r] = h * b[i] * lam[r] + (i < 3 ? cnext[i] * ybar[r] : 0);
                if (hist) {
                    /* The stage's history: the first reads the steps before, the others this step's first too. The
                     * first stage's zdd is this step's sample: its adjoint from the later extrapolations joins. */
                    mb_rod_history_load(hist, i == 0 ? sh + (size_t)(q - start) * snap : h1);
                    if (i == 0) {
                        double *aq = abar + (size_t)(q % 4) * n;
                        for (int r = 0; r < n; ++r) kbar[n + r] += aq[r];
                        memset(aq, 0, (size_t)n * sizeof(double));
                    }
                }
                double ts = tq + (i == 0 ? 0 : i == 3 ? h : 0.5 * h);
                if (!x.rods) {
                    if ((rc = mr_vjp(&A, ts, Ys + (size_t)i * n2, c->integrand, h * b[i], kbar, ybar, grad, err,
                                     errlen)))
                        goto done;
                    for (int cc = 0; cc < 2 * A.d; ++cc) ysum[A.col[cc]] += ybar[A.col[cc]];
                    continue;
                }
                if ((rc = mr_jac(&A, ts, Ys + (size_t)i * n2, c->integrand, err, errlen))) goto done;
                memset(ybar, 0, (size_t)n2 * sizeof(double));
                for (int cc = 0; cc < 2 * A.d; ++cc) {
                    double v = h * b[i] * A.gx[cc];
                    for (int r = 0; r < n2; ++r) v += A.J[r + (size_t)cc * n2] * kbar[r];
                    ybar[A.col[cc]] = v;
                    ysum[A.col[cc]] += v;
                }
                for (int j = 0; j < np; ++j) {
                    double v = h * b[i] * A.gp[j];
                    for (int r = 0; r < n2; ++r) v += A.Jp[r + (size_t)j * n2] * kbar[r];
                    grad[j] += v;
                }
                if (A.rods) {
                    /* The stage's zdd, read by the integrand and by k_i, also moved with the samples it extrapolated. */
                    for (int r = 0; r < n; ++r) A.gzdd[r] = kbar[n + r] + h * b[i] * A.gzdd[r];
                    rod_adjoint(&A, tq + (i == 0 ? 0 : i == 3 ? h : 0.5 * h), pr->t0, h, A.gzdd, abar);
                }
            }
            for (int r = 0; r < n2; ++r) lam[r] += ysum[r];
        }
    }
    boundary_term(pr, lam, n, np, grad);
done:
    st->rhs_evals = x.evals;
    free(ck);
    free(cks);
    free(steps);
    free(stages);
    free(seg);
    free(k);
    free(Ys);
    free(tmp);
    free(A.col);
    free(A.yb);
    free(A.J);
    free(A.Jp);
    free(A.gx);
    free(A.gp);
    free(vec);
    free(ckh);
    free(sh);
    free(h1);
    free(abar);
    free(A.Dz);
    free(A.eye);
    free(A.gzdd);
    free(A.l);
    free(A.gu);
    mr_free(&x);
    return rc;
}
