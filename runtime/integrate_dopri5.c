/* integrate_dopri5.c: the Dormand-Prince 5(4) pair with step-size control, FSAL and 4th-order dense output. */
#include <stdlib.h>
#include <string.h>

#include "integrate.h"

/* Butcher tableau (Dormand & Prince 1980; Hairer, Norsett & Wanner, Solving ODE I, II.5). */
static const double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
static const double a21 = 1.0 / 5;
static const double a31 = 3.0 / 40, a32 = 9.0 / 40;
static const double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
static const double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
static const double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176,
                    a65 = -5103.0 / 18656;
static const double a71 = 35.0 / 384, a73 = 500.0 / 1113, a74 = 125.0 / 192, a75 = -2187.0 / 6784,
                    a76 = 11.0 / 84;
/* Difference of the 5th- and 4th-order weights: the local error estimate. */
static const double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200,
                    e6 = 22.0 / 525, e7 = -1.0 / 40;
/* The continuous extension of order 4 (Hairer's DOPRI5 code, CONTD5). */
static const double d1 = -12715105075.0 / 11282082432.0, d3 = 87487479700.0 / 32700410799.0,
                    d4 = -10690763975.0 / 1880347072.0, d5 = 701980252875.0 / 199316789632.0,
                    d6 = -1453857185.0 / 822651844.0, d7 = 69997945.0 / 29380423.0;

struct mb_dopri5 {
    int n;
    mb_dopri5_opts o;
    double t, h;            /* internal time and the next step to try */
    double t_old, h_old;    /* the last accepted step, for dense output */
    int started, have_dense, last_rejected;
    int worst;              /* component with the largest scaled error in the last attempt */
    double *y, *k1, *k2, *k3, *k4, *k5, *k6, *k7, *ys, *yn;
    double *rc;             /* 5n: coefficients of the dense-output polynomial */
    mb_step_hook *hook;     /* told every accepted step (mb_dopri5_set_step_hook) */
    void *hook_ctx;
};

void mb_dopri5_set_step_hook(mb_dopri5 *dp, mb_step_hook *hook, void *ctx) {
    dp->hook = hook;
    dp->hook_ctx = ctx;
}

void mb_dopri5_opts_default(mb_dopri5_opts *o) {
    o->rtol = 1e-6;
    o->atol = 1e-6;
    o->h0 = 0;
    o->h_min = 0;
    o->h_max = 0;
    o->safety = 0.9;
    o->fac_min = 0.2;
    o->fac_max = 10;
    o->max_steps = 100000;
    o->stop_at_out = 0;
}

void mb_dopri5_free(mb_dopri5 *dp) {
    if (!dp) return;
    double *bufs[] = {dp->y, dp->k1, dp->k2, dp->k3, dp->k4, dp->k5, dp->k6, dp->k7, dp->ys, dp->yn, dp->rc};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) free(bufs[i]);
    free(dp);
}

mb_dopri5 *mb_dopri5_create(int n, const mb_dopri5_opts *o, char *err, size_t errlen) {
    mb_dopri5_opts d;
    mb_dopri5_opts_default(&d);
    if (!o) o = &d;
    if (n < 1) {
        mb_fail(err, errlen, MB_ERR_ARG, "dopri5: system size %d", n);
        return NULL;
    }
    if (!(o->rtol >= 0) || !(o->atol >= 0) || !(o->rtol + o->atol > 0) || !isfinite(o->rtol + o->atol)) {
        mb_fail(err, errlen, MB_ERR_ARG, "dopri5: tolerances rtol = %g, atol = %g must be >= 0, not both 0",
                o->rtol, o->atol);
        return NULL;
    }
    if (!(o->h0 >= 0) || !(o->h_min >= 0) || !(o->h_max >= 0) || !(o->safety > 0 && o->safety <= 1) ||
        !(o->fac_min > 0 && o->fac_min < 1) || !(o->fac_max > 1) || !isfinite(o->h0 + o->h_min + o->h_max + o->fac_max)) {
        mb_fail(err, errlen, MB_ERR_ARG, "dopri5: bad step-size options (h0 %g, h_min %g, h_max %g, safety %g, "
                "fac_min %g, fac_max %g)", o->h0, o->h_min, o->h_max, o->safety, o->fac_min, o->fac_max);
        return NULL;
    }
    mb_dopri5 *dp = calloc(1, sizeof *dp);
    int okay = dp != NULL;
    if (okay) {
        dp->n = n;
        dp->o = *o;
        double **bufs[] = {&dp->y, &dp->k1, &dp->k2, &dp->k3, &dp->k4, &dp->k5, &dp->k6, &dp->k7, &dp->ys, &dp->yn};
        for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i)
            okay &= (*bufs[i] = calloc((size_t)n, sizeof(double))) != NULL;
        okay &= (dp->rc = calloc(5 * (size_t)n, sizeof(double))) != NULL;
    }
    if (!okay) {
        mb_dopri5_free(dp);
        mb_fail(err, errlen, MB_ERR_ALLOC, "dopri5: out of memory (n = %d)", n);
        return NULL;
    }
    return dp;
}

double mb_dopri5_time(const mb_dopri5 *dp) { return dp->t; }
double mb_dopri5_step(const mb_dopri5 *dp) { return dp->h; }

static double weight(const mb_dopri5 *dp, double a, double b) {
    return dp->o.atol + dp->o.rtol * fmax(fabs(a), fabs(b));
}

/* Hairer's HINIT: a step whose Euler error is about 1% of the tolerance, limited
 * by the second derivative estimated from one extra evaluation. */
static int initial_step(mb_dopri5 *dp, mb_ode_fn *f, void *ctx, mb_stats *st, char *err, size_t errlen) {
    int n = dp->n;
    double dnf = 0, dny = 0, h;
    for (int i = 0; i < n; ++i) {
        double sk = weight(dp, dp->y[i], dp->y[i]);
        dnf += (dp->k1[i] / sk) * (dp->k1[i] / sk);
        dny += (dp->y[i] / sk) * (dp->y[i] / sk);
    }
    h = (dnf <= 1e-10 || dny <= 1e-10) ? 1e-6 : sqrt(dny / dnf) * 0.01;
    /* Absurd tolerances (1e-300) overflow the scaled norms (inf / inf): fall back. */
    if (!(h > 0) || !isfinite(h)) h = 1e-6;
    if (dp->o.h_max > 0) h = fmin(h, dp->o.h_max);
    for (int i = 0; i < n; ++i) dp->ys[i] = dp->y[i] + h * dp->k1[i];
    int rc = f(ctx, dp->t + h, dp->ys, dp->k2, err, errlen);
    if (rc) return rc;
    st->rhs_evals++;
    double der2 = 0;
    for (int i = 0; i < n; ++i) {
        double sk = weight(dp, dp->y[i], dp->y[i]), q = (dp->k2[i] - dp->k1[i]) / sk;
        der2 += q * q;
    }
    der2 = sqrt(der2) / h;
    double der12 = fmax(fabs(der2), sqrt(dnf));
    double h1 = der12 <= 1e-15 ? fmax(1e-6, h * 1e-3) : pow(0.01 / der12, 0.2);
    h = fmin(100 * h, h1);
    if (isnan(h)) h = 1e-6; /* as above: NaN must never become a step */
    if (dp->o.h_max > 0) h = fmin(h, dp->o.h_max);
    dp->h = h;
    return MB_OK;
}

int mb_dopri5_reset(mb_dopri5 *dp, mb_ode_fn *f, void *ctx, double t, const double *y, mb_stats *st,
                    char *err, size_t errlen) {
    if (!isfinite(t)) return mb_fail(err, errlen, MB_ERR_ARG, "dopri5: start time %g", t);
    for (int i = 0; i < dp->n; ++i)
        if (!isfinite(y[i])) return mb_fail(err, errlen, MB_ERR_NAN, "dopri5: start value y[%d] = %g", i, y[i]);
    dp->started = 0;
    dp->t = t;
    memcpy(dp->y, y, (size_t)dp->n * sizeof(double));
    int rc = f(ctx, t, dp->y, dp->k1, err, errlen);
    if (rc) return rc;
    st->rhs_evals++;
    dp->have_dense = 0;
    dp->last_rejected = 0;
    if (dp->o.h0 > 0) dp->h = dp->o.h_max > 0 ? fmin(dp->o.h0, dp->o.h_max) : dp->o.h0;
    else if ((rc = initial_step(dp, f, ctx, st, err, errlen))) return rc;
    dp->started = 1;
    return MB_OK;
}

/* One attempt with step h from (t, y). Returns the error norm through *enorm
 * (infinity when the stages went non-finite) and leaves y_new in yn, f there in k7. */
static int attempt(mb_dopri5 *dp, mb_ode_fn *f, void *ctx, double h, double *enorm, mb_stats *st, char *err,
                   size_t errlen) {
    int n = dp->n, rc;
    double t = dp->t, *y = dp->y, *ys = dp->ys;
    double *k1 = dp->k1, *k2 = dp->k2, *k3 = dp->k3, *k4 = dp->k4, *k5 = dp->k5, *k6 = dp->k6, *k7 = dp->k7;
    for (int i = 0; i < n; ++i) ys[i] = y[i] + h * a21 * k1[i];
    if ((rc = f(ctx, t + c2 * h, ys, k2, err, errlen))) return rc;
    for (int i = 0; i < n; ++i) ys[i] = y[i] + h * (a31 * k1[i] + a32 * k2[i]);
    if ((rc = f(ctx, t + c3 * h, ys, k3, err, errlen))) return rc;
    for (int i = 0; i < n; ++i) ys[i] = y[i] + h * (a41 * k1[i] + a42 * k2[i] + a43 * k3[i]);
    if ((rc = f(ctx, t + c4 * h, ys, k4, err, errlen))) return rc;
    for (int i = 0; i < n; ++i) ys[i] = y[i] + h * (a51 * k1[i] + a52 * k2[i] + a53 * k3[i] + a54 * k4[i]);
    if ((rc = f(ctx, t + c5 * h, ys, k5, err, errlen))) return rc;
    for (int i = 0; i < n; ++i)
        ys[i] = y[i] + h * (a61 * k1[i] + a62 * k2[i] + a63 * k3[i] + a64 * k4[i] + a65 * k5[i]);
    if ((rc = f(ctx, t + h, ys, k6, err, errlen))) return rc;
    for (int i = 0; i < n; ++i)
        dp->yn[i] = y[i] + h * (a71 * k1[i] + a73 * k3[i] + a74 * k4[i] + a75 * k5[i] + a76 * k6[i]);
    if ((rc = f(ctx, t + h, dp->yn, k7, err, errlen))) return rc;
    st->rhs_evals += 6;
    double s = 0, qmax = -1;
    for (int i = 0; i < n; ++i) {
        double e = h * (e1 * k1[i] + e3 * k3[i] + e4 * k4[i] + e5 * k5[i] + e6 * k6[i] + e7 * k7[i]);
        double q = e / weight(dp, y[i], dp->yn[i]);
        s += q * q;
        if (!(fabs(q) <= qmax)) {
            qmax = isnan(q) ? INFINITY : fabs(q);
            dp->worst = i;
        }
    }
    s = sqrt(s / n);
    *enorm = isfinite(s) ? s : INFINITY;
    return MB_OK;
}

/* Accepts the attempt: dense-output coefficients first (they need the old y), then FSAL. */
static void accept(mb_dopri5 *dp, double h) {
    int n = dp->n;
    if (dp->hook) dp->hook(dp->hook_ctx, dp->t, h, dp->y);
    double *r1 = dp->rc, *r2 = r1 + n, *r3 = r2 + n, *r4 = r3 + n, *r5 = r4 + n;
    for (int i = 0; i < n; ++i) {
        double ydiff = dp->yn[i] - dp->y[i], bspl = h * dp->k1[i] - ydiff;
        r1[i] = dp->y[i];
        r2[i] = ydiff;
        r3[i] = bspl;
        r4[i] = ydiff - h * dp->k7[i] - bspl;
        r5[i] = h * (d1 * dp->k1[i] + d3 * dp->k3[i] + d4 * dp->k4[i] + d5 * dp->k5[i] + d6 * dp->k6[i] +
                     d7 * dp->k7[i]);
    }
    dp->t_old = dp->t;
    dp->h_old = h;
    dp->have_dense = 1;
    dp->t += h;
    double *tmp = dp->y;
    dp->y = dp->yn;
    dp->yn = tmp;
    tmp = dp->k1;
    dp->k1 = dp->k7; /* first same as last: f(t_new, y_new) is the next step's first stage */
    dp->k7 = tmp;
}

static void dense(const mb_dopri5 *dp, double t, double *out) {
    int n = dp->n;
    const double *r1 = dp->rc, *r2 = r1 + n, *r3 = r2 + n, *r4 = r3 + n, *r5 = r4 + n;
    double th = (t - dp->t_old) / dp->h_old, th1 = 1 - th;
    for (int i = 0; i < n; ++i) out[i] = r1[i] + th * (r2[i] + th1 * (r3[i] + th * (r4[i] + th1 * r5[i])));
}

int mb_dopri5_worst(const mb_dopri5 *dp) { return dp->worst; }

int mb_dopri5_advance(mb_dopri5 *dp, mb_ode_fn *f, void *ctx, double t_out, double *y_out, mb_stats *st,
                      char *err, size_t errlen) {
    if (!dp->started) return mb_fail(err, errlen, MB_ERR_ARG, "dopri5: advance before reset");
    double t_first = dp->have_dense ? dp->t_old : dp->t;
    if (!isfinite(t_out) || t_out < t_first)
        return mb_fail(err, errlen, MB_ERR_ARG, "dopri5: output time %g lies before %.10g", t_out, t_first);
    long attempts = 0;
    const mb_dopri5_opts *o = &dp->o;
    while (dp->t < t_out) {
        if (o->max_steps > 0 && attempts >= o->max_steps)
            return mb_fail(err, errlen, MB_ERR_MAX_STEPS,
                           "dopri5: more than max_steps = %ld steps between t = %.10g and t_out = %g (h = %g)",
                           o->max_steps, t_first, t_out, dp->h);
        double h = dp->h;
        if (o->h_max > 0) h = fmin(h, o->h_max);
        /* Below 16 ulps of the times involved the step no longer moves t
         * reliably (t_out too, so that a start at t = 0 has a limit). */
        double h_lim = fmax(o->h_min, 16 * DBL_EPSILON * fmax(fabs(dp->t), fabs(t_out)));
        if (o->stop_at_out) {
            /* There already, to the rounding of t. */
            if (t_out - dp->t <= 16 * DBL_EPSILON * fmax(fabs(dp->t), fabs(t_out))) break;
            if (dp->t + h > t_out) h = t_out - dp->t;
        }
        if (!(h >= h_lim))
            return mb_fail(err, errlen, MB_ERR_STEP_UNDERFLOW,
                           "dopri5: step size %.3g at t = %.10g fell below its limit %.3g (singular or too stiff "
                           "a problem, or a tolerance too tight)", h, dp->t, h_lim);
        double enorm;
        int rc = attempt(dp, f, ctx, h, &enorm, st, err, errlen);
        if (rc) return rc;
        ++attempts;
        /* Optimal factor for a 5th-order local error estimate of a 4th-order
         * solution (exponent 1/5), damped by the safety factor. */
        double fac = enorm == 0 ? o->fac_max : fmin(o->fac_max, fmax(o->fac_min, o->safety * pow(enorm, -0.2)));
        if (enorm <= 1) {
            accept(dp, h);
            st->steps++;
            if (dp->last_rejected) fac = fmin(fac, 1); /* just failed with a larger step: do not grow yet */
            dp->last_rejected = 0;
            dp->h = h * fac;
        } else {
            st->rejected++;
            dp->last_rejected = 1;
            dp->h = h * fmin(fac, 1.0);
        }
    }
    if (t_out == dp->t || o->stop_at_out) memcpy(y_out, dp->y, (size_t)dp->n * sizeof(double));
    else dense(dp, t_out, y_out);
    return MB_OK;
}
